"""The retrieval baseline's abstention, fitted: decisions on held-out gallery glyphs in the
three conditions of :data:`harness.baselines.abstention.CONDITIONS` (the glyph's character or
script hidden from the gallery, or only its own image), a logistic confidence over them
(:func:`fit_calibration`), cached beside the embeddings (:func:`load_or_fit_calibration`).
The ocr and fused baselines reuse the held-out draw and the cache."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from harness.baselines.abstention import CALIBRATION_VERSION, CONDITIONS, Calibration, curves_by_script, fit_logistic
from harness.baselines.gallery import Gallery
from hub.atomic import atomic_write_json
from metrics.acce import labels

if TYPE_CHECKING:
    from harness.baselines.retrieval import RetrievalBaseline


CALIBRATION_PER_SCRIPT = 150


def held_out_mask(gallery: Gallery, picked: np.ndarray, condition: str):
    """``exclude`` callable for :meth:`Gallery.search` in one of
    :data:`harness.baselines.abstention.CONDITIONS`: what each query (gallery rows ``picked``) may
    not see; ``exclude(start, stop)`` -> ``(stop - start, len(gallery))`` bool."""
    n = len(gallery)
    if condition == "seen":
        def exclude(start, stop):
            m = np.zeros((stop - start, n), bool)
            m[np.arange(stop - start), picked[start:stop]] = True
            return m
        return exclude
    values = gallery.characters if condition == "unseen character" else [
        labels.scoring_script(x) for x in gallery.scripts]
    _, codes = np.unique(np.asarray(values, object), return_inverse=True)

    def exclude(start, stop):
        return codes[None, :] == codes[picked[start:stop]][:, None]
    return exclude


def calibration_rows(gallery: Gallery, per_script: int = CALIBRATION_PER_SCRIPT, seed: int = 0,
                     eligible: np.ndarray | None = None) -> np.ndarray:
    """The held-out gallery rows of a calibration: up to ``per_script`` per script
    (scoring aliases merged, 简体 with 楷书), a seeded random choice among the rows where
    the optional ``(len(gallery),)`` bool mask ``eligible`` holds, sorted ``(m,)`` int64."""
    alias = np.asarray([labels.scoring_script(x) for x in gallery.scripts], object)
    ok = np.ones(len(alias), bool) if eligible is None else np.asarray(eligible, bool)
    rng = np.random.default_rng(seed)
    return np.sort(np.concatenate([rng.permutation(np.flatnonzero((alias == s) & ok))[:per_script]
                                   for s in sorted(set(alias.tolist()))])).astype(np.int64)


def calibration_samples(baseline: "RetrievalBaseline", per_script: int = CALIBRATION_PER_SCRIPT,
                        seed: int = 0) -> dict:
    """Decisions on held-out gallery glyphs for fitting and checking the confidence.

    Up to ``per_script`` gallery images per script (scoring aliases merged; seeded
    random choice) are each answered three times (:data:`harness.baselines.abstention.CONDITIONS`)
    with the gallery rows that condition hides removed; in the ``seen`` condition only
    images whose (character, script) has another image are asked (else no right answer
    is left). The three conditions weigh about equally: the fitted confidence assumes
    that a third of the glyphs shown are of characters, and a third of scripts, that
    the gallery lacks. Returns arrays ``features``
    ``(n, len(FEATURES))``, ``correct`` (the decided character is right), and lists ``script``
    (the query's), ``condition``. A condition that would leave no gallery is skipped.
    """
    from harness.baselines.abstention import FEATURES

    g = baseline.gallery
    alias = np.asarray([labels.scoring_script(x) for x in g.scripts], object)
    picked = calibration_rows(g, per_script, seed)
    queries = g.embeddings[picked]
    pairs = Counter(zip(g.characters, alias.tolist()))
    feats, correct, scripts, conds = [], [], [], []
    for condition in CONDITIONS:
        if condition == "held-out script" and len(set(alias.tolist())) < 2:
            continue
        sims, idx = g.search(queries, baseline.settings.k, exclude=held_out_mask(g, picked, condition))
        for j, q in enumerate(picked):
            ok = np.isfinite(sims[j])
            if not ok.any() or (condition == "seen" and pairs[(g.characters[q], alias[q])] < 2):
                continue
            d = baseline.decide(sims[j][ok], idx[j][ok], calibrated=False)
            feats.append([d.features[f] for f in FEATURES])
            correct.append(d.character == g.characters[q])
            scripts.append(str(alias[q]))
            conds.append(condition)
    return {"features": np.asarray(feats, np.float64).reshape(-1, len(FEATURES)),
            "correct": np.asarray(correct, bool), "script": scripts, "condition": conds}


def fit_calibration(baseline: "RetrievalBaseline", *, per_script: int = CALIBRATION_PER_SCRIPT, seed: int = 0,
                    threshold: float = 0.5) -> Calibration:
    """Fit the confidence of ``baseline`` on :func:`calibration_samples`: logistic
    regression on one half (split at random, seeded), risk-coverage curves per script on
    the other half (``Calibration.curves``). ``threshold``: the lowest confidence answered."""
    data = calibration_samples(baseline, per_script, seed)
    n = len(data["correct"])
    order = np.random.default_rng(seed + 1).permutation(n)
    fit_rows, test_rows = np.sort(order[: (n + 1) // 2]), np.sort(order[(n + 1) // 2:])
    coef, intercept = fit_logistic(data["features"][fit_rows], data["correct"][fit_rows])
    cal = Calibration(coef, intercept, threshold)
    conf = np.asarray(cal.confidence(data["features"][test_rows]))
    cal.curves = curves_by_script([data["script"][i] for i in test_rows], [data["condition"][i] for i in test_rows],
                                  conf, data["correct"][test_rows], threshold)
    counts = {c: data["condition"].count(c) for c in CONDITIONS}
    cal.fit = {"gallery_fingerprint": baseline.gallery.fingerprint, "per_script": per_script, "seed": seed,
               "samples": n, "fit_half": len(fit_rows), "test_half": len(test_rows), "by_condition": counts,
               "accuracy_all_answered": round(100.0 * float(data["correct"].mean()), 1) if n else None,
               "target": "decided character right (every level is read from its records)"}
    return cal


def load_or_fit_calibration(baseline: "RetrievalBaseline", cache_dir: Path | None = None,
                            per_script: int = CALIBRATION_PER_SCRIPT) -> Calibration:
    """:func:`fit_calibration`, cached as JSON beside the embeddings, keyed by the gallery
    fingerprint, the embedder, k, T, the sample size and the calibration version."""
    s, g = baseline.settings, baseline.gallery
    path = Path(cache_dir or g.cache_dir) / (f"calibration-{g.fingerprint[:20]}-{g.embedder.name}-k{s.k}-"
                                             f"T{s.temperature:g}-n{per_script}-v{CALIBRATION_VERSION}.json")
    return cached_fit(path, Calibration.from_dict, lambda: fit_calibration(baseline, per_script=per_script))


def cached_fit(path: Path, load, fit):
    """The model stored as JSON at ``path`` (``load(dict)``), else ``fit()`` written there
    atomically (its ``to_dict()``); a damaged or older file is refitted. ``path``'s name
    must key everything the model depends on."""
    if path.exists():
        try:
            return load(json.loads(path.read_text("utf-8")))
        except (OSError, ValueError, KeyError, TypeError):
            pass  # a damaged or older file is refitted
    model = fit()
    atomic_write_json(path, model.to_dict())
    return model
