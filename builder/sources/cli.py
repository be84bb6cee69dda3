"""`jiezi sources fetch|check`: the source cache (download, verify against the registry).

In: the registry (``builder.sources.registry.REGISTRY``) and a cache folder (``--sources``,
``$JIEZI_SOURCES``, else ``~/.cache/jiezi/sources``); out: the files, verified by SHA-256,
and a table of what is present, missing or corrupt.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from builder.sources import registry as reg
from hub.clierror import reraise_as_cli_error

sources_app = typer.Typer(help="The source cache: fetch and verify the upstream files.", no_args_is_help=True)

SOURCES_HELP = "source cache (default: $JIEZI_SOURCES, else ~/.cache/jiezi/sources)"


def console():
    """A rich console for the commands' tables and coloured messages."""
    from rich.console import Console

    return Console()


@sources_app.command("check")
def sources_check(
    names: Optional[list[str]] = typer.Argument(None, help="sources to check (default: all)"),
    sources: Optional[Path] = typer.Option(None, "--sources", help=SOURCES_HELP),
    no_hashes: bool = typer.Option(False, "--no-hashes", help="only check that the files exist"),
) -> None:
    """Verify that every registered file is present and matches its SHA-256."""
    from rich.table import Table

    root = reg.resolve_sources_dir(sources)
    with reraise_as_cli_error(reg.SourceError, item="--sources"):
        result = reg.check(root, names or None, hashes=not no_hashes)
    table = Table(title=f"source cache {root}")
    for col in ("source", "files", "problems", "licence", "upstream"):
        table.add_column(col)
    for name, n in result.checked.items():
        bad = [p for p in result.problems if p.source == name]
        s = reg.REGISTRY[name]
        table.add_row(name, str(n), str(len(bad)) if bad else "ok", s.licence, s.url)
    con = console()
    con.print(table)
    for p in result.problems[:20]:
        con.print(f"[red]{p.message()}[/red]")
    if len(result.problems) > 20:
        con.print(f"[red]... and {len(result.problems) - 20} more[/red]")
    if not result.ok:
        raise typer.Exit(1)


@sources_app.command("fetch")
def sources_fetch(
    names: Optional[list[str]] = typer.Argument(None, help="sources to fetch (default: all)"),
    sources: Optional[Path] = typer.Option(None, "--sources", help=SOURCES_HELP),
    mirror: Optional[str] = typer.Option(None, "--mirror", help="read every https:// URL from <mirror>/<host>/<path> instead"),
) -> None:
    """Download missing or corrupt source files (pinned commits, verified by SHA-256)."""
    root = reg.resolve_sources_dir(sources)
    con = console()
    try:
        result = reg.fetch(root, names or None, mirror=mirror, progressbar=True, log=con.print)
    except reg.SourceError as exc:
        con.print(f"[red]{exc}[/red]")
        raise typer.Exit(1) from exc
    if not result.ok:
        for p in result.problems:
            con.print(f"[red]{p.message()}[/red]")
        raise typer.Exit(1)
    con.print(f"source cache {root}: " + ", ".join(f"{k} ({v} files)" for k, v in result.checked.items()) + " verified")




def register(app: typer.Typer) -> None:
    """Add ``jiezi sources`` to the `jiezi` app."""
    app.add_typer(sources_app, name="sources")
