"""A leaderboard row (:class:`Row`), read back from its stored file (:func:`load_row`), and
:class:`SubmissionError`, the one error of the board: its message says in plain words what is
wrong with a submission."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from harness.eval.thinking import label as thinking_label


class SubmissionError(ValueError):
    """A submission was rejected; the message says what is wrong in plain words."""


@dataclass
class Row:
    """One leaderboard row. ``scores``: the eleven metrics plus L1..L4 and macro (0-100,
    None when not computed); ``source``: ``"submitted"`` or ``"reported in paper"``;
    ``created``: False when the same content was already on the board. ``protocol``
    (``per-question`` | ``paper``) and ``scoring`` (``jiezi`` | ``reference``) say how the
    answers were asked and scored: rows differing in either are never ranked together
    (issue 13); the paper's rows are ``paper`` + ``reference``."""

    id: str
    model_name: str
    source: str
    scores: dict
    meta: dict = field(default_factory=dict)
    submitted_at: str | None = None
    details: dict = field(default_factory=dict)
    created: bool = True
    protocol: str = "per-question"
    scoring: str = "jiezi"

    def to_dict(self) -> dict:
        """The row as JSON values."""
        return asdict(self)

    @property
    def thinking(self) -> str:
        """The run's thinking setting in short (``on``, ``off``, ``on (high)``, ``unknown``;
        :mod:`harness.eval.thinking`): a model may have one row per setting."""
        return thinking_label(((self.details or {}).get("run") or {}).get("thinking"))


def load_row(path: str | Path) -> Row:
    """Read one stored row."""
    data = json.loads(Path(path).read_text("utf-8"))
    return Row(**{k: v for k, v in data.items() if k in Row.__dataclass_fields__})
