"""`jiezi` commands of the space stage (registered by jiezi_cli.py).

``jiezi space`` runs the JieZi Space (``space/app.py``) on this machine;
``jiezi space-bundle`` writes the folder that is uploaded as the Hub Space.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    """Add this stage's commands to the `jiezi` app."""

    @app.command("space")
    def space(
        bench: Optional[str] = typer.Option(None, help="JieZi-Bench folder (Hub layout) or Hub id "
                                            "(env JIEZI_BENCH; default jiezi/bench)"),
        dataset: Optional[str] = typer.Option(None, help="JieZi-Dataset folder or Hub id (its `records` config is "
                                              "the retrieval gallery) (env JIEZI_DATASET; default jiezi/dataset)"),
        board: Optional[Path] = typer.Option(None, help="leaderboard folder (env JIEZI_BOARD)"),
        backend: list[str] = typer.Option([], "--backend", help="extra model spec offered in the exegesis tab, "
                                          "e.g. openai:MODEL@URL or hf:PATH (repeatable) (env JIEZI_BACKENDS)"),
        host: str = typer.Option("127.0.0.1", help="address to listen on (0.0.0.0 exposes it to the network)"),
        port: int = typer.Option(7860, help="port (0: the first free port from 7860)"),
        max_upload_mb: Optional[int] = typer.Option(None, help="largest upload accepted, MiB (env JIEZI_MAX_UPLOAD_MB; 50)"),
        bertscore_model: Optional[str] = typer.Option(None, help="BERTScore model of a new board, as in `jiezi "
                                                      "leaderboard submit` (env JIEZI_BERTSCORE_MODEL)"),
        judge: Optional[str] = typer.Option(None, help="EVOI judge of a new board (env JIEZI_JUDGE)"),
    ) -> None:
        """Run the JieZi Space locally: exegesis demo, dataset explorer, leaderboard, submission."""
        import os

        os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
        from space.app import launch
        from space.data import SpaceConfig

        try:
            config = SpaceConfig.from_env(bench=bench, dataset=dataset, board=board, backends=backend or None,
                                          max_upload_mb=max_upload_mb, bertscore_model=bertscore_model, judge=judge)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from exc
        _, url, _ = launch(config, host=host, port=port or None, block=False)
        typer.echo(f"JieZi Space at {url} (bench {config.bench}, dataset {config.dataset}, board {config.board}); "
                   "Ctrl+C stops it")
        from space.app import block_until_interrupted

        block_until_interrupted()

    @app.command("space-bundle")
    def space_bundle(
        output: Path = typer.Option(..., help="folder to write the Hub Space into (must be empty or absent)"),
        repo_id: Optional[str] = typer.Option(None, help="also upload it to this Space repo (needs a token)"),
    ) -> None:
        """Write the Hub Space folder (app.py, README.md, requirements.txt and the packages it
        imports) and optionally upload it with huggingface_hub."""
        from space.bundle import BundleError, push, write_bundle

        try:
            files = write_bundle(output)
        except BundleError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
        typer.echo(f"wrote {len(files)} files to {output}")
        if repo_id:
            url = push(output, repo_id)
            typer.echo(f"uploaded to {url}")
