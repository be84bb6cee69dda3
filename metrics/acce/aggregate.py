"""Per-question outcomes -> the ACCE result dict (ACCE.md section 2).

A metric is the mean of its per-question scores on 0-100: strict (unparseable answers and
judge failures count 0) and lenient (parsed / judged answers only). Level scores and the
macro average are means over the metrics that were computed; ``aggregation["levels"]``
lists them. Also builds the per-script / per-split breakdown (the paper's Table 3) and the
settings record.
"""

from __future__ import annotations

import importlib.metadata
import sys
from collections import defaultdict
from dataclasses import dataclass, field

from .component_match import SIMILARITY_THRESHOLD
from .labels import LEVELS, METRIC_LEVEL, METRICS, SCRIPT_SCORING_ALIAS

METRIC_VERSION = "1.1.0"  # of the scoring definitions; recorded in every result

@dataclass
class Cell:
    """One (item, metric) outcome: ``status`` is ok / unparseable / invalid_reference /
    judge_failure; ``value`` in [0, 1] (0 unless ok); ``partial`` is FORC's recall credit;
    ``parsed`` the structured reading; ``raw`` the judge's reply."""

    index: int
    metric: str
    status: str
    value: float = 0.0
    partial: float | None = None
    reason: str | None = None
    parsed: object = None
    raw: object = None
    bertscore: dict | None = None  # ORIM / COMI: [UNK] counts and truncation of the scored pair(s)


@dataclass
class Item:
    """One scored answer: its position, metric keys, texts and per-metric cells."""

    index: int
    metrics: list[str]
    prediction: str
    reference: dict | str
    cells: dict[str, Cell] = field(default_factory=dict)


def _mean(values: list[float]) -> float | None:
    return 100.0 * sum(values) / len(values) if values else None


def _metric_means(cells: list[Cell]) -> tuple[float | None, float | None]:
    strict = [c.value for c in cells if c.status in ("ok", "unparseable", "judge_failure")]
    lenient = [c.value for c in cells if c.status == "ok"]
    return _mean(strict), _mean(lenient)


def _levels(scores: dict[str, float | None]) -> tuple[dict[str, float | None], dict[str, list[str]]]:
    out: dict[str, float | None] = {}
    used: dict[str, list[str]] = {}
    for level in LEVELS:
        members = [m for m in METRICS if METRIC_LEVEL[m] == level and scores.get(m) is not None]
        used[level] = members
        out[level] = sum(scores[m] for m in members) / len(members) if members else None
    members = [m for m in METRICS if scores.get(m) is not None]
    used["macro"] = members
    out["macro"] = sum(scores[m] for m in members) / len(members) if members else None
    return out, used


def _table(cells_by_metric: dict[str, list[Cell]], not_computed: dict[str, str]) -> dict:
    row: dict[str, object] = {}
    for metric in METRICS:
        cells = cells_by_metric.get(metric, [])
        row[metric] = None if (metric in not_computed or not cells) else _metric_means(cells)[0]
    forc = [c for c in cells_by_metric.get("FORC", []) if c.status in ("ok", "unparseable")]
    row["FORC_partial"] = _mean([c.partial or 0.0 for c in forc])
    return row


