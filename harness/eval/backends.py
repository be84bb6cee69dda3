"""Model backends of ``jiezi eval`` and the Space, as a registry: ``openai:``, ``hf:`` and
the offline ``retrieval`` baseline.

A backend is a :class:`Backend` subclass registered in :data:`BACKENDS` under its
``kind``; ``jiezi eval`` (:mod:`harness.eval.run`) and the Space (``space/backends.py``) look a
``--model`` spec up there and never branch on the kind. Adding a backend = one subclass
here (``kind``, ``spec_form``, :meth:`Backend.parse_spec`, :meth:`Backend.create`,
``settings``, ``generate``) and one line in :data:`BACKENDS`.

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
- ``retrieval``: the offline JieZi baseline (:mod:`harness.baselines.retrieval`).
- ``ocr[:MODEL[/closed]]``: PP-OCR from the ``rapidocr`` wheel reading the glyph, the
  other levels from that character's records (:mod:`harness.baselines.ocr_baseline`).
- ``fused[:MODEL]``: PP-OCR and retrieval deciding together (:mod:`harness.baselines.fusion`),
  the default of ``jiezi explain`` and the Space.
"""

from __future__ import annotations

import base64
import io
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from harness.eval import thinking as thinking_setting
from harness.baselines.retrieval import RetrievalSettings, build_baseline

API_KEY_ENVS = ("OPENAI_API_KEY", "JIEZI_API_KEY")
DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"


class ModelSpecError(ValueError):
    """A ``--model`` value that no registered backend accepts (see :data:`BACKENDS`)."""


@dataclass
class ModelSpec:
    """A parsed ``--model`` value: ``kind`` is a key of :data:`BACKENDS` (``openai``,
    ``hf``, ``retrieval``), ``name`` the model, ``base_url`` the server (openai only)."""

    kind: str
    name: str
    base_url: str | None = None

    def __str__(self) -> str:
        return BACKENDS[self.kind].format_spec(self)


def _accepted_forms() -> str:
    forms = [cls.spec_form for cls in BACKENDS.values()]
    return "expected " + (", ".join(forms[:-1]) + " or " + forms[-1] if len(forms) > 1 else forms[0])


def parse_model_spec(spec: str) -> ModelSpec:
    """Parse a ``--model`` value with the backend it names: ``openai:MODEL@BASE_URL``,
    ``openai:MODEL``, ``hf:PATH_OR_ID``, ``retrieval``, ``ocr[:MODEL[/closed]]`` or
    ``fused[:MODEL]`` (one form per :data:`BACKENDS` entry: ``KIND:ARG``, or the bare
    ``KIND`` for a backend that takes no argument or has a default one).

    Raises :class:`ModelSpecError` naming the value and the accepted forms.
    """
    text = (spec or "").strip()
    for kind, cls in BACKENDS.items():
        if cls.takes_argument and text.startswith(kind + ":"):
            return cls.parse_spec(spec, text[len(kind) + 1:])
        if text == kind and (not cls.takes_argument or cls.bare_default):
            return cls.parse_spec(spec, "")
    raise ModelSpecError(f"--model {spec!r}: unknown backend; {_accepted_forms()}")


@dataclass
class BackendOptions:
    """What a caller may set when it builds a backend (each backend reads the fields it uses).

    ``max_new_tokens``: answer length limit (tokens); ``temperature``: sampling
    temperature, 0 = greedy (openai); ``timeout``: seconds per request and
    ``max_retries``: further attempts after a retryable failure (openai); ``device``,
    ``dtype``, ``batch_size`` (questions per ``generate`` call, None = the backend's
    default): hf; ``gallery``: JieZi-Dataset folder or id, ``retrieval_k``,
    ``retrieval_temperature``, ``embedder``, ``cache_dir`` (embedding cache), ``progress``
    (progress bars): the retrieval baseline (see :class:`harness.baselines.retrieval.RetrievalSettings`);
    ``thinking`` (on / off / None) and ``thinking_budget`` (a reasoning effort): see
    :mod:`harness.eval.thinking`; ``ocr_detector``: the ocr / fused baselines also try PP-OCR's
    text detector on a weak reading of a photo (:class:`harness.baselines.ocr.GlyphReader`; the Space sets it).
    """

    max_new_tokens: int = 1024
    temperature: float = 0.0
    timeout: float = 120.0
    max_retries: int = 4
    device: str = "auto"
    dtype: str = "auto"
    batch_size: int | None = None
    gallery: str | None = None
    retrieval_k: int = 10
    retrieval_temperature: float = 0.02
    embedder: str = "hog"
    cache_dir: Path | None = None
    progress: bool = True
    thinking: str | None = None  # on | off | None (the default): harness/eval/thinking.py
    thinking_budget: str | None = None
    ocr_detector: bool = False


