"""`jiezi sources ...` and `jiezi build records` (owned by the records work, issue 2)."""

from __future__ import annotations

import typer

sources_app = typer.Typer(help="The source cache: fetch and verify the upstream files.")


def build_records() -> None:
    """Build the glyph records (not yet implemented in this checkout)."""
    raise typer.Exit("jiezi build records: not implemented yet")
