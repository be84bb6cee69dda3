"""Every recipe parses with TRL's own parser; the paper recipes carry Table 6 (ACCE.md section 5)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from accelerate.commands.config.config_args import load_config_from_file
from tiny_vlm import build_tiny_vlm
from transformers.training_args import OptimizerNames
from trl import SFTConfig
from trl.scripts.sft import make_parser as trl_sft_parser

from training.cli import ACCELERATE_DIR, PAPER_RECIPES, RECIPES_DIR
from training.plan import model_family, parse_recipe

RECIPES = sorted(RECIPES_DIR.glob("*.yaml"))
SCALING = sorted((RECIPES_DIR / "scaling").glob("*.yaml"))
DEVICES = 8  # the recipes' global batch assumes 8 data-parallel devices (paper: 8 Ascend 910B)

# Paper Table 6: (global batch, max length) per model; shared: AdamW, lr 1e-5, cosine,
# warmup ratio 0.05, weight decay 0.1, 5 epochs, bf16.
TABLE_6 = {
    "Qwen/Qwen3.5-2B": (128, 2048),
    "Qwen/Qwen3.5-4B": (128, 2048),
    "Qwen/Qwen3.5-9B": (64, 1024),
}


def trl_parse(recipe: Path):
    """What `trl sft --config recipe` parses: TRL's parser, unknown keys returned separately."""
    *parsed, config_unknown, cli_unknown = trl_sft_parser().parse_args_and_config(
        ["--config", str(recipe), "--use_cpu", "true"], return_remaining_strings=True,
        separate_remaining_strings=True,
    )
    return parsed, config_unknown, cli_unknown


def test_there_are_paper_lora_and_other_generation_recipes():
    names = {p.name for p in RECIPES}
    assert set(PAPER_RECIPES) <= names
    assert {"qwen3_5-2b-lora.yaml", "qwen3_5-4b-lora.yaml", "qwen3_5-9b-lora.yaml"} <= names
    families = {model_family(trl_parse(p)[0][2].model_name_or_path) for p in RECIPES}
    assert families == {"qwen3_5", "qwen3_vl", "qwen2_5_vl"}
    assert [p.stem for p in SCALING] == ["qwen3_5-2b-25pct", "qwen3_5-2b-50pct", "qwen3_5-2b-75pct"]


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda p: p.stem)
def test_recipe_has_no_key_unknown_to_trl_sft(recipe):
    (script_args, training_args, model_args, _), config_unknown, cli_unknown = trl_parse(recipe)
    assert config_unknown == [] and cli_unknown == []
    assert script_args.dataset_name == "out/jiezi-dataset" and script_args.dataset_config == "all"
    assert script_args.dataset_train_split == "train"
    # image tokens are never cut: truncation keeps the start, where the glyph image is
    assert training_args.truncation_mode == "keep_start"
    assert training_args.assistant_only_loss is True
    assert training_args.model_init_kwargs == {"device_map": None}
    assert model_args.dtype == ("bfloat16" if model_args.use_peft else "float32")
    if model_args.use_peft:
        assert model_args.lora_target_modules and training_args.learning_rate == pytest.approx(1e-4)


@pytest.mark.parametrize("recipe", [RECIPES_DIR / n for n in PAPER_RECIPES], ids=lambda p: p.stem)
def test_paper_recipe_matches_table_6(recipe):
    (_, args, model_args, _), _, _ = trl_parse(recipe)
    global_batch, max_length = TABLE_6[model_args.model_name_or_path]
    assert args.optim == OptimizerNames.ADAMW_TORCH  # AdamW
    assert args.learning_rate == pytest.approx(1e-5)
    assert args.lr_scheduler_type.value == "cosine"
    assert args.warmup_steps == pytest.approx(0.05)
    assert args.get_warmup_steps(1000) == 50  # read as a ratio of the total steps
    assert args.weight_decay == pytest.approx(0.1)
    assert args.num_train_epochs == 5
    assert args.bf16 is True
    assert args.per_device_train_batch_size * args.gradient_accumulation_steps * DEVICES == global_batch
    assert args.max_length == max_length
    assert model_args.use_peft is False


def test_transformers_5_rejects_warmup_ratio():
    with pytest.raises(TypeError, match="warmup_ratio"):
        SFTConfig(output_dir="unused", warmup_ratio=0.05, use_cpu=True)


def test_sftconfig_defaults_bf16_and_checkpointing_on():
    # why the CPU tests turn both off explicitly
    args = SFTConfig(output_dir="unused", use_cpu=True)
    assert args.bf16 is True and args.gradient_checkpointing is True


