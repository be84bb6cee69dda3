"""The rows the JieZi paper reports (its Table 10, ``paper_table10.json``), shown on every
board as "reported in paper" (protocol ``paper``, scoring ``reference``)."""

from __future__ import annotations

import json
from pathlib import Path

from harness.board.row import Row
from harness.board.scores import level_scores

PAPER_TABLE = Path(__file__).with_name("paper_table10.json")


def paper_rows() -> list[Row]:
    """The paper's Table 10 rows (``paper_table10.json``), source ``"reported in paper"``."""
    data = json.loads(PAPER_TABLE.read_text("utf-8"))
    rows = []
    for r in data["rows"]:
        scores = dict(zip(data["metric_order"], r["scores"]))
        scores.update(level_scores(scores))
        rows.append(Row(id="paper:" + r["model"], model_name=r["model"], source="reported in paper", scores=scores,
                        protocol="paper", scoring="reference",
                        meta={"reference": data["source"]},
                        details={"bertscore": {"requested": data["bertscore_model"], "comparable_to_paper": True},
                                 "judge": data["judge"], "comparable_to_paper": True}))
    return rows
