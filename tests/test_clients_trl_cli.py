"""The real ``trl sft`` command line on the project's recipes, as a user types it.

Each test copies a shipped recipe (and, where used, a shipped accelerate config) and changes
only what a CPU test must: paths (tiny model, tiny dataset, output folder), bf16 and
activation checkpointing off, 2 steps without warmup, logging every step and no checkpoint
saving; the 2-process run also sets ``use_cpu: true``. Everything else (learning rate,
scheduler, batch size, gradient accumulation, max_length, assistant-only loss, LoRA
settings) is the recipe's own. ``trl sft`` runs as a subprocess on tiny random Qwen-VL models
(tests/tiny_vlm.py).

With the recipes' batch (4 per device x 4 accumulation = 16 rows per optimizer step) and a
16-row dataset per process, both steps see the same rows, so the second logged loss is the
first one after one AdamW update at the recipe's own learning rate: it must be lower.
"""

from __future__ import annotations

import ast
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from tiny_vlm import build_tiny_jiezi_dataset, build_tiny_vlm

REPO = Path(__file__).resolve().parent.parent
RECIPES = REPO / "training" / "recipes"
ACCELERATE = REPO / "training" / "accelerate"
TRL = Path(sys.executable).parent / "trl"
FULL_RECIPE = {  # the recipe of each family's smallest paper-style model
    "qwen2_vl": "qwen2_5_vl-3b.yaml",  # no Qwen2-VL recipe ships; Qwen2.5-VL's trains it unchanged
    "qwen2_5_vl": "qwen2_5_vl-3b.yaml",
    "qwen3_vl": "qwen3_vl-4b.yaml",
    "qwen3_5": "qwen3_5-2b.yaml",
}


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    return build_tiny_jiezi_dataset(tmp_path_factory.mktemp("jiezi-dataset"), copies=2)  # 16 rows


@pytest.fixture(scope="module")
def dataset_32(tmp_path_factory):
    return build_tiny_jiezi_dataset(tmp_path_factory.mktemp("jiezi-dataset-32"), copies=4)  # 16 rows per process


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    built = {}

    def get(family: str) -> Path:
        if family not in built:
            built[family] = build_tiny_vlm(family, tmp_path_factory.mktemp(family))
        return built[family]

    return get


def recipe_copy(name: str, model: Path, dataset: Path, out: Path, dest: Path, **extra) -> tuple[Path, dict]:
    """Copy ``training/recipes/<name>`` with only the CPU test's changes; returns (path, recipe)."""
    recipe = yaml.safe_load((RECIPES / name).read_text("utf-8"))
    changes = {
        "model_name_or_path": str(model), "dataset_name": str(dataset), "output_dir": str(out),
        "bf16": False, "activation_checkpointing": False,
        "max_steps": 2, "warmup_steps": 0, "logging_steps": 1, "save_strategy": "no",
        **extra,
    }
    assert set(changes) - set(recipe) <= {"max_steps", "use_cpu"}, "a recipe copy only changes existing keys"
    recipe.update(changes)
    dest.write_text(yaml.safe_dump(recipe, allow_unicode=True, sort_keys=False), "utf-8")
    return dest, recipe


def accelerate_copy(name: str, dest: Path, **changes) -> Path:
    """Copy ``training/accelerate/<name>`` with ``changes`` (the CPU settings)."""
    config = yaml.safe_load((ACCELERATE / name).read_text("utf-8"))
    config.update(changes)
    dest.write_text(yaml.safe_dump(config, sort_keys=False), "utf-8")
    return dest


# Loaded by every Python process of the run (as ``sitecustomize``): records, for each process
# that joins a torch.distributed group, its rank, the world size and the backend.
RANK_PROBE = """
import functools, json, os
import torch.distributed as dist

_init = dist.init_process_group


@functools.wraps(_init)
def init_process_group(*args, **kwargs):
    result = _init(*args, **kwargs)
    record = {"rank": dist.get_rank(), "world_size": dist.get_world_size(), "backend": str(dist.get_backend())}
    path = os.path.join(os.environ["JIEZI_TEST_RANK_DIR"], f"{os.getpid()}.json")
    with open(path, "w") as f:
        json.dump(record, f)
    return result


dist.init_process_group = init_process_group
"""


