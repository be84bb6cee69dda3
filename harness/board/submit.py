"""Submitting to a board: validate, score and store one submission (:func:`submit`; files on
disk and lmms-eval log folders: :func:`submit_file`). One code path for the CLI
(``jiezi leaderboard submit``) and the Gradio Space."""

from __future__ import annotations

import json
import time
from pathlib import Path

from harness.board.names import check_meta, unreserved_name
from harness.board.paper import paper_images, submission_protocol, submit_paper
from harness.board.row import Row, SubmissionError
from harness.board.runs import run_bertscore_model, run_record
from harness.board.scores import LEVEL_KEYS, score_predictions, scored_by
from harness.board.store import bench_rows_of, existing_row, open_board, store_row
from harness.board.validate import MAX_BYTES, row_id, validate_predictions
from hub.runfiles import RunFileError, read_results
from metrics.acce import labels


def submit(file_bytes: bytes, model_name: str, meta: dict | None, board_dir: str | Path, *,
           bench: str | None = None, bertscore_model: str | None = None, judge: str | None = None,
           progress: bool = False, results: dict | None = None, revision: str | None = None,
           bertscore: bool = True, protocol: str | None = None, scoring: str | None = None) -> Row:
    """Validate, score and store one submission; returns its :class:`Row`.

    ``protocol``: how the answers were asked (:func:`submission_protocol`: given, the run's,
    or read from the file's ids); a ``paper`` file (one reply per image) goes to
    :func:`submit_paper` and is scored in ``scoring`` (:func:`paper_scoring`); a
    per-question file is scored by this project's scorer (``scoring`` None or ``jiezi``).

    ``results``: the run's ``results.json`` (see :func:`run_record`), stored in the row as
    ``details["run"]``; ``revision``: the bench revision of a new board (:func:`open_board`);
    ``bertscore``: False scores the exact metrics only (ORIM and COMI not computed; seconds
    for a full bench, see ``benchmarks/bench_submit.py``). The row's
    ``details["bertscore"]["scored_by"]`` names the model that scored ORIM/COMI.

    ``file_bytes``: the predictions.jsonl content; ``model_name``: see
    :func:`check_model_name`; ``meta``: see :func:`check_meta`; ``board_dir``: the board
    folder (created with ``bench`` / ``bertscore_model`` / ``judge`` on first use, see
    :func:`open_board`; without ``bertscore_model`` a new board takes the model the run's
    ``results`` were scored with). The same content already on the board returns the existing row
    with ``created=False``. Raises :class:`SubmissionError` with a plain-words message.
    """
    name = unreserved_name(model_name)
    meta = check_meta(meta)
    max_bytes = MAX_BYTES
    if len(file_bytes) > max_bytes:  # before any parsing or bench loading
        raise SubmissionError(f"the file is {len(file_bytes) / 1e6:.1f} MB; the limit is {max_bytes / 1e6:.0f} MB")
    if bertscore_model is None and not (Path(board_dir) / "board.json").exists():
        bertscore_model = run_bertscore_model(results)
    board = open_board(board_dir, bench=bench, bertscore_model=bertscore_model, judge=judge, revision=revision)
    if submission_protocol(file_bytes, results, board, protocol) == "paper":
        return submit_paper(file_bytes, name, meta, board, results=results, scoring=scoring, progress=progress,
                            bertscore=bertscore)
    if scoring not in (None, "jiezi"):
        raise SubmissionError(f"scoring {scoring!r} applies to the paper's protocol (one reply per image); "
                              "per-question answers are scored with this project's scorer (jiezi)")
    run = run_record(results, board)
    bench_rows = bench_rows_of(board)
    rows = validate_predictions(file_bytes, [r["id"] for r in bench_rows], max_bytes=board.config.get("max_bytes", max_bytes))
    if not any(r.get("output") for r in rows):
        raise SubmissionError(f"all {len(rows)} predictions are empty or failed (no 'output'); there is nothing to "
                              "score. Rerun `jiezi eval` to ask the failed questions again.")
    sid = row_id(rows, run)
    existing = existing_row(board, sid)
    if existing is not None:
        return existing
    scored = score_predictions(board, rows, bench_rows, progress, bertscore)
    res = scored["result"]
    scores = {m: res.get(m) for m in (*labels.METRICS, *LEVEL_KEYS)}
    details = {
        "n_predictions": len(rows),
        "empty_or_failed": sum(1 for r in rows if not r.get("output")),
        "lenient": res.get("lenient"),
        "FORC_partial": res.get("FORC_partial"),
        "counts": res.get("counts"),
        "not_computed": res.get("not_computed"),
        "bench": board.bench,
        "bertscore": {**scored["bertscore"], "scored_by": scored_by(res)},
        "scorer_settings": res.get("settings"),
        "comparable_to_paper": bool(scored["bertscore"].get("comparable_to_paper")),
        "run": run,
    }
    row = Row(id=sid, model_name=name, source="submitted", scores=scores, meta=meta,
              submitted_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), details=details)
    return store_row(board, row, rows)


