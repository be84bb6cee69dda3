"""The fused baseline: the PP-OCR recogniser (:mod:`harness.ocr`) and the retrieval
baseline (:mod:`harness.retrieval`) decide the character of a glyph together.

Why both: the recogniser reads modern glyphs (regular, simplified, clerical fonts and
prints) almost perfectly, including characters the gallery lacks, but knows no script
and reads ancient forms poorly; retrieval knows the gallery's scripts and its ancient
tracings but confuses similar regular-script characters across typefaces.

Per glyph (:meth:`FusedBaseline.decide`):

1. candidates: the characters of the ``k`` nearest gallery glyphs, and the recogniser's
   single-character candidates, each mapped to the forms the gallery holds
   (:func:`variant_forms`: itself, its one-to-one traditional/simplified partner, OpenCC's
   t2s / s2t form; the recogniser often answers 唠 for a traditional 嘮);
2. each candidate gets :data:`FEATURES`: the recogniser's open-vocabulary probability
   (of any form of the candidate, as is and log-scaled, 0..1; and of exactly this form)
   and its closed-vocabulary posterior over the gallery's
   characters, the open probability again when the retrieval script vote is a modern
   script and when the gallery lacks the candidate (so the model learns how far to trust
   OCR per script family, and for characters only OCR can name), the retrieval vote
   weight, the best cosine similarity between the glyph and any gallery image of that
   candidate, whether the gallery has it at all, whether it is each component's first
   choice, and for retrieval's choice the retrieval baseline's own calibrated confidence
   (:mod:`harness.abstention`);
3. a gradient-boosted classifier (:func:`fit_candidates`) of "this candidate is the
   right character" on those features, fitted on held-out gallery glyphs in the three
   conditions of the retrieval calibration (seen, unseen character, held-out script;
   :func:`fit_fusion`), gives every candidate a probability; the best is the
   decision, its probability the one calibrated confidence; below the threshold the
   baseline abstains, and so it does on an image of speckle rather than strokes
   (:attr:`harness.ocr.Reading.glyph_like`);
4. the script is retrieval's: the weighted vote of the decided character's neighbours, or
   of its nearest gallery images when none is among the neighbours, or of all neighbours
   when the gallery lacks the character;
5. the decision records which component read the glyph: ``both`` (each ranked the
   decided character first), ``ocr``, ``retrieval``, or ``fusion`` (neither ranked it first).

Every later level comes from the decided character's own records
(:meth:`harness.retrieval.RetrievalBaseline.character_facts`), never from another
character's.
"""

from __future__ import annotations

import functools
import json
import math
import os
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from harness.baselines.abstention import CONDITIONS, curves_by_script, fit_logistic
from harness.baselines.ocr import GlyphReader, Reading
from harness.baselines.calibration import CALIBRATION_PER_SCRIPT, held_out_mask
from harness.baselines.retrieval import Decision, RetrievalBaseline
from metrics.acce import labels

FUSION_VERSION = 6
FEATURES = ("ocr_p", "ocr_exact", "ocr_log", "ocr_closed", "ocr_modern", "ocr_outside", "vote", "similarity",
            "in_gallery", "ocr_first", "retrieval_first", "retrieval_confidence")
MODERN_SCRIPTS = frozenset({"楷书", "简体", "隶书", "草书"})
OCR_FLOOR = 1e-6  # open-vocabulary probabilities below this count as "not read"
RETRIEVAL_CANDIDATES = 5
OCR_CANDIDATES = 5


@functools.lru_cache(maxsize=1)
def _converters():
    import opencc

    return opencc.OpenCC("t2s"), opencc.OpenCC("s2t")


@functools.lru_cache(maxsize=1)
def _simplified_to_traditional() -> dict[str, str]:
    from metrics.acce.variants import ONE_TO_ONE

    return {s: t for t, s in ONE_TO_ONE.items()}


def variant_forms(character: str) -> list[str]:
    """``character`` and its traditional/simplified forms: the one-to-one Unihan partner
    (:data:`metrics.acce.variants.ONE_TO_ONE`, both ways) and OpenCC's t2s and s2t
    conversions (one character each), in that order, without duplicates."""
    from metrics.acce.variants import ONE_TO_ONE

    t2s, s2t = _converters()
    forms = [character, ONE_TO_ONE.get(character, character), _simplified_to_traditional().get(character, character),
             t2s.convert(character), s2t.convert(character)]
    return [f for f in dict.fromkeys(forms) if len(f) == 1]