class Backend:
    """Base class of the registered backends.

    Class attributes: ``kind`` (registry key and spec prefix), ``spec_form`` (the accepted
    form, for messages and ``--help``), ``takes_argument`` (``KIND:ARG`` vs a bare
    ``KIND``), ``bare_default`` (the bare ``KIND`` is accepted too, meaning the default
    argument), ``reads_images`` (not prompted, but reads the bench images themselves:
    :meth:`read_images` is called once before answering), ``prompted`` (False: answers
    without the chat prompt, so ``--strategy``, ``--paraphrases`` and the prompt version
    do not apply), ``needs_gallery`` (builds on
    JieZi-Dataset's gallery), ``default_concurrency`` (parallel ``generate`` calls of
    ``jiezi eval``), ``batch_size`` (requests per call), ``demo_max_new_tokens`` (answer
    limit the Space asks for). A backend that owns a gallery exposes it as ``gallery``.
    """

    kind: ClassVar[str] = ""
    spec_form: ClassVar[str] = ""
    takes_argument: ClassVar[bool] = True
    bare_default: ClassVar[bool] = False
    reads_images: ClassVar[bool] = False
    prompted: ClassVar[bool] = True
    needs_gallery: ClassVar[bool] = False
    default_concurrency: ClassVar[int] = 1
    demo_max_new_tokens: ClassVar[int] = 1024
    batch_size: int = 1
    gallery = None

    @classmethod
    def parse_spec(cls, spec: str, rest: str) -> ModelSpec:
        """The :class:`ModelSpec` of ``spec`` (``rest``: the text after ``KIND:``); raises
        :class:`ModelSpecError` naming ``spec`` when ``rest`` is malformed."""
        if not rest:
            raise ModelSpecError(f"--model {spec!r}: no model name; {_accepted_forms()}")
        return ModelSpec(cls.kind, rest)

    @classmethod
    def format_spec(cls, spec: ModelSpec) -> str:
        """The spec text that :meth:`parse_spec` reads back."""
        return f"{cls.kind}:{spec.name}" if cls.takes_argument else cls.kind

    @classmethod
    def create(cls, spec: ModelSpec, options: BackendOptions) -> "Backend":
        """Build the backend of ``spec`` with ``options``; raises what loading raises."""
        raise NotImplementedError(f"backend {cls.kind!r} has no create()")

    def settings(self) -> dict:
        """Model and decoding settings for results.json (``backend`` and ``model`` keys at least)."""
        raise NotImplementedError

    def prepare(self, neighbours: dict[str, tuple]) -> None:
        """Take the bench images' gallery neighbours ``{image_id: (sims, idx)}`` before
        answering; only a backend with ``needs_gallery`` and not ``prompted`` uses them."""

    def read_images(self, images, image_ids: list[str], queries, cache: Path | None = None) -> None:
        """Read the distinct bench images before answering (a backend with
        ``reads_images``): ``images`` a dataset with an ``image`` column, one row per id of
        ``image_ids``; ``queries`` their gallery embeddings ``(n, dim)``; ``cache`` an
        optional file for the readings."""

    def generate(self, requests: list["Request"]) -> list[str]:
        """One answer text per request, in order; raises on failure (the batch fails)."""
        raise NotImplementedError


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
            raise ModelSpecError(f"--model {spec!r}: the part after '@' must be an http(s) URL; {_accepted_forms()}")
        if not name:
            raise ModelSpecError(f"--model {spec!r}: no model name; {_accepted_forms()}")
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


