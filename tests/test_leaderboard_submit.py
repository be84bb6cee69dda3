"""Leaderboard submissions: validation of every bad input, immutable content-addressed rows, the table."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.bench import fingerprint, load_bench
from harness.board.names import name_key
from harness.board.reported import paper_rows
from harness.board.row import SubmissionError
from harness.board import store as board_store
from harness.board.store import submitted_rows
from harness.board.submit import submit, submit_file
from harness.board.table import protocol_group, table
from harness.board.validate import MAX_BYTES
from harness.board.verify import verify
from harness.eval.options import EvalOptions
from harness.eval.run import evaluate
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
    return submit(data, name, meta, board, bench=str(hub["bench"]))


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
    assert len(submitted_rows(board)) == 1
    assert stored.read_bytes() == before  # nothing rewrote the row

    other = _submit(hub, board, _file(hub["ids"], output="河"), name="model-c")
    assert other.created and other.id != row.id
    assert len(submitted_rows(board)) == 2
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
    with pytest.raises(SubmissionError) as err:
        _submit(hub, board, data)
    assert message in str(err.value)
    if case == "non_utf8":
        assert "line 6" in str(err.value)
    assert not (board / "submissions").exists() or not list((board / "submissions").iterdir())


def test_a_200_mb_file_is_rejected_before_it_is_read(hub, board, tmp_path):
    big = tmp_path / "predictions.jsonl"
    with open(big, "wb") as fh:
        fh.truncate(200 * 1000 * 1000)  # sparse: no 200 MB written to disk
    with pytest.raises(SubmissionError, match=r"200\.0 MB; the limit is 50 MB"):
        submit_file(big, "model-a", None, board, bench=str(hub["bench"]))
    with pytest.raises(SubmissionError, match="the limit is 50 MB"):
        submit(b" " * (MAX_BYTES + 1), "model-a", None, board, bench=str(hub["bench"]))


@pytest.mark.parametrize("name", ["../x", "a/b", "", "x" * 81, "_x", "..", "name\nwith newline"])
def test_unsafe_model_names_are_rejected(hub, board, name):
    with pytest.raises(SubmissionError, match="model name"):
        _submit(hub, board, _file(hub["ids"]), name=name)


@pytest.mark.parametrize("name", ["Qwen3.5-9B + JieZi-Dataset", "qwen3.5-9b + jiezi-dataset",
                                  "Qwen3.5-9B  + JieZi-Dataset"])
def test_a_paper_row_name_is_reserved(hub, board, name):
    with pytest.raises(SubmissionError, match="reported in the paper"):
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
    row = next(r for r in submitted_rows(board) if r.model_name == "half")
    assert row.details["empty_or_failed"] == n_failed
    empty = CliRunner().invoke(app, ["leaderboard", "show", "--board", str(board.parent / "nowhere")])
    assert empty.exit_code == 0 and "no submissions under" in empty.output


def test_a_file_with_no_answer_at_all_is_refused(hub, board):
    data = _file(hub["ids"], output=None, extra={"error": "APIConnectionError: Connection error."})
    with pytest.raises(SubmissionError, match=r"all \d+ predictions are empty or failed"):
        _submit(hub, board, data)
    assert not (board / "submissions").exists() or not list((board / "submissions").iterdir())


def test_a_changed_bench_is_refused_not_mixed(hub, board, tmp_path):
    bench = tmp_path / "jiezi-bench"
    shutil.copytree(hub["bench"], bench)
    submit(_file(hub["ids"]), "model-a", None, board, bench=str(bench))
    # rebuild the bench with one row fewer, as `jiezi audit ingest` would
    import pyarrow.parquet as pq

    shard = next(p for p in sorted(bench.rglob("*.parquet")) if "all" in p.parts and "test" in p.name)
    table = pq.read_table(shard)
    pq.write_table(table.slice(0, table.num_rows - 1), shard)
    with pytest.raises(SubmissionError, match="has changed since this board was created"):
        submit(_file(hub["ids"], output="河"), "model-b", None, board)
    assert len(submitted_rows(board)) == 1


def test_bad_metadata_is_rejected(hub, board, tmp_path):
    with pytest.raises(SubmissionError, match="metadata field 'evil'"):
        _submit(hub, board, _file(hub["ids"]), meta={"evil": "x"})
    with pytest.raises(SubmissionError, match="must be text"):
        _submit(hub, board, _file(hub["ids"]), meta={"url": ["x"]})
    meta = tmp_path / "meta.json"
    meta.write_bytes(b"\xff\xfe{")
    preds = tmp_path / "p.jsonl"
    preds.write_bytes(_file(hub["ids"]))
    with pytest.raises(SubmissionError, match="metadata file"):
        submit_file(preds, "model-a", meta, board, bench=str(hub["bench"]))


def test_board_settings_are_fixed_at_creation(hub, board):
    _submit(hub, board, _file(hub["ids"]))
    with pytest.raises(SubmissionError, match="settings are fixed"):
        submit(_file(hub["ids"], output="河"), "m", None, board, bertscore_model="offline-minilm")
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
    rows = table(root / "leaderboard")
    assert len(rows) == 19 and sum(r.source == "reported in paper" for r in rows) == 18


def test_paper_rows_match_table_10():
    rows = {r.model_name: r for r in paper_rows()}
    assert len(rows) == 18
    best = rows["Qwen3.5-9B + JieZi-Dataset"].scores
    assert best["CHAR"] == 52.6 and best["EVOI_SCE"] == 40.6
    assert best["L3"] == 66.7  # ORIM alone
    assert best["L1"] == pytest.approx((52.6 + 80.1) / 2)
    assert best["macro"] == pytest.approx(sum([52.6, 80.1, 74.7, 48.1, 38.4, 45.7, 66.5, 66.7, 45.4, 32.5, 40.6]) / 11)


# ------------------------------------------------------------------------------ issue 15
def test_a_lone_surrogate_is_rejected_by_line_and_field(hub, board):
    good = _file(hub["ids"]).decode("utf-8").splitlines()
    # "\ud800 江" is a valid JSON escape that decodes to half a UTF-16 pair
    bad = good[:-1] + [good[-1].replace('"output": "江"', '"output": "\\ud800 江"')]
    data = ("\n".join(bad) + "\n").encode("utf-8")
    with pytest.raises(SubmissionError) as err:
        _submit(hub, board, data)
    assert f"line {len(good)}" in str(err.value) and "'output'" in str(err.value) and "lone surrogate" in str(err.value)
    assert not (board / "submissions").exists() or not list((board / "submissions").iterdir())
    # the Space shows it as a rejection, not as a scoring failure
    from types import SimpleNamespace

    from space.board import submit as space_submit

    config = SimpleNamespace(board=board, bench=str(hub["bench"]), max_upload_mb=50, bertscore_model=None, judge=None)
    message = space_submit(config, data, "model-a", None)
    assert message.startswith("✕ **Rejected**") and "lone surrogate" in message


def test_a_lone_surrogate_in_metadata_is_rejected(hub, board):
    with pytest.raises(SubmissionError, match="lone surrogate"):
        _submit(hub, board, _file(hub["ids"]), meta={"notes": json.loads('"x\\udc00"')})


@pytest.mark.parametrize("name", ["Ｑwen3.5-9B", "Qw\u0435n3.5-9B", "QWEN3.5-9B", "Kimi-K2.5"])
def test_look_alike_paper_names_are_reserved(hub, board, name):
    # full-width Q and Cyrillic е: NFKC and the TR39 confusable skeleton make them the paper's name
    with pytest.raises(SubmissionError, match="reported in the paper"):
        _submit(hub, board, _file(hub["ids"]), name=name)


def test_name_key_keeps_different_names_apart():
    assert name_key("Ｑwen3.5-9B") == name_key("Qw\u0435n3.5-9B") == name_key("qwen3.5-9b")
    assert name_key("Qwen3.5-9B") != name_key("Qwen3.5-4B")
    assert name_key("my-lab Qwen3.5-9B") != name_key("Qwen3.5-9B")


def test_a_100000_character_answer_is_scored(hub, board):
    # the echoed-question pattern used to be quadratic (minutes for this file); timing is in
    # benchmarks/bench_extract.py, here only that it is accepted and scored
    long_answer = ("该字从水工声，本义为长江" * 10_000)[:100_000]
    row = _submit(hub, board, _file(hub["ids"], output=long_answer), name="long-answers")
    assert row.created and row.scores["CHAR"] is not None


def _retrieval_run(hub, tmp_path):
    root = tmp_path / "out"
    shutil.copytree(hub["bench"], root / "jiezi-bench")
    shutil.copytree(hub["root"] / "jiezi-dataset", root / "jiezi-dataset")
    run = root / "eval" / "retrieval"
    evaluate(EvalOptions(model="retrieval", bench=str(root / "jiezi-bench"), output=run,
                         progress=False, bertscore=False, cache_dir=tmp_path / "cache"))
    return root, run


def test_board_rows_record_the_run_and_verify_reproduces_them(hub, tmp_path):
    root, run = _retrieval_run(hub, tmp_path)
    results = json.loads((run / "results.json").read_text("utf-8"))
    assert results["bench"]["revision"] is None  # a local folder: its content fingerprint pins it
    assert len(results["bench"]["content_fingerprint"]) == 64
    runner = CliRunner()
    res = runner.invoke(app, ["leaderboard", "submit", str(run / "predictions.jsonl"),
                              "--model-name", "jiezi-retrieval-baseline", "--board", str(root / "leaderboard")])
    assert res.exit_code == 0, res.output
    (row,) = submitted_rows(root / "leaderboard")
    record = row.details["run"]
    assert record["recorded"] and record["model_spec"] == results["model"]["spec"]
    assert record["decoding"]["backend"] == "retrieval" and record["strategy"]["name"] == "zero-shot"
    assert record["prompt_version"] is None and record["protocol"] == "per-question"  # no prompt; issue 13 names
    assert record["bench_fingerprint"] == row.details["bench"]["fingerprint"] and record["bench_revision"] is None
    assert record["bench_content_fingerprint"] == row.details["bench"]["content_fingerprint"]
    assert record["image_size"] == row.details["bench"]["image_sizes"] and record["image_size"]

    ok = runner.invoke(app, ["leaderboard", "verify", row.id[:10], "--board", str(root / "leaderboard")])
    assert ok.exit_code == 0, ok.output
    assert "verified" in ok.output and "all 16 stored scores reproduced" in ok.output
    assert verify(root / "leaderboard", "jiezi-retrieval-baseline")["ok"]

    # a stored score edited by hand is caught
    path = root / "leaderboard" / "submissions" / f"{row.id}.json"
    data = json.loads(path.read_text("utf-8"))
    data["scores"]["CHAR"] = (data["scores"]["CHAR"] or 0) + 1.0
    path.write_text(json.dumps(data), "utf-8")
    bad = runner.invoke(app, ["leaderboard", "verify", row.id, "--board", str(root / "leaderboard")])
    assert bad.exit_code == 1 and "CHAR stored" in bad.output
    missing = runner.invoke(app, ["leaderboard", "verify", "no-such-model", "--board", str(root / "leaderboard")])
    assert missing.exit_code == 2 and "no row" in missing.output


def test_a_new_board_takes_the_runs_bertscore_model(hub, tmp_path):
    # a run scored offline (offline-minilm here) must not open a board on bert-base-chinese,
    # which an offline machine cannot load: every row would silently lack ORIM/COMI
    root, run = _retrieval_run(hub, tmp_path)
    results = json.loads((run / "results.json").read_text("utf-8"))
    results["scorer"]["bertscore_model"] = {"requested": "offline-minilm", "comparable_to_paper": False}
    submit((run / "predictions.jsonl").read_bytes(), "offline-run", None, root / "board",
              results=results, bertscore=False)
    cfg = json.loads((root / "board" / "board.json").read_text("utf-8"))
    assert cfg["scorer"]["bertscore_model"] == "offline-minilm"
    assert cfg["scorer"]["bertscore"]["comparable_to_paper"] is False


def test_a_run_record_from_another_bench_is_refused(hub, board, tmp_path):
    results = {"format": "jiezi-eval-results/1", "bench": {"fingerprint": "0" * 64}, "model": {"spec": "x"}}
    with pytest.raises(SubmissionError, match="the run was made on bench .* this board scores bench"):
        submit(_file(hub["ids"]), "model-a", None, board, bench=str(hub["bench"]), results=results)
    with pytest.raises(SubmissionError, match="not a results.json"):
        submit(_file(hub["ids"]), "model-a", None, board, bench=str(hub["bench"]), results={"scores": {}})
    row = _submit(hub, board, _file(hub["ids"]))
    assert row.details["run"]["recorded"] is False and row.details["run"]["image_size"]


def test_a_submission_reads_the_bench_once_and_names_the_bertscore_model(hub, tmp_path, monkeypatch):
    board = tmp_path / "board"
    submit(_file(hub["ids"]), "warm-up", None, board, bench=str(hub["bench"]), bertscore_model="offline-minilm")
    loads, prints = [], []
    real_load, real_fp = load_bench, fingerprint
    monkeypatch.setattr(board_store, "load_bench", lambda *a, **k: loads.append(a) or real_load(*a, **k))
    monkeypatch.setattr(board_store, "fingerprint", lambda ds: prints.append(len(ds)) or real_fp(ds))
    row = submit(_file(hub["ids"], output="本义是长江的专名"), "model-x", None, board, bench=str(hub["bench"]))
    assert len(loads) == 1 and len(prints) == 1  # open_board's read is the one scored against
    scored_by = row.details["bertscore"]["scored_by"]
    assert scored_by["model"] == "offline-minilm" and Path(scored_by["loaded_from"], "config.json").is_file()
    assert scored_by["hidden_states_used"] == 7 and row.scores["ORIM"] is not None

    exact = submit(_file(hub["ids"], output="河"), "model-y", None, board, bench=str(hub["bench"]), bertscore=False)
    assert exact.scores["ORIM"] is None and exact.details["bertscore"]["scored_by"] is None
    assert exact.scores["CHAR"] is not None


# ------------------------------------------------------------------------------ issue 13
def _paper_file(bench, output=None):
    """One line per bench image (the `jiezi eval --protocol paper` shape); ``output`` None:
    the image's own reference JSON (every field right)."""
    from harness.eval.protocol_paper import load_paper_images

    ds, _ = load_paper_images(bench)
    lines = [json.dumps({"id": i, "output": ref if output is None else output}, ensure_ascii=False)
             for i, ref in zip(ds["image_id"], ds["reference"])]
    return ("\n".join(lines) + "\n").encode("utf-8"), ds


