"""`jiezi` commands of the harness stage (registered by jiezi_cli.py)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this stage's commands to the `jiezi` app."""
