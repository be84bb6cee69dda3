"""The fused baseline: the PP-OCR recogniser (:mod:`harness.baselines.ocr`) and the retrieval
baseline (:mod:`harness.baselines.retrieval`) decide the character of a glyph together.

Why both: the recogniser reads modern glyphs (regular, simplified, clerical fonts and
prints) well, including characters the gallery lacks, but knows no script, only its 18,708
classes (rare Shuowen heads are not among them) and reads ancient forms poorly; retrieval
knows the gallery's scripts and its ancient tracings but confuses similar regular-script
characters across typefaces; the template reader knows every character of its typefaces
but only by shape (HOG), so it confuses look-alikes.

Per glyph (:meth:`FusedBaseline.decide`):

1. candidates: the characters of the ``k`` nearest gallery glyphs, the recogniser's
   single-character candidates (CJK ideographs only: :func:`is_han`), and the font-template
   reader's best characters (:class:`harness.baselines.templates.TemplateReader`: every ideograph of two
   typefaces that draw no bench or gallery image, compared with the glyph by the
   recogniser's own features, :attr:`harness.baselines.ocr.Reading.features`, so it names
   characters outside PP-OCR's classes that the gallery never shows), each mapped to the forms the gallery holds
   (:func:`variant_forms`: itself, its one-to-one traditional/simplified partner, OpenCC's
   t2s / s2t form; the recogniser often answers 唠 for a traditional 嘮);
2. each candidate gets :data:`FEATURES`: the recogniser's open-vocabulary probability
   (of any form of the candidate, as is and log-scaled, 0..1; and of exactly this form)
   and its closed-vocabulary posterior over the gallery's characters, the open probability
   again when the retrieval script vote is a modern script and when the gallery lacks the
   candidate, the retrieval vote weight, the best cosine similarity between the glyph and
   any gallery image of that candidate, whether the gallery has it at all and in the script
   retrieval votes, whether it is each reader's first choice, for retrieval's choice the
   retrieval baseline's own calibrated confidence (:mod:`harness.baselines.abstention`), whether the
   recogniser's dictionary has it (else its OCR probability says nothing), and its template
   similarity and margin over the best other template character;
3. a gradient-boosted classifier (:func:`fit_candidates`) of "this candidate is the
   right character" on those features, fitted on held-out gallery glyphs in four conditions
   (seen, unseen character, unseen pair, held-out script:
   :data:`harness.baselines.fusion_fit.FUSION_CONDITIONS`;
   :func:`harness.baselines.fusion_fit.fit_fusion`), each script's conditions weighted by
   the deployment mix they stand for (:data:`harness.baselines.fusion_fit.DEPLOYMENT_MIX`:
   a regular-script glyph is a new font's rendering of a character the gallery holds in
   other fonts, or of one it lacks, never of a withheld pair or script), gives every candidate a probability;
   the best is the decision, its probability the one calibrated confidence; below the
   threshold the baseline abstains, and so it does on an image of speckle rather than
   strokes (:attr:`harness.baselines.ocr.Reading.glyph_like`);
4. per script as retrieval votes it, the fitted ``policy``
   (:func:`harness.baselines.fusion_fit.choose_policy`, chosen on out-of-fold gallery
   decisions, never on the bench) may put the retrieval baseline's own answer first (oracle
   bone, bronze, Warring States on the default gallery): there fused is never below
   retrieval alone;
5. the script is retrieval's: the weighted vote of the decided character's neighbours, or
   of all neighbours when none is the decided character (its own gallery images are then
   farther, and for a pair the gallery lacks, in other scripts only);
6. the decision records which component read the glyph: ``both`` (OCR and retrieval each
   ranked the decided character first, also when the policy answered retrieval's choice and
   the recogniser read it first), ``ocr``, ``retrieval`` (also: the policy's retrieval
   answer), ``templates``, or ``fusion`` (none ranked it first).

Every later level comes from the decided character's own records
(:meth:`harness.baselines.retrieval.RetrievalBaseline.character_facts`), never from another
character's. Fitting the model and building the baseline: :mod:`harness.baselines.fusion_fit`
(:func:`~harness.baselines.fusion_fit.build_fused`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from harness.baselines.abstention import fit_logistic
from harness.baselines.ocr import GlyphReader, Reading
from harness.baselines.retrieval import Decision, RetrievalBaseline
from harness.baselines.templates import TemplateReader
from metrics.acce import labels
from metrics.acce.variants import same_character

FUSION_VERSION = 10
FEATURES = ("ocr_p", "ocr_exact", "ocr_log", "ocr_closed", "ocr_modern", "ocr_outside", "vote", "similarity",
            "in_gallery", "in_script", "ocr_first", "retrieval_first", "retrieval_confidence", "ocr_known", "template",
            "template_gap", "template_first")
OCR_FLOOR = 1e-6  # open-vocabulary probabilities below this count as "not read"
AGREEMENT_OCR = 0.5  # the recogniser's reading that, with retrieval's first vote, is answered (FusedBaseline._agreement)
_OCR_EXACT, _OCR_MODERN, _OCR_FIRST, _RETRIEVAL_FIRST, _TEMPLATE = (
    FEATURES.index(f) for f in ("ocr_exact", "ocr_modern", "ocr_first", "retrieval_first", "template"))
RETRIEVAL_CANDIDATES = 5
OCR_CANDIDATES = 5
TEMPLATE_CANDIDATES = 5


def is_han(character: str) -> bool:
    """Whether ``character`` is one CJK ideograph (:func:`metrics.acce.variants.is_ideograph`):
    PP-OCR's dictionary also holds Latin, Greek, kana and punctuation (it reads a seal 卩 as
    ``P``), which name no character of this task."""
    from metrics.acce.variants import is_ideograph

    return len(character) == 1 and is_ideograph(ord(character))


@functools.lru_cache(maxsize=1)
def _converters():
    import opencc

    return opencc.OpenCC("t2s"), opencc.OpenCC("s2t")


@functools.lru_cache(maxsize=1)
def _simplified_to_traditional() -> dict[str, str]:
    from metrics.acce.variants import ONE_TO_ONE

    return {s: t for t, s in ONE_TO_ONE.items()}


@functools.lru_cache(maxsize=1)
def _openmp():
    """threadpoolctl's controller of the loaded native thread pools (installed with
    scikit-learn; built once: building it scans the loaded libraries, about 10 ms)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def variant_forms(character: str, opencc: bool = True) -> list[str]:
    """``character`` and its traditional/simplified forms: the one-to-one Unihan partner
    (:data:`metrics.acce.variants.ONE_TO_ONE`, both ways) and, with ``opencc``, OpenCC's t2s
    and s2t conversions (one character each), in that order, without duplicates."""
    from metrics.acce.variants import ONE_TO_ONE

    forms = [character, ONE_TO_ONE.get(character, character), _simplified_to_traditional().get(character, character)]
    if opencc:
        t2s, s2t = _converters()
        forms += [t2s.convert(character), s2t.convert(character)]
    return [f for f in dict.fromkeys(forms) if len(f) == 1]


