"""What part of a bench split a run asks and reports (issue 24): ``--limit N`` as a seeded,
stratified sample instead of the first N rows, and a config's own fields only.

The bench is sorted by script (its first rows are all 甲骨文 tracings), so the first N rows
measured one script on a few subtasks. :func:`stratified_sample` takes N rows spread over
every (script, subtask) stratum; :func:`config_metrics` / :func:`keep_config_fields` keep a
level config's results to that level's metrics.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict

from metrics.acce import labels

SAMPLE_METHOD = "stratified: script x subtask, round robin over strata in seeded order, rows in seeded order"


def stratified_sample(metas: list[dict], n: int, seed: int = 0, keys: tuple[str, ...] = ("script", "subtask")
                      ) -> tuple[list[int], dict]:
    """``(indices, record)``: ``n`` row indices of ``metas`` (sorted, so the bench order is
    kept) drawn over the strata ``keys`` (default script x subtask), and what
    results.json records about the draw.

    Strata are visited round robin in a seeded order, taking each stratum's rows in a
    seeded order, so every stratum gets a row before any gets a second (a balanced sample:
    rare scripts are not left out of a small ``--limit``); a stratum that runs out is
    passed over. The same ``metas``, ``n`` and ``seed`` give the same rows. ``n`` at or
    above ``len(metas)`` takes every row. The record: ``method``, ``seed``, ``strata`` (the
    key names), ``strata_total`` and ``strata_drawn`` (counts), ``ids_sha256`` (of the
    drawn ids in order, for comparing two runs' samples).
    """
    rng = random.Random(seed)
    strata: dict[tuple, list[int]] = defaultdict(list)
    for i, m in enumerate(metas):
        strata[tuple(str(m.get(k)) for k in keys)].append(i)
    order = sorted(strata)
    rng.shuffle(order)
    queues = {k: rng.sample(strata[k], len(strata[k])) for k in order}
    picked: list[int] = []
    while len(picked) < min(n, len(metas)):
        for k in order:
            if queues[k] and len(picked) < n:
                picked.append(queues[k].pop())
    picked.sort()
    drawn = {tuple(str(metas[i].get(k)) for k in keys) for i in picked}
    ids = "\n".join(str(metas[i].get("id")) for i in picked)
    return picked, {"method": SAMPLE_METHOD, "seed": seed, "strata": list(keys), "strata_total": len(strata),
                    "strata_drawn": len(drawn), "ids_sha256": hashlib.sha256(ids.encode()).hexdigest()}


def config_metrics(config: str) -> tuple[str, ...] | None:
    """The metric keys a bench config reports: a level config (``L1``..``L4``) its level's
    metrics (``labels.METRIC_LEVEL``), ``all`` None (every metric)."""
    if config not in labels.LEVELS:
        return None
    return tuple(m for m in labels.METRICS if labels.METRIC_LEVEL[m] == config)


def restrict_metrics(metas: list[dict], config: str) -> list[dict]:
    """``metas`` with each row's ``metrics`` cut to the config's (:func:`config_metrics`):
    the component row of config L2 is not scored on COME (an L4 metric), nor that of L4 on
    COMR / COMF / COMI. Rows are copied; ``all`` returns ``metas`` unchanged."""
    keep = config_metrics(config)
    if keep is None:
        return metas
    return [{**m, "metrics": [k for k in m["metrics"] if k in keep]} for m in metas]


def keep_config_fields(obj, config: str):
    """``obj`` (scores or breakdown, nested dicts) without the keys of other levels: for a
    level config, every metric key of another level (and its ``FORC_partial``), the other
    level keys and ``macro`` (a single level's mean is its level key) are dropped at every
    depth. ``all`` returns ``obj`` unchanged."""
    keep = config_metrics(config)
    if keep is None:
        return obj
    drop = {m for m in labels.METRICS if m not in keep} | {lv for lv in labels.LEVELS if lv != config} | {"macro"}
    if "FORC" not in keep:
        drop.add("FORC_partial")

    def walk(value):
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items() if k not in drop}
        return value

    return walk(obj)
