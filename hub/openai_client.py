"""The one OpenAI-compatible chat client of the project, and its reply cache.

Every call to a ``/chat/completions`` server made by project code goes through
:class:`ChatClient`: the ``jiezi eval`` / Space ``openai:`` backend
(``harness.eval.backends.openai_chat``), the LLM structurizer of the records stage
(``builder.records.llm_structurize``) and the QA polisher (``builder.qa.polish``). It is the
``openai`` package's client, so retries and timeouts are that package's: a request is tried
again after a connection error, a timeout, HTTP 408, 409, 429 or 5xx, ``max_retries`` times,
waiting the server's ``Retry-After`` (up to 60 s) or an exponential back-off with jitter
(0.5 s doubling up to 8 s); ``timeout`` bounds each attempt. The EVOI judge
(``metrics.acce.judge.OpenAIJudge``) uses the same package with the same defaults
(:data:`DEFAULT_TIMEOUT`, :data:`DEFAULT_MAX_RETRIES`): ``metrics/acce`` is published alone
as the ``jiezi/acce`` evaluate module and cannot import this package, so it states them
again, and ``tests/test_hub_openai_client.py`` checks that the two agree.

:class:`ReplyCache` is the one cache of replies: JSON Lines ``{"key", "reply"}`` appended as
replies arrive (a resumed build asks nothing twice), read back at open (a line cut off by a
crash is ignored). Callers store what they accepted (the structurizer the parsed reading,
the polisher the checked text) under :func:`cache_key` of what determines it.

The ``openai`` package is imported on the first request, so importing this module is cheap.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

DEFAULT_TIMEOUT = 120.0  # seconds per attempt
DEFAULT_MAX_RETRIES = 4  # further attempts after a retryable failure


class ChatError(RuntimeError):
    """No usable reply: the server could not be reached or answered with an error once the
    client's retries were spent (the message starts with the ``openai`` exception's name;
    ``__cause__`` is that exception), or the reply carried no message."""


@dataclass(frozen=True)
class ChatReply:
    """One reply: the message ``text`` (content parts joined; ``""`` for no content) and the
    ``finish_reason`` (``"stop"``, ``"length"`` for a reply cut at ``max_tokens``, ...)."""

    text: str
    finish_reason: str | None = None


def cache_key(*parts: str) -> str:
    """SHA-256 (hex) of ``parts`` joined by newlines: the key of a cached reply (the parts
    name everything the reply depends on: model, prompt version, input text)."""
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()


class ChatClient:
    """Chat completions against ``base_url`` (e.g. ``http://127.0.0.1:8000/v1``) with
    ``model``. ``api_key`` is sent as a bearer token (local servers need none: ``"no-key"``
    is sent then, as the ``openai`` client insists on one); ``timeout`` (seconds per attempt)
    and ``max_retries`` as in the module docstring. Safe to share between threads; a
    forked process opens its own connections."""

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None,
                 timeout: float = DEFAULT_TIMEOUT, max_retries: int = DEFAULT_MAX_RETRIES):
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self._client = None
        self._pid = None
        self._lock = threading.Lock()

    def __getstate__(self) -> dict:
        # the openai client holds sockets and locks: a copy sent to a worker opens its own
        return {**self.__dict__, "_client": None, "_pid": None, "_lock": None}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, _lock=threading.Lock())

    def _openai(self):
        with self._lock:
            if self._client is None or self._pid != os.getpid():
                from openai import OpenAI

                self._client = OpenAI(base_url=self.base_url, api_key=self.api_key or "no-key",
                                      timeout=self.timeout, max_retries=self.max_retries)
                self._pid = os.getpid()
            return self._client

    def describe(self) -> dict:
        """The client's settings (never the key)."""
        return {"base_url": self.base_url, "model": self.model, "timeout_s": self.timeout,
                "max_retries": self.max_retries}

    def complete(self, messages: list[dict], **params) -> ChatReply:
        """One chat completion of ``messages`` (OpenAI format); ``params`` go to
        ``chat.completions.create`` as they are (``max_tokens``, ``temperature``,
        ``response_format``, ``extra_body``, ``reasoning_effort`` ...). Raises
        :class:`ChatError` when no usable reply came back."""
        from openai import APIError

        try:
            resp = self._openai().chat.completions.create(model=self.model, messages=messages, **params)
        except APIError as exc:
            raise ChatError(f"{type(exc).__name__}: {exc}") from exc
        except ValueError as exc:  # a body that is not JSON (the client parses it after its retries)
            raise ChatError(f"malformed reply from {self.base_url}: {type(exc).__name__}: {exc}") from exc
        choices = getattr(resp, "choices", None)
        if not choices or getattr(choices[0], "message", None) is None:
            raise ChatError(f"malformed reply from {self.base_url}: no message in {str(resp)[:200]!r}")
        content = choices[0].message.content
        if isinstance(content, list):  # content parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        return ChatReply(content or "", choices[0].finish_reason)


class ReplyCache:
    """Replies stored as JSON Lines at ``path`` (see the module docstring); ``get`` and
    ``put`` are safe between threads. Values are any JSON value."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._values: dict[str, object] = {}
        self._lock = threading.Lock()
        if self.path.is_file():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    row = json.loads(line)
                    self._values[row["key"]] = row["reply"]
                except (ValueError, KeyError, TypeError):
                    continue  # a line cut off by a crash

    def __len__(self) -> int:
        return len(self._values)

    def get(self, key: str, default=None):
        """The value stored under ``key``, else ``default``."""
        with self._lock:
            return self._values.get(key, default)

    def put(self, key: str, value) -> None:
        """Store ``value`` under ``key`` and append it to the file (one ``write`` of a full line)."""
        line = json.dumps({"key": key, "reply": value}, ensure_ascii=False) + "\n"
        with self._lock:
            self._values[key] = value
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.write(line)
