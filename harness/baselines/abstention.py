"""When the retrieval baseline should say "unknown": a calibrated confidence and its
risk-coverage curves.

The baseline first decides one character from its ``k`` nearest gallery glyphs
(:meth:`harness.baselines.retrieval.RetrievalBaseline.decide`). Two numbers describe how sure
that vote is (:data:`FEATURES`):

- ``margin``: the winner's summed softmax weight minus the runner-up's (0-1);
- ``top_similarity``: the cosine similarity of the winner's nearest glyph (-1..1).

The share of the ``k`` neighbours that are the winner (``support``) is reported with a
decision but not used: it is capped by how many images a character has in the gallery
(two to nine), so it measures the gallery more than the glyph, and on the test galleries
it took a negative weight. A logistic regression (scikit-learn's ``LogisticRegression``,
C=100: weak regularisation, as the two features are on a 0-1 scale and the samples are
many) maps them to the
probability that the decided character is right (every level is read from that
character's records, so the character is what must be right; a script answer can still
be wrong for a script the gallery lacks, which is why the Space states the coverage). It is fitted on held-out
JieZi-Dataset glyphs in three conditions (``harness.baselines.calibration.fit_calibration``):
``seen`` (the query image left out, other images of its character remain), ``unseen
character`` (every image of its character left out, so any answer is wrong) and
``held-out script`` (every gallery image of its script left out, as for a glyph drawn in
a script the gallery lacks: the character must be found through other scripts). The baseline abstains when
the confidence is below :attr:`Calibration.threshold` (0.5: it answers only when right
is more likely than wrong).

A risk-coverage curve (El-Yaniv & Wiener, JMLR 2010) sorts answers by confidence and
gives, for each share of questions answered (coverage), the accuracy of the answered
ones; :func:`risk_coverage` computes it.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

FEATURES = ("margin", "top_similarity")
CONDITIONS = ("seen", "unseen character", "held-out script")
COVERAGE_POINTS = (0.1, 0.2, 0.4, 0.6, 0.8, 1.0)
CALIBRATION_VERSION = 3


@dataclass
class Calibration:
    """A fitted confidence model.

    ``coef``: one weight per :data:`FEATURES`; ``intercept``; ``threshold``: the lowest
    confidence that is answered (0-1); ``fit``: how it was fitted (sample counts per
    condition, gallery fingerprint); ``curves``: risk-coverage tables of the held-out half
    (``{script: {condition or "all": table}}``, see :func:`risk_coverage`).
    """

    coef: list[float]
    intercept: float
    threshold: float = 0.5
    fit: dict = field(default_factory=dict)
    curves: dict = field(default_factory=dict)

    def confidence(self, features: dict | np.ndarray) -> float | np.ndarray:
        """P(answer right) for one feature dict, or a ``(n, 2)`` array -> ``(n,)``; 0-1."""
        if isinstance(features, dict):
            x = np.array([[float(features[f]) for f in FEATURES]])
            return float(self.confidence(x)[0])
        z = np.asarray(features, np.float64) @ np.asarray(self.coef) + self.intercept
        return 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))

    def to_dict(self) -> dict:
        """JSON-ready form (cached on disk and written into results.json)."""
        return {"version": CALIBRATION_VERSION, "features": list(FEATURES), **asdict(self)}

    @classmethod
    def from_dict(cls, data: dict) -> "Calibration":
        """Inverse of :meth:`to_dict`; raises ``ValueError`` on another version or features."""
        if data.get("version") != CALIBRATION_VERSION or data.get("features") != list(FEATURES):
            raise ValueError("calibration file of another version")
        return cls(list(data["coef"]), float(data["intercept"]), float(data["threshold"]),
                   data.get("fit") or {}, data.get("curves") or {})


def fit_logistic(x: np.ndarray, y: np.ndarray) -> tuple[list[float], float]:
    """Logistic regression of ``y`` (0/1, ``(n,)``) on ``x`` (``(n, len(FEATURES))``)
    with scikit-learn (L2, C=100). When ``y`` holds one class only, a model that gives that
    class's frequency everywhere is returned (all-zero weights)."""
    y = np.asarray(y, int)
    if len(set(y.tolist())) < 2:
        p = min(max(float(y.mean()) if len(y) else 0.5, 1e-3), 1 - 1e-3)
        return [0.0] * x.shape[1], math.log(p / (1 - p))
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=100.0, max_iter=5000).fit(x, y)
    return [float(v) for v in model.coef_[0]], float(model.intercept_[0])


