"""The run behind a submission (``details["run"]`` of a row), read from the ``results.json``
that ``jiezi eval`` wrote beside its predictions: model spec, prompt version, decoding
settings, image size, strategy, thinking, protocol, bench fingerprint and revision."""

from __future__ import annotations

from harness.board.row import SubmissionError
from harness.board.store import Board
from hub.runfiles import RunFileError, check_results

# Backend settings that change answers (harness.eval.run keeps the same ones in run.json).
_DECODING_KEYS = ("backend", "model", "max_tokens", "max_new_tokens", "temperature", "decoding", "dtype", "retrieval",
                  "k", "temperature_softmax", "embedder", "gallery_fingerprint", "thinking")


def run_record(results: dict | None, board: Board) -> dict:
    """What produced a submission, from the ``results.json`` that ``jiezi eval`` wrote beside
    its predictions: ``model_spec``, ``prompt_version``, ``decoding`` (the backend settings
    that change answers), ``image_size``, ``strategy``, ``thinking`` (:mod:`harness.eval.thinking`;
    unknown when the run did not record it), ``protocol``, ``bench_fingerprint``,
    ``bench_revision``, ``bench_content_fingerprint``, ``packages``. Without one,
    ``{"recorded": False}`` and the bench's image sizes. Raises :class:`SubmissionError` when
    it is not a results.json of ``jiezi eval`` (``hub.runfiles.Results``, naming the field) or
    was made on another bench than the board's.
    """
    sizes = board.bench.get("image_sizes")
    if results is None:
        return {"recorded": False, "image_size": sizes,
                "note": "no results.json came with the predictions: model, prompt and decoding are not known"}
    try:
        check_results(results, "the run record")
    except RunFileError as exc:
        raise SubmissionError(f"{exc} (not a results.json written by `jiezi eval`)") from exc
    bench = results.get("bench") or {}
    if bench.get("fingerprint") != board.bench["fingerprint"]:
        raise SubmissionError(_other_bench_message(bench, board.bench))
    model = results.get("model") or {}
    scorer = results.get("scorer") or {}
    return {
        "recorded": True,
        "model_spec": model.get("spec"),
        "prompt_version": results.get("prompt_version"),
        "decoding": {k: model[k] for k in model if k in _DECODING_KEYS or k.startswith("decod")},
        "image_size": model.get("image_size") or results.get("image_size") or sizes,
        "strategy": results.get("strategy"),
        "thinking": model.get("thinking") or {"mode": "unknown", "budget": None, "how": "not in the run's results.json"},
        "protocol": results.get("protocol") or scorer.get("protocol") or "per-question",  # issue 13 names
        "bench_fingerprint": bench.get("fingerprint"),
        "bench_revision": bench.get("revision"),
        "bench_content_fingerprint": bench.get("content_fingerprint"),
        "config": bench.get("config"), "split": bench.get("split"),
        "packages": results.get("packages"),
    }


def _other_bench_message(run: dict, board: dict) -> str:
    """Why a run's results.json does not fit the board: both benches by source, config,
    split, the run's ``--limit`` and fingerprint, and what would fit."""
    def named(b: dict) -> str:
        return (f"{b.get('source')!r} config {b.get('config') or '?'} split {b.get('split') or '?'} "
                f"(fingerprint {str(b.get('fingerprint'))[:12]})")

    limit = f", --limit {run['limit']} ({run.get('rows')} rows)" if run.get("limit") else ""
    same_split = (run.get("config"), run.get("split")) == (board.get("config"), board.get("split"))
    fix = ("the bench's content differs: rerun `jiezi eval` on the board's bench" if same_split else
           f"run `jiezi eval --config {board.get('config')} --split {board.get('split')}` for this board, or "
           f"submit to a board of config {run.get('config')} split {run.get('split')} (a new --board folder)")
    return f"the run was made on bench {named(run)}{limit}; this board scores bench {named(board)}: {fix}"


def run_bertscore_model(results: dict | None) -> str | None:
    """The BERTScore model the run's ``results.json`` was scored with (``scorer.bertscore_model
    .requested``), or None. A new board without ``--bertscore-model`` takes it, so a run scored
    offline with e.g. ``offline-gemma3`` does not open a board on ``bert-base-chinese``, which an
    offline machine cannot load (ORIM/COMI would silently go unscored on every row)."""
    scorer = (results or {}).get("scorer") or {}
    record = scorer.get("bertscore_model")
    return record.get("requested") if isinstance(record, dict) and record.get("requested") else None
