"""The explainers the exegesis tab offers, built once per model spec and cached.

Every spec is built by the harness's backend registry (``harness.eval.backends.BACKENDS``, the
one ``jiezi eval`` uses): a backend that reads the glyph itself (``fused``: PP-OCR with
retrieval, the default; ``ocr``) becomes a fused explainer; one that answers without a
prompt (``retrieval``, the offline baseline over JieZi-Dataset's ``records`` gallery)
becomes a retrieval explainer;
a prompted one (``openai:MODEL@URL``, ``hf:PATH``) is asked with the zero-shot prompt of
``harness.eval.strategies`` — the same messages ``jiezi eval`` sends.
"""

from __future__ import annotations

import json
import threading

from harness.baselines.templates import TemplateFontError
from harness.eval.backends import BACKENDS
from harness.eval.backends.base import BackendOptions, ModelSpecError, Request, parse_model_spec
from harness.eval.strategies import zero_shot
from space.data import Resources
from space.exegesis import QUESTION_TYPES, FusedExplainer, ModelExplainer, RetrievalExplainer


class BackendUnavailable(RuntimeError):
    """A backend cannot be built (bad spec, gallery missing, model failed to load)."""


class Explainers:
    """Builds and caches one explainer per spec for a :class:`~space.data.Resources`."""

    def __init__(self, resources: Resources):
        self.resources = resources
        self._cache: dict[str, object] = {}
        self._lock = threading.RLock()  # re-entrant: a model explainer builds the retrieval one
        self._turn_rows: dict[str, int] | None = None

    def get(self, spec: str):
        """The explainer of ``spec``; raises :class:`BackendUnavailable` with the cause."""
        with self._lock:
            if spec not in self._cache:
                try:
                    self._cache[spec] = self._build(spec)
                except BackendUnavailable as exc:
                    self._cache[spec] = exc
                except Exception as exc:  # any loader failure is shown, not raised in the UI
                    self._cache[spec] = BackendUnavailable(f"backend {spec!r} could not be started: "
                                                           f"{type(exc).__name__}: {exc}")
            value = self._cache[spec]
        if isinstance(value, BackendUnavailable):
            raise value
        return value

    def retrieval(self) -> RetrievalExplainer:
        """The retrieval explainer (also the neighbour finder of model backends)."""
        return self.get("retrieval")

    def _build(self, spec: str):
        try:
            parsed = parse_model_spec(spec)
        except ModelSpecError as exc:
            raise BackendUnavailable(str(exc)) from exc
        cls = BACKENDS[parsed.kind]
        dataset = self.resources.config.dataset
        # One try per question in the UI: a failed request is shown at once, not retried for minutes.
        options = BackendOptions(max_new_tokens=cls.demo_max_new_tokens, timeout=120.0, max_retries=1,
                                 gallery=dataset, progress=False, ocr_detector=True)
        try:
            backend = cls.create(parsed, options)
        except TemplateFontError as exc:  # the fonts, not the dataset
            raise BackendUnavailable(f"the {parsed} baseline: {exc}") from exc
        except Exception as exc:
            if not cls.needs_gallery:
                raise
            raise BackendUnavailable(f"the {parsed} baseline needs JieZi-Dataset ({dataset}): {exc}") from exc
        if cls.reads_images:
            return FusedExplainer(backend.baseline, self.turn_sources, str(parsed))
        if not cls.prompted:
            return RetrievalExplainer(backend.baseline, self.turn_sources)
        try:
            neighbours = self.retrieval()
        except BackendUnavailable:
            neighbours = None
        return ModelExplainer(str(parsed), _asker(backend), neighbours)

    def turn_sources(self, image_id: str) -> list[tuple[str, list[dict]]]:
        """``(subtask, provenance list)`` of each QA turn of JieZi-Dataset image
        ``image_id`` (empty when the ``all`` config cannot be read)."""
        try:
            ds = self.resources.dataset("all", "train")
        except Exception:
            return []
        if self._turn_rows is None:
            self._turn_rows = {i: n for n, i in enumerate(ds["id"])}
        row = self._turn_rows.get(image_id)
        if row is None:
            return []
        item = ds.select_columns(["subtasks", "provenance"])[row]
        try:
            provs = json.loads(item["provenance"] or "[]")
        except ValueError:
            return []
        return list(zip(item["subtasks"], provs))


def _asker(backend):
    """``ask(image, {qtype: question}) -> {qtype: answer or Exception}`` over a harness
    backend, one request per question so that one failure keeps the other answers."""
    def ask(image, questions: dict[str, str]) -> dict:
        out: dict = {}
        for qtype in QUESTION_TYPES:
            req = Request(key=qtype, messages=zero_shot(image, questions[qtype], qtype), kind=QUESTION_TYPES[qtype])
            try:
                out[qtype] = backend.generate([req])[0]
            except Exception as exc:  # recorded on that question's fact
                out[qtype] = exc
        return out

    return ask
