"""`jiezi build`, `jiezi audit ...`, `jiezi publish` (owned by the QA/publication work, issue 3)."""

from __future__ import annotations

import typer

audit_app = typer.Typer(help="Audit sheets: sample items for expert review, ingest verdicts.")


def build_all(ctx: typer.Context) -> None:
    """Run the whole build (not yet implemented in this checkout)."""
    if ctx.invoked_subcommand is None:
        raise typer.Exit("jiezi build: not implemented yet")


def publish() -> None:
    """Publish the Hub folders (not yet implemented in this checkout)."""
    raise typer.Exit("jiezi publish: not implemented yet")
