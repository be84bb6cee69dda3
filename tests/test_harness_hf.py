"""`jiezi eval --model hf:...`: a tiny random Qwen-VL built in the test answers 20 bench rows."""

from __future__ import annotations

import json

import pytest
from harness_fixtures import build_hub_folders
from tiny_vlm import build_tiny_vlm

from harness.bench import load_bench
from harness.eval.backends.base import ModelSpec
from harness.eval.backends.hf import HFBackend, auto_device
from harness.eval.options import EvalOptions
from harness.eval.run import evaluate
from harness.eval.sampling import stratified_sample


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("hf")
    bench, _ = build_hub_folders(root / "hub")
    model = build_tiny_vlm("qwen2_vl", root / "tiny-qwen2-vl")
    return {"bench": bench, "model": model, "root": root}


def _lines(path):
    return [json.loads(x) for x in path.read_text("utf-8").splitlines()]


def test_tiny_qwen_vl_answers_20_rows_end_to_end(setup, tmp_path):
    out = tmp_path / "run"
    res = evaluate(EvalOptions(model=f"hf:{setup['model']}", bench=str(setup["bench"]), output=out, limit=20,
                               batch_size=4, max_new_tokens=8, device="auto", progress=False, bertscore=False,
                               cache_dir=tmp_path / "cache"))
    preds = _lines(out / "predictions.jsonl")
    full = load_bench(setup["bench"], "all", "test")
    keep, _ = stratified_sample(full.select_columns(["id", "script", "subtask"]).to_list(), 20, 0)
    ids = [full["id"][i] for i in keep]  # --limit 20: the seeded stratified sample, in bench order
    assert [p["id"] for p in preds] == ids
    assert all(p["error"] is None and isinstance(p["output"], str) for p in preds)
    # a batch of 4 shares one generate call, so its items share one latency
    assert len({p["latency_s"] for p in preds}) <= 5
    model = res["model"]
    assert model["backend"] == "hf" and model["model_type"] == "qwen2_vl"
    device = auto_device()  # cpu here; cuda / npu where present
    assert model["device"] == device and model["batch_size"] == 4
    assert model["dtype"] == ("float32" if device == "cpu" else "bfloat16")
    assert model["max_new_tokens"] == 8 and "greedy" in model["decoding"]
    # the tiny Qwen2-VL's chat template has no enable_thinking switch: recorded as unknown
    assert model["thinking"]["mode"] == "unknown" and "no enable_thinking switch" in model["thinking"]["how"]
    saved = json.loads((out / "results.json").read_text("utf-8"))
    assert saved["bench"]["rows"] == 20 and saved["prompt_version"]
    assert saved["scores"]["counts"]["CHAR"]["items"] > 0


def test_a_failing_item_does_not_sink_its_batch(setup, tmp_path, monkeypatch):
    real = HFBackend.generate
    full = load_bench(setup["bench"], "all", "test")
    keep, _ = stratified_sample(full.select_columns(["id", "script", "subtask"]).to_list(), 8, 0)
    bad = full["id"][keep[2]]  # the third row --limit 8 asks

    def generate(self, requests):
        if any(r.key == bad for r in requests):
            raise RuntimeError(f"cannot process {bad}")
        return real(self, requests)

    monkeypatch.setattr(HFBackend, "generate", generate)
    out = tmp_path / "run"
    res = evaluate(EvalOptions(model=f"hf:{setup['model']}", bench=str(setup["bench"]), output=out, limit=8,
                               batch_size=4, max_new_tokens=4, progress=False, bertscore=False))
    preds = {p["id"]: p for p in _lines(out / "predictions.jsonl")}
    assert preds[bad]["error"] == f"RuntimeError: cannot process {bad}" and preds[bad]["output"] is None
    assert sum(1 for p in preds.values() if p["error"] is None) == 7
    assert res["run"]["errors"] == 1


def test_hf_backend_batches_with_left_padding(setup):
    backend = HFBackend(ModelSpec("hf", str(setup["model"])), batch_size=2, max_new_tokens=3)
    assert backend.processor.tokenizer.padding_side == "left"
    assert backend.device == auto_device()