def aggregate(items, n, skipped, not_computed, warnings, cfg, bert_info, judge_info, scripts, splits, id_of,
              details) -> dict:
    """The result dict of ``core.score`` from its scored ``items`` (see ``core.score``)."""
    by_metric: dict[str, list[Cell]] = defaultdict(list)
    for item in items:
        for metric, cell in item.cells.items():
            by_metric[metric].append(cell)
            if cell.status == "invalid_reference":
                skipped.append({"index": item.index, "id": id_of(item.index), "field": "references",
                                "metric": metric, "reason": cell.reason})

    result: dict[str, object] = {}
    lenient: dict[str, float | None] = {}
    counts: dict[str, dict[str, int]] = {}
    for metric in METRICS:
        cells = by_metric.get(metric, [])
        strict, loose = _metric_means(cells)
        computed = metric not in not_computed
        result[metric] = strict if computed else None
        lenient[metric] = loose if computed else None
        status = defaultdict(int)
        for c in cells:
            status[c.status] += 1
        counts[metric] = {
            "items": len(cells),
            "scored": (status["ok"] + status["unparseable"] + status["judge_failure"]) if computed else 0,
            "unparseable": status["unparseable"],
            "invalid_reference": status["invalid_reference"],
        }
        if metric.startswith("EVOI"):
            counts[metric]["judged"] = status["ok"] if computed else 0
            counts[metric]["judge_failures"] = status["judge_failure"]
            if status["judge_failure"] and computed:
                warnings.append(f"{metric}: {status['judge_failure']} judge failure(s) counted as 0 in the strict "
                                "score (see counts; a rerun retries transport failures, cached replies are reused)")
    forc = [c for c in by_metric.get("FORC", []) if c.status in ("ok", "unparseable")]
    result["FORC_partial"] = _mean([c.partial or 0.0 for c in forc])
    lenient["FORC_partial"] = _mean([c.partial or 0.0 for c in forc if c.status == "ok"])
    levels, used = _levels({m: result[m] for m in METRICS})
    result.update(levels)
    result["lenient"] = lenient
    result["counts"] = counts
    result["not_computed"] = not_computed
    result["aggregation"] = {
        "per_question_then_mean": True,
        "strict": "unparseable answers and judge failures count 0",
        "lenient": "mean over parsed (and, for EVOI, judged) answers only",
        "levels": {k: v for k, v in used.items()},
    }
    if scripts is not None or splits is not None:
        result["breakdown"] = _breakdown(items, scripts, splits, not_computed)
    result["skipped"] = sorted(skipped, key=lambda s: (s["index"], s.get("metric", "")))
    result["warnings"] = warnings
    result["n_items"] = n
    result["settings"] = _settings(cfg, bert_info, judge_info)
    if details:
        result["items"] = [
            {"index": c.index, "id": id_of(c.index), "metric": c.metric, "status": c.status,
             "score": (100.0 * c.value if c.status in ("ok", "unparseable", "judge_failure")
                       and c.metric not in not_computed else None),
             "partial": None if c.partial is None else 100.0 * c.partial,
             "reason": c.reason, "parsed": c.parsed, "judge_reply": c.raw,
             **({"bertscore": c.bertscore} if c.bertscore is not None else {})}
            for item in items for c in item.cells.values()
        ]
    return result


def _breakdown(items, scripts, splits, not_computed) -> dict:
    groups: dict[str, dict[str, list[Item]]] = {"script": defaultdict(list), "split": defaultdict(list)}
    cross: dict[str, dict[str, list[Item]]] = defaultdict(lambda: defaultdict(list))
    for item in items:
        flags = ["all"] + list(splits[item.index] if splits is not None and splits[item.index] else [])
        if splits is not None:
            for flag in flags:
                groups["split"][flag].append(item)
        if scripts is not None:
            script = str(scripts[item.index])
            groups["script"][script].append(item)
            for flag in flags:
                cross[script][flag].append(item)

    def cell_table(subset: list[Item]) -> dict:
        by_metric: dict[str, list[Cell]] = defaultdict(list)
        for item in subset:
            for metric, cell in item.cells.items():
                by_metric[metric].append(cell)
        return {"n_items": len(subset), **_table(by_metric, not_computed)}

    out: dict[str, dict] = {}
    if scripts is not None:
        out["script"] = {k: cell_table(v) for k, v in sorted(groups["script"].items())}
        out["script_split"] = {s: {f: cell_table(v) for f, v in flags.items()} for s, flags in sorted(cross.items())}
    if splits is not None:
        out["split"] = {k: cell_table(v) for k, v in groups["split"].items()}
    return out


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _settings(cfg, bert_info: dict | None, judge_info: dict | None) -> dict:
    return {
        "metric_version": METRIC_VERSION,
        # with BERTScore off no model was used: name none (and no layer count) rather than the default
        "scorer": cfg.model_dump() if cfg.bertscore else {**cfg.model_dump(), "bertscore_model": None,
                                                           "bertscore_layers": None},
        "bertscore": bert_info,
        "judge": judge_info,
        "normalization": {"unicode": "NFKC", "opencc": "t2s", "scripts": dict(SCRIPT_SCORING_ALIAS),
                          "components": "whitespace removed, NFKC, t2s, radical alias table (aliases.py)"},
        "component_matching": {"exact_first": True, "levenshtein_similarity_min": SIMILARITY_THRESHOLD,
                               "objective": "most pairs, then highest total similarity"},
        "versions": {"python": sys.version.split()[0], "opencc": _version("opencc"),
                     "bert_score": _version("bert-score"), "transformers": _version("transformers"),
                     "torch": _version("torch"), "evaluate": _version("evaluate")},
    }
