"""A real character recogniser for single glyph images: PaddleOCR's PP-OCRv6 text
recogniser (and, when it helps, its text detector) as shipped inside the ``rapidocr``
wheel, run with onnxruntime.

Where the weights come from: ``rapidocr`` 3.10 (PyPI, Apache-2.0) carries
``PP-OCRv6_rec_small.onnx`` (a CTC recogniser over 18,708 characters + blank + space,
its dictionary stored in the ONNX metadata) and ``PP-OCRv6_det_small.onnx`` (a DB text
detector) in its ``models`` folder. This module opens exactly those files by path, so
rapidocr's model download code never runs and nothing is fetched at run time
(:func:`model_files` raises :class:`OCRUnavailable` when a file is missing instead). The
model weights are Baidu/PaddleOCR's, Apache-2.0 (the wheel's ``MODEL_LICENSES.md``).

Reading one glyph (:class:`GlyphReader`):

1. the glyph is ink-normalised as the retrieval baseline does
   (:func:`harness.baselines.glyphnorm.normalise_glyphs`: polarity fixed, Otsu ink box, centred on a
   square with a margin), to 48 x 48 pixels, the recogniser's input height, then placed on
   the left of a white 48 x :data:`CANVAS_WIDTH` line (a lone glyph squeezed to 48 x 48
   reads worse than one with room on its right, as on the text lines the model was
   trained on; 96 pixels read regular fonts best, 320 worst and slowest:
   ``benchmarks/bench_ocr.py --width``);
2. the recogniser runs on batches of :attr:`GlyphReader.batch_size` glyphs at once and
   returns per time step a softmax over its 18,710 classes, ``(n, T, V)``;
3. every class ``c`` gets the CTC probability that the line reads exactly the one
   character ``c`` (Graves et al., ICML 2006: the sum over all alignments
   ``blank* c+ blank*``, computed for all classes at once by :func:`single_char_ctc`);
   the open-vocabulary reading is the best of these, its candidates the next ones; a
   closed vocabulary (:meth:`GlyphReader.closed`) renormalises them over the candidate
   characters only.

The greedy CTC transcription (the best path, duplicates and blanks removed) is kept with
each reading: when it holds no character or several, the line was not read as one glyph.

Each reading also keeps the recogniser's own features of the glyph
(:func:`glyph_features`: the sequence features its CTC head reads, at the steps the glyph
covers), a description of the shape learnt on 18,708 printed and written characters; the
font-template reader (:mod:`harness.baselines.templates`) compares them with its templates'
to name characters outside the recogniser's classes.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import os
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from scipy import ndimage

from harness.baselines.glyphnorm import ink_boxes, normalise_glyphs

if TYPE_CHECKING:
    from PIL import Image

REC_HEIGHT = 48  # the PP-OCR recogniser's fixed input height
CANVAS_WIDTH = 96  # two glyph widths: see the module docstring, step 1
# More connected dark regions than this in the 48 x 48 glyph is speckle, not writing:
# measured on the default build, 300 gallery glyphs per script had at most 33 (金文
# tracings; 99th percentile 26) and the bench images at most 31, while uniform noise gave
# 63-95 (benchmarks/bench_ocr.py --components).
MAX_COMPONENTS = 40
DETECTOR_INK_SHARE = 0.25  # ink box below this share of the image: try the detector
READER_VERSION = 5  # bump when preprocessing, scoring or what a reading keeps changes (cache keys)
# The recogniser's inner tensor its CTC head reads ((n, T, 120) after the transpose before the
# last linear layer of PP-OCRv6_rec_small.onnx), and how many of its 8-pixel steps the glyph
# covers: the left half of the 48 x CANVAS_WIDTH line.
FEATURE_TENSOR = "p2o.pd_op.transpose.8.0"
FEATURE_STEPS = REC_HEIGHT * (CANVAS_WIDTH // REC_HEIGHT) // 8 // 2
FEATURE_DIM = 120 * FEATURE_STEPS

# Model name (the ``ocr:NAME`` suffix) -> (package, recogniser file, detector file).
MODELS: dict[str, tuple[str, str, str]] = {
    "ppocr-v6": ("rapidocr", "PP-OCRv6_rec_small.onnx", "PP-OCRv6_det_small.onnx"),
}
DEFAULT_MODEL = "ppocr-v6"


class OCRUnavailable(RuntimeError):
    """The recogniser cannot be used here (package or model file missing); the message
    says what to install."""


def model_files(name: str = DEFAULT_MODEL) -> tuple[Path, Path]:
    """``(recogniser, detector)`` ONNX paths of model ``name`` inside its installed wheel.

    Raises ``ValueError`` for a name not in :data:`MODELS` and :class:`OCRUnavailable`
    when the package or a file is missing (never downloads).
    """
    if name not in MODELS:
        raise ValueError(f"unknown OCR model {name!r}; expected one of {list(MODELS)}")
    package, rec, det = MODELS[name]
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.origin:
        raise OCRUnavailable(f"OCR model {name!r} needs the {package!r} package: "
                             f"pip install {package}==3.10.0 onnxruntime")
    folder = Path(spec.origin).parent / "models"
    paths = (folder / rec, folder / det)
    for p in paths:
        if not p.is_file():
            raise OCRUnavailable(f"OCR model file {p} is missing from the installed {package!r} wheel "
                                 f"(reinstall {package}==3.10.0; this project never downloads models)")
    return paths


def file_sha256(path: Path) -> str:
    """SHA-256 hex digest of a file (read in 1 MiB blocks)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def recogniser_session(path: Path, threads: int | None = None, features: bool = False):
    """An onnxruntime CPU session of the recogniser file ``path`` (``threads``: intra-op
    threads, None = every core). With ``features`` the inner tensor :data:`FEATURE_TENSOR`
    becomes a second output: the wheel's graph exposes only the softmax, so the output is
    added in memory with the ``onnx`` package (nothing is written). Raises
    :class:`OCRUnavailable` when ``features`` is asked and ``onnx`` is not installed."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    if threads:
        opts.intra_op_num_threads = int(threads)
    if not features:
        return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    try:
        import onnx
    except ImportError as exc:
        raise OCRUnavailable("the recogniser's features need the onnx package: pip install onnx") from exc
    proto = onnx.load(str(path))
    proto.graph.output.append(onnx.helper.make_tensor_value_info(FEATURE_TENSOR, onnx.TensorProto.FLOAT, None))
    return ort.InferenceSession(proto.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def recogniser_lines(images: list) -> np.ndarray:
    """The recogniser input of each glyph (module docstring, step 1), ``(n, 3, 48,
    CANVAS_WIDTH)`` float32 in -1..1."""
    out = np.ones((len(images), 3, REC_HEIGHT, CANVAS_WIDTH), np.float32)
    for i, g in enumerate(normalise_glyphs(images, REC_HEIGHT)):
        out[i, :, :, :REC_HEIGHT] = np.asarray(g, np.float32)[None] / 127.5 - 1.0
    return out


def glyph_features(raw: np.ndarray) -> np.ndarray:
    """The recogniser's features of each glyph: ``raw`` the :data:`FEATURE_TENSOR` output
    ``(n, T, 120)``; returns ``(n, FEATURE_DIM)`` float32, its first :data:`FEATURE_STEPS`
    steps (those the glyph covers) flattened, each row L2-normalised."""
    feats = np.asarray(raw, np.float32)[:, :FEATURE_STEPS].reshape(len(raw), -1)
    return feats / np.maximum(np.linalg.norm(feats, axis=1, keepdims=True), 1e-6)


def single_char_ctc(probs: np.ndarray, blank: int = 0) -> np.ndarray:
    """CTC probability that each sequence reads exactly one character, for every class.

    ``probs``: ``(n, T, V)`` per-step softmax outputs (class ``blank`` is the CTC blank).
    Returns ``(n, V)`` float32 in 0..1 (the blank's own column is 0): for class ``c``,
    the summed probability of every path ``blank* c+ blank*`` (Graves et al. 2006, the
    forward recursion specialised to a one-label target)::

        a_t = a_{t-1} * p_t(blank)                 (only blanks so far)
        b_t = (a_{t-1} + b_{t-1}) * p_t(c)         (inside the run of c)
        d_t = (b_{t-1} + d_{t-1}) * p_t(blank)     (blanks after c)
        P(c) = b_T + d_T
    """
    p = np.asarray(probs, np.float32)
    n, steps, _ = p.shape
    blank_p = p[:, :, blank]
    a = np.ones(n, np.float32)
    b = np.zeros(p.shape[0::2], np.float32)
    d = np.zeros_like(b)
    for t in range(steps):
        pb = blank_p[:, t][:, None]
        b, d = (a[:, None] + b) * p[:, t], (b + d) * pb
        a = a * blank_p[:, t]
    out = b + d
    out[:, blank] = 0.0
    return out


def read_dataset(read, images, cache: Path | None = None) -> list["Reading"]:
    """``read`` (a :meth:`GlyphReader.read`-like callable) over the ``image`` column of the
    dataset ``images`` in batches of 256, as a list of :class:`Reading`; with ``cache`` (a
    JSON path whose name the caller keys by the images and the reader) the readings are
    loaded from it when it holds one per row, else computed and written there atomically."""
    if cache is not None and cache.exists():
        try:
            readings = [Reading.from_dict(r) for r in json.loads(cache.read_text("utf-8"))]
            if len(readings) == len(images):
                return readings
        except (OSError, ValueError, KeyError, TypeError):
            pass  # a damaged cache file is recomputed
    readings = []
    for batch in images.select_columns(["image"]).iter(batch_size=256):
        readings.extend(read(batch["image"]))
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=cache.name + ".", suffix=".tmp", dir=cache.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump([r.to_dict() for r in readings], fh, ensure_ascii=False)
        os.replace(tmp, cache)
    return readings


def greedy_text(best: np.ndarray, characters: list[str]) -> str:
    """Best-path CTC decoding of one ``(T,)`` argmax row: repeats merged, blanks (class 0)
    dropped."""
    out, prev = [], -1
    for k in best.tolist():
        if k != prev and k != 0:
            out.append(characters[k])
        prev = k
    return "".join(out)


def sparse_ink(image, share: float = DETECTOR_INK_SHARE) -> bool:
    """True when the glyph's ink box (:func:`harness.baselines.glyphnorm.normalise_glyphs`' Otsu box)
    covers less than ``share`` of the image: a photograph with a wide background, where a
    text detector can find the glyph; a tight crop (every bench and gallery image) is not."""
    gray = np.asarray(image.convert("L"), np.uint8)
    _, boxes = ink_boxes(gray[None])
    top, bottom, left, right = boxes[0]
    return (bottom - top) * (right - left) < share * gray.shape[0] * gray.shape[1]


@dataclass
class Reading:
    """What the recogniser read in one glyph image.

    ``text``: the greedy transcription (may be empty or several characters);
    ``candidates``: ``[(character, probability)]`` best first, the single-character CTC
    probabilities (0-1, see :func:`single_char_ctc`; they sum to at most 1 over all
    characters); ``closed``: the same over a closed vocabulary when one was asked for
    (renormalised to sum 1 over it), else None; ``detector``: True when the reading is
    of the detector's text box instead of the whole ink box; ``components``: connected
    dark regions of the normalised 48 x 48 glyph (4-connected, below mid-grey), see
    :data:`MAX_COMPONENTS`; ``features``: the recogniser's features of the glyph
    (:func:`glyph_features`, ``(FEATURE_DIM,)``) when the reader keeps them, else None.
    """

    @property
    def glyph_like(self) -> bool:
        """False when the image is speckle rather than strokes (:data:`MAX_COMPONENTS`)."""
        return self.components <= MAX_COMPONENTS

    text: str
    candidates: list[tuple[str, float]]
    closed: list[tuple[str, float]] | None = None
    detector: bool = False
    components: int = 0
    features: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def top(self) -> tuple[str | None, float]:
        """The best single-character candidate and its probability (None, 0 when none)."""
        return self.candidates[0] if self.candidates else (None, 0.0)

    def to_dict(self) -> dict:
        """JSON-ready form (probabilities rounded to 6 places; the features as base64 of
        their float16 bytes, about 1.9 kB a glyph)."""
        r = lambda xs: None if xs is None else [[c, round(float(p), 6)] for c, p in xs]  # noqa: E731
        feats = None if self.features is None else base64.b64encode(
            np.asarray(self.features, "<f2").tobytes()).decode("ascii")
        return {"text": self.text, "candidates": r(self.candidates), "closed": r(self.closed),
                "detector": self.detector, "components": int(self.components), "features": feats}

    @classmethod
    def from_dict(cls, data: dict) -> "Reading":
        """Inverse of :meth:`to_dict` (features back as float32)."""
        closed, feats = data.get("closed"), data.get("features")
        return cls(data["text"], [(c, float(p)) for c, p in data["candidates"]],
                   None if closed is None else [(c, float(p)) for c, p in closed], bool(data.get("detector")),
                   int(data.get("components") or 0),
                   None if feats is None else np.frombuffer(base64.b64decode(feats), "<f2").astype(np.float32))


@dataclass
class GlyphReader:
    """PP-OCR over single glyph images (see module docstring).

    ``model``: a name of :data:`MODELS`; ``batch_size``: glyphs per recogniser call;
    ``threads``: onnxruntime intra-op threads (None: onnxruntime's default, every core);
    ``top``: candidates kept per reading; ``use_detector``: when the whole-glyph reading
    is weaker than ``detector_below`` (top probability) and the ink covers little of the
    image (:func:`sparse_ink`), also read the detector's largest text box and keep the
    more confident reading (a glyph photographed with a wide background or beside other
    marks; on tight crops the detector only costs time, about 1 s per image on 2 cores, so
    it is off for bench runs and on in the Space and ``jiezi explain``); ``features``: keep
    the recogniser's features of each glyph in its reading (:attr:`Reading.features`; the
    fused baseline's template reader compares them; needs ``onnx``).
    """

    model: str = DEFAULT_MODEL
    batch_size: int = 64
    threads: int | None = None
    top: int = 10
    use_detector: bool = False
    detector_below: float = 0.5
    features: bool = True
    _rec: object = field(default=None, init=False, repr=False)
    _det: object = field(default=None, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self):
        self.rec_path, self.det_path = model_files(self.model)
        self._rec = recogniser_session(self.rec_path, self.threads, self.features)
        meta = self._rec.get_modelmeta().custom_metadata_map
        if "character" not in meta:
            raise OCRUnavailable(f"{self.rec_path} carries no character dictionary in its metadata")
        # PaddleOCR's CTCLabelDecode layout: blank first, the dictionary, then the space.
        self.characters: list[str] = ["<blank>", *meta["character"].splitlines(), " "]
        self.index: dict[str, int] = {}
        for i, c in enumerate(self.characters[1:-1], start=1):
            self.index.setdefault(c, i)
        self.rec_sha256 = file_sha256(self.rec_path)
        self.name = (f"{self.model}-rec-{self.rec_sha256[:12]}-w{CANVAS_WIDTH}-v{READER_VERSION}"
                     + ("-features" if self.features else ""))

    def describe(self) -> dict:
        """Settings recorded in results.json and used in cache keys."""
        return {"model": self.model, "recogniser": self.rec_path.name, "recogniser_sha256": self.rec_sha256,
                "detector": self.det_path.name if self.use_detector else None, "classes": len(self.characters),
                "input": f"ink-normalised glyph {REC_HEIGHT}x{REC_HEIGHT} on a white {REC_HEIGHT}x{CANVAS_WIDTH} line",
                "scoring": "single-character CTC probability per class", "batch_size": self.batch_size,
                "features": f"{FEATURE_TENSOR} (CTC head input), first {FEATURE_STEPS} steps, L2" if self.features else None,
                "detector_below": self.detector_below if self.use_detector else None,
                "licence": "Apache-2.0 (PaddleOCR PP-OCRv6 weights, packaged by rapidocr)", "name": self.name}

    # -- recogniser --------------------------------------------------------------------
    def lines(self, images: list) -> np.ndarray:
        """The recogniser input of each glyph (:func:`recogniser_lines`)."""
        return recogniser_lines(images)

    def probabilities(self, lines: np.ndarray) -> np.ndarray:
        """Per-step class probabilities ``(n, T, V)`` of prepared lines (one batch)."""
        return self._run(lines)[0]

    def _run(self, lines: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """``(probabilities (n, T, V), features (n, FEATURE_DIM) or None)`` of one batch."""
        with self._lock:  # one onnxruntime run at a time: it already uses every core
            out = self._rec.run(None, {self._rec.get_inputs()[0].name: lines})
        return out[0], (glyph_features(out[1]) if len(out) > 1 else None)

    def read(self, images: list, closed: list[str] | None = None) -> list[Reading]:
        """One :class:`Reading` per image (PIL images, any mode), in batches.

        ``closed``: optional candidate characters; each reading then also ranks them
        (:meth:`closed_scores`). Raises ``ValueError`` on an image that cannot be
        converted to grey scale."""
        vocab = self.vocabulary(closed) if closed is not None else None
        out: list[Reading] = []
        for start in range(0, len(images), self.batch_size):
            chunk = images[start:start + self.batch_size]
            out.extend(self._read_batch(self.lines(chunk), vocab))
        if self.use_detector:
            weak = [i for i, r in enumerate(out) if r.top[1] < self.detector_below and sparse_ink(images[i])]
            for i in weak:
                line = self._detector_line(images[i])
                if line is not None:
                    alt = self._read_batch(line[None], vocab)[0]
                    if alt.top[1] > out[i].top[1]:
                        alt.detector = True
                        out[i] = alt
        return out

    def _read_batch(self, lines: np.ndarray, vocab: tuple[list[str], np.ndarray] | None) -> list[Reading]:
        probs, feats = self._run(lines)
        parts = [int(ndimage.label(line[0, :, :REC_HEIGHT] < 0.0)[1]) for line in lines]
        single = single_char_ctc(probs)
        best = probs.argmax(2)
        order = np.argsort(-single, axis=1)[:, :self.top]
        readings = []
        for j in range(len(lines)):
            cands = [(self.characters[k], float(single[j, k])) for k in order[j] if single[j, k] > 0]
            readings.append(Reading(greedy_text(best[j], self.characters), cands,
                                    self._closed(single[j], vocab) if vocab else None, components=parts[j],
                                    features=None if feats is None else feats[j]))
        return readings

    # -- closed vocabulary -------------------------------------------------------------
    def vocabulary(self, characters: list[str]) -> tuple[list[str], np.ndarray]:
        """``(characters the recogniser knows, their class ids)`` of a closed candidate
        list (a character outside the recogniser's dictionary cannot be scored and is left
        out; duplicates once)."""
        known = [c for c in dict.fromkeys(characters) if c in self.index]
        return known, np.asarray([self.index[c] for c in known], np.int64)

    def _closed(self, single: np.ndarray, vocab: tuple[list[str], np.ndarray]) -> list[tuple[str, float]]:
        chars, ids = vocab
        s = single[ids]
        total = s.sum()
        if not total > 0:
            return []
        s = s / total
        order = np.argsort(-s)[:self.top]
        return [(chars[k], float(s[k])) for k in order]

    # -- detector ----------------------------------------------------------------------
    def _detector(self):
        if self._det is None:
            from rapidocr.ch_ppocr_det import TextDetector
            from rapidocr.utils.parse_parameters import ParseParams

            cfg = ParseParams.load(Path(importlib.util.find_spec("rapidocr").origin).parent / "config.yaml")
            det = cfg.Det
            det.engine_cfg = cfg.EngineConfig.onnxruntime
            det.model_path = str(self.det_path)  # an explicit file: rapidocr's downloader is never reached
            self._det = TextDetector(det)
        return self._det

    def _detector_line(self, image) -> np.ndarray | None:
        """The recogniser line of the detector's largest text box in ``image``, or None
        when it finds none."""
        from PIL import Image

        rgb = np.asarray(image.convert("RGB"))[:, :, ::-1].copy()  # rapidocr works in BGR
        with self._lock:
            found = self._detector()(rgb)
        boxes = getattr(found, "boxes", None)
        if boxes is None or len(boxes) == 0:
            return None
        areas = [float(np.ptp(b[:, 0]) * np.ptp(b[:, 1])) for b in boxes]
        b = boxes[int(np.argmax(areas))]
        x0, y0 = np.floor(b.min(0)).astype(int).clip(0)
        x1, y1 = np.ceil(b.max(0)).astype(int)
        crop = Image.fromarray(rgb[y0:y1, x0:x1, ::-1])
        if min(crop.size) < 4:
            return None
        return self.lines([crop])[0]


class RecogniserEmbedder:
    """The PP-OCRv6 recogniser's own features as an embedder (:func:`glyph_features`: the
    120-number sequence features the CTC head reads, at the :data:`FEATURE_STEPS` steps the
    glyph covers on the recogniser's line, flattened and L2-normalised: :data:`FEATURE_DIM`
    numbers), the glyph prepared as :meth:`GlyphReader.lines` prepares it, so that a
    template embedded here and a :attr:`Reading.features` compare. Needs ``onnx``
    (:func:`recogniser_session`); nothing is written or downloaded."""

    def __init__(self, model: str = "ppocr-v6", threads: int | None = None, batch_size: int = 64):
        rec, _ = model_files(model)
        self.session = recogniser_session(rec, threads, features=True)
        self.steps = FEATURE_STEPS
        self.batch_size = batch_size
        self.model = model
        self.dim = FEATURE_DIM
        self.process_parallel = False  # onnxruntime already uses every core
        self.name = f"{model}-recogniser-features-{self.steps}x120-v1"

    def describe(self) -> dict:
        """Settings recorded with results and used in cache keys."""
        return {"embedder": "ppocr-v6", "name": self.name, "dim": self.dim,
                "features": f"{FEATURE_TENSOR} (CTC head input), first {self.steps} steps, L2"}

    def embed(self, images: list[Image.Image]) -> np.ndarray:
        """``(len(images), dim)`` float32, each row L2-normalised."""
        out = np.zeros((len(images), self.dim), np.float32)
        for start in range(0, len(images), self.batch_size):
            x = recogniser_lines(images[start:start + self.batch_size])
            out[start:start + len(x)] = glyph_features(self.session.run([FEATURE_TENSOR], {"x": x})[0])
        return out
