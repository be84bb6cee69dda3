"""hub.runfiles: predictions.jsonl rows and results.json as pydantic models, their JSON
Schemas in schemas/ (what a leaderboard submission must be), and clear errors on read."""

from __future__ import annotations

import json

import pytest

from harness.eval.predlog import PredictionLog
from hub.runfiles import (
    PREDICTION_FIELDS,
    SCHEMA_DIR,
    RunFileError,
    check_prediction,
    json_schemas,
    prediction_problem,
    read_results,
    write_results,
)

RESULTS = {"format": "jiezi-eval-results/1", "model": {"spec": "retrieval", "backend": "retrieval"},
           "bench": {"source": "out/jiezi-bench", "config": "all", "split": "test", "fingerprint": "f" * 64, "rows": 3},
           "scores": {"CHAR": 50.0, "SCRC": None, "macro": 25.0, "counts": {"CHAR": {"items": 3}}}}


def test_the_schemas_in_the_repository_are_the_models():
    # regenerate with: python -m hub.runfiles schemas
    for name, schema in json_schemas().items():
        assert json.loads((SCHEMA_DIR / name).read_text("utf-8")) == schema, f"schemas/{name} is stale"
    assert list(json_schemas()["predictions.schema.json"]["properties"]) == list(PREDICTION_FIELDS)


def test_prediction_rows_name_the_field_at_fault():
    assert prediction_problem({"id": "a", "output": None}) is None
    assert prediction_problem({"id": "a", "output": 3}) == "field 'output' must be a string or null"
    assert prediction_problem({"id": "a", "output": "x", "latency_s": True}) == "field 'latency_s' must be a number or null"
    assert prediction_problem({"id": "", "output": "x"}) == "field 'id' must be a non-empty string"
    assert prediction_problem({"id": "a"}) == "missing field(s) ['output']"
    assert prediction_problem({"id": "a", "output": "x", "score": 1}).startswith("unknown field(s) ['score']")
    with pytest.raises(RunFileError, match=r"p.jsonl: line 4: field 'parsed' must be an object or null"):
        check_prediction({"id": "a", "output": "x", "parsed": []}, "p.jsonl: line 4")


def test_the_predictions_log_writes_and_reads_only_rows(tmp_path):
    path = tmp_path / "predictions.jsonl"
    path.write_text('{"id": "old", "output": "江", "latency_s": 1}\n{"id": "bad", "output": 7}\n', "utf-8")
    with PredictionLog(path) as log:
        assert set(log.records) == {"old"} and log.bad_lines == 1  # a bad line is asked again
        log.append({"id": "new", "output": None, "error": "TimeoutError", "extra": "dropped"})
        with pytest.raises(RunFileError, match="new line: field 'output'"):
            log.append({"id": "x", "output": ["not text"]})
    assert json.loads(path.read_text("utf-8").splitlines()[-1]) == {
        "id": "new", "output": None, "parsed": None, "latency_s": None, "error": "TimeoutError"}


def test_results_are_checked_on_write_and_read(tmp_path):
    path = write_results(tmp_path / "results.json", RESULTS)
    assert read_results(path) == RESULTS  # the dict as written: nothing added or reordered
    old = {**RESULTS, "bench": {"fingerprint": "f" * 64}}  # an earlier version: no protocol, rows ...
    (tmp_path / "old.json").write_text(json.dumps(old), "utf-8")
    assert read_results(tmp_path / "old.json")["bench"] == {"fingerprint": "f" * 64}
    with pytest.raises(RunFileError, match=r"results.json: field 'scores': .*CHAR: expected a number"):
        write_results(tmp_path / "results.json", {**RESULTS, "scores": {"CHAR": "high"}})
    assert read_results(path) == RESULTS  # nothing was written
    (tmp_path / "bad.json").write_text(json.dumps({**RESULTS, "model": {}}), "utf-8")
    with pytest.raises(RunFileError, match=r"bad.json: field 'model.spec': Field required"):
        read_results(tmp_path / "bad.json")
    (tmp_path / "cut.json").write_text('{"format": ', "utf-8")
    with pytest.raises(RunFileError, match="cut.json: not a readable UTF-8 JSON file"):
        read_results(tmp_path / "cut.json")
