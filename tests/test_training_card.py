"""Model cards filled from a real (tiny) training run and a jiezi-eval-style results.json."""

from __future__ import annotations

import json

import pytest
from huggingface_hub import ModelCard
from tiny_vlm import build_tiny_jiezi_dataset, build_tiny_vlm
from typer.testing import CliRunner

from jiezi_cli import app
from training.card import METRIC_KEYS, load_scores, write_model_card
from training.sft import RUN_RECORD, main, parse


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    base = tmp_path_factory.mktemp("card")
    model = build_tiny_vlm("qwen3_vl", base / "model")
    dataset = build_tiny_jiezi_dataset(base / "dataset", copies=1)
    out = base / "qwen3_vl-tiny-jiezi"
    args = ["--config", "training/recipes/qwen3_5-4b.yaml", "--model_name_or_path", str(model),
            "--dataset_name", str(dataset), "--output_dir", str(out), "--subset", "0.5", "--max_steps", "1",
            "--per_device_train_batch_size", "2", "--bf16", "false", "--activation_checkpointing", "false",
            "--use_cpu", "true", "--save_strategy", "no", "--report_to", "none"]
    main(*parse(args), config_path="training/recipes/qwen3_5-4b.yaml", overrides=args[2:])
    return out


def results_json(path, **scores):
    # the shape `jiezi eval` writes: the acce metric's score dict under "scores"
    values = {key: 10.0 + i for i, key in enumerate(METRIC_KEYS)}
    values.update(EVOI_FAC=None, EVOI_SCE=None, L1=10.5, L2=14.2, L3=17.0, L4=18.0, macro=14.0,
                  not_computed={"EVOI_FAC": "no judge configured", "EVOI_SCE": "no judge configured"})
    values.update(scores)
    path.write_text(json.dumps({"bench": "out/jiezi-bench", "scores": values}), encoding="utf-8")
    return path


def test_card_from_a_run_without_scores(run_dir):
    out = write_model_card(run_dir)
    card = ModelCard.load(out)
    assert card.data.pipeline_tag == "image-text-to-text" and card.data.library_name == "transformers"
    assert "jiezi" in card.data.tags and card.data.language == ["zh"]
    text = card.text
    assert "50% of the rows" in text and "4 of 8" in text  # subset 0.5 of 8 glyph images
    assert "qwen3_5-4b.yaml" in text and "learning_rate | 1e-05" in text.replace("1e-5", "1e-05")
    assert "Not evaluated yet" in text and f"jiezi eval --model hf:{run_dir}" in text
    assert "--max_steps 1" in text  # the command-line overrides are recorded


def test_card_with_bench_scores(run_dir, tmp_path):
    out = write_model_card(run_dir, results_json(tmp_path / "results.json"), model_name="tiny-jiezi")
    card = ModelCard.load(out)
    assert card.data.model_name == "tiny-jiezi"
    by_metric = {r.metric_name: r.metric_value for r in card.data.eval_results}
    assert by_metric["CHAR"] == 10.0 and by_metric["COME"] == 18.0 and by_metric["macro"] == 14.0
    assert "EVOI_FAC" not in by_metric  # not computed: no number invented
    assert "| 10 | 11 | 12 | 13 | 14 | 15 | 16 | 17 | 18 | - | - |" in card.text
    assert "EVOI_FAC (no judge configured)" in card.text


def test_card_refuses_unfinished_runs_and_foreign_results(run_dir, tmp_path):
    record = json.loads((run_dir / RUN_RECORD).read_text())
    unfinished = tmp_path / "unfinished"
    unfinished.mkdir()
    (unfinished / RUN_RECORD).write_text(json.dumps({**record, "status": "running"}))
    with pytest.raises(ValueError, match="not 'completed'"):
        write_model_card(unfinished)
    with pytest.raises(FileNotFoundError, match="jiezi train run"):
        write_model_card(tmp_path)
    (tmp_path / "other.json").write_text(json.dumps({"accuracy": 0.5}))
    with pytest.raises(ValueError, match="no ACCE scores"):
        load_scores(tmp_path / "other.json")


def test_jiezi_train_card_cli(run_dir, tmp_path):
    result = CliRunner().invoke(app, ["train", "card", str(run_dir), "--results",
                                      str(results_json(tmp_path / "r.json"))])
    assert result.exit_code == 0, result.output
    assert (run_dir / "README.md").read_text().count("JieZi-Bench") >= 2
    bad = CliRunner().invoke(app, ["train", "card", str(tmp_path)])
    assert bad.exit_code != 0 and "jiezi_run.json" in bad.output
