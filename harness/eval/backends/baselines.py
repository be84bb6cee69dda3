"""The offline baselines as backends: ``retrieval`` (:mod:`harness.baselines.retrieval`),
``ocr[:MODEL[/closed]]`` (PP-OCR from the ``rapidocr`` wheel reading the glyph, the other levels
from that character's records: :mod:`harness.baselines.ocr_baseline`) and ``fused[:MODEL]``
(PP-OCR and retrieval deciding together: :mod:`harness.baselines.fusion`, the default of
``jiezi explain`` and the Space). They load their baselines inside ``create``, so the registry
imports without numpy, scikit-learn or onnxruntime (``jiezi --help`` stays fast)."""

from __future__ import annotations

from pathlib import Path

from harness.eval.backends.base import Backend, BackendOptions, ModelSpec, ModelSpecError, Request


def _retrieval_settings(options: BackendOptions):
    """The :class:`harness.baselines.retrieval.RetrievalSettings` of ``options``."""
    from harness.baselines.retrieval import RetrievalSettings

    return RetrievalSettings(k=options.retrieval_k, temperature=options.retrieval_temperature,
                             embedder=options.embedder)


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
        from harness.baselines.retrieval import build_baseline

        return cls(build_baseline(options.gallery, _retrieval_settings(options), cache_dir=options.cache_dir,
                                  progress=options.progress))

    @property
    def gallery(self):
        """The baseline's :class:`harness.baselines.gallery.Gallery`."""
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
        """The baseline's :class:`harness.baselines.gallery.Gallery`."""
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
        settings = _retrieval_settings(options)
        reader = GlyphReader(name, use_detector=options.ocr_detector, features=False)
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
        from harness.baselines.fusion_fit import build_fused
        from harness.baselines.ocr import GlyphReader

        settings = _retrieval_settings(options)
        reader = GlyphReader(spec.name, use_detector=options.ocr_detector)
        return cls(spec, build_fused(options.gallery, settings, reader=reader, cache_dir=options.cache_dir,
                                     progress=options.progress))

    def _decide(self, image_id: str, reading, query):
        if image_id not in self._neighbours:
            raise KeyError(f"fused: no neighbours for image {image_id!r}")
        sims, idx = self._neighbours[image_id]
        return self.baseline.decide(query, sims, idx, reading, count=True)