class HFBackend(Backend):
    """A local transformers VLM, batched greedy generation.

    ``device``: ``auto`` (:func:`auto_device`), ``cuda``, ``npu``, ``cpu`` or e.g.
    ``cuda:1``; ``dtype``: ``auto`` (bfloat16 on cuda/npu, float32 on cpu) or a torch
    dtype name; ``batch_size``: questions per ``generate`` call (left padding);
    ``max_new_tokens``: answer length limit. The processor is loaded with
    ``AutoProcessor.from_pretrained``.
    """

    kind = "hf"
    spec_form = "hf:PATH_OR_ID"
    default_concurrency = 1
    # Local generation in a Space runs on a small machine: shorter answers keep it responsive.
    demo_max_new_tokens = 512

    @classmethod
    def parse_spec(cls, spec: str, rest: str) -> ModelSpec:
        """``PATH_OR_ID``: a local folder or a Hub model id."""
        if not rest:
            raise ModelSpecError(f"--model {spec!r}: no model path or Hub id; {_accepted_forms()}")
        return ModelSpec(cls.kind, rest)

    @classmethod
    def create(cls, spec: ModelSpec, options: BackendOptions) -> "HFBackend":
        """Load the model with ``options``' device, dtype, batch size (default 8) and length."""
        return cls(spec, device=options.device, dtype=options.dtype, batch_size=options.batch_size or 8,
                   max_new_tokens=options.max_new_tokens, thinking=options.thinking,
                   thinking_budget=options.thinking_budget)

    def __init__(self, spec: ModelSpec, *, device: str = "auto", dtype: str = "auto", batch_size: int = 8,
                 max_new_tokens: int = 1024, trust_remote_code: bool = False, thinking: str | None = None,
                 thinking_budget: str | None = None):
        import torch
        from transformers import AutoModelForImageTextToText, AutoProcessor

        self.spec = spec
        self.device = auto_device() if device == "auto" else device
        if dtype == "auto":
            self.dtype = torch.bfloat16 if self.device.split(":")[0] in ("cuda", "npu") else torch.float32
        else:
            self.dtype = getattr(torch, dtype)
        self.batch_size = int(batch_size)
        self.max_new_tokens = int(max_new_tokens)
        self.processor = AutoProcessor.from_pretrained(spec.name, trust_remote_code=trust_remote_code)
        self._enable_thinking, self.thinking = thinking_setting.hf_setting(self.processor, thinking, thinking_budget)
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
                "processor": type(self.processor).__name__, "thinking": self.thinking}

    def generate(self, requests: list[Request]) -> list[str]:
        """Answer a batch with one ``model.generate`` call; returns the decoded new tokens."""
        import torch

        conversations = [r.messages for r in requests]
        # Qwen3.5's chat templates open a thinking block unless told not to; JieZi answers
        # (and the training recipes) have none, so off unless --thinking on. Templates
        # without the switch ignore it (recorded as unknown: harness/eval/thinking.py).
        inputs = self.processor.apply_chat_template(
            conversations, add_generation_prompt=True, tokenize=True, return_dict=True, return_tensors="pt",
            padding=True, enable_thinking=self._enable_thinking)
        inputs = inputs.to(self.device)
        if "pixel_values" in inputs and inputs["pixel_values"].is_floating_point():
            inputs["pixel_values"] = inputs["pixel_values"].to(self.dtype)
        tok = getattr(self.processor, "tokenizer", self.processor)
        with torch.inference_mode():
            out = self.model.generate(**inputs, max_new_tokens=self.max_new_tokens, do_sample=False,
                                      pad_token_id=tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id)
        new = out[:, inputs["input_ids"].shape[1]:]
        return [thinking_setting.strip_thinking(t).strip()
                for t in self.processor.batch_decode(new, skip_special_tokens=True)]


