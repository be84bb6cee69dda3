"""Model backends of ``jiezi eval``: ``openai:``, ``hf:`` and the offline ``retrieval`` baseline.

A backend turns a batch of :class:`Request` objects into answer texts
(``generate(requests) -> list[str]``); an exception fails that batch only (the runner
records it per item and goes on). Messages use the Hugging Face chat format::

    {"role": "system" | "user" | "assistant",
     "content": [{"type": "image", "image": PIL.Image}, {"type": "text", "text": "..."}]}

Model specs (``--model``):

- ``openai:MODEL@BASE_URL`` (``@BASE_URL`` optional, default the OpenAI API): any
  OpenAI-compatible chat-completions server (vLLM, SGLang, LMDeploy, Ollama, commercial
  APIs); images travel as ``data:image/png;base64`` URLs; the key is read from
  ``$OPENAI_API_KEY`` or ``$JIEZI_API_KEY`` (none is sent when neither is set).
- ``hf:PATH_OR_ID``: a local transformers VLM (``AutoModelForImageTextToText`` +
  processor + chat template), batched, greedy; device auto: cuda, then npu (torch_npu),
  then cpu.
- ``retrieval``: the offline JieZi baseline (:mod:`harness.retrieval`).
"""

from __future__ import annotations

import base64
import io
import os
import time
from dataclasses import dataclass, field

API_KEY_ENVS = ("OPENAI_API_KEY", "JIEZI_API_KEY")
DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"


class ModelSpecError(ValueError):
    """A ``--model`` value that is not ``openai:MODEL@URL``, ``hf:PATH`` or ``retrieval``."""


@dataclass
class ModelSpec:
    """A parsed ``--model`` value: ``kind`` is ``openai``, ``hf`` or ``retrieval``."""

    kind: str
    name: str
    base_url: str | None = None

    def __str__(self) -> str:
        if self.kind == "openai":
            return f"openai:{self.name}@{self.base_url}"
        if self.kind == "hf":
            return f"hf:{self.name}"
        return "retrieval"


def parse_model_spec(spec: str) -> ModelSpec:
    """Parse ``openai:MODEL@BASE_URL``, ``openai:MODEL``, ``hf:PATH_OR_ID`` or ``retrieval``.

    The base URL must start with ``http://`` or ``https://`` (a model name may itself
    contain ``@``; only the last ``@http...`` part is the URL). Raises
    :class:`ModelSpecError` naming the value and the accepted forms.
    """
    text = (spec or "").strip()
    forms = "expected openai:MODEL@BASE_URL, hf:PATH_OR_ID or retrieval"
    if text == "retrieval":
        return ModelSpec("retrieval", "jiezi-retrieval")
    if text.startswith("openai:"):
        rest = text[len("openai:"):]
        name, base = rest, DEFAULT_OPENAI_BASE_URL
        at = rest.rfind("@")
        if at >= 0 and rest[at + 1:].startswith(("http://", "https://")):
            name, base = rest[:at], rest[at + 1:]
        elif at >= 0 and rest[at + 1:]:
            raise ModelSpecError(f"--model {spec!r}: the part after '@' must be an http(s) URL; {forms}")
        if not name:
            raise ModelSpecError(f"--model {spec!r}: no model name; {forms}")
        return ModelSpec("openai", name, base.rstrip("/"))
    if text.startswith("hf:"):
        name = text[3:]
        if not name:
            raise ModelSpecError(f"--model {spec!r}: no model path or Hub id; {forms}")
        return ModelSpec("hf", name)
    raise ModelSpecError(f"--model {spec!r}: unknown backend; {forms}")


@dataclass
class Request:
    """One question to a backend: ``key`` (prediction id), the chat ``messages``, and
    for the retrieval baseline the bench row's ``image_id`` and question ``kind``."""

    key: str
    messages: list[dict]
    image_id: str = ""
    kind: str = ""
    extra: dict = field(default_factory=dict)


def image_data_url(image) -> str:
    """A PIL image as a ``data:image/png;base64,...`` URL (RGB or L kept, others to RGB)."""
    if image.mode not in ("RGB", "L"):
        image = image.convert("RGB")
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def to_openai_messages(messages: list[dict]) -> list[dict]:
    """HF chat messages -> OpenAI chat-completions messages (images as data URLs; a
    text-only turn as a plain string)."""
    out = []
    for m in messages:
        parts = []
        for p in m["content"]:
            if p["type"] == "image":
                parts.append({"type": "image_url", "image_url": {"url": image_data_url(p["image"])}})
            else:
                parts.append({"type": "text", "text": p["text"]})
        if all(p["type"] == "text" for p in parts):
            out.append({"role": m["role"], "content": "\n".join(p["text"] for p in parts)})
        else:
            out.append({"role": m["role"], "content": parts})
    return out


class OpenAIBackend:
    """Chat completions through the ``openai`` client (retries with exponential backoff
    and jitter on connection errors, 408/409/429 and 5xx, honouring ``Retry-After``).

    ``max_tokens``: answer length limit; ``temperature``: 0 = greedy; ``timeout``: seconds
    per request; ``max_retries``: further attempts after a retryable failure.
    """

    kind = "openai"
    batch_size = 1
    default_concurrency = 8

    def __init__(self, spec: ModelSpec, *, max_tokens: int = 1024, temperature: float = 0.0, timeout: float = 120.0,
                 max_retries: int = 4, api_key: str | None = None):
        from openai import OpenAI

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
                "image_encoding": "PNG data URL"}

    def generate(self, requests: list[Request]) -> list[str]:
        """One chat-completions call per request; raises the client's error on failure."""
        out = []
        for req in requests:
            resp = self.client.chat.completions.create(
                model=self.spec.name, messages=to_openai_messages(req.messages),
                max_tokens=self.max_tokens, temperature=self.temperature)
            content = resp.choices[0].message.content
            if isinstance(content, list):
                content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
            out.append(content or "")
        return out


