"""`jiezi train ...`: the training stage's commands (registered by jiezi_cli.py).

- ``jiezi train run RECIPE``: TRL SFT with a recipe (one process, or ``accelerate launch``
  with ``--accelerate-config``); ``--subset`` draws a nested data subset; ``--dry-run``
  prints the plan instead; arguments after ``--`` go to TRL as they are.
- ``jiezi train plan [RECIPE ...]``: the dry run (global batch, steps, token budget) of the
  paper recipes or of the given ones.
- ``jiezi train card RUN_DIR``: the model card of a finished run (with bench scores).

Third-party heavy imports (accelerate, rich, yaml) and the training modules (card, plan,
sft) happen inside the commands, so ``jiezi --help`` loads none of them.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from hub.clierror import CLIError, reraise_as_cli_error

TRAINING_DIR = Path(__file__).resolve().parent
RECIPES_DIR = TRAINING_DIR / "recipes"
ACCELERATE_DIR = TRAINING_DIR / "accelerate"
PAPER_RECIPES = ("qwen3_5-2b.yaml", "qwen3_5-4b.yaml", "qwen3_5-9b.yaml")

train_app = typer.Typer(help="Fine-tune Qwen-family VLMs on JieZi-Dataset (TRL SFT recipes, GPU and Ascend NPU).",
                        no_args_is_help=True)


def resolve_recipe(recipe: str) -> Path:
    """A recipe path, or a name under ``training/recipes`` (with or without ``.yaml``).

    Raises :class:`hub.clierror.CLIError` naming the recipes that exist."""
    for candidate in (Path(recipe), RECIPES_DIR / recipe, RECIPES_DIR / f"{recipe}.yaml",
                      RECIPES_DIR / "scaling" / f"{recipe}.yaml"):
        if candidate.is_file():
            return candidate
    known = sorted(p.stem for p in RECIPES_DIR.rglob("*.yaml"))
    raise CLIError(f"not found; known recipes: {', '.join(known)}", item=f"recipe {recipe!r}")


def resolve_accelerate_config(name: str) -> Path:
    """An accelerate config path, or a name under ``training/accelerate`` (e.g. ``npu-8-ddp``).
    Raises :class:`hub.clierror.CLIError` naming the shipped configs."""
    for candidate in (Path(name), ACCELERATE_DIR / name, ACCELERATE_DIR / f"{name}.yaml"):
        if candidate.is_file():
            return candidate
    known = sorted(p.stem for p in ACCELERATE_DIR.glob("*.yaml"))
    raise CLIError(f"not found; shipped configs: {', '.join(known)}", item=f"accelerate config {name!r}")


def npu_overrides(accelerate_config: Path | None) -> list[str]:
    """TRL arguments for Ascend NPUs: the hccl backend, and the NPU fused AdamW unless the
    launch shards parameters (FSDP / DeepSpeed), which that optimizer does not support."""
    args = ["--ddp_backend", "hccl"]
    sharded = False
    if accelerate_config is not None:
        import yaml

        distributed = (yaml.safe_load(accelerate_config.read_text()) or {}).get("distributed_type", "")
        sharded = str(distributed).upper() in ("FSDP", "DEEPSPEED")
    if not sharded:
        args += ["--optim", "adamw_torch_npu_fused"]
    return args


def build_args(recipe: Path, *, dataset: str | None, subset: float | None, output_dir: str | None,
               resume: bool, extra: list[str]) -> list[str]:
    """The training script's argument list for a recipe plus command-line overrides."""
    args = ["--config", str(recipe)]
    if dataset:
        args += ["--dataset_name", dataset]
    if subset is not None:
        args += ["--subset", str(subset)]
    if output_dir:
        args += ["--output_dir", output_dir]
    if resume:
        args += ["--resume_from_checkpoint", "last"]
    return args + list(extra)