class RetrievalBackend(Backend):
    """The offline baseline as a backend: :meth:`prepare` takes the bench images'
    neighbours (found once by the caller); :meth:`generate` answers from them (no model call)."""

    kind = "retrieval"
    spec_form = "retrieval"
    takes_argument = False
    prompted = False
    needs_gallery = True
    batch_size = 256
    default_concurrency = 1

    def __init__(self, baseline):
        self.baseline = baseline
        self._neighbours: dict[str, tuple] = {}

    @classmethod
    def parse_spec(cls, spec: str, rest: str) -> ModelSpec:
        """The bare ``retrieval``: the JieZi baseline."""
        return ModelSpec(cls.kind, "jiezi-retrieval")

    @classmethod
    def create(cls, spec: ModelSpec, options: BackendOptions) -> "RetrievalBackend":
        """Embed ``options.gallery`` (JieZi-Dataset) with ``options``' k, temperature and embedder."""
        settings = RetrievalSettings(k=options.retrieval_k, temperature=options.retrieval_temperature,
                                     embedder=options.embedder)
        return cls(build_baseline(options.gallery, settings, cache_dir=options.cache_dir,
                                  progress=options.progress))

    @property
    def gallery(self):
        """The baseline's :class:`harness.baselines.retrieval.Gallery`."""
        return self.baseline.gallery

    def settings(self) -> dict:
        """Baseline settings and gallery facts for results.json."""
        return {"backend": "retrieval", "model": "jiezi-retrieval", **self.baseline.describe(),
                "thinking": {"mode": "off", "budget": None, "how": "no model: nearest-neighbour votes"}}

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


class _ReadingBackend(Backend):
    """A baseline that reads the bench images itself (the recogniser alone, or fused with
    retrieval): :meth:`read_images` reads and decides every distinct image once (batched,
    readings cached); :meth:`generate` answers each question from its image's decision."""

    takes_argument = True
    bare_default = True
    prompted = False
    needs_gallery = True
    reads_images = True
    batch_size = 256
    default_concurrency = 1

    def __init__(self, spec: ModelSpec, baseline):
        self.spec = spec
        self.baseline = baseline
        self._neighbours: dict[str, tuple] = {}
        self.decisions: dict[str, object] = {}

    @property
    def gallery(self):
        """The baseline's :class:`harness.baselines.retrieval.Gallery`."""
        return self.baseline.gallery

    def settings(self) -> dict:
        """Reader, fusion and gallery settings for results.json."""
        return {"backend": self.kind, "model": str(self.spec), **self.baseline.describe(),
                "thinking": {"mode": "off", "budget": None, "how": "no language model: a recogniser and votes"}}

    def prepare(self, neighbours: dict[str, tuple]) -> None:
        """Take the neighbours ``{image_id: (sims, idx)}`` of every bench image."""
        self._neighbours = neighbours

    def read_images(self, images, image_ids: list[str], queries, cache: Path | None = None) -> None:
        """Read every image (cached in ``cache``, keyed by the caller), then decide each."""
        from harness.baselines.ocr import read_dataset

        readings = read_dataset(self.baseline.read, images, cache)
        for j, (iid, reading) in enumerate(zip(image_ids, readings)):
            self.decisions[iid] = self._decide(iid, reading, queries[j])

    def _decide(self, image_id: str, reading, query):
        raise NotImplementedError

    def decision_records(self) -> dict[str, dict]:
        """``{image_id: decision record}``: what read each glyph, with its candidates."""
        return {iid: d.record() for iid, d in self.decisions.items()}

    def generate(self, requests: list[Request]) -> list[str]:
        """Answer each request from its image's decision. Raises ``KeyError`` naming an
        image id that :meth:`read_images` did not cover."""
        out = []
        for req in requests:
            if req.image_id not in self.decisions:
                raise KeyError(f"{self.kind}: image {req.image_id!r} was not read")
            out.append(self.baseline.answer(self.decisions[req.image_id], req.kind))
        return out


