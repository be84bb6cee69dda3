"""Leaderboard submissions: validation of every bad input, immutable content-addressed rows, the table."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from harness import leaderboard as lb
from harness.bench import load_bench
from harness.run import EvalOptions, evaluate
from harness_fixtures import build_hub_folders
from jiezi_cli import app


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    root = tmp_path_factory.mktemp("lb")
    bench, data = build_hub_folders(root)
    ids = load_bench(bench, "all", "test")["id"]
    return {"root": root, "bench": bench, "ids": ids}


@pytest.fixture
def board(hub, tmp_path):
    return tmp_path / "board"


def _file(ids, output="江", extra=None):
    lines = []
    for i in ids:
        rec = {"id": i, "output": output, "parsed": None, "latency_s": 0.1, "error": None}
        rec.update(extra or {})
        lines.append(json.dumps(rec, ensure_ascii=False))
    return ("\n".join(lines) + "\n").encode("utf-8")


def _submit(hub, board, data, name="model-a", meta=None):
    return lb.submit(data, name, meta, board, bench=str(hub["bench"]))


def test_a_valid_file_adds_one_row_and_the_same_content_twice_adds_none(hub, board):
    row = _submit(hub, board, _file(hub["ids"]), meta={"organization": "lab", "params": 2e9})
    assert row.created and row.source == "submitted" and row.model_name == "model-a"
    assert row.scores["CHAR"] is not None and row.scores["EVOI_FAC"] is None
    assert row.scores["ORIM"] is None and "bert-base-chinese" in row.details["not_computed"]["ORIM"]
    stored = board / "submissions" / f"{row.id}.json"
    before = stored.read_bytes()
    assert (board / "predictions" / f"{row.id}.jsonl").exists()

    again = _submit(hub, board, _file(hub["ids"]), name="model-b")
    assert not again.created and again.id == row.id and again.model_name == "model-a"
    reordered = _file(list(reversed(hub["ids"])), extra={"latency_s": 9.0})
    assert _submit(hub, board, reordered).id == row.id  # same answers, other order and timings
    assert len(lb.submitted_rows(board)) == 1
    assert stored.read_bytes() == before  # nothing rewrote the row

    other = _submit(hub, board, _file(hub["ids"], output="河"), name="model-c")
    assert other.created and other.id != row.id
    assert len(lb.submitted_rows(board)) == 2
    assert stored.read_bytes() == before


@pytest.mark.parametrize("case, message", [
    ("missing", "3 missing bench id(s)"),
    ("duplicate", "1 duplicate id(s)"),
    ("unknown_id", "not in the bench"),
    ("non_utf8", "not UTF-8"),
    ("unknown_field", "unknown field(s) ['score']"),
    ("nan", "not plain JSON"),
    ("duplicate_key", "appears twice"),
    ("not_object", "expected a JSON object"),
    ("bad_output", "'output' must be a string or null"),
    ("missing_output", "missing field(s) ['output']"),
    ("empty", "holds no predictions"),
])
def test_bad_files_are_rejected_with_the_problem_named(hub, board, case, message):
    ids = hub["ids"]
    good = _file(ids).decode("utf-8").splitlines()
    if case == "missing":
        data = _file(ids[3:])
    elif case == "duplicate":
        data = ("\n".join(good + [good[0]]) + "\n").encode()
    elif case == "unknown_id":
        data = ("\n".join(good + [json.dumps({"id": "nope::CHAR", "output": "x"})]) + "\n").encode()
    elif case == "non_utf8":
        data = "\n".join(good[:5]).encode("utf-8") + b"\n{\"id\": \"\xff\xfe\", \"output\": null}\n"
    elif case == "unknown_field":
        data = _file(ids, extra={"score": 1})
    elif case == "nan":
        data = ("\n".join(good[:-1] + [good[-1].replace('"latency_s": 0.1', '"latency_s": NaN')]) + "\n").encode()
    elif case == "duplicate_key":
        data = ("\n".join(good[:-1] + [good[-1][:-1] + ', "id": "x"}']) + "\n").encode()
    elif case == "not_object":
        data = ("\n".join(good + ["[1, 2]"]) + "\n").encode()
    elif case == "bad_output":
        data = _file(ids, extra={"output": 42})
    elif case == "missing_output":
        data = ("\n".join(good + [json.dumps({"id": ids[0]})]) + "\n").encode()
    else:
        data = b"\n\n"
    with pytest.raises(lb.SubmissionError) as err:
        _submit(hub, board, data)
    assert message in str(err.value)
    if case == "non_utf8":
        assert "line 6" in str(err.value)
    assert not (board / "submissions").exists() or not list((board / "submissions").iterdir())


def test_a_200_mb_file_is_rejected_before_it_is_read(hub, board, tmp_path):
    big = tmp_path / "predictions.jsonl"
    with open(big, "wb") as fh:
        fh.truncate(200 * 1000 * 1000)  # sparse: no 200 MB written to disk
    with pytest.raises(lb.SubmissionError, match=r"200\.0 MB; the limit is 50 MB"):
        lb.submit_file(big, "model-a", None, board, bench=str(hub["bench"]))
    with pytest.raises(lb.SubmissionError, match="the limit is 50 MB"):
        lb.submit(b" " * (lb.MAX_BYTES + 1), "model-a", None, board, bench=str(hub["bench"]))


@pytest.mark.parametrize("name", ["../x", "a/b", "", "x" * 81, "_x", "..", "name\nwith newline"])
def test_unsafe_model_names_are_rejected(hub, board, name):
    with pytest.raises(lb.SubmissionError, match="model name"):
        _submit(hub, board, _file(hub["ids"]), name=name)


@pytest.mark.parametrize("name", ["Qwen3.5-9B + JieZi-Dataset", "qwen3.5-9b + jiezi-dataset",
                                  "Qwen3.5-9B  + JieZi-Dataset"])
def test_a_paper_row_name_is_reserved(hub, board, name):
    with pytest.raises(lb.SubmissionError, match="reported in the paper"):
        _submit(hub, board, _file(hub["ids"]), name=name)


def test_unanswered_predictions_are_counted_and_shown(hub, board):
    ids = list(hub["ids"])
    lines = []
    for n, i in enumerate(ids):
        failed = n % 2 == 0
        lines.append(json.dumps({"id": i, "output": None if failed else "江", "parsed": None, "latency_s": 0.1,
                                 "error": "APIConnectionError: Connection error." if failed else None}))
    data = ("\n".join(lines) + "\n").encode()
    path = board.parent / "half.jsonl"
    path.write_bytes(data)
    res = CliRunner().invoke(app, ["leaderboard", "submit", str(path), "--model-name", "half", "--board", str(board),
                                   "--bench", str(hub["bench"])])
    assert res.exit_code == 0, res.output
    n_failed = (len(ids) + 1) // 2
    assert f"{n_failed} of {len(ids)} predictions have no output" in res.output
    shown = CliRunner().invoke(app, ["leaderboard", "show", "--board", str(board)])
    assert "unanswered" in shown.output and "ranked by how many" in shown.output  # (the note column wraps)
    row = next(r for r in lb.submitted_rows(board) if r.model_name == "half")
    assert row.details["empty_or_failed"] == n_failed
    empty = CliRunner().invoke(app, ["leaderboard", "show", "--board", str(board.parent / "nowhere")])
    assert empty.exit_code == 0 and "no submissions under" in empty.output


def test_a_file_with_no_answer_at_all_is_refused(hub, board):
    data = _file(hub["ids"], output=None, extra={"error": "APIConnectionError: Connection error."})
    with pytest.raises(lb.SubmissionError, match=r"all \d+ predictions are empty or failed"):
        _submit(hub, board, data)
    assert not (board / "submissions").exists() or not list((board / "submissions").iterdir())


def test_a_changed_bench_is_refused_not_mixed(hub, board, tmp_path):
    bench = tmp_path / "jiezi-bench"
    shutil.copytree(hub["bench"], bench)
    lb.submit(_file(hub["ids"]), "model-a", None, board, bench=str(bench))
    # rebuild the bench with one row fewer, as `jiezi audit ingest` would
    import pyarrow.parquet as pq

    shard = next(p for p in sorted(bench.rglob("*.parquet")) if "all" in p.parts and "test" in p.name)
    table = pq.read_table(shard)
    pq.write_table(table.slice(0, table.num_rows - 1), shard)
    with pytest.raises(lb.SubmissionError, match="has changed since this board was created"):
        lb.submit(_file(hub["ids"], output="河"), "model-b", None, board)
    assert len(lb.submitted_rows(board)) == 1


def test_bad_metadata_is_rejected(hub, board, tmp_path):
    with pytest.raises(lb.SubmissionError, match="metadata field 'evil'"):
        _submit(hub, board, _file(hub["ids"]), meta={"evil": "x"})
    with pytest.raises(lb.SubmissionError, match="must be text"):
        _submit(hub, board, _file(hub["ids"]), meta={"url": ["x"]})
    meta = tmp_path / "meta.json"
    meta.write_bytes(b"\xff\xfe{")
    preds = tmp_path / "p.jsonl"
    preds.write_bytes(_file(hub["ids"]))
    with pytest.raises(lb.SubmissionError, match="metadata file"):
        lb.submit_file(preds, "model-a", meta, board, bench=str(hub["bench"]))


def test_board_settings_are_fixed_at_creation(hub, board):
    _submit(hub, board, _file(hub["ids"]))
    with pytest.raises(lb.SubmissionError, match="settings are fixed"):
        lb.submit(_file(hub["ids"], output="河"), "m", None, board, bertscore_model="offline-minilm")
    cfg = json.loads((board / "board.json").read_text("utf-8"))
    assert cfg["bench"]["rows"] == len(hub["ids"]) and cfg["scorer"]["bertscore_model"] == "bert-base-chinese"


def test_eval_output_submits_and_shows_beside_the_paper(hub, tmp_path):
    # the main job's path: eval -> submit (board beside the bench, default bench) -> show
    root = tmp_path / "out"
    shutil.copytree(hub["bench"], root / "jiezi-bench")
    shutil.copytree(hub["root"] / "jiezi-dataset", root / "jiezi-dataset")
    evaluate(EvalOptions(model="retrieval", bench=str(root / "jiezi-bench"), output=root / "eval" / "retrieval",
                         progress=False, bertscore=False, cache_dir=tmp_path / "cache"))
    runner = CliRunner()
    res = runner.invoke(app, ["leaderboard", "submit", str(root / "eval" / "retrieval" / "predictions.jsonl"),
                              "--model-name", "jiezi-retrieval-baseline", "--board", str(root / "leaderboard")])
    assert res.exit_code == 0, res.output
    assert "added row" in res.output
    res = runner.invoke(app, ["leaderboard", "submit", str(root / "eval" / "retrieval" / "predictions.jsonl"),
                              "--model-name", "again", "--board", str(root / "leaderboard")])
    assert res.exit_code == 0 and "nothing added" in res.output
    bad = runner.invoke(app, ["leaderboard", "submit", str(root / "eval" / "retrieval" / "predictions.jsonl"),
                              "--model-name", "../x", "--board", str(root / "leaderboard")])
    assert bad.exit_code == 2 and "model name" in bad.output
    shown = runner.invoke(app, ["leaderboard", "show", "--board", str(root / "leaderboard")])
    assert shown.exit_code == 0, shown.output
    assert "jiezi-retrieval-baseline" in shown.output and "reported in paper" in shown.output
    assert "Qwen3.5-9B + JieZi-Dataset" in shown.output and "macro" in shown.output
    rows = lb.table(root / "leaderboard")
    assert len(rows) == 19 and sum(r.source == "reported in paper" for r in rows) == 18


def test_paper_rows_match_table_10():
    rows = {r.model_name: r for r in lb.paper_rows()}
    assert len(rows) == 18
    best = rows["Qwen3.5-9B + JieZi-Dataset"].scores
    assert best["CHAR"] == 52.6 and best["EVOI_SCE"] == 40.6
    assert best["L3"] == 66.7  # ORIM alone
    assert best["L1"] == pytest.approx((52.6 + 80.1) / 2)
    assert best["macro"] == pytest.approx(sum([52.6, 80.1, 74.7, 48.1, 38.4, 45.7, 66.5, 66.7, 45.4, 32.5, 40.6]) / 11)
