"""``results.json`` of a per-question ``jiezi eval`` run: its head (model, bench, strategy,
run-level warnings, packages), the scores of every wording, and the scoring key that lets a
rerun which asked nothing new reuse the scores (see :mod:`harness.eval.run` for the format)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

from harness import prompts
from harness.bench import bench_identity
from harness.eval import strategies
from harness.eval.ask import predictions_path
from harness.eval.backends import BACKENDS
from harness.eval.options import EvalOptions
from harness.eval.sampling import keep_config_fields, restrict_metrics
from harness.scoring import package_versions, score_rows
from hub.runfiles import RESULTS_FORMAT, RunFileError, read_results
from metrics.acce import labels



def _avg_delta(base: dict, variants: list[dict]) -> dict:
    keys = list(labels.METRICS) + ["L1", "L2", "L3", "L4", "macro"]
    out = {}
    for k in keys:
        diffs = [v[k] - base[k] for v in variants if v.get(k) is not None and base.get(k) is not None]
        out[k] = sum(diffs) / len(diffs) if diffs else None
    return out


def run_warnings(records: dict, n_errors: dict, ids: list[str], previous: Path) -> list[str]:
    """Run-level warnings: unanswered and empty answers, a changed ``--limit``."""
    warnings = []
    if n_errors[0]:
        warnings.append(f"{n_errors[0]} of {len(ids)} questions have no answer (backend errors, see the 'error' field "
                        "of predictions.jsonl); they score 0. Rerun the same command to ask them again.")
    n_empty = sum(1 for r in records[0].values() if r and not r.get("error") and not (r.get("output") or "").strip())
    if n_empty:
        warnings.append(f"{n_empty} of {len(ids)} questions got an empty answer (a baseline gives none when it "
                        "abstains or the decided character's record lacks the field); they score 0")
    try:
        prev_rows = read_results(previous)["bench"]["rows"] if previous.exists() else None
    except RunFileError:
        prev_rows = None
    if prev_rows is not None and prev_rows != len(ids):
        warnings.append(f"results.json scored {prev_rows} rows before and now scores {len(ids)} (--limit changed); "
                        "predictions.jsonl keeps every answer")
    return warnings


def results_head(opts: EvalOptions, spec, backend, gallery, bench_fp: str, metas: list[dict], run: dict,
                  warnings: list[str], *, revision: str | None = None) -> dict:
    """results.json without the scores: model, bench (with the resolved ``revision`` and the
    content fingerprint), strategy, warnings, run, packages."""
    prompted = BACKENDS[spec.kind].prompted
    return {
        "format": RESULTS_FORMAT,
        "protocol": "per-question", "scoring": "jiezi",  # issue 13: see harness/eval/protocol_paper.py
        "model": {"spec": str(spec), **backend.settings()},
        "bench": {**bench_identity(opts.bench, revision), "config": opts.config, "split": opts.split,
                  "fingerprint": bench_fp, "rows": len(metas), "images": len({m["image_id"] for m in metas}),
                  "limit": opts.limit, "sample": opts.sample},
        "strategy": {"name": opts.strategy, "shots": strategies.SHOTS if opts.strategy != "zero-shot" else 0,
                     "retriever": gallery.describe() if (gallery is not None and prompted) else None},
        "prompt_version": prompts.PROMPT_VERSION if prompted else None,
        "warnings": warnings,
        "run": run,
        "packages": package_versions(),
    }


def scoring_key(output: Path, n_wordings: int, ids: list[str], bert_record, opts: EvalOptions) -> str:
    """Digest of what the scores depend on: prediction files, rows, BERTScore model, judge."""
    return hashlib.sha256(json.dumps({
        "predictions": [hashlib.sha256(predictions_path(output, w).read_bytes()).hexdigest() for w in range(n_wordings)],
        "rows": ids, "bertscore": bert_record, "bertscore_on": opts.bertscore, "judge": opts.judge,
        "judge_env": [os.environ.get(k) for k in ("JIEZI_JUDGE_BASE_URL", "JIEZI_JUDGE_MODEL")],
    }, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def cached_scores(previous: Path, scoring_key: str) -> dict | None:
    """The earlier results.json when it was scored with ``scoring_key``, else None."""
    if not previous.exists():
        return None
    try:
        cached = read_results(previous)
    except RunFileError:  # damaged or of another version: scored again
        return None
    return cached if cached.get("run", {}).get("scoring_key") == scoring_key else None


def add_scores(results: dict, metas: list[dict], records: dict, n_errors: dict, settings, judge, bert_record,
                opts: EvalOptions, output: Path) -> None:
    """Score every wording into ``results`` (scores, breakdown, scorer, paraphrase)."""
    n_wordings = len(records)
    outputs = [{i: (r or {}).get("output") for i, r in records[w].items()} for w in range(n_wordings)]
    metas = [m for m in restrict_metrics(metas, opts.config) if m["metrics"]]  # the config's own fields only
    scores = score_rows(metas, outputs[0], settings, judge)
    results["scores"] = keep_config_fields({k: v for k, v in scores.items() if k not in ("breakdown", "settings")},
                                           opts.config)
    results["breakdown"] = keep_config_fields(scores.get("breakdown"), opts.config)
    results["scorer"] = {"settings": scores.get("settings"), "bertscore_model": bert_record}
    if n_wordings > 1:
        per = {"original": {m: scores.get(m) for m in (*labels.METRICS, "L1", "L2", "L3", "L4", "macro")}}
        variants = []
        for w in range(1, n_wordings):
            s = score_rows(metas, outputs[w], settings, judge)
            per[f"paraphrase_{w}"] = {m: s.get(m) for m in (*labels.METRICS, "L1", "L2", "L3", "L4", "macro")}
            per[f"paraphrase_{w}"]["errors"] = n_errors[w]
            variants.append(s)
        results["paraphrase"] = keep_config_fields({
            "source": opts.paraphrase_source, "wordings": n_wordings, "scores": per,
            "avg_delta": _avg_delta(scores, variants),
            "files": [predictions_path(output, w).name for w in range(n_wordings)]}, opts.config)


def jsonable(obj):
    """Plain JSON values (numpy scalars, sets and tuples converted)."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, Path):
        return str(obj)
    return obj
