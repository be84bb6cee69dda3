"""End to end: train a tiny Qwen-VL with the paper recipe on a JieZi-Dataset in the
publication layout, answer JieZi-Bench rows with `jiezi eval --model hf:CHECKPOINT`, and put
the scores into the model card."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import datasets
import pytest
from harness_fixtures import build_hub_folders
from huggingface_hub import ModelCard
from tiny_vlm import build_tiny_vlm

from training.card import write_model_card
from training.sft import RUN_RECORD, main, parse

REPO = Path(__file__).resolve().parent.parent
RECIPE = REPO / "training" / "recipes" / "qwen3_5-2b.yaml"


@pytest.mark.subprocess
@pytest.mark.slow
def test_trained_checkpoint_answers_bench_rows_through_jiezi_eval(tmp_path):
    bench, dataset = build_hub_folders(tmp_path)  # the harness tests' bench + dataset (publication features)
    model = build_tiny_vlm("qwen2_5_vl", tmp_path / "tiny")
    out = tmp_path / "run"
    overrides = ["--model_name_or_path", str(model), "--dataset_name", str(dataset), "--output_dir", str(out),
                 "--max_steps", "2", "--per_device_train_batch_size", "4", "--learning_rate", "1e-3",
                 "--warmup_steps", "0", "--bf16", "false", "--activation_checkpointing", "false",
                 "--use_cpu", "true", "--logging_steps", "1", "--save_strategy", "no", "--report_to", "none"]
    trainer = main(*parse(["--config", str(RECIPE), *overrides]), config_path=RECIPE, overrides=overrides)
    losses = [e["loss"] for e in trainer.state.log_history if "loss" in e]
    assert losses[1] < losses[0]
    published = datasets.load_dataset(str(dataset), "all", split="train")
    assert json.loads((out / RUN_RECORD).read_text())["dataset"]["rows"] == len(published)

    evaluation = tmp_path / "eval"
    cmd = [str(Path(sys.executable).parent / "jiezi"), "eval", "--model", f"hf:{out}", "--bench", str(bench),
           "--output", str(evaluation), "--limit", "20", "--device", "cpu", "--bertscore-model", "offline-minilm",
           "--max-new-tokens", "16", "--no-progress"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

    predictions = [json.loads(line) for line in (evaluation / "predictions.jsonl").read_text().splitlines()]
    assert len(predictions) == 20 and all(p["error"] is None for p in predictions)
    # every row was answered without error (a random tiny model may stop at once on some rows)
    assert all(isinstance(p["output"], str) for p in predictions) and any(p["output"] for p in predictions)
    results = json.loads((evaluation / "results.json").read_text())
    assert results["model"]["model_type"] == "qwen2_5_vl" and results["bench"]["rows"] == 20
    assert all(results["scores"][k] is not None for k in ("CHAR", "SCRC", "STRC", "ORIM", "macro"))

    card = ModelCard.load(write_model_card(out, evaluation / "results.json"))
    scores = {r.metric_name: r.metric_value for r in card.data.eval_results}
    assert scores["macro"] == results["scores"]["macro"] and scores["ORIM"] == results["scores"]["ORIM"]
    assert "all/test, 20 questions" in card.text and "NOT comparable" in card.text  # offline BERTScore flagged