def risk_coverage(confidence: np.ndarray, correct: np.ndarray, threshold: float) -> dict:
    """The risk-coverage table of one group of answers.

    ``confidence``: ``(n,)`` 0-1; ``correct``: ``(n,)`` bool. Returns ``n``; ``accuracy``
    when everything is answered; ``points``: ``{coverage: accuracy of the most confident
    share}`` at :data:`COVERAGE_POINTS` (percent, 1 decimal); ``at_threshold``: coverage and
    accuracy when answering only confidence >= ``threshold`` (accuracy None when nothing
    is answered). Empty input gives ``n`` 0 and no points.
    """
    confidence, correct = np.asarray(confidence, float), np.asarray(correct, bool)
    n = len(confidence)
    if n == 0:
        return {"n": 0, "accuracy": None, "points": {}, "at_threshold": {"coverage": None, "accuracy": None}}
    order = np.argsort(-confidence, kind="stable")
    hits = np.cumsum(correct[order])
    points = {}
    for c in COVERAGE_POINTS:
        m = max(1, int(round(c * n)))
        points[f"{int(c * 100)}%"] = round(100.0 * hits[m - 1] / m, 1)
    answered = confidence >= threshold
    return {"n": n, "accuracy": round(100.0 * correct.mean(), 1), "points": points,
            "at_threshold": {"coverage": round(100.0 * answered.mean(), 1),
                             "accuracy": round(100.0 * correct[answered].mean(), 1) if answered.any() else None}}


def curves_by_script(scripts: list[str], conditions: list[str], confidence: np.ndarray, correct: np.ndarray,
                     threshold: float, names: tuple[str, ...] = CONDITIONS) -> dict:
    """:func:`risk_coverage` per script, per condition (of ``names``) and over all
    conditions: ``{script: {"all": table, condition: table}}`` plus ``"all scripts"``."""
    scripts_arr, cond_arr = np.asarray(scripts, object), np.asarray(conditions, object)
    out: dict = {}
    for script in [*sorted(set(scripts)), "all scripts"]:
        in_script = np.ones(len(scripts_arr), bool) if script == "all scripts" else scripts_arr == script
        tables = {"all": risk_coverage(confidence[in_script], correct[in_script], threshold)}
        for cond in names:
            mask = in_script & (cond_arr == cond)
            if mask.any():
                tables[cond] = risk_coverage(confidence[mask], correct[mask], threshold)
        out[script] = tables
    return out


def format_table(curves: dict, condition: str = "all") -> str:
    """The risk-coverage curves of one condition as a plain-text table (one row per
    script: n, accuracy at each coverage point, coverage and accuracy at the threshold)."""
    cols = [f"{int(c * 100)}%" for c in COVERAGE_POINTS]
    head = f"{'script':<14}{'n':>6}  " + "".join(f"{c:>7}" for c in cols) + "   answered  acc@thr"
    lines = [head]
    for script, tables in curves.items():
        t = tables.get(condition)
        if not t or not t["n"]:
            continue
        thr = t["at_threshold"]
        acc = "-" if thr["accuracy"] is None else f"{thr['accuracy']:.1f}"
        lines.append(f"{script:<14}{t['n']:>6}  " + "".join(f"{t['points'].get(c, 0):>7.1f}" for c in cols)
                     + f"   {thr['coverage']:>7.1f}%  {acc:>7}")
    return "\n".join(lines)
