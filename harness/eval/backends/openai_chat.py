"""``openai:MODEL@BASE_URL``: any OpenAI-compatible chat-completions server (vLLM, SGLang,
LMDeploy, Ollama, commercial APIs); ``@BASE_URL`` is optional (default the OpenAI API). Images
travel as ``data:image/png;base64`` URLs; the key is read from ``$OPENAI_API_KEY`` or
``$JIEZI_API_KEY`` (none is sent when neither is set)."""

from __future__ import annotations

import os

from harness.eval import thinking as thinking_setting
from harness.eval.backends.base import (
    Backend,
    BackendOptions,
    ModelSpec,
    ModelSpecError,
    Request,
    accepted_forms,
    to_openai_messages,
)
from hub.openai_client import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, ChatClient

API_KEY_ENVS = ("OPENAI_API_KEY", "JIEZI_API_KEY")
DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"


class OpenAIBackend(Backend):
    """Chat completions through the project's one client (``hub.openai_client.ChatClient``:
    the ``openai`` package's retries with exponential backoff and jitter on connection
    errors, 408/409/429 and 5xx, honouring ``Retry-After``).

    ``max_tokens``: answer length limit; ``temperature``: 0 = greedy; ``timeout``: seconds
    per request; ``max_retries``: further attempts after a retryable failure.
    """

    kind = "openai"
    spec_form = "openai:MODEL@BASE_URL"
    batch_size = 1
    default_concurrency = 8

    @classmethod
    def parse_spec(cls, spec: str, rest: str) -> ModelSpec:
        """``MODEL@BASE_URL`` or ``MODEL`` (default the OpenAI API). The base URL must start
        with ``http://`` or ``https://`` (a model name may itself contain ``@``; only the
        last ``@http...`` part is the URL)."""
        name, base = rest, DEFAULT_OPENAI_BASE_URL
        at = rest.rfind("@")
        if at >= 0 and rest[at + 1:].startswith(("http://", "https://")):
            name, base = rest[:at], rest[at + 1:]
        elif at >= 0 and rest[at + 1:]:
            raise ModelSpecError(f"--model {spec!r}: the part after '@' must be an http(s) URL; {accepted_forms()}")
        if not name:
            raise ModelSpecError(f"--model {spec!r}: no model name; {accepted_forms()}")
        return ModelSpec(cls.kind, name, base.rstrip("/"))

    @classmethod
    def format_spec(cls, spec: ModelSpec) -> str:
        """``openai:MODEL@BASE_URL``."""
        return f"openai:{spec.name}@{spec.base_url}"

    @classmethod
    def create(cls, spec: ModelSpec, options: BackendOptions) -> "OpenAIBackend":
        """An OpenAI-compatible client with ``options``' length, temperature, timeout and retries."""
        return cls(spec, max_tokens=options.max_new_tokens, temperature=options.temperature,
                   timeout=options.timeout, max_retries=options.max_retries, thinking=options.thinking,
                   thinking_budget=options.thinking_budget)

    def __init__(self, spec: ModelSpec, *, max_tokens: int = 1024, temperature: float = 0.0,
                 timeout: float = DEFAULT_TIMEOUT, max_retries: int = DEFAULT_MAX_RETRIES, api_key: str | None = None,
                 thinking: str | None = None, thinking_budget: str | None = None):
        self._thinking_kwargs, self.thinking = thinking_setting.openai_setting(thinking, thinking_budget)
        self.spec = spec
        self.max_tokens = int(max_tokens)
        self.temperature = float(temperature)
        key = api_key or next((os.environ[e] for e in API_KEY_ENVS if os.environ.get(e)), None)
        self.key_source = "argument" if api_key else next((e for e in API_KEY_ENVS if os.environ.get(e)), None)
        self.client = ChatClient(spec.base_url, spec.name, api_key=key, timeout=timeout, max_retries=max_retries)

    def settings(self) -> dict:
        """Model and decoding settings for results.json (never the key itself)."""
        return {"backend": "openai", "model": self.spec.name, "base_url": self.spec.base_url,
                "max_tokens": self.max_tokens, "temperature": self.temperature, "timeout_s": self.client.timeout,
                "max_retries": self.client.max_retries, "api_key_from": self.key_source,
                "image_encoding": "PNG data URL", "thinking": self.thinking}

    def generate(self, requests: list[Request]) -> list[str]:
        """One chat-completions call per request; raises ``hub.openai_client.ChatError`` on failure."""
        out = []
        for req in requests:
            reply = self.client.complete(to_openai_messages(req.messages), max_tokens=self.max_tokens,
                                         temperature=self.temperature, **self._thinking_kwargs)
            out.append(thinking_setting.strip_thinking(reply.text))
        return out
