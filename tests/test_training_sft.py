"""The real TRL path on tiny Qwen-VL models: the paper recipe, TrlParser and SFTTrainer, on CPU.

Each run takes the paper's Qwen3.5-2B recipe YAML as is and overrides only what a CPU test
must: the tiny model and dataset, 2 steps on one repeated batch, bf16 and activation
(gradient) checkpointing off (SFTConfig turns both on by default), a learning rate that moves
a random model in one step, no warmup. max_length stays the recipe's 2048, far above these
rows, so nothing is cut.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from tiny_vlm import build_tiny_jiezi_dataset, build_tiny_vlm
from transformers import AutoProcessor

from training.sft import RUN_RECORD, main, parse

REPO = Path(__file__).resolve().parent.parent
RECIPE = REPO / "training" / "recipes" / "qwen3_5-2b.yaml"
LORA_RECIPE = REPO / "training" / "recipes" / "qwen3_vl-8b-lora.yaml"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    return build_tiny_jiezi_dataset(tmp_path_factory.mktemp("jiezi-dataset"), copies=2)  # 16 rows


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    built = {}

    def get(family: str) -> Path:
        if family not in built:
            built[family] = build_tiny_vlm(family, tmp_path_factory.mktemp(family))
        return built[family]

    return get


def cpu_overrides(model: Path, dataset: Path, out: Path) -> list[str]:
    return [
        "--model_name_or_path", str(model), "--dataset_name", str(dataset), "--output_dir", str(out),
        "--subset", "0.25",  # 4 of 16 rows: with batch 4, every step sees the same batch
        "--max_steps", "2", "--per_device_train_batch_size", "4", "--gradient_accumulation_steps", "1",
        "--learning_rate", "1e-3", "--warmup_steps", "0",
        "--bf16", "false", "--activation_checkpointing", "false", "--use_cpu", "true",
        "--logging_steps", "1", "--save_strategy", "no", "--report_to", "none",
    ]


def train(recipe: Path, overrides: list[str]):
    return main(*parse(["--config", str(recipe), *overrides]), config_path=recipe, overrides=overrides)


def logged_losses(trainer) -> list[float]:
    return [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]


# qwen3_5 is the paper models' own architecture (hybrid Gated DeltaNet / attention layers)
@pytest.mark.parametrize("family", ["qwen2_vl", "qwen2_5_vl", "qwen3_vl", "qwen3_5"])
def test_recipe_trains_two_steps_and_the_loss_falls(family, tiny, dataset, tmp_path):
    out = tmp_path / "run"
    trainer = train(RECIPE, cpu_overrides(tiny(family), dataset, out))

    losses = logged_losses(trainer)
    assert len(losses) == 2 and all(math.isfinite(x) for x in losses)
    assert losses[1] < losses[0], losses
    # the recipe's own settings reached the trainer
    args = trainer.args
    assert args.lr_scheduler_type.value == "cosine" and args.weight_decay == pytest.approx(0.1)
    assert args.max_length == 2048 and args.assistant_only_loss and not args.bf16

    # assistant-only loss: the supervised tokens are the answers (and their end-of-turn), not
    # the questions; every visual token of the glyph is in the sequence
    processor = trainer.processing_class
    row = trainer.train_dataset[0]
    batch = trainer.data_collator([row])
    supervised = processor.tokenizer.decode(batch["input_ids"][0][batch["labels"][0] != -100])
    answers = [m["content"][0]["text"] for m in row["messages"] if m["role"] == "assistant"]
    questions = [p["text"] for m in row["messages"] if m["role"] == "user" for p in m["content"] if p["text"]]
    assert all(a in supervised for a in answers) and "<|im_end|>" in supervised
    assert not any(q in supervised for q in questions)
    n_visual = int(batch["image_grid_thw"].prod()) // processor.image_processor.merge_size ** 2
    assert int((batch["input_ids"] == processor.image_token_id).sum()) == n_visual

    # the saved checkpoint is complete and reloads
    record = json.loads((out / RUN_RECORD).read_text())
    assert record["status"] == "completed" and record["dataset"]["rows"] == 4 and record["global_steps"] == 2
    assert record["dataset"]["qa_turns"] == 24 and record["settings"]["max_length"] == 2048
    from transformers import AutoModelForImageTextToText

    reloaded = AutoModelForImageTextToText.from_pretrained(out)
    assert AutoProcessor.from_pretrained(out).chat_template == processor.chat_template
    with torch.no_grad():
        batch = {k: v for k, v in batch.items() if k != "labels"}
        assert torch.allclose(reloaded(**batch).logits, trainer.model.eval()(**batch).logits, atol=1e-5)


def test_lora_adapter_is_saved_reloaded_and_merged(tiny, dataset, tmp_path):
    from peft import PeftModel
    from transformers import AutoModelForImageTextToText

    base_path, out = tiny("qwen3_vl"), tmp_path / "lora"
    trainer = train(LORA_RECIPE, cpu_overrides(base_path, dataset, out) + ["--dtype", "float32"])
    losses = logged_losses(trainer)
    assert len(losses) == 2 and losses[1] < losses[0]
    assert (out / "adapter_config.json").is_file() and (out / "adapter_model.safetensors").is_file()
    assert not (out / "model.safetensors").exists()  # only the adapter is saved
    adapter_config = json.loads((out / "adapter_config.json").read_text())
    assert adapter_config["r"] == 64 and set(adapter_config["target_modules"]) == {
        "q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}

    batch = trainer.data_collator([trainer.train_dataset[0]])
    batch = {k: v for k, v in batch.items() if k != "labels"}
    with torch.no_grad():
        trained = trainer.model.eval()(**batch).logits
        base = AutoModelForImageTextToText.from_pretrained(base_path)
        base_logits = base(**batch).logits
        reloaded = PeftModel.from_pretrained(base, out).eval()
        assert torch.allclose(reloaded(**batch).logits, trained, atol=1e-5)
        merged = reloaded.merge_and_unload()
        assert torch.allclose(merged(**batch).logits, trained, atol=1e-4)
        assert not torch.allclose(merged(**batch).logits, base_logits, atol=1e-4)  # the adapter did change it
    # what `jiezi eval --model hf:OUT` loads: transformers applies the adapter to its base
    with torch.no_grad():
        assert torch.allclose(AutoModelForImageTextToText.from_pretrained(out)(**batch).logits, trained, atol=1e-5)
    merged.save_pretrained(tmp_path / "merged")
    again = AutoModelForImageTextToText.from_pretrained(tmp_path / "merged")
    with torch.no_grad():
        assert torch.allclose(again(**batch).logits, trained, atol=1e-4)


def test_max_length_too_short_for_the_image_is_refused_before_training(tiny, dataset, tmp_path):
    overrides = cpu_overrides(tiny("qwen2_vl"), dataset, tmp_path / "short") + ["--max_length", "8"]
    with pytest.raises(ValueError, match="cannot hold the .* image tokens"):
        train(RECIPE, overrides)
    assert not (tmp_path / "short" / RUN_RECORD).exists()


@pytest.mark.subprocess
def test_jiezi_train_run_through_accelerate_launch(tiny, dataset, tmp_path):
    """The CLI end to end: `jiezi train run` -> `accelerate launch training/sft.py` (1 CPU process)."""
    config = tmp_path / "cpu.yaml"
    config.write_text("compute_environment: LOCAL_MACHINE\ndistributed_type: 'NO'\nnum_processes: 1\n"
                      "num_machines: 1\nmachine_rank: 0\nmixed_precision: 'no'\nuse_cpu: true\n")
    out = tmp_path / "cli-run"
    overrides = cpu_overrides(tiny("qwen2_5_vl"), dataset, out)
    # --dataset/--subset/--output-dir are CLI options; the rest goes through to TRL
    passthrough = [a for i, a in enumerate(overrides)
                   if a not in ("--dataset_name", "--subset", "--output_dir")
                   and overrides[i - 1] not in ("--dataset_name", "--subset", "--output_dir")]
    jiezi = Path(sys.executable).parent / "jiezi"
    cmd = [str(jiezi), "train", "run", "qwen3_5-2b", "--dataset", str(dataset), "--subset", "0.25",
           "--output-dir", str(out), "--accelerate-config", str(config), "--", *passthrough]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    record = json.loads((out / RUN_RECORD).read_text())
    assert record["status"] == "completed" and record["global_steps"] == 2
    assert record["dataset"]["subset"] == 0.25 and record["recipe"].endswith("qwen3_5-2b.yaml")
    assert record["last_logged_loss"] < record["first_logged_loss"]
    assert (out / "model.safetensors").is_file()


def test_an_interrupted_run_resumes_from_its_last_checkpoint(tiny, dataset, tmp_path):
    out = tmp_path / "resumable"
    overrides = cpu_overrides(tiny("qwen3_vl"), dataset, out) + ["--save_strategy", "steps", "--save_steps", "1"]
    train(RECIPE, overrides)
    assert sorted(p.name for p in out.glob("checkpoint-*")) == ["checkpoint-1", "checkpoint-2"]
    trainer = train(RECIPE, overrides + ["--max_steps", "3", "--resume_from_checkpoint", "last"])
    assert trainer.state.global_step == 3
    steps_logged = [e["step"] for e in trainer.state.log_history if "loss" in e]
    assert steps_logged[-1] == 3 and 1 in steps_logged  # history carried over from the checkpoint
    assert json.loads((out / RUN_RECORD).read_text())["global_steps"] == 3