def ocr_scale(p: float) -> float:
    """An open-vocabulary probability on a log scale: 0 at :data:`OCR_FLOOR` or below, 1 at 1."""
    return max(0.0, math.log10(max(float(p), OCR_FLOOR)) / -math.log10(OCR_FLOOR) + 1.0)


@dataclass
class FusionModel:
    """A fitted logistic confidence: ``coef`` (one weight per name of ``features``,
    default :data:`FEATURES`), ``intercept``, ``threshold`` (lowest confidence answered,
    0-1), ``fit`` (how it was fitted), ``curves`` (risk-coverage tables on the held-out
    half, per script and condition)."""

    coef: list[float]
    intercept: float
    threshold: float = 0.5
    fit: dict = field(default_factory=dict)
    curves: dict = field(default_factory=dict)
    features: tuple[str, ...] = FEATURES

    estimator: object = field(default=None, repr=False)

    def probability(self, x: np.ndarray) -> np.ndarray:
        """P(candidate right) of feature rows ``(n, len(features))`` -> ``(n,)``, 0-1: the
        fitted ``estimator`` when there is one, else the logistic ``coef``/``intercept``."""
        x = np.asarray(x, np.float64).reshape(-1, len(self.features))
        if self.estimator is not None:
            return self.estimator.predict_proba(x)[:, 1] if len(x) else np.zeros(0)
        z = x @ np.asarray(self.coef) + self.intercept
        return 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))

    def to_dict(self) -> dict:
        """JSON-ready form (cached on disk, written into results.json)."""
        out = {"coef": list(self.coef), "intercept": self.intercept, "threshold": self.threshold, "fit": self.fit,
               "curves": self.curves}
        if self.estimator is not None:
            out["estimator"] = {"class": type(self.estimator).__name__, **{
                k: v for k, v in self.estimator.get_params().items() if isinstance(v, (int, float, str, bool))}}
        return {"version": FUSION_VERSION, **out, "features": list(self.features)}

    @classmethod
    def from_dict(cls, data: dict, features: tuple[str, ...] = FEATURES) -> "FusionModel":
        """Inverse of :meth:`to_dict`; raises ``ValueError`` on another version or other ``features``."""
        if data.get("version") != FUSION_VERSION or data.get("features") != list(features):
            raise ValueError("fusion model file of another version")
        return cls(list(data["coef"]), float(data["intercept"]), float(data["threshold"]),
                   data.get("fit") or {}, data.get("curves") or {}, tuple(features))


@dataclass
class FusedDecision(Decision):
    """A :class:`harness.retrieval.Decision` of the fused baseline, plus ``component``
    (``both`` | ``ocr`` | ``retrieval`` | ``fusion``: which component ranked the decided
    character first), ``ocr`` (the recogniser's reading, :meth:`Reading.to_dict`),
    ``retrieval_candidates`` ([(character, vote weight)]) and ``scored``
    ([(character, probability)] of every candidate, best first)."""

    component: str = ""
    ocr: dict | None = None
    retrieval_candidates: list = field(default_factory=list)
    scored: list = field(default_factory=list)

    def record(self) -> dict:
        """The decision record of a run: what decided, with which candidates."""
        return {"character": self.character, "script": self.script, "confidence": self.confidence,
                "abstained": self.abstained, "component": self.component, "ocr": self.ocr,
                "retrieval_candidates": self.retrieval_candidates, "scored": self.scored[:5]}


