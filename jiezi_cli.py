"""The ``jiezi`` command: one entry point for every stage of the flow.

sources -> records -> QA pairs -> published dataset/bench -> scores. Each stage package
owns its commands in its own ``cli.py`` and exposes ``register(app)``; this module only
composes them, so stages stay independent and start-up stays cheap (heavy imports
happen inside the command functions).
"""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(
    name="jiezi",
    help="JieZi: Ancient Chinese Character Exegesis (ACCE) on the Hugging Face stack.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)

# Stage packages, in flow order.
_STAGES = ("builder.cli", "harness.cli", "training.cli", "space.cli")

for _name in _STAGES:
    importlib.import_module(_name).register(app)


if __name__ == "__main__":  # pragma: no cover
    app()