def ocr_scale(p: float) -> float:
    """An open-vocabulary probability on a log scale: 0 at :data:`OCR_FLOOR` or below, 1 at 1."""
    return max(0.0, math.log10(max(float(p), OCR_FLOOR)) / -math.log10(OCR_FLOOR) + 1.0)


@dataclass
class FusionModel:
    """A fitted confidence: ``estimator`` (the candidate model, :func:`fit_candidates`) or
    a logistic ``coef`` (one weight per name of ``features``, default :data:`FEATURES`) and
    ``intercept``; ``threshold`` (lowest confidence answered, 0-1); ``fit`` (how it was
    fitted); ``curves`` (risk-coverage tables of out-of-fold decisions, per script and
    condition); ``policy`` (``{script: "retrieval-first"}`` for the scripts, as retrieval
    votes them, where answering with the retrieval baseline's own decision whenever it
    answers was right more often on held-out gallery glyphs than the candidate model:
    :func:`harness.baselines.fusion_fit.choose_policy`)."""

    coef: list[float]
    intercept: float
    threshold: float = 0.5
    fit: dict = field(default_factory=dict)
    curves: dict = field(default_factory=dict)
    features: tuple[str, ...] = FEATURES

    estimator: object = field(default=None, repr=False)
    policy: dict = field(default_factory=dict)

    def probability(self, x: np.ndarray) -> np.ndarray:
        """P(candidate right) of feature rows ``(n, len(features))`` -> ``(n,)``, 0-1: the
        fitted ``estimator`` when there is one, else the logistic ``coef``/``intercept``."""
        x = np.asarray(x, np.float64).reshape(-1, len(self.features))
        if self.estimator is not None:
            if not len(x):
                return np.zeros(0)
            if len(x) >= 1000:
                return self.estimator.predict_proba(x)[:, 1]
            # one glyph's few candidates: OpenMP's thread start-up per tree costs more than the
            # trees (measured 10.8 vs 2.2 ms for 15 rows, 300 trees, 2 cores)
            with _openmp().limit(limits=1, user_api="openmp"):
                return self.estimator.predict_proba(x)[:, 1]
        z = x @ np.asarray(self.coef) + self.intercept
        return 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))

    def to_dict(self) -> dict:
        """JSON-ready form (cached on disk, written into results.json)."""
        out = {"coef": list(self.coef), "intercept": self.intercept, "threshold": self.threshold, "fit": self.fit,
               "curves": self.curves, "policy": dict(self.policy)}
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
                   data.get("fit") or {}, data.get("curves") or {}, tuple(features), policy=data.get("policy") or {})


