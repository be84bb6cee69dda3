"""The backend registry: a new backend is one class and one ``BACKENDS`` line, and then
``jiezi eval`` (spec parsing, asking, results) and the Space's explainers use it unchanged."""

from __future__ import annotations

import json

import pytest
from harness_fixtures import build_hub_folders

from harness.eval.backends import BACKENDS
from harness.eval.backends.base import Backend, ModelSpec, ModelSpecError, parse_model_spec
from harness.eval.options import EvalOptions, RunError
from harness.eval.run import evaluate


class FixedAnswerBackend(Backend):
    """Answers every question with the same text (``fixed:TEXT``), counting the calls."""

    kind = "fixed"
    spec_form = "fixed:TEXT"
    batch_size = 4

    def __init__(self, spec: ModelSpec):
        self.spec = spec
        self.calls: list[int] = []

    @classmethod
    def create(cls, spec, options):
        return cls(spec)

    def settings(self) -> dict:
        return {"backend": self.kind, "model": self.spec.name}

    def generate(self, requests):
        self.calls.append(len(requests))
        assert all(r.messages and r.messages[-1]["role"] == "user" for r in requests)  # prompted: chat messages
        return [self.spec.name for _ in requests]


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    bench, data = build_hub_folders(tmp_path_factory.mktemp("hub"))
    return {"bench": bench, "dataset": data}


def test_the_registry_holds_every_backend_and_parses_its_specs():
    assert list(BACKENDS) == ["openai", "hf", "retrieval", "ocr", "fused"]
    assert str(parse_model_spec("openai:m@http://127.0.0.1:9/v1")) == "openai:m@http://127.0.0.1:9/v1"
    assert str(parse_model_spec("hf:/models/x")) == "hf:/models/x"
    assert parse_model_spec(" retrieval ") == ModelSpec("retrieval", "jiezi-retrieval")
    with pytest.raises(ModelSpecError, match=r"expected openai:MODEL@BASE_URL, hf:PATH_OR_ID, retrieval, "
                                             r"ocr\[:MODEL\[/closed\]\] or fused\[:MODEL\]"):
        parse_model_spec("fixed:形声")
    with pytest.raises(ModelSpecError, match="no model path"):
        parse_model_spec("hf:")


def test_a_backend_added_with_one_registry_line_runs_in_jiezi_eval(hub, tmp_path, monkeypatch):
    monkeypatch.setitem(BACKENDS, FixedAnswerBackend.kind, FixedAnswerBackend)
    with pytest.raises(ModelSpecError, match=r"fused\[:MODEL\] or fixed:TEXT"):
        parse_model_spec("gpt-4o")
    assert str(parse_model_spec("fixed:形声")) == "fixed:形声"

    out = tmp_path / "run"
    opts = EvalOptions(model="fixed:形声", bench=str(hub["bench"]), output=out, limit=10, progress=False,
                       bertscore=False, cache_dir=tmp_path / "cache")
    res = evaluate(opts)
    assert res["model"] == {"spec": "fixed:形声", "backend": "fixed", "model": "形声"}
    assert res["run"]["questions_asked"] == 10 and res["run"]["errors"] == 0
    assert res["prompt_version"] is not None  # a prompted backend gets the harness prompt
    preds = [json.loads(line) for line in (out / "predictions.jsonl").read_text("utf-8").splitlines()]
    assert len(preds) == 10 and {p["output"] for p in preds} == {"形声"}
    assert json.loads((out / "run.json").read_text("utf-8"))["model"] == "fixed:形声"
    assert res["scores"]["counts"]  # scored like any other backend

    # A backend that does not use the prompt refuses prompt strategies, whatever its name.
    monkeypatch.setattr(FixedAnswerBackend, "prompted", False)
    with pytest.raises(RunError, match="--strategy and --paraphrases apply to openai: and hf: models"):
        evaluate(EvalOptions(model="fixed:x", bench=str(hub["bench"]), output=tmp_path / "r2", strategy="icl"))


def test_an_hf_model_path_that_is_no_folder_is_a_spec_error(tmp_path):
    # fresh-user trial of c4a44a5: `--model hf:/tmp/nomodel` gave a traceback in `jiezi eval`
    from harness.eval.backends.base import BackendOptions
    from harness.eval.backends.hf import HFBackend

    spec = parse_model_spec(f"hf:{tmp_path / 'nomodel'}")
    with pytest.raises(ModelSpecError, match="no such model folder"):
        HFBackend.create(spec, BackendOptions())
