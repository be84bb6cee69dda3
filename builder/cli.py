"""`jiezi` commands of the builder stages (registered by jiezi_cli.py).

- ``jiezi sources fetch|check``: the source cache (builder/sources/cli.py)
- ``jiezi build records``: paper stages 1-2, records and glyph images (builder/records/cli.py)
- ``jiezi records show|export-official|import-official``: read records, the official layout (builder/records/cli.py)
- ``jiezi build``: the whole flow, records -> QA -> JieZi-Dataset + JieZi-Bench (builder/publish/cli.py)
- ``jiezi audit sample|ingest``: the expert-in-the-loop review sheets (builder/publish/cli.py)
- ``jiezi publish``: write / push the Hub folders (builder/publish/cli.py)
"""

from __future__ import annotations

import typer

from builder.publish import cli as cli_publish

from builder.records import cli as cli_records
from builder.sources import cli as cli_sources


def register(app: typer.Typer) -> None:
    """Add the builder's commands to the `jiezi` app."""
    build_app = typer.Typer(
        help="Build records, QA pairs, JieZi-Dataset and JieZi-Bench.",
        invoke_without_command=True,
        no_args_is_help=False,
    )
    build_app.callback(invoke_without_command=True)(cli_publish.build_all)
    build_app.command("records")(cli_records.build_records)
    app.add_typer(build_app, name="build")
    cli_sources.register(app)
    app.add_typer(cli_records.records_app, name="records")
    app.add_typer(cli_publish.audit_app, name="audit")
    app.command("publish")(cli_publish.publish)
