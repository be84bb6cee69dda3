"""``jiezi lmms-tasks`` (the lmms-eval task folder) and ``jiezi import official-bench|official-dataset``
(the official release's layouts): the interop commands; their modules load inside the commands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from hub.clierror import reraise_as_cli_error


def lmms_tasks_command(
    output: Path = typer.Option(..., "--output", "-o", help="Folder to write jiezi_bench/ into."),
    bench: Optional[str] = typer.Option(None, "--bench", help="Bench folder or repo id the tasks read (default jiezi/bench)."),
) -> None:
    """Write the lmms-eval task folder of JieZi-Bench (use with lmms-eval --include_path)."""
    from harness.interop.lmms import write_task_folder

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
    from harness.interop.official import OfficialLayoutError, import_official_bench  # datasets

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
    from harness.interop.official import OfficialLayoutError, import_official_dataset  # datasets

    with reraise_as_cli_error(OfficialLayoutError, FileExistsError):
        report = import_official_dataset(vqa_file, out, images_root=images_root, overwrite=overwrite)
    typer.echo(f"wrote {out}: {report['rows']} rows ({report['turns']} turns), {len(report['repaired'])} character(s) "
               f"repaired, {len(report['problems'])} problem(s) (see import-report.json)")
    for item in report["repaired"] + report["problems"]:
        typer.echo(f"  {item['id']}: {item['reason']}", err=True)


def register(app: typer.Typer) -> None:
    """Add ``lmms-tasks`` and the ``import`` group to the `jiezi` app."""
    app.add_typer(import_app, name="import")
    app.command("lmms-tasks")(lmms_tasks_command)