@pytest.mark.parametrize("recipe", SCALING, ids=lambda p: p.stem)
def test_scaling_recipes_differ_from_the_paper_2b_only_in_subset(recipe):
    _, config_unknown, _ = trl_parse(recipe)  # trl sft does not know the JieZi keys ...
    assert sorted(config_unknown[::2]) == ["--subset", "--subset_seed"]
    script_args, args, model_args, _, jiezi = parse_recipe(recipe)  # ... the JieZi parser does
    pct = int(recipe.stem.split("-")[-1].removesuffix("pct"))
    assert jiezi.subset == pytest.approx(pct / 100) and jiezi.subset_seed == 0
    base = yaml.safe_load((RECIPES_DIR / "qwen3_5-2b.yaml").read_text())
    this = yaml.safe_load(recipe.read_text())
    assert {k: v for k, v in this.items() if k not in ("subset", "subset_seed", "output_dir")} == {
        k: v for k, v in base.items() if k != "output_dir"}
    assert this["output_dir"] != base["output_dir"]


@pytest.mark.parametrize("family", ["qwen3_5", "qwen3_vl", "qwen2_5_vl"])
def test_lora_targets_exist_in_the_family_and_skip_the_vision_tower(family, tmp_path):
    import torch
    from transformers import AutoModelForImageTextToText

    model = AutoModelForImageTextToText.from_pretrained(build_tiny_vlm(family, tmp_path / family))
    names = {n.rsplit(".", 1)[-1] for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)
             and ".visual." not in f".{n}."}
    for recipe in RECIPES:
        _, _, model_args, *_ = parse_recipe(recipe)
        if model_args.use_peft and model_family(model_args.model_name_or_path) == family:
            assert set(model_args.lora_target_modules) <= names, recipe.name


def test_accelerate_configs_load_with_accelerate():
    configs = {p.stem: load_config_from_file(str(p)) for p in sorted(ACCELERATE_DIR.glob("*.yaml"))}
    assert set(configs) == {"gpu-8-ddp", "gpu-8-fsdp", "npu-8-ddp", "npu-8-fsdp"}
    assert configs["npu-8-ddp"].distributed_type.value == "MULTI_NPU"
    assert configs["gpu-8-ddp"].distributed_type.value == "MULTI_GPU"
    for name in ("gpu-8-fsdp", "npu-8-fsdp"):
        assert configs[name].distributed_type.value == "FSDP" and configs[name].fsdp_config["fsdp_version"] == 2
    assert all(c.num_processes == DEVICES and c.mixed_precision == "bf16" for c in configs.values())


@pytest.mark.parametrize("config", ["gpu-8-fsdp", "npu-8-ddp"])
def test_trl_sft_cli_would_launch_the_recipe_with_our_accelerate_config(config):
    """`trl sft --config RECIPE --accelerate_config FILE`, up to the `accelerate launch` call
    (the launch itself needs the accelerators: not on CI)."""
    from accelerate.commands.launch import launch_command_parser
    from trl.cli.accelerate_config import resolve_accelerate_config_argument

    config_path = str(ACCELERATE_DIR / f"{config}.yaml")
    argv = ["--config", str(RECIPES_DIR / "qwen3_5-2b.yaml"), "--accelerate_config", config_path]
    *_, config_remaining, cli_remaining = trl_sft_parser().parse_args_and_config(
        argv + ["--use_cpu", "true"], return_remaining_strings=True, separate_remaining_strings=True)
    launch_args = resolve_accelerate_config_argument(config_remaining + cli_remaining)
    assert launch_args == ["--config_file", config_path]
    parsed = launch_command_parser().parse_args(launch_args + ["sft.py", "--config", "recipe.yaml"])
    assert parsed.config_file == config_path and parsed.training_script_args == ["--config", "recipe.yaml"]


def test_npu_launch_options():
    from training.cli import npu_overrides, resolve_accelerate_config

    ddp = npu_overrides(resolve_accelerate_config("npu-8-ddp"))
    assert ddp == ["--ddp_backend", "hccl", "--optim", "adamw_torch_npu_fused"]
    # sharded parameters: the fused NPU AdamW is not used
    assert npu_overrides(resolve_accelerate_config("npu-8-fsdp")) == ["--ddp_backend", "hccl"]
    # both are `trl sft` options (building the config with hccl needs NPUs, so only the parser is checked)
    actions = {a.dest: a for a in trl_sft_parser()._actions}
    assert "hccl" in actions["ddp_backend"].choices and "optim" in actions
    assert OptimizerNames(ddp[-1]) == OptimizerNames.ADAMW_TORCH_NPU_FUSED


def test_jiezi_train_run_npu_without_torch_npu_says_what_to_install():
    import importlib.util

    from typer.testing import CliRunner

    from jiezi_cli import app

    if importlib.util.find_spec("torch_npu") is not None:
        pytest.skip("torch_npu is installed here")
    result = CliRunner().invoke(app, ["train", "run", "qwen3_5-2b", "--npu"])
    assert result.exit_code != 0 and "torch_npu" in result.output and "NPU.md" in result.output

