"""`jiezi build`, `jiezi audit sample|ingest`, `jiezi publish` (the QA/publication work, issue 3).

- ``jiezi build --output DIR [--sources DIR]``: records (``jiezi build records``) -> QA
  (``DIR/qa``) -> JieZi-Dataset and JieZi-Bench Hub folders (``DIR/jiezi-dataset``,
  ``DIR/jiezi-bench``) and ``DIR/report.json``. Every stage is cached: a second run with
  unchanged inputs only checks fingerprints.
- ``jiezi audit sample --output DIR --sheet S.csv`` / ``jiezi audit ingest S.csv --output DIR``.
- ``jiezi publish dataset|bench --output DIR (--repo-id ID | --dry-run)``.
- ``jiezi publish card --output DIR``: the bench card's "Baselines per script" section and
  ``DIR/report.json``'s ``bench.baselines`` from the baseline runs of ``jiezi eval`` saved in
  ``DIR/eval/`` (``builder.publish.card_baselines``), in place: no rebuild.

Heavy imports happen inside the commands so ``jiezi --help`` stays fast.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Optional

import typer

from hub.atomic import atomic_write_json
from hub.clierror import CLIError, reraise_as_cli_error
from hub.layout import records_dir_of

audit_app = typer.Typer(help="Audit sheets: sample items for expert review, ingest verdicts.", no_args_is_help=True)


def _echo_json(obj) -> None:
    typer.echo(json.dumps(obj, ensure_ascii=False, indent=1))


def _run_records(output: Path, sources: Optional[Path], workers: int, user_glyphs: list[Path]) -> Path:
    """Run the records stage (``builder.records.build.build``) into ``output/records``; it is
    resumable and reuses its checkpoints, so a rerun is quick. Returns the folder."""
    try:
        from builder.records.build import BuildOptions, build
    except ImportError as exc:
        raise CLIError(f"the records stage is not available in this checkout ({exc}); pass built records with "
                       "--records DIR") from exc
    out = output / "records"
    opts = BuildOptions(output=out, sources=sources, workers=workers, user_glyphs=list(user_glyphs),
                        log=lambda msg: typer.echo(msg, err=True))
    from builder.sources.registry import SourceError

    with reraise_as_cli_error(SourceError, item="--sources"):  # a missing cache is no traceback
        if build(opts) is None:
            raise typer.Exit(1)
    return out


def _publish_cached(folder: Path, fingerprint: dict) -> bool:
    from builder.publish.write import MARKER, code_hash

    marker = folder / MARKER
    if not marker.exists() or not (folder / "README.md").exists():
        return False
    data = json.loads(marker.read_text("utf-8"))
    built = data.get("built_from", {})
    return data.get("publish_code") == code_hash() and all(
        built.get(k) == fingerprint.get(k) for k in ("records_sha256", "seed", "bench_size", "code", "decisions"))


def build_all(
    ctx: typer.Context,
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Build folder (records/, qa/, jiezi-dataset/, jiezi-bench/, report.json)."),
    sources: Optional[Path] = typer.Option(None, "--sources", help="Source cache (default: $JIEZI_SOURCES, else ~/.cache/jiezi/sources)."),
    records: Optional[Path] = typer.Option(None, "--records", help="Use this existing records folder instead of running the records stage."),
    workers: int = typer.Option(2, help="Worker processes of the records stage."),
    user_glyphs: list[Path] = typer.Option([], "--user-glyphs", exists=True, help="Labelled glyph folder or CSV manifest for the records stage (repeatable)."),
    seed: int = typer.Option(0, help="Seed for the QA draw and the bench selection."),
    bench_size: int = typer.Option(1024, help="Number of JieZi-Bench glyph images."),
    min_pairs: int = typer.Option(5, help="Fewest QA pairs per dataset image."),
    max_pairs: int = typer.Option(10, help="Most QA pairs per dataset image."),
    polish_endpoint: Optional[str] = typer.Option(None, help="OpenAI-compatible base URL for the optional LLM polish of reasoning answers."),
    polish_model: Optional[str] = typer.Option(None, help="Model name for the polish endpoint."),
    polish_key_env: str = typer.Option("OPENAI_API_KEY", help="Environment variable holding the polish endpoint's key (optional)."),
    no_publish: bool = typer.Option(False, "--no-publish", help="Stop after the QA stage (no Hub folders)."),
    force: bool = typer.Option(False, "--force", help="Rebuild QA and Hub folders even if cached."),
) -> None:
    """Run the whole build: records -> QA -> JieZi-Dataset + JieZi-Bench -> Hub folders.

    Writes DIR/report.json with the dataset, bench and leakage counts.
    """
    if ctx.invoked_subcommand is not None:
        return
    if output is None:
        raise CLIError("a build folder is required", item="--output")
    t0 = time.perf_counter()
    output.mkdir(parents=True, exist_ok=True)
    timings = {}
    if records is None:
        typer.echo("[1/3] records", err=True)
        records = _run_records(output, sources, workers, user_glyphs)
    timings["records_s"] = round(time.perf_counter() - t0, 1)
    polisher = _polisher(output, polish_endpoint, polish_model, polish_key_env)
    typer.echo("[2/3] QA pairs, bench selection", err=True)
    t1 = time.perf_counter()
    qa_report = _run_qa(records, output, seed=seed, bench_size=bench_size, min_pairs=min_pairs,
                        max_pairs=max_pairs, polisher=polisher, force=force, sources_dir=sources)
    timings["qa_s"] = round(time.perf_counter() - t1, 1)
    # baseline runs of `jiezi eval` saved in OUT/eval/ (per script, for the report and the card)
    qa_report["bench"]["baselines"] = _baselines(output)
    t2 = time.perf_counter()
    folders = {} if no_publish else _run_publish(output, qa_report, workers=workers, force=force)
    timings["publish_s"] = round(time.perf_counter() - t2, 1)
    timings["total_s"] = round(time.perf_counter() - t0, 1)
    records_report = _read_json(Path(records) / "report.json")
    report = _build_report(qa_report, records_report, folders, timings, seed)
    atomic_write_json(output / "report.json", report, newline=False)
    _echo_summary(output, report, records_report, Path(records))


def _polisher(output: Path, endpoint: Optional[str], model: Optional[str], key_env: str):
    """The optional LLM polisher of reasoning answers (None without ``endpoint``); its
    replies are cached in ``output/qa/polish-cache.jsonl``."""
    if not endpoint:
        return None
    if not model:
        raise CLIError("is required with --polish-endpoint", item="--polish-model")
    from builder.qa.polish import Polisher  # optional: talks to an LLM endpoint

    return Polisher(endpoint, model, api_key=os.environ.get(key_env), cache_path=output / "qa" / "polish-cache.jsonl")


def _run_qa(records: Path, output: Path, **kwargs) -> dict:
    """The QA stage (``builder.qa.stage.build_qa``) into ``output/qa``; exit code 2 with
    the stage's message when its inputs are unusable. Returns the stage report."""
    from builder.qa.stage import QAStageError, build_qa  # heavy (pydantic models, evidence index)

    with reraise_as_cli_error(QAStageError):
        return build_qa(records, output, **kwargs)


