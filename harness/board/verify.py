"""Re-scoring a stored row from its stored predictions and checking its stored scores
(``jiezi leaderboard verify ROW``)."""

from __future__ import annotations

import json
from pathlib import Path

from harness.board.paper import verify_paper
from harness.board.row import SubmissionError, load_row
from harness.board.scores import LEVEL_KEYS, score_differences, score_predictions
from harness.board.store import Board, bench_rows_of, find_row
from harness.board.validate import MAX_BYTES, row_id, validate_predictions
from metrics.acce import labels


def verify(board_dir: str | Path, ref: str, *, progress: bool = False, tolerance: float = 1e-4) -> dict:
    """Re-score a stored row from its stored predictions and check its stored scores.

    ``ref``: see :func:`find_row`. Checks that the predictions file still has the row's
    content id, that the bench is unchanged (fingerprint), and that each of the eleven
    metrics, L1..L4 and macro re-scored with the board's settings (a paper-protocol row: in
    its scoring mode, :func:`verify_paper`) equals the stored value
    within ``tolerance`` (points on 0-100; None must stay None). Returns ``{"row", "model_name",
    "ok", "content_ok", "checked", "differences": {metric: [stored, recomputed]},
    "scores"}``. Raises :class:`SubmissionError` when the row, its predictions or the board
    cannot be read.
    """
    path = find_row(board_dir, ref)
    row = load_row(path)
    cfg_path = Path(board_dir) / "board.json"
    if not cfg_path.is_file():
        raise SubmissionError(f"{board_dir}: no board.json (not a leaderboard folder)")
    board = Board(Path(board_dir), json.loads(cfg_path.read_text("utf-8")))
    preds = board.path / "predictions" / f"{row.id}.jsonl"
    if not preds.is_file():
        raise SubmissionError(f"row {row.id[:12]} ({row.model_name}): its predictions {preds} are missing")
    if row.protocol == "paper":
        return verify_paper(board, row, preds, progress=progress, tolerance=tolerance)
    bench_rows = bench_rows_of(board)
    rows = validate_predictions(preds.read_bytes(), [r["id"] for r in bench_rows],
                                max_bytes=board.config.get("max_bytes", MAX_BYTES))
    res = score_predictions(board, rows, bench_rows, progress)["result"]
    recomputed = {m: res.get(m) for m in (*labels.METRICS, *LEVEL_KEYS)}
    differences = score_differences(row.scores, recomputed, tolerance)
    content_ok = row_id(rows, (row.details or {}).get("run")) == row.id
    return {"row": row.id, "model_name": row.model_name, "ok": content_ok and not differences,
            "content_ok": content_ok, "checked": len(recomputed), "differences": differences, "scores": recomputed}
