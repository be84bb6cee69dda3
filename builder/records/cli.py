"""`jiezi build records` and `jiezi records show|import-official|export-official`.

The records stage itself (``builder.records.build``: pydantic models, the adapters, the
glyph renderers), the official-layout converter and the optional LLM structurizer are
imported inside the commands that run them (about 1 s each), so ``jiezi --help`` stays
fast; the light modules are imported here.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

import typer

from builder.sources import registry as reg
from builder.sources.cli import SOURCES_HELP, console as _console
from hub.atomic import atomic_path, atomic_write
from hub.clierror import CLIError, reraise_as_cli_error

records_app = typer.Typer(help="Inspect built records; convert to and from the official JieZi metadata layout.",
                          no_args_is_help=True)


def _characters(spec: Optional[str]) -> Optional[list[str]]:
    if not spec:
        return None
    p = Path(spec)
    text = p.read_text(encoding="utf-8") if p.is_file() else spec
    return [c for c in text if not c.isspace() and c != ","]


def build_records(
    output: Path = typer.Option(..., "--output", "-o", help="records directory (records.jsonl, images/, report.json ...)"),
    sources: Optional[Path] = typer.Option(None, "--sources", help=SOURCES_HELP),
    fonts: Optional[list[str]] = typer.Option(None, "--fonts", help="font design (repeat, or comma-separated); default: every installed default design"),
    user_glyphs: Optional[list[Path]] = typer.Option(None, "--user-glyphs", exists=True, help="labelled glyph folder (<script>/<character>/*.png) or CSV manifest; repeatable"),
    workers: int = typer.Option(2, "--workers", "-j", help="processes for images and records"),
    size: int = typer.Option(128, "--size", help="image side in pixels"),
    characters: Optional[str] = typer.Option(None, "--characters", help="only these characters (a string, or a file of them)"),
    no_images: bool = typer.Option(False, "--no-images", help="records only, no glyph images"),
    stop_after: Optional[str] = typer.Option(None, "--stop-after", help="stop after a stage: sources, readings, images, records:N (resume by rerunning)"),
    structurizer: str = typer.Option("rule", "--structurizer", help="rule (default, offline) or llm"),
    llm_base_url: Optional[str] = typer.Option(None, "--llm-base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1"),
    llm_model: Optional[str] = typer.Option(None, "--llm-model", help="model name served by the endpoint"),
    llm_api_key_env: str = typer.Option("OPENAI_API_KEY", "--llm-api-key-env", help="environment variable holding the API key"),
    llm_max_tokens: int = typer.Option(1024, "--llm-max-tokens", help="first max_tokens (doubled when a reply is truncated)"),
    llm_page_chars: int = typer.Option(400, "--llm-page-chars", help="page size (characters) for long entries"),
    no_verify: bool = typer.Option(False, "--no-verify", help="check that source files exist but not their SHA-256 (a locally corrected cache)"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bars"),
) -> None:
    """Build the glyph records (paper stages 1-2): sources -> readings -> images -> records.jsonl.

    Resumable: rerun the same command after an interruption. Writes records.jsonl,
    images/, report.json, skipped.jsonl and record.schema.json under --output.
    """
    from builder.records.build import BuildOptions, build  # heavy: the whole records stage

    con = _console()
    struct = None
    if structurizer == "llm":
        if not (llm_base_url and llm_model):
            raise CLIError("llm needs --llm-base-url and --llm-model", item="--structurizer")
        from builder.records.llm_structurize import LLMStructurizer  # optional: an LLM endpoint client

        struct = LLMStructurizer(llm_base_url, llm_model, os.environ.get(llm_api_key_env),
                                 max_tokens=llm_max_tokens, page_chars=llm_page_chars)
    elif structurizer != "rule":
        raise CLIError("expected 'rule' or 'llm'", item="--structurizer", field=repr(structurizer))
    font_list = None
    if fonts:
        font_list = [f.strip() for spec in fonts for f in spec.split(",") if f.strip()]
    opts = BuildOptions(output=output, sources=sources, characters=_characters(characters), fonts=font_list,
                        user_glyphs=tuple(user_glyphs or ()), size=size, workers=workers, structurizer=struct,
                        images=not no_images, stop_after=stop_after, progress=not quiet, log=con.print,
                        check_hashes=not no_verify)
    with reraise_as_cli_error(reg.SourceError, item="--sources"):
        report = build(opts)
    if report is None:
        raise typer.Exit(0)
    print_report(report, con)
    con.print(f"wrote {output / 'records.jsonl'} ({report.records} records), report.json, skipped.jsonl, record.schema.json")


def print_report(report, con=None) -> None:
    """The build report as rich tables."""
    from rich.table import Table

    con = con or _console()
    t = Table(title="jiezi build records")
    t.add_column("item")
    t.add_column("value")
    t.add_row("characters", str(report.characters))
    t.add_row("records", str(report.records))
    t.add_row("fonts", ", ".join(report.fonts) or "-")
    for s, n in report.images_by_script.items():
        t.add_row(f"images {s}", str(n))
    t.add_row("scripts covered", " ".join(report.scripts_covered) or "-")
    t.add_row("scripts missing (need user images)", " ".join(report.scripts_missing) or "-")
    for code, n in report.grounded.items():
        t.add_row(f"grounds {code}", str(n))
    for k, v in (report.extra.get("acceptance") or {}).items():
        t.add_row(k.replace("_", " "), str(v))
    for k, v in report.skipped.items():
        t.add_row(f"skipped {k}", str(v))
    if report.extra.get("timings_s"):
        t.add_row("time (s)", json.dumps(report.extra["timings_s"], ensure_ascii=False))
    con.print(t)


def _records(output: Path):
    """The GlyphRecords of ``output`` (a records folder or a records.jsonl), one by one."""
    from builder.schema import GlyphRecord  # pydantic models: loaded by the commands that read records

    path = output / "records.jsonl" if output.is_dir() else output
    if not path.is_file():
        raise CLIError(f"not found: run `jiezi build records --output {output}` first", item=path)
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield GlyphRecord.model_validate_json(line)


@records_app.command("show")
def records_show(
    characters: str = typer.Argument(..., help="characters to show, e.g. 江明"),
    output: Path = typer.Option(Path("out/records"), "--output", "-o", help="records directory or records.jsonl"),
    script: Optional[str] = typer.Option(None, "--script", help="only this script"),
    as_json: bool = typer.Option(False, "--json", help="print the records as JSON"),
) -> None:
    """Print the records of some characters, every field with its provenance (an
    oracle-bone or bronze record without the modern analysis: ``builder.schema.as_drawn``)."""
    from builder.records.show import show_record
    from builder.schema import as_drawn

    wanted = set(characters)
    found = 0
    for rec in _records(output):
        if rec.character in wanted and (script is None or rec.script == script):
            found += 1
            if as_json:
                # what is true of the form the script draws (no modern IDS for an oracle-bone form)
                typer.echo(as_drawn(rec).model_dump_json(indent=2, exclude_none=True))
            else:
                typer.echo(show_record(rec) + "\n")
    if not found:
        raise CLIError(f"no record in {output}", item=repr(characters))


@records_app.command("export-official")
def records_export_official(
    output: Path = typer.Option(..., "--output", "-o", help="records directory or records.jsonl"),
    to: Path = typer.Option(..., "--to", help="JSON file to write (official metadata layout)"),
    characters: Optional[str] = typer.Option(None, "--characters", help="only these characters"),
) -> None:
    """Write records in the official JieZi metadata layout (meta_samples.json)."""
    from builder.records.official import export_official

    wanted = set(_characters(characters) or [])
    recs = [r for r in _records(output) if not wanted or r.character in wanted]
    atomic_write(to, json.dumps(export_official(recs), ensure_ascii=False, indent=2))
    typer.echo(f"wrote {len(recs)} records to {to}")


@records_app.command("import-official")
def records_import_official(
    path: Path = typer.Argument(..., help="official metadata JSON (a list of records)"),
    to: Path = typer.Option(..., "--to", help="records.jsonl to write"),
    images_root: Optional[Path] = typer.Option(None, "--images-root", help="folder the records' image paths are relative to"),
) -> None:
    """Convert official JieZi metadata to this project's GlyphRecords (provenance: the official entry)."""
    from builder.records.official import import_official
    from hub.skips import SkipLog

    skipped = SkipLog()
    recs = import_official(path, skipped, images_root=images_root)
    with atomic_path(to) as tmp:
        tmp.write_text("".join(r.model_dump_json(exclude_none=True) + "\n" for r in recs), encoding="utf-8")
    typer.echo(f"wrote {len(recs)} records to {to}; skipped: {skipped.counts() or 'none'}")


if __name__ == "__main__":  # `python -m builder.records.cli show 江 -o out/records`
    records_app()