class FusedBaseline:
    """OCR + retrieval (see module docstring). ``retrieval``: a
    :class:`~harness.retrieval.RetrievalBaseline` (its gallery, k and temperature);
    ``reader``: a :class:`~harness.ocr.GlyphReader`; ``model``: a fitted
    :class:`FusionModel` (None: candidates ranked by the untrained sum of features,
    never abstaining; used only while fitting)."""

    def __init__(self, retrieval: RetrievalBaseline, reader: GlyphReader, model: FusionModel | None = None):
        self.retrieval = retrieval
        self.gallery = retrieval.gallery
        self.reader = reader
        self.model = model
        rows: dict[str, list[int]] = defaultdict(list)
        for i, c in enumerate(self.gallery.characters):
            rows[c].append(i)
        self.rows_of = {c: np.asarray(v, np.int64) for c, v in rows.items()}
        self.vocabulary = sorted(self.rows_of)
        self.decisions = {"glyphs": 0, "abstained": 0, "by_component": defaultdict(int)}

    def describe(self) -> dict:
        """Settings, reader, gallery, fusion model and decision counts, for results.json."""
        d = {k: (dict(v) if isinstance(v, defaultdict) else v) for k, v in self.decisions.items()}
        return {"fusion": {"version": FUSION_VERSION, "model": self.model.to_dict() if self.model else None},
                "ocr": self.reader.describe(), **self.retrieval.describe(), "decisions": d}

    def read(self, images: list) -> list[Reading]:
        """The recogniser's readings of ``images``, closed vocabulary = the gallery's characters."""
        return self.reader.read(images, closed=self.vocabulary)

    # -- candidates ----------------------------------------------------------------------
    def _form_scores(self, reading: Reading) -> tuple[dict[str, float], dict[str, float]]:
        """Open and closed OCR probability of every gallery form of the reading's candidates."""
        open_p: dict[str, float] = {}
        for c, p in reading.candidates:
            # the character read, and its forms the gallery holds (a simplified reading of a
            # traditional glyph); the reading itself stays a candidate for a character the
            # gallery lacks
            for f in [c] + [f for f in variant_forms(c) if f in self.rows_of]:
                open_p[f] = max(open_p.get(f, 0.0), p)
        closed_p = {c: p for c, p in (reading.closed or [])}
        return open_p, closed_p

    def candidate_table(self, query: np.ndarray, sims: np.ndarray, idx: np.ndarray, reading: Reading,
                        hidden: np.ndarray | None = None) -> tuple[list[str], np.ndarray, list]:
        """``(characters, features (m, len(FEATURES)), retrieval votes)`` of one glyph.

        ``query``: its gallery embedding ``(dim,)``; ``sims``/``idx``: its neighbours;
        ``hidden``: optional ``(len(gallery),)`` bool mask of gallery rows the glyph may
        not see (held-out fitting)."""
        votes = self.retrieval.character_votes(sims, idx)
        cal = self.retrieval.calibration
        ret_conf = cal.confidence(self.retrieval.features(sims, idx)[0]) if cal is not None and len(idx) else 0.0
        overall = self.retrieval.script_vote(sims, idx)
        modern = float(overall in MODERN_SCRIPTS)
        open_p, closed_p = self._form_scores(reading)
        exact = dict(reading.candidates)
        ocr_rank = sorted(open_p, key=lambda c: -open_p[c])
        closed_order = [c for c, _ in (reading.closed or [])]
        chars = list(dict.fromkeys([c for c, _, _ in votes[:RETRIEVAL_CANDIDATES]] + ocr_rank[:OCR_CANDIDATES]
                                   + closed_order[:OCR_CANDIDATES]))
        weight = {c: w for c, w, _ in votes}
        rows = []
        for c in chars:
            g_rows = self.rows_of.get(c)
            if g_rows is not None and hidden is not None:
                g_rows = g_rows[~hidden[g_rows]]
            sim = float((self.gallery.embeddings[g_rows] @ query).max()) if g_rows is not None and len(g_rows) else 0.0
            p = open_p.get(c, 0.0)
            held = float(g_rows is not None and len(g_rows) > 0)
            rows.append([p, exact.get(c, 0.0), ocr_scale(p), closed_p.get(c, 0.0), p * modern, p * (1.0 - held),
                         weight.get(c, 0.0), sim, held, float(bool(ocr_rank) and c == ocr_rank[0]),
                         float(bool(votes) and c == votes[0][0]),
                         ret_conf if votes and c == votes[0][0] else 0.0])
        return chars, np.asarray(rows, np.float64).reshape(-1, len(FEATURES)), votes

    # -- deciding ------------------------------------------------------------------------
    def decide(self, query: np.ndarray, sims: np.ndarray, idx: np.ndarray, reading: Reading, *,
               hidden: np.ndarray | None = None, count: bool = False, calibrated: bool = True) -> FusedDecision:
        """Decide one glyph (see module docstring). ``count`` adds it to :attr:`decisions`;
        ``calibrated=False`` ranks by the untrained feature sum and never abstains."""
        sims, idx = np.asarray(sims), np.asarray(idx)
        chars, x, votes = self.candidate_table(query, sims, idx, reading, hidden)
        if self.model is not None and calibrated:
            prob = self.model.probability(x)
        else:
            prob = 1.0 / (1.0 + np.exp(-(x.sum(1) - 3.0)))
        order = np.argsort(-prob, kind="stable")
        best = int(order[0])
        character, confidence = chars[best], float(prob[best])
        if not reading.glyph_like:  # speckle, not strokes: nothing to read (harness.ocr.MAX_COMPONENTS)
            confidence = 0.0
        abstained = bool(self.model is not None and calibrated and self.retrieval.settings.abstain
                         and confidence < self.model.threshold)
        script, rows, raw = self._script(character, query, sims, idx, hidden)
        ocr_first = bool(x[best, FEATURES.index("ocr_first")])
        ret_first = bool(x[best, FEATURES.index("retrieval_first")])
        component = ("both" if ocr_first and ret_first else "ocr" if ocr_first else
                     "retrieval" if ret_first else "fusion")
        if count:
            self.decisions["glyphs"] += 1
            self.decisions["abstained"] += int(abstained)
            self.decisions["by_component"][component] += 1
        feats = dict(zip(FEATURES, (round(float(v), 4) for v in x[best])))
        return FusedDecision(None if abstained else character, None if abstained else script, round(confidence, 4),
                             abstained, [(chars[i], round(float(prob[i]), 4)) for i in order[:5]], rows, feats, raw,
                             component=component, ocr=reading.to_dict(),
                             retrieval_candidates=[(c, round(w, 4)) for c, w, _ in votes[:5]],
                             scored=[(chars[i], round(float(prob[i]), 4)) for i in order])

    def _script(self, character: str, query, sims, idx, hidden) -> tuple[str, list[int], dict]:
        """(script, the character's gallery rows used, {raw script: count}) from retrieval."""
        mine = np.asarray([self.gallery.characters[int(i)] == character for i in idx])
        if mine.any():
            rows, s, i = [int(r) for r in idx[mine]], sims[mine], idx[mine]
        else:
            g_rows = self.rows_of.get(character)
            if g_rows is not None and hidden is not None:
                g_rows = g_rows[~hidden[g_rows]]
            if g_rows is None or not len(g_rows):
                return self.retrieval.script_vote(sims, idx), [], {}
            own = self.gallery.embeddings[g_rows] @ query
            top = np.argsort(-own)[:self.retrieval.settings.k]
            rows, s, i = [int(r) for r in g_rows[top]], own[top], g_rows[top]
        raw: dict[str, int] = defaultdict(int)
        for r in rows:
            raw[self.gallery.scripts[r]] += 1
        return self.retrieval.script_vote(s, i), rows, dict(raw)

    def answer(self, d: FusedDecision, kind: str) -> str:
        """The answer text of one question of template ``kind`` from decision ``d``
        (``""`` when abstaining or when the decided character's records lack the value)."""
        if d.abstained:
            return ""
        if kind == "CHAR":
            return d.character
        if kind == "SCRC":
            return d.script or ""
        if d.character not in self.rows_of:
            return ""  # read by OCR alone: the gallery holds no record of it
        return self.retrieval.render_fact(self.retrieval.character_facts(d.character, d.script, d.rows), kind)