@dataclass
class FusedDecision(Decision):
    """A :class:`harness.baselines.retrieval.Decision` of the fused baseline, plus ``component``
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
    :class:`~harness.baselines.retrieval.RetrievalBaseline` (its gallery, k and temperature);
    ``reader``: a :class:`~harness.baselines.ocr.GlyphReader`; ``model``: a fitted
    :class:`FusionModel` (None: candidates ranked by the untrained sum of features,
    never abstaining; used only while fitting)."""

    def __init__(self, retrieval: RetrievalBaseline, reader: GlyphReader, model: FusionModel | None = None,
                 templates: TemplateReader | None = None):
        self.retrieval = retrieval
        self.gallery = retrieval.gallery
        self.reader = reader
        self.model = model
        self.templates = templates
        rows: dict[str, list[int]] = defaultdict(list)
        for i, c in enumerate(self.gallery.characters):
            rows[c].append(i)
        self.rows_of = {c: np.asarray(v, np.int64) for c, v in rows.items()}
        self.vocabulary = sorted(self.rows_of)
        self._alias = [labels.scoring_script(x) for x in self.gallery.scripts]
        self.decisions = {"glyphs": 0, "abstained": 0, "by_component": defaultdict(int)}

    def describe(self) -> dict:
        """Settings, reader, gallery, fusion model and decision counts, for results.json."""
        d = {k: (dict(v) if isinstance(v, defaultdict) else v) for k, v in self.decisions.items()}
        return {"fusion": {"version": FUSION_VERSION, "model": self.model.to_dict() if self.model else None},
                "ocr": self.reader.describe(), "templates": self.templates.describe() if self.templates else None,
                **self.retrieval.describe(), "decisions": d}

    def read(self, images: list) -> list[Reading]:
        """The recogniser's readings of ``images``, closed vocabulary = the gallery's characters."""
        return self.reader.read(images, closed=self.vocabulary)

    # -- candidates ----------------------------------------------------------------------
    def _form_scores(self, reading: Reading, hidden: np.ndarray | None = None) -> tuple[dict[str, float], dict[str, float]]:
        """Open and closed OCR probability of every gallery form of the reading's candidates.

        A reading the gallery holds (visible: not all its rows ``hidden``) lends its
        probability only to its one-to-one traditional/simplified partner
        (:data:`metrics.acce.variants.ONE_TO_ONE`, the same character for scoring), not to
        OpenCC's other conversions: OpenCC maps variants too (汙 -> 污), and the exact
        reading of a gallery character is itself the evidence (issue 22: a 汓 read 汙 was
        answered 污). A reading the gallery lacks lends it to every gallery form
        (:func:`variant_forms`: the recogniser reads a traditional 嘮 as 唠). Level on held-out
        gallery glyphs of the 12-04 build (regular script 88.1% strict either way)."""
        open_p: dict[str, float] = {}
        for c, p in reading.candidates:
            if not is_han(c):
                continue
            # the character read, and its forms the gallery holds; the reading itself stays a
            # candidate for a character the gallery lacks
            forms = variant_forms(c, opencc=not self._visible(c, hidden))
            for f in [c] + [f for f in forms if f in self.rows_of]:
                open_p[f] = max(open_p.get(f, 0.0), p)
        closed_p = {c: p for c, p in (reading.closed or [])}
        return open_p, closed_p

    def _visible(self, character: str, hidden: np.ndarray | None) -> bool:
        """Whether the gallery holds ``character`` with a row not ``hidden``."""
        rows = self.rows_of.get(character)
        return rows is not None and (hidden is None or not bool(hidden[rows].all()))

    def template_query(self, query: np.ndarray, reading: Reading) -> np.ndarray | None:
        """One glyph in the template reader's space: its gallery embedding ``query`` when the
        templates share the gallery's embedder, else the recogniser's features of its
        ``reading`` (:attr:`harness.baselines.ocr.Reading.features`; None when the reading
        kept none, or without a template reader)."""
        if self.templates is None:
            return None
        if self.templates.embedder.name == self.gallery.embedder.name:
            return query
        return reading.features

    def template_readings(self, queries: np.ndarray, readings: list[Reading]) -> list:
        """:meth:`template_reading` of many glyphs at once (``queries`` ``(n, dim)``, their
        readings): a list of ``[(character, similarity)]`` or None."""
        tq = [self.template_query(q, r) for q, r in zip(queries, readings)]
        have = [j for j, v in enumerate(tq) if v is not None]
        out: list = [None] * len(tq)
        if have:
            for j, top in zip(have, self.templates.read(np.stack([tq[j] for j in have]))):
                out[j] = top
        return out

    def template_reading(self, query: np.ndarray | None) -> list[tuple[str, float]] | None:
        """The template reader's best characters for one glyph given in its space
        (:meth:`template_query`): ``[(character, similarity)]``, or None without a template
        reader or a query."""
        return None if self.templates is None or query is None else self.templates.read(query[None])[0]

    def _template_features(self, query: np.ndarray, chars: list[str], top: list | None) -> np.ndarray:
        """``(m, 3)``: each candidate's template similarity (its own form; 0 when no
        template draws it), its gap to the best other character's, and whether it is the
        template reader's first choice."""
        out = np.zeros((len(chars), 3))
        if not top:
            return out
        sim = self.templates.similarity(query, chars)  # query: in the templates' space
        for j, c in enumerate(chars):
            if sim[j] > -1:
                other = top[1][1] if c == top[0][0] and len(top) > 1 else top[0][1]
                out[j] = (sim[j], sim[j] - other, float(c == top[0][0]))
        return out

    def candidate_table(self, query: np.ndarray, sims: np.ndarray, idx: np.ndarray, reading: Reading,
                        hidden: np.ndarray | None = None,
                        template_top: list | None = None) -> tuple[list[str], np.ndarray, list]:
        """``(characters, features (m, len(FEATURES)), retrieval votes)`` of one glyph.

        ``query``: its gallery embedding ``(dim,)``; ``sims``/``idx``: its neighbours;
        ``hidden``: optional ``(len(gallery),)`` bool mask of gallery rows the glyph may
        not see (held-out fitting); ``template_top``: its :meth:`template_reading` when
        already computed."""
        votes = self.retrieval.character_votes(sims, idx)
        cal = self.retrieval.calibration
        ret_conf = cal.confidence(self.retrieval.features(sims, idx)[0]) if cal is not None and len(idx) else 0.0
        voted = self.retrieval.script_vote(sims, idx)
        modern = float(voted in labels.MODERN_SCRIPTS)
        voted = labels.scoring_script(voted)
        open_p, closed_p = self._form_scores(reading, hidden)
        exact = dict(reading.candidates)
        ocr_rank = sorted(open_p, key=lambda c: -open_p[c])
        closed_order = [c for c, _ in (reading.closed or [])]
        tq = self.template_query(query, reading)
        top = self.template_reading(tq) if template_top is None else template_top
        by_template = []
        for c, _ in (top or [])[:TEMPLATE_CANDIDATES]:
            by_template += [c] + [f for f in variant_forms(c) if f in self.rows_of and f != c]
        chars = list(dict.fromkeys([c for c, _, _ in votes[:RETRIEVAL_CANDIDATES]] + ocr_rank[:OCR_CANDIDATES]
                                   + closed_order[:OCR_CANDIDATES] + by_template[:2 * TEMPLATE_CANDIDATES]))
        weight = {c: w for c, w, _ in votes}
        rows = []
        for c in chars:
            g_rows = self.rows_of.get(c)
            if g_rows is not None and hidden is not None:
                g_rows = g_rows[~hidden[g_rows]]
            sim = float((self.gallery.embeddings[g_rows] @ query).max()) if g_rows is not None and len(g_rows) else 0.0
            p = open_p.get(c, 0.0)
            held = float(g_rows is not None and len(g_rows) > 0)
            in_script = float(held > 0 and any(self._alias[r] == voted for r in g_rows))
            rows.append([p, exact.get(c, 0.0), ocr_scale(p), closed_p.get(c, 0.0), p * modern, p * (1.0 - held),
                         weight.get(c, 0.0), sim, held, in_script, float(bool(ocr_rank) and c == ocr_rank[0]),
                         float(bool(votes) and c == votes[0][0]),
                         ret_conf if votes and c == votes[0][0] else 0.0, float(c in self.reader.index)])
        x = np.hstack([np.asarray(rows, np.float64).reshape(-1, len(FEATURES) - 3),
                       self._template_features(tq, chars, top)])
        return chars, x, votes

    # -- deciding ------------------------------------------------------------------------
    def decide(self, query: np.ndarray, sims: np.ndarray, idx: np.ndarray, reading: Reading, *,
               hidden: np.ndarray | None = None, count: bool = False, calibrated: bool = True) -> FusedDecision:
        """Decide one glyph (see module docstring). ``count`` adds it to :attr:`decisions`;
        ``calibrated=False`` ranks by the untrained feature sum, never abstains and applies
        no ``policy``."""
        sims, idx = np.asarray(sims), np.asarray(idx)
        chars, x, votes = self.candidate_table(query, sims, idx, reading, hidden)
        if self.model is not None and calibrated:
            prob = self.model.probability(x)
        else:
            prob = 1.0 / (1.0 + np.exp(-(x.sum(1) - 3.0)))
        order = np.argsort(-prob, kind="stable")
        top = int(order[0])
        agreed = self._agreement(chars, x) if self.model is not None and calibrated else None
        best = agreed if agreed is not None else self._shown_form(chars, x, prob, top)
        character = chars[best]
        # the character's probability, whichever of its forms the glyph shows
        confidence = float(prob[top] if same_character(character, chars[top]) else prob[best])
        if agreed is not None:  # the agreement is answered (see _agreement)
            confidence = max(confidence, self.model.threshold)
        if not reading.glyph_like:  # speckle, not strokes: nothing to read (harness.baselines.ocr.MAX_COMPONENTS)
            confidence = 0.0
        abstained = bool(self.model is not None and calibrated and self.retrieval.settings.abstain
                         and confidence < self.model.threshold)
        firsts = [bool(x[best, k]) for k in (_OCR_FIRST, _RETRIEVAL_FIRST, FEATURES.index("template_first"))]
        component = ("both" if firsts[0] and firsts[1] else "ocr" if firsts[0] else "retrieval" if firsts[1] else
                     "templates" if firsts[2] else "fusion")
        ret = self._retrieval_first(sims, idx, reading) if self.model is not None and calibrated else None
        if ret is not None:  # the script's policy: the retrieval baseline's own answer
            character, confidence, abstained = ret.character, ret.confidence, False
            # said as read by both when the recogniser's first reading is that character too
            row = chars.index(character) if character in chars else None
            component = "both" if row is not None and x[row, _OCR_FIRST] else "retrieval"
        script, rows, raw = self._script(character, query, sims, idx, hidden)
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

    @staticmethod
    def _shown_form(chars: list[str], x: np.ndarray, prob: np.ndarray, best: int) -> int:
        """Among the candidates that are the same character as ``chars[best]`` (a one-to-one
        traditional/simplified pair counts as one character: the candidate model is fitted
        so, :func:`metrics.acce.variants.same_character`), the row of the form the glyph
        shows: the highest sum of the two readings of that exact form, the recogniser's
        probability of it and its template similarity (the model's probability breaking
        ties). Not retrieval's vote: for a simplified character the gallery lacks it votes
        the traditional form the gallery holds. A simplified glyph is so answered in its
        simplified form (issue 22: 颢 had been answered 顥, 苍 蒼, 癣 癬)."""
        same = [k for k in range(len(chars)) if same_character(chars[k], chars[best])]
        shown = lambda k: (x[k, _OCR_EXACT] + x[k, _TEMPLATE], prob[k])  # noqa: E731
        return max(same, key=shown)

    def _agreement(self, chars: list[str], x: np.ndarray) -> int | None:
        """The row of the candidate the recogniser reads first with open probability at least
        :data:`AGREEMENT_OCR` when retrieval's vote also puts it first and votes a modern script
        (feature ``ocr_modern``), else None; the decision answers it, at no less than the
        threshold.

        Why: the candidate model weighs the bench's deployment mix, where 45% of regular-script
        glyphs are characters the gallery lacks and two readers agreeing on a look-alike is
        then always wrong, so a template look-alike could outvote them (fresh-user trials: a
        clean 天 read 天 at 0.9998 by PP-OCR and voted 天 at 0.99 by retrieval was answered 夭;
        鹜 answered 骛 and 悳 惪 with both readers on the right one). On held-out regular-script
        gallery glyphs of characters the gallery holds the agreement at 0.5 is right for 95.5%
        (576 glyphs of the 12-04 build; at 0.9, 96.6%); on the default bench it answers 鹜 and
        the shown form of 苍, 颢, 啴, and takes 铙 for 饶 and 缋 for 绩 (characters the gallery
        lacks, read as a look-alike by both): 简体 strict CHAR 97.2 -> 96.5, 楷书 unchanged.
        Ancient scripts are left to the model: there the readers agree on a wrong
        character far more often (unseen pairs: 50-79% right)."""
        agreed = [k for k in range(len(chars)) if x[k, _OCR_FIRST] and x[k, _RETRIEVAL_FIRST]
                  and x[k, _OCR_MODERN] >= AGREEMENT_OCR]
        return agreed[0] if agreed else None

    def _retrieval_first(self, sims: np.ndarray, idx: np.ndarray, reading: Reading) -> Decision | None:
        """The retrieval baseline's decision when the model's ``policy`` says to take it for
        the script retrieval votes and it answers (never on speckle), else None."""
        script = self.retrieval.script_vote(sims, idx)
        if self.model.policy.get(labels.scoring_script(script)) != "retrieval-first":
            return None
        d = self.retrieval.decide(sims, idx)
        return None if d.abstained or not reading.glyph_like else d

    def _script(self, character: str, query, sims, idx, hidden) -> tuple[str, list[int], dict]:
        """``(script, rows, {raw script: count of the images that voted})`` from retrieval.
        ``rows``: the character's gallery rows its facts are read from (its neighbours, else
        its own images nearest to the glyph, else none)."""
        mine = np.asarray([self.gallery.characters[int(i)] == character for i in idx])
        if mine.any():
            rows = [int(r) for r in idx[mine]]
            return self.retrieval.script_vote(sims[mine], idx[mine]), rows, self._script_counts(rows)
        # None of the k nearest is the character: those neighbours, what the glyph looks like,
        # vote the script. The character's own images are farther than all of them and, for a
        # (character, script) pair the gallery lacks (every ancient bench drawing), in other
        # scripts only: on held-out gallery glyphs of unseen pairs their vote was never right,
        # the neighbours' 21-100% per script; level on seen pairs (bench_ocr.py --script-rule).
        rows: list[int] = []
        g_rows = self.rows_of.get(character)
        if g_rows is not None and hidden is not None:
            g_rows = g_rows[~hidden[g_rows]]
        if g_rows is not None and len(g_rows):
            own = self.gallery.embeddings[g_rows] @ query
            rows = [int(r) for r in g_rows[np.argsort(-own)[:self.retrieval.settings.k]]]
        return self.retrieval.script_vote(sims, idx), rows, self._script_counts([int(i) for i in idx])

    def _script_counts(self, rows: list[int]) -> dict[str, int]:
        raw: dict[str, int] = defaultdict(int)
        for r in rows:
            raw[self.gallery.scripts[r]] += 1
        return dict(raw)

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


