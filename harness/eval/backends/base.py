"""The backend interface of ``jiezi eval`` and the Space: :class:`Backend`, the parsed
``--model`` value (:class:`ModelSpec`), :class:`BackendOptions`, :class:`Request` and the
chat-message helpers; the registry itself is :data:`BACKENDS`, filled in
``harness/eval/backends/__init__.py``.

A backend turns a batch of :class:`Request` objects into answer texts
(``generate(requests) -> list[str]``); an exception fails that batch only (the runner
records it per item and goes on). Messages use the Hugging Face chat format::

    {"role": "system" | "user" | "assistant",
     "content": [{"type": "image", "image": PIL.Image}, {"type": "text", "text": "..."}]}
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

#: The registry, spec prefix -> backend class. It is filled in ``harness/eval/backends/__init__.py``
#: (one line per backend, in the order of the accepted forms in messages and ``--help``), which
#: Python runs before this module is used: every import of this module goes through the package.
BACKENDS: dict[str, type["Backend"]] = {}


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


def accepted_forms() -> str:
    """``expected A, B or C``: the spec forms of every registered backend, for error messages."""
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
    raise ModelSpecError(f"--model {spec!r}: unknown backend; {accepted_forms()}")


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
            raise ModelSpecError(f"--model {spec!r}: no model name; {accepted_forms()}")
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
