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

API_KEY_ENVS = ("OPENAI_API_KEY", "JIEZI_API_KEY")
DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"


class OpenAIBackend(Backend):
    """Chat completions through the ``openai`` client (retries with exponential backoff
    and jitter on connection errors, 408/409/429 and 5xx, honouring ``Retry-After``).

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

    def __init__(self, spec: ModelSpec, *, max_tokens: int = 1024, temperature: float = 0.0, timeout: float = 120.0,
                 max_retries: int = 4, api_key: str | None = None, thinking: str | None = None,
                 thinking_budget: str | None = None):
        from openai import OpenAI

        self._thinking_kwargs, self.thinking = thinking_setting.openai_setting(thinking, thinking_budget)
        self.spec = spec
        self.max_tokens = int(max_tokens)
        self.temperature = float(temperature)
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        key = api_key or next((os.environ[e] for e in API_KEY_ENVS if os.environ.get(e)), None)
        self.key_source = "argument" if api_key else next((e for e in API_KEY_ENVS if os.environ.get(e)), None)
        # Local servers need no key; the client insists on a string, and sends it as a bearer token.
        self.client = OpenAI(base_url=spec.base_url, api_key=key or "no-key", timeout=self.timeout,
                             max_retries=self.max_retries)

    def settings(self) -> dict:
        """Model and decoding settings for results.json (never the key itself)."""
        return {"backend": "openai", "model": self.spec.name, "base_url": self.spec.base_url,
                "max_tokens": self.max_tokens, "temperature": self.temperature, "timeout_s": self.timeout,
                "max_retries": self.max_retries, "api_key_from": self.key_source,
                "image_encoding": "PNG data URL", "thinking": self.thinking}

    def generate(self, requests: list[Request]) -> list[str]:
        """One chat-completions call per request; raises the client's error on failure."""
        out = []
        for req in requests:
            resp = self.client.chat.completions.create(
                model=self.spec.name, messages=to_openai_messages(req.messages),
                max_tokens=self.max_tokens, temperature=self.temperature, **self._thinking_kwargs)
            content = resp.choices[0].message.content
            if isinstance(content, list):
                content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
            out.append(thinking_setting.strip_thinking(content or ""))
        return out