# ------------------------------------------------------------------------------ fitting
def visible_reading(reading: Reading, gallery_chars: dict, hidden: np.ndarray) -> Reading:
    """``reading`` with closed-vocabulary entries of characters whose gallery rows are all
    hidden removed and the rest renormalised (the closed vocabulary is what the glyph's
    gallery holds)."""
    if not reading.closed:
        return reading
    keep, dropped = [], 0.0
    for c, p in reading.closed:
        r = gallery_chars.get(c)
        if r is not None and not hidden[r].all():
            keep.append((c, p))
        else:
            dropped += p
    mass = max(1e-12, 1.0 - dropped)
    return Reading(reading.text, reading.candidates, [(c, p / mass) for c, p in keep], reading.detector)


def _family_mask(exclude, fb: FusedBaseline, picked: np.ndarray, family: np.ndarray, condition: str):
    """``exclude`` that also hides, in the ``seen`` condition, every gallery image of the
    query's family (the augmented copies of a traced source are not other glyphs: a
    bench tracing never has its copies in the gallery)."""
    if condition != "seen":
        return exclude

    def masked(start, stop):
        m = exclude(start, stop)
        for j in range(start, stop):
            q = int(picked[j])
            rows = fb.rows_of[fb.gallery.characters[q]]
            m[j - start, rows[family[rows] == family[q]]] = True
        return m
    return masked


