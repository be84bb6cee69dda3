"""The one fake OpenAI-compatible server of the tests (and benchmarks): a real HTTP server on
127.0.0.1 answering ``POST /v1/chat/completions``, so every client under test (the ``openai``
package in the harness backends, the judge, the LLM structurizer and polisher, lmms-eval, the
Space) goes through its own HTTP stack, retries and timeouts.

What it answers is decided by ``respond(call) -> str | Reply``: a ``str`` is the reply text,
a :class:`Reply` also sets the finish reason, an HTTP status, a raw body, a delay or headers.
Set ``server.respond`` (or pass ``respond=``; a subclass may define the method). Every request
is kept as a :class:`Call` in ``server.calls``; ``max_in_flight`` counts concurrent requests.

    with OpenAIServer(respond=lambda call: "江") as server:
        client = OpenAI(base_url=server.url, api_key="k")

The ``openai_server`` fixture (``tests/conftest.py``) yields a started one, closed after the test.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import threading
import time
from dataclasses import dataclass, field
from functools import cached_property
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable


@dataclass
class Reply:
    """One scripted answer: ``text`` with ``finish_reason``; ``status`` other than 200 sends
    an error (``{"error": {"message": text}}`` unless ``body`` is given); ``body`` (str) is
    sent as it is instead of a chat completion (malformed replies); ``delay`` seconds are
    slept first (timeouts); ``headers`` are added (``Retry-After``)."""

    text: str = ""
    finish_reason: str = "stop"
    status: int = 200
    body: str | None = None
    delay: float = 0.0
    headers: dict = field(default_factory=dict)


@dataclass
class Call:
    """One request as the server saw it: ``path``, the JSON ``body`` and the ``headers``
    (names in lower case)."""

    path: str
    body: dict
    headers: dict

    @property
    def auth(self) -> str | None:
        """The ``Authorization`` header (``Bearer KEY``), or None."""
        return self.headers.get("authorization")

    @property
    def model(self) -> str:
        return self.body.get("model", "")

    @property
    def messages(self) -> list[dict]:
        return self.body.get("messages", [])

    def parts(self, role: str | None = None) -> list[dict]:
        """Every content part of the messages (of ``role`` when given); a plain-string
        content counts as one text part."""
        out = []
        for m in self.messages:
            if role is None or m.get("role") == role:
                content = m.get("content")
                out += content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
        return out

    @property
    def texts(self) -> list[str]:
        """The text parts of the user turns, in order."""
        return [p.get("text", "") for p in self.parts("user") if p.get("type") == "text"]

    @property
    def question(self) -> str:
        """The last user text part ("" when there is none)."""
        return self.texts[-1] if self.texts else ""

    @property
    def prompt(self) -> str:
        """Every text of every message, joined (to look for a marker anywhere)."""
        return "\n".join(p.get("text", "") for p in self.parts() if p.get("type") == "text")

    @cached_property
    def image_bytes(self) -> list[bytes]:
        """The decoded bytes of every ``image_url`` part (``data:`` URLs)."""
        return [base64.b64decode(p["image_url"]["url"].split(",", 1)[1])
                for p in self.parts() if p.get("type") == "image_url"]

    @property
    def image_hashes(self) -> list[str]:
        """SHA-256 (hex) of each image's bytes."""
        return [hashlib.sha256(b).hexdigest() for b in self.image_bytes]

    @property
    def image_sizes(self) -> list[tuple[int, int]]:
        """(width, height) of each image, decoded with PIL."""
        from PIL import Image

        return [Image.open(io.BytesIO(b)).size for b in self.image_bytes]


def completion(model: str, text: str, finish_reason: str = "stop") -> dict:
    """A chat-completions response body with one choice."""
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "finish_reason": finish_reason,
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


class OpenAIServer:
    """A started loopback server (see the module docstring). ``url`` ends in ``/v1``;
    ``close()`` (or leaving the ``with`` block) stops it."""

    def __init__(self, respond: Callable[[Call], str | Reply] | None = None):
        if respond is not None:
            self.respond = respond
        self.calls: list[Call] = []
        self.lock = threading.Lock()
        self.in_flight = self.max_in_flight = 0
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def respond(self, call: Call) -> str | Reply:
        """The default answer: an empty reply."""
        return ""

    def count(self, predicate: Callable[[Call], bool]) -> int:
        """How many calls ``predicate`` holds for."""
        with self.lock:
            return sum(1 for c in self.calls if predicate(c))

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> "OpenAIServer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _handler(server: OpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):  # noqa: N802 (http.server API)
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            if not self.path.endswith("/chat/completions"):
                self.send_error(404)
                return
            call = Call(self.path, body, {k.lower(): v for k, v in self.headers.items()})
            with server.lock:
                server.calls.append(call)
                server.in_flight += 1
                server.max_in_flight = max(server.max_in_flight, server.in_flight)
            try:
                reply = server.respond(call)
                self._send(Reply(reply) if isinstance(reply, str) else reply, call.model)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)
            finally:
                with server.lock:
                    server.in_flight -= 1

        def _send(self, reply: Reply, model: str) -> None:
            if reply.delay:
                time.sleep(reply.delay)
            if reply.body is not None:
                raw = reply.body.encode()
            elif reply.status != 200:
                raw = json.dumps({"error": {"message": reply.text or f"HTTP {reply.status}"}}).encode()
            else:
                raw = json.dumps(completion(model, reply.text, reply.finish_reason), ensure_ascii=False).encode()
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            for k, v in reply.headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(raw)

    return Handler