@train_app.command("run", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def run(
    ctx: typer.Context,
    recipe: str = typer.Argument(..., help="Recipe YAML, or a name under training/recipes (e.g. qwen3_5-2b)."),
    dataset: str = typer.Option(None, help="JieZi-Dataset folder or Hub id (default: the recipe's dataset_name)."),
    subset: float = typer.Option(None, help="Nested data subset: fraction of rows in (0, 1], e.g. 0.25."),
    output_dir: str = typer.Option(None, help="Where checkpoints, the model and jiezi_run.json go."),
    accelerate_config: str = typer.Option(None, help="accelerate config (path or gpu-8-ddp, gpu-8-fsdp, npu-8-ddp, "
                                                     "npu-8-fsdp): launch with `accelerate launch`."),
    npu: bool = typer.Option(False, help="Ascend NPU: hccl backend, NPU fused AdamW (unsharded launches)."),
    resume: bool = typer.Option(False, help="Resume from the last checkpoint in the output directory."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the plan (batch, steps, tokens) and exit."),
    devices: int = typer.Option(8, help="Devices assumed by --dry-run."),
) -> None:
    """Train with a recipe. Arguments after the options (e.g. `-- --max_steps 10`) go to TRL."""
    path = resolve_recipe(recipe)
    if dry_run:
        _print_plans([path], dataset=dataset, devices=devices, subset=subset, as_json=False)
        return
    config = resolve_accelerate_config(accelerate_config) if accelerate_config else None
    extra = [a for a in ctx.args if a != "--"]
    if npu:
        import importlib.util

        if importlib.util.find_spec("torch_npu") is None:
            raise CLIError("needs torch_npu (training/NPU.md has the install)", item="--npu")
        extra = npu_overrides(config) + extra
    args = build_args(path, dataset=dataset, subset=subset, output_dir=output_dir, resume=resume, extra=extra)
    if config is None:
        from training.sft import cli as sft_cli  # transformers, TRL

        sft_cli(args)
        return
    from accelerate.commands.launch import launch_command, launch_command_parser

    launch_args = launch_command_parser().parse_args(["--config_file", str(config), str(TRAINING_DIR / "sft.py"), *args])
    launch_command(launch_args)


def _print_plans(recipes: list[Path], *, dataset: str | None, devices: int, subset: float | None,
                 as_json: bool) -> None:
    from rich.console import Console
    from rich.table import Table

    from training.plan import plan_recipe

    cache: dict = {}
    plans = []
    for recipe in recipes:
        with reraise_as_cli_error(FileNotFoundError, ValueError, item=recipe.name):
            plans.append(plan_recipe(recipe, dataset, devices=devices, subset=subset, cache=cache))
    if as_json:
        typer.echo(json.dumps([p.as_dict() for p in plans], indent=2, ensure_ascii=False))
        return
    table = Table(title=f"JieZi-Dataset training plan ({devices} devices)")
    for column in ("recipe", "model", "global batch", "rows (QA pairs)", "steps/epoch", "epochs", "total steps",
                   "warmup", "max length", "tokens/row (image)", "rows > max len", "token budget"):
        table.add_column(column, justify="left" if column in ("recipe", "model") else "right")
    for p in plans:
        table.add_row(
            Path(p.recipe).stem, p.model, f"{p.global_batch} = {p.per_device_batch}x{p.gradient_accumulation}x{p.devices}",
            f"{p.rows:,} ({p.qa_turns:,})" + (f" [{p.subset:g}]" if p.subset < 1 else ""), f"{p.steps_per_epoch:,}",
            f"{p.epochs:g}", f"{p.total_steps:,}", f"{p.warmup_steps:,}", str(p.max_length),
            f"{p.mean_tokens_per_row:,.0f} ({p.mean_image_tokens_per_row:,.0f})", f"{p.rows_over_max_length:,}",
            f"{p.token_budget:,}",
        )
    console = Console(width=200)
    console.print(table)
    for method in dict.fromkeys(p.token_method for p in plans):
        console.print(f"tokens: {method}")
    console.print(f"dataset: {dataset or 'each recipe’s dataset_name'}; global batch = per-device batch x "
                  "gradient accumulation x devices; token budget = mean tokens per row (cut at max length) x rows "
                  "x epochs")


@train_app.command("plan")
def plan(
    recipes: list[str] = typer.Argument(None, help="Recipes (default: the three paper recipes)."),
    dataset: str = typer.Option(None, help="JieZi-Dataset folder or Hub id (default: the recipe's, out/jiezi-dataset)."),
    devices: int = typer.Option(8, help="Data-parallel devices assumed (the recipes assume 8)."),
    subset: float = typer.Option(None, help="Nested data subset to plan for (default: the recipe's, 1.0)."),
    all_recipes: bool = typer.Option(False, "--all", help="Plan every recipe under training/recipes."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Dry run: effective global batch, steps per epoch, total steps and token budget per recipe."""
    if all_recipes:
        paths = sorted(RECIPES_DIR.rglob("*.yaml"))
    else:
        paths = [resolve_recipe(r) for r in (recipes or PAPER_RECIPES)]
    _print_plans(paths, dataset=dataset, devices=devices, subset=subset, as_json=as_json)


@train_app.command("card")
def card(
    run_dir: Path = typer.Argument(..., help="output_dir of a finished `jiezi train run`."),
    results: Path = typer.Option(None, help="results.json of `jiezi eval --model hf:RUN_DIR` (adds bench scores)."),
    model_name: str = typer.Option(None, help="Model name in the card (default: the folder name)."),
) -> None:
    """Write RUN_DIR/README.md, the model card: base model, data and subset, settings, scores."""
    from training.card import write_model_card

    with reraise_as_cli_error(FileNotFoundError, ValueError):
        out = write_model_card(run_dir, results, model_name=model_name)
    typer.echo(f"model card written to {out}")


def register(app: typer.Typer) -> None:
    """Add this stage's commands to the `jiezi` app."""
    app.add_typer(train_app, name="train")
