"""Scoring a submission with the board's fixed settings: the per-question scorer
(:func:`score_predictions`), the paper protocol's (:func:`score_paper_rows`), the level means
(:func:`level_scores`) and which BERTScore model scored ORIM and COMI (:func:`scored_by`)."""

from __future__ import annotations

from harness.board.store import Board
from harness.scoring import make_judge, score_rows, scorer_settings
from metrics.acce import labels
from metrics.acce.paper import score_paper

LEVEL_KEYS = ("L1", "L2", "L3", "L4", "macro")


# ------------------------------------------------------------------------------ table
def level_scores(scores: dict) -> dict:
    """L1..L4 and macro from the eleven metric values: the mean of each level's metrics
    that are not None, and of all of them (the metric core's definition)."""
    out = {}
    for level in labels.LEVELS:
        vals = [scores[m] for m in labels.METRICS if labels.METRIC_LEVEL[m] == level and scores.get(m) is not None]
        out[level] = sum(vals) / len(vals) if vals else None
    vals = [scores[m] for m in labels.METRICS if scores.get(m) is not None]
    out["macro"] = sum(vals) / len(vals) if vals else None
    return out


def score_predictions(board: Board, rows: list[dict], bench_rows: list[dict], progress: bool, bertscore: bool = True) -> dict:
    settings, record = scorer_settings(board.scorer["bertscore_model"], progress=progress, bertscore=bertscore)
    judge = make_judge(board.scorer.get("judge"))
    if judge is None:
        judge = False  # a board without a judge never picks one up from the environment
    result = score_rows(bench_rows, {r["id"]: r.get("output") for r in rows}, settings, judge)
    return {"result": result, "bertscore": record}


def scored_by(result: dict) -> dict | None:
    """The BERTScore model that scored ORIM and COMI (name, folder its weights came from,
    hidden states averaged); None when they were not computed."""
    info = (result.get("settings") or {}).get("bertscore") or {}
    if not info or info.get("unavailable") or "hidden_states_used" not in info:
        return None
    return {"model": info.get("requested"), "loaded_from": info.get("loaded_from"),
            "hidden_states_used": info.get("hidden_states_used"), "bert_score": info.get("bert_score")}


def score_paper_rows(board: Board, rows: list[dict], images: dict, scoring: str, progress: bool,
                 bertscore: bool = True) -> dict:
    """``metrics.acce.paper.score_paper`` of the replies in bench image order with the
    board's BERTScore model and judge; the row's scores are the strict figures
    (``with_failures``: a reply without JSON counts 0, ACCE.md section 2), L1..L4 and macro
    their level means (:func:`level_scores`); ``bertscore`` False leaves ORIM and COMI out."""
    settings, record = scorer_settings(board.scorer["bertscore_model"], progress=progress, bertscore=bertscore)
    judge = make_judge(board.scorer.get("judge"))
    by_id = {r["id"]: r.get("output") for r in rows}
    res = score_paper([by_id[i] for i in images["ids"]], images["references"], mode=scoring, settings=settings,
                      judge=judge)
    scores = {m: res[m]["with_failures"] for m in labels.METRICS}
    scores.update(level_scores(scores))
    return {"result": res, "scores": scores, "bertscore": record}


def score_differences(stored: dict, recomputed: dict, tolerance: float) -> dict[str, list]:
    """``{metric: [stored, recomputed]}`` for every metric of ``recomputed`` whose stored
    value differs by more than ``tolerance`` points (0-100 scale), or is None on one side
    only; ``{}`` when every score is reproduced."""
    differences = {}
    for m, new in recomputed.items():
        old = stored.get(m)
        same = (old is None and new is None) or (
            old is not None and new is not None and abs(float(old) - float(new)) <= tolerance)
        if not same:
            differences[m] = [old, new]
    return differences