def fusion_samples(fb: FusedBaseline, per_script: int = CALIBRATION_PER_SCRIPT, seed: int = 0) -> dict:
    """Candidate tables of held-out gallery glyphs, for fitting and checking the model.

    The glyphs are those of :func:`harness.retrieval.calibration_rows` among original
    images (no augmented copy is a query); each is read once by the recogniser and decided
    in every condition of :data:`harness.abstention.CONDITIONS` with the hidden gallery
    rows removed from the neighbours, the similarities and the closed vocabulary
    (``seen`` hides the query's own family, :func:`_family_mask`, and asks only glyphs
    whose character keeps another image in their script). Returns ``x`` ``(n, len(FEATURES))``,
    ``y`` (candidate right: the same character up to a one-to-one traditional/simplified
    pair), ``group`` (sample of each candidate), and per sample ``script``, ``condition``."""
    from harness.baselines.calibration import calibration_rows
    from metrics.acce.variants import same_character

    g = fb.gallery
    alias = [labels.SCRIPT_SCORING_ALIAS.get(x, x) for x in g.scripts]
    origins = g.image_origins()
    family = np.asarray([origins.get(i, (i, False))[0] for i in g.ids], object)
    original = np.asarray([not origins.get(i, (i, False))[1] for i in g.ids], bool)
    picked = calibration_rows(g, per_script, seed, eligible=original)
    readings = fb.read([g.ds[int(i)]["image"] for i in picked])
    queries = g.embeddings[picked]
    xs, ys, groups, scripts, conds = [], [], [], [], []
    for condition in CONDITIONS:
        if condition == "held-out script" and len(set(alias)) < 2:
            continue
        exclude = _family_mask(held_out_mask(g, picked, condition), fb, picked, family, condition)
        sims, idx = g.search(queries, fb.retrieval.settings.k, exclude=exclude)
        for j, q in enumerate(picked):
            ok = np.isfinite(sims[j])
            gold = g.characters[q]
            hidden = exclude(j, j + 1)[0]
            same = fb.rows_of[gold]
            if not ok.any() or (condition == "seen" and not any(alias[r] == alias[q] for r in same[~hidden[same]])):
                continue
            reading = visible_reading(readings[j], fb.rows_of, hidden)
            chars, x, _ = fb.candidate_table(queries[j], sims[j][ok], idx[j][ok], reading, hidden)
            xs.append(x)
            ys.extend(same_character(c, gold) for c in chars)
            groups.extend([len(scripts)] * len(chars))
            scripts.append(alias[q])
            conds.append(condition)
    return {"x": np.concatenate(xs) if xs else np.zeros((0, len(FEATURES))), "y": np.asarray(ys, bool),
            "group": np.asarray(groups, np.int64), "script": scripts, "condition": conds}


def _decide_groups(model: FusionModel, x: np.ndarray, y: np.ndarray, group: np.ndarray, keep: np.ndarray):
    """(confidence, right) of the best candidate of each sample in ``keep``."""
    prob = model.probability(x)
    conf, right = [], []
    for gid in keep:
        rows = np.flatnonzero(group == gid)
        best = rows[int(np.argmax(prob[rows]))]
        conf.append(float(prob[best]))
        right.append(bool(y[best]))
    return np.asarray(conf), np.asarray(right, bool)