def test_paper_and_per_question_rows_share_a_board_but_never_a_ranking(hub, board):
    per_question = _submit(hub, board, _file(hub["ids"]), name="per-question-a")
    assert (per_question.protocol, per_question.scoring) == ("per-question", "jiezi")
    data, ds = _paper_file(hub["bench"])
    perfect = _submit(hub, board, data, name="paper-perfect")
    assert (perfect.protocol, perfect.scoring) == ("paper", "reference") and perfect.id != per_question.id
    # worked by hand: every field of every reply equals the reference
    assert all(perfect.scores[m] == 100.0 for m in ("CHAR", "SCRC", "STRC", "FORC", "COMR", "COMF", "COME"))
    assert perfect.details["counts"] == {"samples": len(ds), "failures": 0, "successes": len(ds), "skipped": 0}
    assert perfect.details["n_predictions"] == len(ds) < len(hub["ids"])
    # half the replies without a JSON object: strict = success mean x successes / samples
    half = [json.loads(x) for x in data.decode("utf-8").splitlines()]
    for rec in half[: len(half) // 2]:
        rec["output"] = "无法判断"
    mixed = _submit(hub, board, ("\n".join(json.dumps(r, ensure_ascii=False) for r in half) + "\n").encode(),
                    name="paper-half")
    kept = len(half) - len(half) // 2
    assert mixed.details["lenient"]["CHAR"] == 100.0
    assert mixed.scores["CHAR"] == pytest.approx(100.0 * kept / len(half))
    groups = [protocol_group(r) for r in table(board)]
    assert groups[:20] == [("paper", "reference")] * 20 and groups[20:] == [("per-question", "jiezi")]
    names = [r.model_name for r in table(board)]
    # 7 of 11 metrics here (no BERTScore model, no judge): after the paper's full rows, never among per-question ones
    assert names.index("paper-perfect") < names.index("paper-half") < 20 == names.index("per-question-a")
    assert verify(board, "paper-half")["ok"] and verify(board, "per-question-a")["ok"]


def test_a_paper_run_record_of_another_bench_is_refused(hub, board):
    data, _ = _paper_file(hub["bench"])
    results = {"format": "jiezi-eval-results/1", "protocol": "paper", "scoring": "reference",
               "bench": {"fingerprint": "0" * 64}, "model": {"spec": "x"}}
    with pytest.raises(SubmissionError, match="the run was made on bench .* this board scores bench"):
        submit(data, "model-a", None, board, bench=str(hub["bench"]), results=results)
    assert not (board / "submissions").exists() or not list((board / "submissions").iterdir())
