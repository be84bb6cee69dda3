"""Submissions of ``jiezi eval --protocol paper`` runs (issue 13): one line per bench image
(``id`` = image id), re-scored with ``metrics.acce.paper.score_paper`` in the run's scoring
mode (``reference`` | ``jiezi``) and stored as a ``paper`` row of that scoring, ranked only
with rows asked and scored the same way."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from harness.bench import BenchError, fingerprint
from harness.board.row import Row, SubmissionError
from harness.board.runs import run_record
from harness.board.scores import score_differences, score_paper_rows, scored_by
from harness.board.store import Board, bench_rows_of, existing_row, store_row
from harness.board.validate import MAX_BYTES, content_id, validate_predictions
from harness.eval.protocol_paper import load_paper_images
from metrics.acce import labels

# ------------------------------------------------------------- the paper's protocol (issue 13)
SCORINGS = ("reference", "jiezi")


def submission_protocol(file_bytes: bytes, results: dict | None, board: Board, protocol: str | None = None) -> str:
    """``"paper"`` or ``"per-question"``: how the submitted answers were asked.

    ``protocol`` when given; else the run's ``results.json`` (``protocol``); else read from
    the file: a first id that is a bench image id (and not a question id, which names its
    image and kind, ``<image_id>:<KIND>``) marks a ``jiezi eval --protocol paper`` file (one
    reply per image). Raises :class:`SubmissionError` for another protocol name."""
    if protocol is None and isinstance(results, dict):
        protocol = results.get("protocol")
    if protocol is None:
        protocol = "per-question"
        first = next((line for line in file_bytes[:1_000_000].splitlines() if line.strip()), b"")
        try:
            first_id = json.loads(first).get("id")
        except (ValueError, AttributeError, UnicodeDecodeError):
            first_id = None  # validation names the bad line later
        if isinstance(first_id, str) and ":" not in first_id:
            image_ids = {r["image_id"] for r in bench_rows_of(board)}
            protocol = "paper" if first_id in image_ids else protocol
    if protocol not in ("paper", "per-question"):
        raise SubmissionError(f"the run's protocol {protocol!r} is not known: expected 'paper' or 'per-question'")
    return protocol


def paper_scoring(scoring: str | None, results: dict | None) -> str:
    """The scoring mode of a paper-protocol row: ``scoring`` when given, else the run's
    headline (``results.json`` ``scoring``), else ``"reference"`` (the authors' scorer, the
    paper's Table 10). Raises :class:`SubmissionError` for another name."""
    scoring = scoring or (results.get("scoring") if isinstance(results, dict) else None) or "reference"
    if scoring not in SCORINGS:
        raise SubmissionError(f"scoring {scoring!r} is not known: expected one of {list(SCORINGS)}")
    return scoring


def paper_row_id(rows: list[dict], scoring: str) -> str:
    """The id of a paper-protocol row: SHA-256 (hex) of the protocol, the scoring mode and
    :func:`content_id`, so the same replies scored both ways are two rows and never share an
    id with a per-question row."""
    return hashlib.sha256(f"protocol=paper\nscoring={scoring}\n{content_id(rows)}\n".encode()).hexdigest()


def paper_images(board: Board) -> dict:
    """The board's bench, one row per image (``harness.eval.protocol_paper.load_paper_images`` at
    the board's revision): ``ids``, ``references`` (eight-field dicts) and ``fingerprint``
    of the image rows. Raises :class:`SubmissionError` when the bench changed since the
    board was created or has no image references."""
    bench_rows_of(board)  # the per-question rows' fingerprint: the board's bench is unchanged
    try:
        ds, _ = load_paper_images(board.bench["source"], board.bench["split"], revision=board.bench.get("revision"))
    except (BenchError, ValueError, OSError) as exc:
        raise SubmissionError(f"the board's bench {board.bench['source']} cannot be read one row per image for the "
                              f"paper's protocol: {exc}") from exc
    return {"ids": ds["image_id"], "references": [json.loads(r) for r in ds["reference"]], "fingerprint": fingerprint(ds)}


def _paper_run_record(results: dict | None, board: Board, images: dict) -> dict:
    """:func:`run_record` of a paper-protocol run: its results.json must be of the board's
    bench read one row per image (the image rows' fingerprint); adds the run's ``prompt``
    record (file and SHA-256 of the prompt text) and ``scoring``."""
    view = Board(board.path, {**board.config, "bench": {**board.bench, "fingerprint": images["fingerprint"]}})
    run = run_record(results, view)
    if results is not None:
        if results.get("protocol") != "paper":
            raise SubmissionError(f"the run's results.json is of protocol {results.get('protocol')!r}, but the "
                                  "predictions hold one reply per bench image (protocol 'paper')")
        run.update(prompt=results.get("prompt"), scoring=results.get("scoring"))
    return run


def submit_paper(file_bytes: bytes, name: str, meta: dict, board: Board, *, results: dict | None = None,
                 scoring: str | None = None, progress: bool = False, bertscore: bool = True) -> Row:
    """Validate, score and store a ``jiezi eval --protocol paper`` submission (one reply per
    bench image, ``id`` = image id): re-scored with ``score_paper`` in ``scoring``
    (:func:`paper_scoring`) and stored as a row of ``protocol="paper"`` and that scoring,
    ranked only with rows asked and scored the same way (the paper's rows are paper +
    reference). ``name`` / ``meta`` are already checked (:func:`submit` calls this);
    ``bertscore``: as in :func:`submit` (kept in ``details["bertscore"]["computed"]`` so
    :func:`verify_paper` re-scores the same way).
    ``details`` hold the success means (``lenient``), ``FORC_partial``, the reply ``counts``
    (samples, failures = replies without a JSON object) and the image rows' fingerprint.
    Raises :class:`SubmissionError` in plain words."""
    scoring = paper_scoring(scoring, results)
    images = paper_images(board)
    run = _paper_run_record(results, board, images)
    rows = validate_predictions(file_bytes, images["ids"], max_bytes=board.config.get("max_bytes", MAX_BYTES))
    if not any(r.get("output") for r in rows):
        raise SubmissionError(f"all {len(rows)} replies are empty or failed (no 'output'); there is nothing to score. "
                              "Rerun `jiezi eval --protocol paper` to ask the failed images again.")
    sid = paper_row_id(rows, scoring)
    existing = existing_row(board, sid)
    if existing is not None:
        return existing
    scored = score_paper_rows(board, rows, images, scoring, progress, bertscore)
    res = scored["result"]
    details = {
        "n_predictions": len(rows),
        "empty_or_failed": sum(1 for r in rows if not r.get("output")),
        "lenient": {m: res[m]["success_mean"] for m in labels.METRICS},
        "FORC_partial": res["FORC_partial"]["with_failures"],
        "FORC_partial_success_mean": res["FORC_partial"]["success_mean"],
        "counts": res["counts"],
        "not_computed": res["not_computed"],
        "bench": {**board.bench, "images": len(images["ids"]), "images_fingerprint": images["fingerprint"]},
        "bertscore": {**scored["bertscore"], "scored_by": scored_by(res), "computed": bertscore},
        "scorer_settings": res.get("settings"),
        "comparable_to_paper": bool(scored["bertscore"].get("comparable_to_paper")),
        "run": run,
    }
    row = Row(id=sid, model_name=name, source="submitted", scores=scored["scores"], meta=meta,
              submitted_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), details=details,
              protocol="paper", scoring=scoring)
    return store_row(board, row, rows)


def verify_paper(board: Board, row: Row, preds: Path, *, progress: bool = False, tolerance: float = 1e-4) -> dict:
    """:func:`verify` of a paper-protocol row: its replies re-scored with ``score_paper`` in
    the row's scoring mode and the board's settings; same result keys as :func:`verify`."""
    images = paper_images(board)
    rows = validate_predictions(preds.read_bytes(), images["ids"], max_bytes=board.config.get("max_bytes", MAX_BYTES))
    bertscore = (row.details.get("bertscore") or {}).get("computed", True)
    recomputed = score_paper_rows(board, rows, images, row.scoring, progress, bertscore)["scores"]
    differences = score_differences(row.scores, recomputed, tolerance)
    content_ok = paper_row_id(rows, row.scoring) == row.id
    return {"row": row.id, "model_name": row.model_name, "ok": content_ok and not differences,
            "content_ok": content_ok, "checked": len(recomputed), "differences": differences, "scores": recomputed}