def fit_candidates(x: np.ndarray, y: np.ndarray):
    """The candidate model: scikit-learn's ``HistGradientBoostingClassifier`` (log loss, so
    its probabilities are calibrated on the fitting data; 200 shallow trees of at most 15
    leaves, learning rate 0.1, seeded). Chosen over a logistic regression on the same
    features because "OCR is sure and retrieval disagrees" is an interaction a linear score
    cannot weigh per script family. On the held-out half of the default gallery's samples
    (``benchmarks/bench_ocr.py --fusion``) the two are level on 楷书 (strict 83.1 vs 84.4
    seen, 56.4 vs 56.4 unseen character) and the boosted model is ahead on the oracle-bone
    scans (strict 33.8 vs 23.4 seen) and on 篆书 with its script held out (32.6 vs 23.3).
    With one class only, a constant model (:func:`harness.abstention.fit_logistic`)."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    if len(set(np.asarray(y, int).tolist())) < 2:
        return _Constant(fit_logistic(x, y)[1])
    return HistGradientBoostingClassifier(max_iter=200, learning_rate=0.1, max_leaf_nodes=15,
                                          random_state=0).fit(x, np.asarray(y, int))


class _Constant:
    """A model giving one probability everywhere (a sample with one class only)."""

    def __init__(self, logit: float):
        self.p = 1.0 / (1.0 + math.exp(-logit))

    def predict_proba(self, x):
        return np.column_stack([np.full(len(x), 1 - self.p), np.full(len(x), self.p)])

    def get_params(self):
        return {"p": self.p}


def fit_fusion(fb: FusedBaseline, *, per_script: int = CALIBRATION_PER_SCRIPT, seed: int = 0,
               threshold: float = 0.5) -> FusionModel:
    """Fit the candidate model on one half of :func:`fusion_samples` (split by glyph,
    seeded) and put the risk-coverage curves of its decisions on the other half into
    ``FusionModel.curves``. ``threshold``: the lowest confidence answered."""
    data = fusion_samples(fb, per_script, seed)
    n = len(data["script"])
    order = np.random.default_rng(seed + 1).permutation(n)
    fit_g, test_g = np.sort(order[: (n + 1) // 2]), np.sort(order[(n + 1) // 2:])
    in_fit = np.isin(data["group"], fit_g)
    model = FusionModel([], 0.0, threshold, estimator=fit_candidates(data["x"][in_fit], data["y"][in_fit]))
    conf, right = _decide_groups(model, data["x"], data["y"], data["group"], test_g)
    model.curves = curves_by_script([data["script"][i] for i in test_g], [data["condition"][i] for i in test_g],
                                    conf, right, threshold)
    model.fit = {"gallery_fingerprint": fb.gallery.fingerprint, "reader": fb.reader.name, "per_script": per_script,
                 "seed": seed, "samples": n, "candidates": int(len(data["y"])), "fit_half": len(fit_g),
                 "test_half": len(test_g), "by_condition": {c: data["condition"].count(c) for c in CONDITIONS},
                 "accuracy_all_answered": round(100.0 * float(right.mean()), 1) if len(right) else None,
                 "target": "candidate is the glyph's character (one-to-one traditional/simplified pairs equal)"}
    return model


def load_or_fit_fusion(fb: FusedBaseline, cache_dir: Path | None = None,
                       per_script: int = CALIBRATION_PER_SCRIPT) -> FusionModel:
    """:func:`fit_fusion`, cached as JSON beside the embeddings, keyed by the gallery
    fingerprint, the embedder, the reader (model file hash, preprocessing version), k,
    T, the sample size and :data:`FUSION_VERSION`."""
    import pickle

    s, g = fb.retrieval.settings, fb.gallery
    path = Path(cache_dir or g.cache_dir) / (f"fusion-{g.fingerprint[:20]}-{g.embedder.name}-{fb.reader.name}-k{s.k}-"
                                             f"T{s.temperature:g}-n{per_script}-v{FUSION_VERSION}.pkl")
    if path.exists():
        try:
            with open(path, "rb") as fh:
                model = pickle.load(fh)  # our own cache file, written below
            if isinstance(model, FusionModel) and tuple(model.features) == FEATURES:
                return model
        except Exception:  # a damaged or older file (another scikit-learn) is refitted
            pass
    model = fit_fusion(fb, per_script=per_script)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    with os.fdopen(fd, "wb") as fh:
        pickle.dump(model, fh)
    os.replace(tmp, path)
    return model


def build_fused(gallery_source, settings=None, *, reader: GlyphReader | None = None, cache_dir: Path | None = None,
                progress: bool = True) -> FusedBaseline:
    """The retrieval baseline of ``gallery_source`` (:func:`harness.retrieval.build_baseline`),
    the recogniser (default :class:`~harness.ocr.GlyphReader`) and the fitted (or cached)
    fusion model. Raises ``harness.bench.BenchError`` or :class:`harness.ocr.OCRUnavailable`."""
    from harness.baselines.retrieval import build_baseline

    reader = reader or GlyphReader()
    fb = FusedBaseline(build_baseline(gallery_source, settings, cache_dir=cache_dir, progress=progress), reader)
    fb.model = load_or_fit_fusion(fb, cache_dir)
    return fb