def run_trl(args: list[str], tmp_path: Path, timeout: int = 1200, extra_env: dict | None = None):
    """Run ``trl ARGS`` in ``tmp_path`` offline; returns the CompletedProcess (exit 0 asserted)."""
    paths = [str(REPO)]
    if extra_env and "JIEZI_TEST_RANK_DIR" in extra_env:
        probe = tmp_path / "probe"
        probe.mkdir(exist_ok=True)
        (probe / "sitecustomize.py").write_text(RANK_PROBE, "utf-8")
        paths.insert(0, str(probe))
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "HF_HOME": str(tmp_path / "hf-home"), "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (*paths, os.environ.get("PYTHONPATH")) if p), **(extra_env or {})}
    done = subprocess.run([str(TRL), *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-4000:]
    return done


def logged_steps(output: str) -> list[dict]:
    """The per-step log dicts Trainer prints (``{'loss': '6.504', 'grad_norm': ..., 'epoch': '1'}``)."""
    return [ast.literal_eval(m) for m in re.findall(r"\{'loss': [^{}]*\}", output)]


def assert_two_steps_and_loss_falls(done: subprocess.CompletedProcess, out: Path) -> list[dict]:
    steps = logged_steps(done.stdout + done.stderr)
    losses = [float(s["loss"]) for s in steps]
    assert len(losses) == 2 and all(math.isfinite(x) for x in losses), done.stdout[-3000:]
    assert losses[1] < losses[0], losses
    assert "Training completed" in done.stdout + done.stderr
    assert (out / "config.json").is_file() or (out / "adapter_config.json").is_file()
    return steps


@pytest.mark.subprocess
@pytest.mark.slow
@pytest.mark.parametrize("family", ["qwen2_vl", "qwen3_5"])
def test_trl_sft_trains_a_recipe_copy(family, tiny, dataset, tmp_path):
    out = tmp_path / "run"
    config, _ = recipe_copy(FULL_RECIPE[family], tiny(family), dataset, out, tmp_path / "recipe.yaml")
    done = run_trl(["sft", "--config", str(config)], tmp_path)
    steps = assert_two_steps_and_loss_falls(done, out)
    # the recipe's own learning rate and cosine schedule: full rate at step 1, half at step 2
    assert [float(s["learning_rate"]) for s in steps] == pytest.approx([1e-5, 5e-6])
    from transformers import AutoConfig

    assert AutoConfig.from_pretrained(out).model_type == family and (out / "model.safetensors").is_file()


@pytest.mark.subprocess
@pytest.mark.slow
def test_trl_sft_trains_a_lora_recipe_copy(tiny, dataset, tmp_path):
    out = tmp_path / "lora"
    config, recipe = recipe_copy("qwen3_5-2b-lora.yaml", tiny("qwen3_5"), dataset, out, tmp_path / "recipe.yaml")
    done = run_trl(["sft", "--config", str(config)], tmp_path)
    assert_two_steps_and_loss_falls(done, out)
    adapter = json.loads((out / "adapter_config.json").read_text())
    assert adapter["r"] == recipe["lora_r"] and adapter["lora_alpha"] == recipe["lora_alpha"]
    assert (out / "adapter_model.safetensors").is_file() and not (out / "model.safetensors").exists()
    from peft import PeftModel
    from transformers import AutoModelForImageTextToText

    base = AutoModelForImageTextToText.from_pretrained(tiny("qwen3_5"))
    merged = PeftModel.from_pretrained(base, out).merge_and_unload()
    assert type(merged).__name__ == type(base).__name__


@pytest.mark.subprocess
@pytest.mark.slow
def test_trl_sft_with_an_accelerate_config_copy(tiny, dataset, tmp_path):
    """Qwen2.5-VL through ``--accelerate_config``: a copy of the DDP config set to one CPU process."""
    out = tmp_path / "accel"
    config, _ = recipe_copy(FULL_RECIPE["qwen2_5_vl"], tiny("qwen2_5_vl"), dataset, out, tmp_path / "recipe.yaml")
    accel = accelerate_copy("gpu-8-ddp.yaml", tmp_path / "cpu.yaml", distributed_type="NO", num_processes=1,
                            mixed_precision="no", use_cpu=True)
    done = run_trl(["sft", "--config", str(config), "--accelerate_config", str(accel)], tmp_path)
    assert_two_steps_and_loss_falls(done, out)
    from transformers import AutoConfig

    assert AutoConfig.from_pretrained(out).model_type == "qwen2_5_vl"


@pytest.mark.subprocess
@pytest.mark.slow
def test_trl_sft_runs_two_processes_over_gloo(tiny, dataset_32, tmp_path):
    """Qwen3-VL on 2 CPU processes. accelerate's MULTI_CPU needs an MPI hostfile and otherwise
    runs one process; the DDP config's MULTI_GPU with 2 processes and ``use_cpu: true`` in the
    recipe starts 2 torch.distributed processes on the gloo backend."""
    out = tmp_path / "ddp"
    config, recipe = recipe_copy(FULL_RECIPE["qwen3_vl"], tiny("qwen3_vl"), dataset_32, out,
                                 tmp_path / "recipe.yaml", use_cpu=True)
    accel = accelerate_copy("gpu-8-ddp.yaml", tmp_path / "ddp.yaml", num_processes=2, mixed_precision="no",
                            main_process_port=29500 + os.getpid() % 1000)
    probe = tmp_path / "ranks"
    probe.mkdir()
    done = run_trl(["sft", "--config", str(config), "--accelerate_config", str(accel)], tmp_path,
                   extra_env={"JIEZI_TEST_RANK_DIR": str(probe)})
    steps = assert_two_steps_and_loss_falls(done, out)
    # 32 rows = 2 processes x 4 per device x 4 accumulation: one epoch per optimizer step
    assert [float(s["epoch"]) for s in steps] == [1.0, 2.0]
    assert 2 * recipe["per_device_train_batch_size"] * recipe["gradient_accumulation_steps"] == 32
    ranks = sorted((json.loads(p.read_text()) for p in probe.glob("*.json")), key=lambda r: r["rank"])
    assert [(r["rank"], r["world_size"], r["backend"]) for r in ranks] == [(0, 2, "gloo"), (1, 2, "gloo")]