def _baselines(output: Path) -> dict:
    """Per-script scores of the baseline runs saved under ``output/eval/`` (see
    :func:`builder.qa.bench_select.baseline_results`); ``{}`` when none was run."""
    from builder.qa import bench_select  # heavy (the QA composer and its tables)

    return bench_select.baseline_results(output)


def _run_publish(output: Path, qa_report: dict, *, workers: int, force: bool) -> dict:
    """Write the JieZi-Dataset and JieZi-Bench Hub folders unless the ones on disk were
    written from the same stage-3 outputs by the same publish code. Returns, per
    resource, ``{"folder", "cached"}``; exit code 2 on a :class:`PublishError`."""
    from builder.publish.write import PublishError, write_hub_folder  # heavy: imports datasets

    typer.echo("[3/3] Hub folders", err=True)
    from builder.publish.card_baselines import update_card

    folders = {}
    fingerprint = json.loads((output / "qa" / "fingerprint.json").read_text("utf-8"))
    for kind in ("dataset", "bench"):
        folder = output / f"jiezi-{kind}"
        if not force and _publish_cached(folder, fingerprint):
            if kind == "bench":  # baseline runs saved since the card was written: its section only
                with reraise_as_cli_error(ValueError, item=folder / "README.md"):
                    update_card(folder, qa_report["bench"].get("baselines") or {})
            folders[kind] = {"folder": str(folder), "cached": True}
            continue
        with reraise_as_cli_error(PublishError):
            write_hub_folder(output, kind, folder, report=qa_report, num_proc=workers)
        folders[kind] = {"folder": str(folder), "cached": False}
    return folders


def _read_json(path: Path) -> dict:
    """``path`` parsed, or ``{}`` when it is missing or unreadable (an optional report)."""
    if not path.exists():
        return {}
    try:
        return json.loads(path.read_text("utf-8"))
    except ValueError:
        return {}


