"""The dry run: step arithmetic against transformers' Trainer, image tokens against the real
processor, and `jiezi train plan` / `jiezi train run --dry-run` on a tiny JieZi-Dataset."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from PIL import Image
from tiny_vlm import build_tiny_jiezi_dataset, build_tiny_vlm
from transformers import AutoProcessor
from typer.testing import CliRunner

from jiezi_cli import app
from training.plan import (
    check_max_length,
    estimate_text_tokens,
    image_tokens,
    plan_recipe,
    steps,
    vision_settings,
)

REPO = Path(__file__).resolve().parent.parent
RECIPES = REPO / "training" / "recipes"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    return build_tiny_jiezi_dataset(tmp_path_factory.mktemp("jiezi-dataset"), copies=3)  # 24 rows


@pytest.fixture(scope="module")
def qwen2_5_vl(tmp_path_factory):
    return build_tiny_vlm("qwen2_5_vl", tmp_path_factory.mktemp("qwen2_5_vl"))


def test_paper_scale_arithmetic():
    # 130,000 rows on 8 devices, 4 x 4 per device: 4,063 batches per process -> 1,016 steps
    assert steps(130_000, 4, 4, 8, 5, -1, 0.05) == (1016, 5080, 254)
    assert steps(130_000, 2, 4, 8, 5, -1, 0.05) == (2032, 10160, 508)
    assert steps(10, 4, 4, 8, 5, -1, 0.05) == (1, 5, 1)  # never zero steps
    assert steps(1000, 4, 1, 1, 5, 7, 3) == (250, 7, 3)  # max_steps and integer warmup win


@pytest.mark.parametrize(("per_device", "accumulation", "epochs"), [(2, 3, 1), (4, 1, 2.5), (5, 2, 3)])
def test_steps_match_the_trainer(per_device, accumulation, epochs, dataset, qwen2_5_vl, tmp_path):
    from trl import SFTConfig, SFTTrainer

    from training.data import load_jiezi_dataset

    ds, summary = load_jiezi_dataset(str(dataset), progress=False)
    args = SFTConfig(output_dir=str(tmp_path), per_device_train_batch_size=per_device,
                     gradient_accumulation_steps=accumulation, num_train_epochs=epochs, warmup_steps=0.05,
                     bf16=False, activation_checkpointing=False, use_cpu=True, report_to="none")
    trainer = SFTTrainer(model=str(qwen2_5_vl), args=args, train_dataset=ds,
                         processing_class=AutoProcessor.from_pretrained(qwen2_5_vl))
    _, per_epoch, *_, max_steps = trainer.set_initial_training_values(args, trainer.get_train_dataloader())
    ours = steps(summary.rows, per_device, accumulation, 1, epochs, -1, 0.05)
    assert ours == (per_epoch, max_steps, args.get_warmup_steps(max_steps))


@pytest.mark.parametrize("family", ["qwen2_5_vl", "qwen3_vl"])
@pytest.mark.parametrize("size", [(64, 64), (96, 80), (300, 40), (1000, 1400)])
def test_image_tokens_match_the_processor(family, size, tmp_path):
    processor = AutoProcessor.from_pretrained(build_tiny_vlm(family, tmp_path / family))
    out = processor.image_processor(images=[Image.new("RGB", size, "white")], return_tensors="pt")
    expected = int(out["image_grid_thw"].prod()) // processor.image_processor.merge_size ** 2
    assert image_tokens(*size, *vision_settings(processor)) == expected


def test_text_estimate_counts_han_characters_and_other_text():
    assert estimate_text_tokens("本义为长江。") == 6
    assert estimate_text_tokens("seal script") == 3  # 10 non-space characters / 4, rounded up
    assert estimate_text_tokens("⿰ 江") == 2


def test_check_max_length(qwen2_5_vl):
    processor = AutoProcessor.from_pretrained(qwen2_5_vl)
    check_max_length(2048, [(64, 64), (120, 90)], processor)
    check_max_length(None, [(4000, 4000)], processor)
    with pytest.raises(ValueError, match="400x400"):
        check_max_length(40, [(64, 64), (400, 400)], processor)  # 16 image tokens + 32 > 40


def test_plan_estimates_every_paper_recipe(dataset):
    cache: dict = {}
    plans = {p: plan_recipe(RECIPES / f"{p}.yaml", str(dataset), cache=cache) for p in
             ("qwen3_5-2b", "qwen3_5-4b", "qwen3_5-9b")}
    assert [plans[p].global_batch for p in plans] == [128, 128, 64]
    assert [plans[p].max_length for p in plans] == [2048, 2048, 1024]
    for plan in plans.values():
        assert plan.rows == 24 and plan.qa_turns == 144 and plan.devices == 8
        assert (plan.steps_per_epoch, plan.total_steps, plan.warmup_steps) == (1, 5, 1)
        assert plan.token_method.startswith("estimate") and plan.family == "qwen3_5"
        # Qwen3.5 vision: a 64-128 px glyph is scaled up to min_pixels = 256 x 256 -> 8 x 8 tokens
        assert plan.mean_image_tokens_per_row == 64
        assert plan.mean_tokens_per_row > plan.mean_image_tokens_per_row + 6 * 2 * 5
        assert plan.token_budget == plan.tokens_per_epoch * 5
    assert len(cache) == 1  # the dataset was read once for the three recipes


def test_plan_counts_exactly_with_an_available_processor(dataset, qwen2_5_vl, tmp_path):
    from training.data import load_jiezi_dataset

    recipe = yaml.safe_load((RECIPES / "qwen2_5_vl-3b.yaml").read_text())
    recipe["model_name_or_path"] = str(qwen2_5_vl)
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(recipe))
    exact = plan_recipe(path, str(dataset))
    assert exact.token_method.startswith("processor") and exact.rows_counted == 24
    processor = AutoProcessor.from_pretrained(qwen2_5_vl)
    ds, _ = load_jiezi_dataset(str(dataset), progress=False)
    from trl.data_utils import prepare_multimodal_messages

    lengths = []
    for row in ds:
        batch = processor.apply_chat_template(prepare_multimodal_messages(row["messages"], images=row["images"]),
                                              tokenize=True, return_dict=True, return_tensors="pt")
        lengths.append(batch["input_ids"].shape[1])
    assert exact.mean_tokens_per_row == pytest.approx(sum(lengths) / len(lengths), abs=0.05)
    # the offline estimate (rules of thumb) lands near the exact count for the same family
    recipe["model_name_or_path"] = "Qwen/Qwen2.5-VL-3B-Instruct"
    estimated = plan_recipe(_write(tmp_path / "hub.yaml", recipe), str(dataset), use_processor=False)
    assert estimated.token_method.startswith("estimate")


def _write(path: Path, recipe: dict) -> Path:
    path.write_text(yaml.safe_dump(recipe))
    return path


def test_jiezi_train_plan_cli(dataset):
    runner = CliRunner()
    result = runner.invoke(app, ["train", "plan", "--dataset", str(dataset), "--json"])
    assert result.exit_code == 0, result.output
    plans = json.loads(result.stdout)
    assert [Path(p["recipe"]).stem for p in plans] == ["qwen3_5-2b", "qwen3_5-4b", "qwen3_5-9b"]
    assert [p["global_batch"] for p in plans] == [128, 128, 64]
    table = runner.invoke(app, ["train", "run", "qwen3_5-9b", "--dry-run", "--dataset", str(dataset),
                                "--subset", "0.5"])
    assert table.exit_code == 0, table.output
    assert "64 = 2x4x8" in table.stdout and "[0.5]" in table.stdout and "token budget" in table.stdout


def _unboxed(text: str) -> str:
    """The words of a rich error panel, without its borders and line wrapping."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", text).split())


def test_cli_names_missing_recipe_and_dataset(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["train", "plan", "no-such-recipe"])
    assert result.exit_code != 0 and "qwen3_5-2b" in _unboxed(result.output)
    result = runner.invoke(app, ["train", "plan", "--dataset", str(tmp_path / "missing")])
    assert result.exit_code != 0 and "not found" in _unboxed(result.output)
