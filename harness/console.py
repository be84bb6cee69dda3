"""Printing helpers of the harness commands: a console as wide as the tables, and scores on 0-100
with one decimal (an en dash when not computed)."""

from __future__ import annotations


def console(width: int = 160):
    """A rich console at least ``width`` columns wide."""
    from rich.console import Console

    # Tables are wide; when stdout is not a terminal rich would wrap them at 80 columns.
    return Console(width=max(width, Console().width))


def fmt_score(value) -> str:
    """``value`` (0-100) with one decimal, ``–`` for None."""
    return "–" if value is None else f"{value:.1f}"
