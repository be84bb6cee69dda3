"""The recogniser alone as a baseline (``jiezi eval --model ocr``): PP-OCR reads the
character (:mod:`harness.baselines.ocr`), every later level comes from that character's records in
JieZi-Dataset's gallery, as the retrieval baseline does.

Two modes (the ``ocr:MODEL`` and ``ocr:MODEL/closed`` specs):

- open vocabulary: the recogniser's best single-character candidate, mapped to the form
  the gallery holds (:func:`harness.baselines.fusion.variant_forms`; the character itself when the
  gallery lacks every form: CHAR is still answered, the other levels are not);
- closed vocabulary: the best of the gallery's characters by the recogniser's
  single-character CTC probability, renormalised over them.

It knows no script: SCRC stays unanswered ("OCR reads characters, not scripts"); the
records are read modern script first. Its confidence is a logistic regression of "the
decided character is right" on the best candidate's probability and its margin over the
runner-up, fitted on held-out gallery glyphs (:func:`fit_ocr_calibration`; closed mode
also in the ``unseen character`` condition, where the vocabulary lacks the glyph's
character); below the threshold it abstains.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from harness.baselines.abstention import curves_by_script, fit_logistic
from harness.baselines.fusion import FUSION_VERSION, FusedDecision, FusionModel, visible_reading, variant_forms
from harness.baselines.ocr import GlyphReader, Reading
from harness.baselines.calibration import CALIBRATION_PER_SCRIPT, cached_fit, calibration_rows, held_out_mask
from harness.baselines.retrieval import RetrievalBaseline
from metrics.acce import labels

OCR_FEATURES = ("probability", "margin")
# The script whose record a character's later levels are read from: regular script first,
# then the other modern scripts, then the ancient ones newest first (楷书 简体 隶书 草书 篆书
# 战国文字 金文 甲骨文).
MODERN_FIRST = (*labels.REGULAR_SCRIPTS,
                *(s for s in labels.SCRIPTS if s in labels.MODERN_SCRIPTS and s not in labels.REGULAR_SCRIPTS),
                *reversed([s for s in labels.SCRIPTS if s not in labels.MODERN_SCRIPTS]))


class OCRBaseline:
    """The recogniser over the gallery's records (see module docstring).

    ``retrieval``: a :class:`~harness.baselines.retrieval.RetrievalBaseline` (used for its gallery
    and record reading only, never for its votes); ``reader``: a
    :class:`~harness.baselines.ocr.GlyphReader`; ``closed``: closed-vocabulary mode; ``model``:
    the fitted confidence (None: never abstains)."""

    def __init__(self, retrieval: RetrievalBaseline, reader: GlyphReader, closed: bool = False,
                 model: FusionModel | None = None):
        self.retrieval = retrieval
        self.gallery = retrieval.gallery
        self.reader = reader
        self.closed = closed
        self.model = model
        self.rows_of: dict[str, np.ndarray] = {}
        rows: dict[str, list[int]] = {}
        for i, c in enumerate(self.gallery.characters):
            rows.setdefault(c, []).append(i)
        self.rows_of = {c: np.asarray(v, np.int64) for c, v in rows.items()}
        self.vocabulary = sorted(self.rows_of)
        self.decisions = {"glyphs": 0, "abstained": 0}

    def describe(self) -> dict:
        """Reader, mode, gallery and confidence model, for results.json."""
        return {"ocr": self.reader.describe(), "vocabulary": "closed (gallery characters)" if self.closed else "open",
                "gallery": self.gallery.describe(), "calibration": self.model.to_dict() if self.model else None,
                "decisions": dict(self.decisions)}

    def read(self, images: list) -> list[Reading]:
        """Readings of ``images`` (closed vocabulary ranked when in closed mode)."""
        return self.reader.read(images, closed=self.vocabulary if self.closed else None)

    def gallery_form(self, character: str) -> str:
        """The form of ``character`` the gallery holds (itself first), else itself."""
        return next((f for f in variant_forms(character) if f in self.rows_of), character)

    def ranked(self, reading: Reading) -> list[tuple[str, float]]:
        """The candidates this mode decides among, best first."""
        if self.closed:
            return list(reading.closed or [])
        out: dict[str, float] = {}
        for c, p in reading.candidates:
            f = self.gallery_form(c)
            out[f] = max(out.get(f, 0.0), p)
        return sorted(out.items(), key=lambda t: -t[1])

    @staticmethod
    def features(ranked: list[tuple[str, float]]) -> list[float]:
        """:data:`OCR_FEATURES` of a ranked candidate list."""
        p1 = ranked[0][1] if ranked else 0.0
        p2 = ranked[1][1] if len(ranked) > 1 else 0.0
        return [p1, p1 - p2]

    def decide(self, reading: Reading, *, count: bool = False, calibrated: bool = True) -> FusedDecision:
        """The decision on one reading; ``count`` adds it to :attr:`decisions`."""
        ranked = self.ranked(reading)
        feats = self.features(ranked)
        character = ranked[0][0] if ranked else None
        if not reading.glyph_like:  # speckle, not strokes (harness.baselines.ocr.MAX_COMPONENTS)
            confidence, abstained = 0.0, True
        elif self.model is not None and calibrated:
            confidence = float(self.model.probability(np.asarray([feats]))[0])
            abstained = character is None or (self.retrieval.settings.abstain and confidence < self.model.threshold)
        else:
            confidence, abstained = feats[0], character is None
        rows = [int(r) for r in self.rows_of.get(character, [])[:self.retrieval.settings.k]] if character else []
        if count:
            self.decisions["glyphs"] += 1
            self.decisions["abstained"] += int(abstained)
        return FusedDecision(None if abstained else character, None, round(confidence, 4), abstained,
                             [(c, round(p, 4)) for c, p in ranked[:5]], rows,
                             dict(zip(OCR_FEATURES, (round(v, 4) for v in feats))), {},
                             component="ocr", ocr=reading.to_dict(), scored=[(c, round(p, 4)) for c, p in ranked[:5]])

    def answer(self, d: FusedDecision, kind: str) -> str:
        """The answer text of one question of template ``kind`` (``""`` when abstaining,
        for SCRC, and when the character's records lack the value)."""
        if d.abstained or kind == "SCRC":
            return ""
        if kind == "CHAR":
            return d.character
        if d.character not in self.rows_of:
            return ""
        script = next((s for s in MODERN_FIRST if self.gallery.record(d.character, s)), None)
        return self.retrieval.render_fact(self.retrieval.character_facts(d.character, script, d.rows), kind)


def fit_ocr_calibration(ob: OCRBaseline, *, per_script: int = CALIBRATION_PER_SCRIPT, seed: int = 0,
                        threshold: float = 0.5) -> FusionModel:
    """Fit the confidence of ``ob`` on the held-out gallery glyphs of
    :func:`harness.baselines.retrieval.calibration_rows` (open mode: as they are; closed mode: also
    with the glyph's character removed from the vocabulary), one half, and put the
    risk-coverage curves of the other half into ``curves``."""
    from metrics.acce.variants import same_character

    g = ob.gallery
    picked = calibration_rows(g, per_script, seed)
    readings = ob.read([g.ds[int(i)]["image"] for i in picked])
    conditions = ("seen", "unseen character") if ob.closed else ("seen",)
    xs, ys, scripts, conds = [], [], [], []
    for condition in conditions:
        exclude = held_out_mask(g, picked, condition) if condition != "seen" else None
        for j, q in enumerate(picked):
            reading = readings[j] if exclude is None else visible_reading(readings[j], ob.rows_of, exclude(j, j + 1)[0])
            ranked = ob.ranked(reading)
            xs.append(ob.features(ranked))
            ys.append(bool(ranked) and same_character(ranked[0][0], g.characters[q]))
            scripts.append(labels.scoring_script(g.scripts[q]))
            conds.append(condition)
    x, y = np.asarray(xs, np.float64), np.asarray(ys, bool)
    order = np.random.default_rng(seed + 1).permutation(len(y))
    fit_rows, test_rows = np.sort(order[: (len(y) + 1) // 2]), np.sort(order[(len(y) + 1) // 2:])
    coef, intercept = fit_logistic(x[fit_rows], y[fit_rows])
    model = FusionModel(coef, intercept, threshold, features=OCR_FEATURES)
    conf = model.probability(x[test_rows])
    model.curves = curves_by_script([scripts[i] for i in test_rows], [conds[i] for i in test_rows], conf,
                                    y[test_rows], threshold)
    model.fit = {"gallery_fingerprint": g.fingerprint, "reader": ob.reader.name, "closed": ob.closed,
                 "per_script": per_script, "seed": seed, "samples": len(y), "conditions": list(conditions),
                 "accuracy_all_answered": round(100.0 * float(y.mean()), 1) if len(y) else None}
    return model


def load_or_fit_ocr_calibration(ob: OCRBaseline, cache_dir: Path | None = None,
                                per_script: int = CALIBRATION_PER_SCRIPT) -> FusionModel:
    """:func:`fit_ocr_calibration`, cached as JSON beside the embeddings (keyed by the
    gallery fingerprint, the reader, the mode, the sample size and the version)."""
    g = ob.gallery
    mode = "closed" if ob.closed else "open"
    path = Path(cache_dir or g.cache_dir) / (f"ocr-calibration-{g.fingerprint[:20]}-{ob.reader.name}-{mode}-"
                                             f"n{per_script}-v{FUSION_VERSION}.json")
    return cached_fit(path, lambda d: FusionModel.from_dict(d, OCR_FEATURES),
                      lambda: fit_ocr_calibration(ob, per_script=per_script))


def build_ocr_baseline(gallery_source, settings=None, *, reader: GlyphReader | None = None, closed: bool = False,
                       cache_dir: Path | None = None, progress: bool = True) -> OCRBaseline:
    """Gallery, recogniser and fitted (or cached) confidence of the OCR baseline. Raises
    ``harness.bench.BenchError`` or :class:`harness.baselines.ocr.OCRUnavailable`."""
    from harness.baselines.retrieval import build_baseline

    ob = OCRBaseline(build_baseline(gallery_source, settings, cache_dir=cache_dir, progress=progress),
                     reader or GlyphReader(features=False), closed)
    ob.model = load_or_fit_ocr_calibration(ob, cache_dir)
    return ob