# ---------------------------------------------------------------------- the candidate model
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
    return dataclasses.replace(reading, closed=[(c, p / mass) for c, p in keep])


def fit_candidates(x: np.ndarray, y: np.ndarray, weight: np.ndarray | None = None):
    """The candidate model: scikit-learn's ``HistGradientBoostingClassifier`` (log loss, so
    its probabilities are calibrated on the fitting data; 300 trees of at most 15 leaves,
    learning rate 0.05, at least 50 candidates a leaf, L2 1.0, seeded). Chosen on held-out
    gallery glyphs (half the glyphs of :func:`harness.baselines.fusion_fit.fusion_samples` at 1,000 per script, strict
    accuracy per condition seen / unseen character / unseen pair / held-out script): 楷书
    91.4 / 90.2 / 95.5 / 88.2 against 84.6 / 63.0 / 64.3 / 58.2 for a logistic regression on
    the same features ("OCR is sure, the templates disagree, the gallery lacks the
    character" are interactions a linear score cannot weigh), 篆书 93.1 / 29.8 / 13.5 / 11.9
    against 89.7 / 23.8 / 4.6 / 4.8; level with 200 unregularised trees (learning rate 0.1).
    ``weight``: per candidate (:func:`harness.baselines.fusion_fit.condition_weights` of its
    glyph's decision); candidates of weight 0 are left out. With one class only, a constant
    model (:func:`harness.baselines.abstention.fit_logistic`)."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    if weight is not None:
        keep = np.asarray(weight, float) > 0
        x, y, weight = np.asarray(x)[keep], np.asarray(y)[keep], np.asarray(weight, float)[keep]
    if len(set(np.asarray(y, int).tolist())) < 2:
        return _Constant(fit_logistic(x, y)[1])
    return HistGradientBoostingClassifier(max_iter=300, learning_rate=0.05, max_leaf_nodes=15, min_samples_leaf=50,
                                          l2_regularization=1.0, random_state=0).fit(x, np.asarray(y, int),
                                                                                     sample_weight=weight)


class _Constant:
    """A model giving one probability everywhere (a sample with one class only)."""

    def __init__(self, logit: float):
        self.p = 1.0 / (1.0 + math.exp(-logit))

    def predict_proba(self, x):
        return np.column_stack([np.full(len(x), 1 - self.p), np.full(len(x), self.p)])

    def get_params(self):
        return {"p": self.p}