def submit_file(path: str | Path, model_name: str, meta_path: str | Path | None, board_dir: str | Path,
                results_path: str | Path | None = None, **kwargs) -> Row:
    """:func:`submit` for files on disk; the size limit is checked before reading.

    ``results_path``: the run's results.json (default: ``results.json`` beside the
    predictions, when there is one), stored with the row (:func:`run_record`). ``path`` may
    also be an lmms-eval ``--log_samples --output_path`` folder of the JieZi tasks
    (:mod:`harness.interop.lmms_import`), scored like predictions of the same answers."""
    p = Path(path)
    if p.is_dir():
        return _submit_lmms_log(p, model_name, _read_meta(meta_path), board_dir, results_path, **kwargs)
    if not p.is_file():
        raise SubmissionError(f"{p}: no such file")
    size = p.stat().st_size
    if size > MAX_BYTES:
        raise SubmissionError(f"{p.name} is {size / 1e6:.1f} MB; the limit is {MAX_BYTES / 1e6:.0f} MB")
    results_file = Path(results_path) if results_path else p.with_name("results.json")
    if results_path and not results_file.is_file():
        raise SubmissionError(f"{results_file}: no such file (the run's results.json)")
    if results_file.is_file() and kwargs.get("results") is None:
        try:
            kwargs["results"] = read_results(results_file)
        except RunFileError as exc:
            raise SubmissionError(f"run record {exc}") from exc
    return submit(p.read_bytes(), model_name, _read_meta(meta_path), board_dir, **kwargs)


def _read_meta(meta_path: str | Path | None) -> dict | None:
    if not meta_path:
        return None
    try:
        return json.loads(Path(meta_path).read_text("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SubmissionError(f"metadata file {meta_path}: not a readable UTF-8 JSON file ({exc})") from exc


def _submit_lmms_log(folder: Path, model_name: str, meta: dict | None, board_dir: str | Path,
                     results_path: str | Path | None, **kwargs) -> Row:
    """:func:`submit` of an lmms-eval ``--log_samples`` folder (:mod:`harness.interop.lmms_import`):
    its answers as predictions, its references checked against the board's bench, its run
    record built from the log. Raises :class:`SubmissionError`."""
    from harness.interop.lmms_import import LmmsLogError, read_lmms_log

    if results_path or kwargs.get("results") is not None:
        raise SubmissionError("--results applies to a predictions.jsonl; an lmms-eval log folder carries its own record")
    name = unreserved_name(model_name)
    try:
        log = read_lmms_log(folder)
    except LmmsLogError as exc:
        raise SubmissionError(str(exc)) from exc
    board = open_board(board_dir, bench=kwargs.pop("bench", None), bertscore_model=kwargs.pop("bertscore_model", None),
                       judge=kwargs.pop("judge", None), revision=kwargs.pop("revision", None))
    if log.protocol == "paper":
        images = paper_images(board)
        references, fp = dict(zip(images["ids"], images["references"])), images["fingerprint"]
    else:
        references = {r["id"]: r["answer_struct"] for r in bench_rows_of(board)}
        fp = board.bench["fingerprint"]
    try:
        results = log.results(board.bench, fp, references)
    except LmmsLogError as exc:
        raise SubmissionError(str(exc)) from exc
    missing = len(set(references) - set(log.answers))
    if missing:
        limit = log.config.get("limit")
        raise SubmissionError(f"the lmms-eval run in {log.folder} answered {len(log.answers)} of the board's "
                              f"{len(references)} {'images' if log.protocol == 'paper' else 'questions'}"
                              f"{f' (lmms-eval --limit {limit:g})' if limit else ''}; a board row scores the whole "
                              "bench: run lmms-eval without --limit")
    return submit(log.predictions_bytes(), name, meta, board.path, results=results, protocol=log.protocol, **kwargs)