def auto_device() -> str:
    """``cuda`` when available, else ``npu`` when torch_npu is installed and sees a
    device, else ``cpu``."""
    import torch

    if torch.cuda.is_available():
        return "cuda"
    try:
        import torch_npu  # noqa: F401  (registers torch.npu)

        if torch.npu.is_available():
            return "npu"
    except Exception:  # not installed, or no Ascend driver
        pass
    return "cpu"


class HFBackend:
    """A local transformers VLM, batched greedy generation.

    ``device``: ``auto`` (:func:`auto_device`), ``cuda``, ``npu``, ``cpu`` or e.g.
    ``cuda:1``; ``dtype``: ``auto`` (bfloat16 on cuda/npu, float32 on cpu) or a torch
    dtype name; ``batch_size``: questions per ``generate`` call (left padding);
    ``max_new_tokens``: answer length limit. The processor is loaded with
    ``training.processor.load_processor`` (which also works without torchvision).
    """

    kind = "hf"
    default_concurrency = 1

    def __init__(self, spec: ModelSpec, *, device: str = "auto", dtype: str = "auto", batch_size: int = 8,
                 max_new_tokens: int = 1024, trust_remote_code: bool = False):
        import torch
        from transformers import AutoModelForImageTextToText

        self.spec = spec
        self.device = auto_device() if device == "auto" else device
        if dtype == "auto":
            self.dtype = torch.bfloat16 if self.device.split(":")[0] in ("cuda", "npu") else torch.float32
        else:
            self.dtype = getattr(torch, dtype)
        self.batch_size = int(batch_size)
        self.max_new_tokens = int(max_new_tokens)
        self.processor = _load_processor(spec.name, trust_remote_code=trust_remote_code)
        tok = getattr(self.processor, "tokenizer", None)
        if tok is not None:
            tok.padding_side = "left"  # decoder-only generation continues from the right end
        self.model = AutoModelForImageTextToText.from_pretrained(spec.name, dtype=self.dtype,
                                                                 trust_remote_code=trust_remote_code)
        self.model.to(self.device).eval()

    def settings(self) -> dict:
        """Model and decoding settings for results.json."""
        cfg = self.model.config
        return {"backend": "hf", "model": self.spec.name, "model_type": getattr(cfg, "model_type", None),
                "device": self.device, "dtype": str(self.dtype).replace("torch.", ""), "batch_size": self.batch_size,
                "max_new_tokens": self.max_new_tokens, "decoding": "greedy (do_sample=False)",
                "processor": type(self.processor).__name__}

    def generate(self, requests: list[Request]) -> list[str]:
        """Answer a batch with one ``model.generate`` call; returns the decoded new tokens."""
        import torch

        conversations = [r.messages for r in requests]
        # Qwen3.5's chat templates open a thinking block unless told not to; JieZi answers
        # (and the training recipes) have none. Templates without the switch ignore it.
        inputs = self.processor.apply_chat_template(
            conversations, add_generation_prompt=True, tokenize=True, return_dict=True, return_tensors="pt",
            padding=True, enable_thinking=False)
        inputs = inputs.to(self.device)
        if "pixel_values" in inputs and inputs["pixel_values"].is_floating_point():
            inputs["pixel_values"] = inputs["pixel_values"].to(self.dtype)
        tok = getattr(self.processor, "tokenizer", self.processor)
        with torch.inference_mode():
            out = self.model.generate(**inputs, max_new_tokens=self.max_new_tokens, do_sample=False,
                                      pad_token_id=tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id)
        new = out[:, inputs["input_ids"].shape[1]:]
        return [t.strip() for t in self.processor.batch_decode(new, skip_special_tokens=True)]


def _load_processor(path: str, **kwargs):
    try:
        from training.processor import load_processor
    except ImportError:  # the harness alone (e.g. in a Space without training/)
        from transformers import AutoProcessor

        return AutoProcessor.from_pretrained(path, **kwargs)
    kwargs = {k: v for k, v in kwargs.items() if v}
    return load_processor(path, **kwargs)


class RetrievalBackend:
    """The offline baseline as a backend: :meth:`prepare` embeds the bench images and finds
    their neighbours once; :meth:`generate` answers from them (no model call)."""

    kind = "retrieval"
    batch_size = 256
    default_concurrency = 1

    def __init__(self, baseline):
        self.baseline = baseline
        self._neighbours: dict[str, tuple] = {}

    def settings(self) -> dict:
        """Baseline settings and gallery facts for results.json."""
        return {"backend": "retrieval", "model": "jiezi-retrieval", **self.baseline.describe()}

    def prepare(self, neighbours: dict[str, tuple]) -> None:
        """Take the neighbours ``{image_id: (sims, idx)}`` of every bench image."""
        self._neighbours = neighbours

    def generate(self, requests: list[Request]) -> list[str]:
        """Answer each request from its image's neighbours. Raises ``KeyError`` naming an
        image id that :meth:`prepare` did not cover."""
        out = []
        for req in requests:
            if req.image_id not in self._neighbours:
                raise KeyError(f"retrieval: no neighbours for image {req.image_id!r}")
            sims, idx = self._neighbours[req.image_id]
            out.append(self.baseline.answer(sims, idx, req.kind))
        return out


def timed(fn, *args):
    """``(result, seconds)`` of ``fn(*args)`` (wall clock)."""
    t0 = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - t0
