"""``jiezi leaderboard submit|verify|show``: the board's commands (:mod:`harness.board`).

- ``jiezi leaderboard submit predictions.jsonl --model-name NAME``: validate, score and
  store a submission (:mod:`harness.board.submit`).
- ``jiezi leaderboard show``: print the leaderboard with the paper's Table 10 rows.
- ``jiezi leaderboard verify ROW``: re-score a stored row from its predictions and check its scores.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from harness.console import console, fmt_score
from hub.clierror import CLIError, reraise_as_cli_error
from metrics.acce import labels

leaderboard_app = typer.Typer(help="JieZi-Bench leaderboard: submit predictions, show the table.",
                              no_args_is_help=True)


@leaderboard_app.command("submit")
def submit_command(
    predictions: Path = typer.Argument(..., help="predictions.jsonl written by `jiezi eval`, or an lmms-eval "
                                       "--log_samples --output_path folder of the JieZi tasks."),
    model_name: str = typer.Option(..., "--model-name", help="Name shown on the board."),
    meta: Optional[Path] = typer.Option(None, "--meta", help="JSON file: organization, url, paper, params, license, notes ..."),
    board: Path = typer.Option(Path("leaderboard"), "--board", help="Board folder (created on first submission)."),
    bench: Optional[str] = typer.Option(None, "--bench", help="Bench of a new board (default: jiezi-bench beside the board folder)."),
    bertscore_model: Optional[str] = typer.Option(None, "--bertscore-model", help="BERTScore model of a new board (fixed afterwards): as `jiezi eval --bertscore-model`, e.g. offline-gemma3."),
    judge: Optional[str] = typer.Option(None, "--judge", help="EVOI judge of a new board (fixed afterwards)."),
    results: Optional[Path] = typer.Option(None, "--results",
                                           help="The run's results.json (default: the one beside the predictions); "
                                                "its model, prompt, decoding and bench revision go into the row."),
    revision: Optional[str] = typer.Option(None, "--revision", help="Revision of a Hub repo-id bench of a new board."),
    scoring: Optional[str] = typer.Option(None, "--scoring",
                                          help="A `--protocol paper` run: reference (the authors' scorer) | jiezi | "
                                               "both (one row each); default the run's (reference)."),
) -> None:
    """Validate, score and store a submission (one immutable row per distinct content and,
    for a `jiezi eval --protocol paper` run, scoring mode)."""
    from harness.bench import BenchError  # scoring (metrics, datasets) loads with the command
    from harness.board.row import SubmissionError
    from harness.board.submit import submit_file

    if scoring not in (None, "reference", "jiezi", "both"):
        raise CLIError("expected reference, jiezi or both", item="--scoring", field=repr(scoring))
    for mode in (("reference", "jiezi") if scoring == "both" else (scoring,)):
        with reraise_as_cli_error(SubmissionError, BenchError, item=f"{predictions}: rejected"):
            row = submit_file(predictions, model_name, meta, board, results, bench=bench,
                              bertscore_model=bertscore_model, judge=judge, progress=True, revision=revision,
                              scoring=mode)
        _report_submission(row)


def _report_submission(row) -> None:
    """One submitted row in words: added or already there, its protocol and scoring."""
    failed = row.details.get("empty_or_failed") or 0
    if failed:
        typer.echo(f"warning: {failed} of {row.details.get('n_predictions')} predictions have no output "
                   "(errors or empty answers); they score 0", err=True)
    how = f"protocol {row.protocol}, scoring {row.scoring}"
    if row.protocol == "paper":
        counts = row.details.get("counts") or {}
        how += f"; {counts.get('failures', 0)} of {counts.get('samples', '?')} replies without JSON count 0"
    if row.created:
        typer.echo(f"added row {row.id[:12]} ({row.model_name}): macro {fmt_score(row.scores.get('macro'))} ({how})")
    else:
        typer.echo(f"already on the board as row {row.id[:12]} ({row.model_name}, {how}); nothing added")


@leaderboard_app.command("verify")
def verify_command(
    row: str = typer.Argument(..., help="Row id (or 6+ of its first hex digits), model name, or row file."),
    board: Path = typer.Option(Path("leaderboard"), "--board", help="Board folder."),
) -> None:
    """Re-score a row's stored predictions with the board's settings and check its stored scores."""
    from harness.bench import BenchError
    from harness.board.row import SubmissionError
    from harness.board.verify import verify

    with reraise_as_cli_error(SubmissionError, BenchError, item=f"row {row!r}"):
        report = verify(board, row, progress=True)
    name = f"{report['model_name']} (row {report['row'][:12]})"
    if not report["content_ok"]:
        typer.echo(f"{name}: the stored predictions no longer have the row's content id", err=True)
    for metric, (stored, new) in report["differences"].items():
        typer.echo(f"{name}: {metric} stored {fmt_score(stored)} but re-scored {fmt_score(new)}", err=True)
    if not report["ok"]:
        raise typer.Exit(1)
    typer.echo(f"verified: {name}: all {report['checked']} stored scores reproduced from its predictions")


@leaderboard_app.command("show")
def show_command(
    board: Path = typer.Option(Path("leaderboard"), "--board", help="Board folder."),
    no_paper: bool = typer.Option(False, "--no-paper", help="Hide the paper's Table 10 rows."),
) -> None:
    """Print the leaderboard: one ranked table per (protocol, scoring); the paper's rows
    (paper + reference) are ranked only with submitted rows asked and scored the same way."""
    from harness.board.table import protocol_group, table

    if not (board / "submissions").is_dir():
        typer.echo(f"note: no submissions under {board} (the board folder is created by the first "
                   "`jiezi leaderboard submit`); showing the paper's rows only", err=True)
    rows = table(board, include_paper=not no_paper)
    groups: dict[tuple[str, str], list] = {}
    for row in rows:  # table() keeps each (protocol, scoring) group together
        groups.setdefault(protocol_group(row), []).append(row)
    for (protocol, scoring), members in groups.items():
        _print_board(members, f"JieZi-Bench leaderboard ({board}): protocol {protocol}, scoring {scoring}")


def _print_board(rows: list, title: str) -> None:
    """One ranked table of rows sharing a protocol and scoring."""
    from rich.table import Table

    tab = Table(title=title,
                caption="ranked by how many of the 11 metrics a row has, then by macro: a macro over fewer "
                        "metrics leaves out the hardest ones and is not comparable with a full row; rows asked or "
                        "scored another way are in their own table")
    tab.add_column("#", justify="right")
    tab.add_column("model")
    tab.add_column("thinking")
    tab.add_column("source")
    keys = [*labels.METRICS, "L1", "L2", "L3", "L4", "macro"]
    for key in keys:
        tab.add_column(key.replace("EVOI_", ""), justify="right")
    tab.add_column("note")
    for n, row in enumerate(rows, 1):
        notes = []
        missing = [m.replace("EVOI_", "") for m in labels.METRICS if row.scores.get(m) is None]
        if missing:
            notes.append(f"macro over {len(labels.METRICS) - len(missing)}/11 (no {', '.join(missing)})")
        failures = (row.details.get("counts") or {}).get("failures") if row.protocol == "paper" else None
        if failures and row.source == "submitted":
            notes.append(f"{failures} replies without JSON (count 0)")
        if row.details.get("empty_or_failed"):
            notes.append(f"{row.details['empty_or_failed']} of {row.details.get('n_predictions')} unanswered")
        if not row.details.get("comparable_to_paper", True):
            bs = row.details.get("bertscore", {}).get("requested")
            notes.append(f"BERTScore {bs}: ORIM/COMI not comparable to paper")
        source = row.source if row.source != "submitted" else f"submitted {(row.submitted_at or '')[:10]}"
        style = "dim" if row.source == "reported in paper" else "bold"
        tab.add_row(str(n), row.model_name, row.thinking, source, *[fmt_score(row.scores.get(k)) for k in keys], "; ".join(notes),
                    style=style)
    console(220).print(tab)


def register(app: typer.Typer) -> None:
    """Add the ``leaderboard`` group to the `jiezi` app."""
    app.add_typer(leaderboard_app, name="leaderboard")