def _build_report(qa_report: dict, records_report: dict, folders: dict, timings: dict, seed: int) -> dict:
    """``DIR/report.json``: the QA stage's dataset / bench / leakage counts, the records
    stage's coverage, what needs a reader's attention (a bench smaller than asked for,
    empty splits), the Hub folders and the stage timings (seconds)."""
    warnings = list(qa_report["bench"].get("selection", {}).get("warnings", []))
    return {
        "dataset": qa_report["dataset"],
        "bench": qa_report["bench"],
        "leakage": qa_report["leakage"],
        "warnings": warnings,
        "records": {**qa_report["records"], **{k: records_report[k] for k in
                    ("images_by_script", "scripts_covered", "scripts_missing", "fonts", "skipped")
                    if k in records_report}},
        "audit": qa_report.get("audit", {}),
        "skipped": qa_report.get("skipped", {}),
        "folders": folders,
        "qa_cached": qa_report.get("cached", False),
        "timings": timings,
        "seed": seed,
    }


def _echo_summary(output: Path, report: dict, records_report: dict, records: Path) -> None:
    d, b = report["dataset"], report["bench"]
    typer.echo(f"JieZi-Dataset: {d['qa_pairs']:,} QA pairs, {d['images']:,} images, {d['characters']:,} characters")
    typer.echo(f"JieZi-Bench: {b['questions']:,} questions, {b['images']:,} images; splits {b['splits']}")
    typer.echo(f"leakage: {report['leakage']}")
    skipped = records_report.get("skipped") or {}
    if skipped:
        # the records stage's skip counts (user glyphs with an unknown script or style, blank
        # images, fonts without a glyph ...): every reason is in records/skipped.jsonl
        typer.echo(f"records skipped: {', '.join(f'{k} {v:,}' for k, v in skipped.items())} "
                   f"(reasons: {records / 'skipped.jsonl'})")
    for w in report["warnings"]:
        typer.echo(f"warning: {w}", err=True)
    typer.echo(f"report: {output / 'report.json'} ({report['timings']['total_s']} s)")


@audit_app.command("sample")
def audit_sample(
    output: Path = typer.Option(..., "--output", "-o", help="The `jiezi build` folder."),
    sheet: Optional[Path] = typer.Option(None, "--sheet", help="CSV to write (default: OUT/audit/sheet-<time>.csv)."),
    seed: int = typer.Option(0),
    records_fraction: float = typer.Option(0.10, help="Share of records to review (paper: 10%)."),
    dataset_pairs: int = typer.Option(5000, help="Dataset QA pairs to review (paper: 5K)."),
    no_bench: bool = typer.Option(False, "--no-bench", help="Leave the bench items out (the paper checks all)."),
) -> None:
    """Draw the paper's audit samples into a review sheet (CSV)."""
    from builder.qa.audit import sample

    sheet = sheet or output / "audit" / f"sheet-{time.strftime('%Y%m%d-%H%M%S')}.csv"
    with reraise_as_cli_error(FileNotFoundError):
        counts = sample(output, sheet, seed=seed, record_fraction=records_fraction,
                        dataset_pairs=dataset_pairs, bench=not no_bench)
    typer.echo(f"wrote {sheet}")
    _echo_json(counts)


@audit_app.command("tracings")
def audit_tracings(
    output: Path = typer.Option(..., "--output", "-o", help="The `jiezi build` folder."),
    sheets: Optional[Path] = typer.Option(None, "--sheets", help="Folder for the sheets (default: OUT/audit/tracings)."),
    per_sheet: int = typer.Option(48, min=1, help="Drawings per sheet."),
) -> None:
    """Contact sheets of the Commons drawings waiting for review (OUT/qa/tracing_review.jsonl),
    with an index.tsv whose verdict column (ok / wrong: why / doubtful: why) the reviewer fills;
    the verdicts go into builder/glyphs/commons_acc_audit.py."""
    from builder.qa.tracing_audit import contact_sheets

    with reraise_as_cli_error(FileNotFoundError):
        counts = contact_sheets(output, sheets or output / "audit" / "tracings", per_sheet=per_sheet)
    _echo_json(counts)


