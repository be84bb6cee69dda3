"""The leaderboard table: the submitted rows and the paper's, grouped by (protocol, scoring)
and ranked within a group."""

from __future__ import annotations

from pathlib import Path

from harness.board.reported import paper_rows
from harness.board.row import Row
from harness.board.store import submitted_rows
from metrics.acce import labels

PROTOCOL_ORDER = (("paper", "reference"), ("paper", "jiezi"), ("per-question", "jiezi"))


def protocol_group(row: Row) -> tuple[str, str]:
    """``(protocol, scoring)`` of a row: rows are ranked only within one such group."""
    return (row.protocol or "per-question", row.scoring or "jiezi")


def table(board_dir: str | Path | None, *, include_paper: bool = True) -> list[Row]:
    """Submitted rows plus (``include_paper``) the paper's rows, grouped by
    :func:`protocol_group` (paper+reference first, as in ``PROTOCOL_ORDER``; other groups
    after), best first within a group.

    Within a group rows are ranked by how many of the eleven metrics they have, then by
    macro: a macro over fewer metrics (no EVOI judge, say) leaves out the hardest ones and
    is not comparable with a full row, so it never outranks one. A row without a macro is
    last. Rows of different groups are never interleaved: their numbers are not comparable.
    """
    rows = (submitted_rows(board_dir) if board_dir else []) + (paper_rows() if include_paper else [])

    def rank(r: Row) -> tuple:
        group = protocol_group(r)
        order = PROTOCOL_ORDER.index(group) if group in PROTOCOL_ORDER else len(PROTOCOL_ORDER)
        computed = sum(r.scores.get(m) is not None for m in labels.METRICS)
        return (order, group, r.scores.get("macro") is None, -computed, -(r.scores.get("macro") or 0.0))

    return sorted(rows, key=rank)
