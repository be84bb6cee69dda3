"""`jiezi` commands of the harness stage (registered by jiezi_cli.py), one module per product:

- ``jiezi eval``: :mod:`harness.eval.cli`;
- ``jiezi leaderboard submit|verify|show``: :mod:`harness.board.cli`;
- ``jiezi lmms-tasks``, ``jiezi import official-bench|official-dataset``: :mod:`harness.interop.cli`.

Each imports only typer and light tables at the top (``jiezi --help`` loads no datasets,
numpy or torch); the stage's modules load inside the commands.
"""

from __future__ import annotations

import typer

from harness.board import cli as board_cli
from harness.eval import cli as eval_cli
from harness.interop import cli as interop_cli


def register(app: typer.Typer) -> None:
    """Add this stage's commands to the `jiezi` app: ``eval``, ``lmms-tasks``, the
    ``leaderboard`` group and the ``import`` group (official layouts)."""
    eval_cli.register(app)
    interop_cli.register(app)
    board_cli.register(app)