class OCRBackend(_ReadingBackend):
    """PP-OCR alone (:mod:`harness.baselines.ocr_baseline`): ``ocr`` = ``ocr:ppocr-v6`` (open
    vocabulary), ``ocr:ppocr-v6/closed`` (the gallery's characters only)."""

    kind = "ocr"
    spec_form = "ocr[:MODEL[/closed]]"

    @classmethod
    def parse_spec(cls, spec: str, rest: str) -> ModelSpec:
        """``MODEL`` (a name of ``harness.baselines.ocr.MODELS``, default ppocr-v6), optionally ``/closed``."""
        from harness.baselines.ocr import DEFAULT_MODEL, MODELS

        name, _, mode = (rest or DEFAULT_MODEL).partition("/")
        name = name or DEFAULT_MODEL
        if name not in MODELS or mode not in ("", "closed"):
            raise ModelSpecError(f"--model {spec!r}: expected ocr, ocr:MODEL or ocr:MODEL/closed with MODEL one of "
                                 f"{list(MODELS)}")
        return ModelSpec(cls.kind, name + ("/closed" if mode else ""))

    @classmethod
    def create(cls, spec: ModelSpec, options: BackendOptions) -> "OCRBackend":
        """The recogniser over ``options.gallery``'s records, with its fitted confidence."""
        from harness.baselines.ocr import GlyphReader
        from harness.baselines.ocr_baseline import build_ocr_baseline

        name, _, mode = spec.name.partition("/")
        settings = RetrievalSettings(k=options.retrieval_k, temperature=options.retrieval_temperature,
                                     embedder=options.embedder)
        reader = GlyphReader(name, use_detector=options.ocr_detector)
        return cls(spec, build_ocr_baseline(options.gallery, settings, reader=reader, closed=bool(mode),
                                            cache_dir=options.cache_dir, progress=options.progress))

    def _decide(self, image_id: str, reading, query):
        return self.baseline.decide(reading, count=True)


class FusedBackend(_ReadingBackend):
    """PP-OCR and retrieval together (:mod:`harness.baselines.fusion`): ``fused`` = ``fused:ppocr-v6``."""

    kind = "fused"
    spec_form = "fused[:MODEL]"

    @classmethod
    def parse_spec(cls, spec: str, rest: str) -> ModelSpec:
        """``MODEL``: a name of ``harness.baselines.ocr.MODELS`` (default ppocr-v6)."""
        from harness.baselines.ocr import DEFAULT_MODEL, MODELS

        name = rest or DEFAULT_MODEL
        if name not in MODELS:
            raise ModelSpecError(f"--model {spec!r}: expected fused or fused:MODEL with MODEL one of {list(MODELS)}")
        return ModelSpec(cls.kind, name)

    @classmethod
    def create(cls, spec: ModelSpec, options: BackendOptions) -> "FusedBackend":
        """Gallery, recogniser and fitted fusion model of ``options``."""
        from harness.baselines.fusion import build_fused
        from harness.baselines.ocr import GlyphReader

        settings = RetrievalSettings(k=options.retrieval_k, temperature=options.retrieval_temperature,
                                     embedder=options.embedder)
        reader = GlyphReader(spec.name, use_detector=options.ocr_detector)
        return cls(spec, build_fused(options.gallery, settings, reader=reader, cache_dir=options.cache_dir,
                                     progress=options.progress))

    def _decide(self, image_id: str, reading, query):
        if image_id not in self._neighbours:
            raise KeyError(f"fused: no neighbours for image {image_id!r}")
        sims, idx = self._neighbours[image_id]
        return self.baseline.decide(query, sims, idx, reading, count=True)


# The registry: spec prefix -> backend class. A new backend is a class above and a line here
# (the order is the order of the accepted forms in messages and --help).
BACKENDS: dict[str, type[Backend]] = {
    OpenAIBackend.kind: OpenAIBackend,
    HFBackend.kind: HFBackend,
    RetrievalBackend.kind: RetrievalBackend,
    OCRBackend.kind: OCRBackend,
    FusedBackend.kind: FusedBackend,
}


def timed(fn, *args):
    """``(result, seconds)`` of ``fn(*args)`` (wall clock)."""
    t0 = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - t0