@audit_app.command("ingest")
def audit_ingest(
    sheet: Path = typer.Argument(..., help="A review sheet filled with verdicts (ok / reject / correct)."),
    output: Path = typer.Option(..., "--output", "-o", help="The `jiezi build` folder."),
    rebuild: bool = typer.Option(True, "--rebuild/--no-rebuild", help="Re-run QA and Hub folders with the decisions applied."),
) -> None:
    """Read verdicts back, apply them (drop rejected, rewrite corrected) and report error rates per stage."""
    from builder.qa.audit import AuditSheetError, ingest

    with reraise_as_cli_error(AuditSheetError, FileNotFoundError, item=sheet):
        rates = ingest(output, sheet)
    _echo_json(rates)
    if rebuild:
        from builder.publish.write import write_hub_folder
        from builder.qa.stage import build_qa

        fp = json.loads((output / "qa" / "fingerprint.json").read_text("utf-8"))
        report = build_qa(records_dir_of(output), output, seed=fp["seed"], bench_size=fp["bench_size"],
                          min_pairs=fp["min_pairs"], max_pairs=fp["max_pairs"],
                          sources_dir=Path(fp["sources_dir"]) if fp.get("sources_dir") else None,
                          duan_notes=fp.get("duan_notes", True))
        for kind in ("dataset", "bench"):
            if (output / f"jiezi-{kind}").exists():
                write_hub_folder(output, kind, report=report)
        typer.echo(f"rebuilt with the decisions: audit {report.get('audit')}")


def _publish_card(output: Path) -> None:
    """``jiezi publish card``: the baseline runs saved in ``output/eval/`` (:func:`_baselines`)
    into the bench card's section and ``output/report.json`` (``builder.publish.card_baselines``);
    exit code 2 when the build folder lacks either file or the card lacks the section."""
    from builder.publish.card_baselines import update_card, update_report

    baselines = _baselines(output)
    card, report = output / "jiezi-bench", output / "report.json"
    with reraise_as_cli_error(FileNotFoundError, ValueError, item=output):
        changed = {"card": update_card(card, baselines), "report": update_report(report, baselines)}
    what = ", ".join(f"{k} {'updated' if v else 'unchanged'}" for k, v in changed.items())
    typer.echo(f"baselines {', '.join(baselines) or '(none saved in eval/)'}: {what}")


def publish(
    resource: str = typer.Argument(..., help="dataset or bench; card: only the bench card's baselines and report.json"),
    output: Path = typer.Option(..., "--output", "-o", help="The `jiezi build` folder (with qa/)."),
    repo_id: Optional[str] = typer.Option(None, "--repo-id", help="Hub dataset repo to push to, e.g. jiezi/bench."),
    folder: Optional[Path] = typer.Option(None, "--folder", help="Where to write the Hub layout (default: OUT/jiezi-<resource>)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Write the exact folder that would be uploaded, push nothing."),
    private: bool = typer.Option(False, "--private", help="Create the repo as private."),
    token_env: str = typer.Option("HF_TOKEN", help="Environment variable holding the Hub token."),
) -> None:
    """Write the Hub layout (parquet shards per config and split, README card) and push it;
    ``card``: bring the bench card and report.json up to date with the saved baseline runs."""
    if resource == "card":
        _publish_card(output)
        return
    from builder.publish.write import PublishError, push, write_hub_folder

    if resource not in ("dataset", "bench"):
        raise CLIError("expected 'dataset', 'bench' or 'card'", item="RESOURCE", field=repr(resource))
    if not dry_run and not repo_id:
        raise CLIError("is required unless --dry-run", item="--repo-id")
    with reraise_as_cli_error(PublishError):
        path = write_hub_folder(output, resource, folder)
    if resource == "bench":
        # the baseline runs saved in OUT/eval/ (`jiezi publish card`) stay on the card: a fresh
        # write renders it from the QA report, which has none (fresh-user trial of c09a032)
        from builder.publish.card_baselines import update_card

        with reraise_as_cli_error(ValueError, item=path / "README.md"):
            update_card(path, _baselines(output))
    files = sorted(str(p.relative_to(path)) for p in path.rglob("*") if p.is_file())
    size = sum((path / f).stat().st_size for f in files)
    typer.echo(f"wrote {path}: {len(files)} files, {size / 1e6:.1f} MB")
    if dry_run:
        for f in files:
            typer.echo(f"  {f}")
        return
    try:
        with reraise_as_cli_error(PublishError):
            url = push(path, repo_id, token=os.environ.get(token_env), private=private)
    except CLIError:
        raise
    except Exception as exc:  # network / auth errors from huggingface_hub: say what failed
        typer.echo(f"error: push to {repo_id} failed: {type(exc).__name__}: {exc}", err=True)
        raise typer.Exit(1)
    typer.echo(f"pushed: {url}")
