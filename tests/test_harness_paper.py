"""`jiezi eval --protocol paper` (issue 13): one eight-field JSON request per bench image,
against a real OpenAI-compatible server on 127.0.0.1 and with the retrieval baseline; the
official layouts built from this project's fixtures in temporary folders (the official
files are never shipped); the leaderboard's protocol/scoring separation."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import datasets
import pytest
from harness_fixtures import build_hub_folders
from openai_server import Call, OpenAIServer
from typer.testing import CliRunner

from harness.bench import load_bench
from harness.board.paper import paper_images
from harness.board.row import Row, SubmissionError
from harness.board.store import open_board, submitted_rows
from harness.board.submit import submit
from harness.board.table import PROTOCOL_ORDER, protocol_group, table
from harness.board.verify import verify
from harness.eval.backends.base import image_data_url
from harness.eval.protocol_paper import evaluate_paper, load_paper_images
from harness.eval.options import EvalOptions
from harness.interop.official import (
    import_official_bench,
    import_official_dataset,
    read_official_bench,
)
from harness.prompts import PAPER_PROMPT
from jiezi_cli import app
from metrics.acce import labels
from metrics.acce.paper_reply import REFERENCE_FIELDS


class PaperServer(OpenAIServer):
    """The fake OpenAI server (``tests/openai_server.py``): the reply for an image is
    ``replies[sha256 of its PNG data URL]`` (default ``"{}"``); every request is kept
    (messages, image hashes)."""

    def __init__(self, replies: dict[str, str] | None = None):
        self.replies = replies or {}
        self.requests: list[dict] = []
        super().__init__()

    def respond(self, call: Call) -> str:
        hashes = call.image_hashes
        with self.lock:
            self.requests.append({"messages": call.messages, "images": hashes})
        return self.replies.get(hashes[0] if hashes else "", "{}")


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    bench, data = build_hub_folders(tmp_path_factory.mktemp("hub"))
    return {"bench": bench, "dataset": data}


def _opts(hub, out: Path, model: str, **kw) -> EvalOptions:
    base = {"model": model, "bench": str(hub["bench"]), "output": out, "gallery": str(hub["dataset"]),
            "progress": False, "bertscore": False, "concurrency": 4, "max_retries": 0, "timeout": 20,
            "cache_dir": out.parent / "cache"}
    base.update(kw)
    return EvalOptions(**base)


def _png_hash(image) -> str:
    """The hash the server sees for ``image`` (the backend sends it as PNG)."""
    return hashlib.sha256(base64.b64decode(image_data_url(image).split(",", 1)[1])).hexdigest()


def test_images_are_one_row_each_with_an_eight_field_reference(hub):
    rows = load_bench(hub["bench"], "all", "test")
    ds, info = load_paper_images(hub["bench"])
    assert len(ds) == len(set(rows["image_id"])) and info["layout"].startswith("hub")
    ref = json.loads(ds[0]["reference"])
    assert tuple(ref) == REFERENCE_FIELDS and ref["现代字典字头"] == ds[0]["character"]
    assert all(isinstance(ref["构件"][n]["功能"], list) for n in ref["构件"])


@pytest.mark.server
def test_openai_paper_run_one_request_per_image_and_both_scorings(hub, tmp_path, monkeypatch):
    monkeypatch.setenv("JIEZI_API_KEY", "sk-test")
    ds, _ = load_paper_images(hub["bench"])
    replies = {_png_hash(r["image"]): r["reference"] for r in ds}  # a perfect answerer ...
    wrong = _png_hash(ds[0]["image"])
    replies[wrong] = "我不知道这个字。"  # ... except one refusal without JSON
    server = PaperServer(replies)
    try:
        res = evaluate_paper(_opts(hub, tmp_path / "run", f"openai:tiny-vl@{server.url}"))
        assert len(server.requests) == len(ds)  # one request per image, not per question
        user = server.requests[0]["messages"][-1]["content"]
        assert any(p.get("text") == PAPER_PROMPT for p in user)
        assert server.requests[0]["messages"][0]["role"] == "system"
        n = len(ds)
        assert res["protocol"] == "paper" and res["scoring"] == "reference"
        assert res["scores"]["counts"] == {"samples": n, "failures": 1, "successes": n - 1, "skipped": 0}
        # the references answer themselves: 100 over successes, x (n-1)/n with the failure
        assert res["scores"]["CHAR"]["success_mean"] == 100.0
        assert res["scores"]["CHAR"]["with_failures"] == pytest.approx(100.0 * (n - 1) / n)
        assert res["scores_jiezi"]["CHAR"]["success_mean"] == 100.0
        preds = [json.loads(x) for x in (tmp_path / "run" / "predictions.jsonl").read_text("utf-8").splitlines()]
        assert [p["id"] for p in preds] == ds["image_id"]
        # a rerun asks nothing again
        again = evaluate_paper(_opts(hub, tmp_path / "run", f"openai:tiny-vl@{server.url}"))
        assert len(server.requests) == n and again["run"]["requests"] == 0
    finally:
        server.close()


@pytest.mark.server
def test_prompt_file_replaces_our_prompt_and_system_turn(hub, tmp_path, monkeypatch):
    monkeypatch.setenv("JIEZI_API_KEY", "sk-test")
    prompt = tmp_path / "theirs.txt"
    prompt.write_text("Return the eight-field JSON.\n", "utf-8")
    server = PaperServer()
    try:
        res = evaluate_paper(_opts(hub, tmp_path / "run", f"openai:tiny-vl@{server.url}", limit=2), prompt_file=prompt)
    finally:
        server.close()
    msgs = server.requests[0]["messages"]
    assert [m["role"] for m in msgs] == ["user"]
    assert any(p.get("text") == "Return the eight-field JSON." for p in msgs[0]["content"])
    assert res["prompt"]["file"] == str(prompt) and "sha256" in res["prompt"]
    # "{}" parses: no failure, but nothing right
    assert res["scores"]["counts"]["failures"] == 0 and res["scores"]["CHAR"]["success_mean"] == 0.0


def test_retrieval_paper_run_composes_the_json(hub, tmp_path):
    res = evaluate_paper(_opts(hub, tmp_path / "run", "retrieval"))
    preds = [json.loads(x) for x in (tmp_path / "run" / "predictions.jsonl").read_text("utf-8").splitlines()]
    assert len(preds) == res["bench"]["images"]
    reply = json.loads(preds[0]["output"])
    assert tuple(reply) == REFERENCE_FIELDS
    assert res["scores"]["counts"]["failures"] == 0
    assert res["scores"]["SCRC"]["success_mean"] is not None and res["scores_jiezi"]["COMR"]["n"] > 0


def _official_fixture(hub, root: Path) -> Path:
    """The authors' runner layout written from this project's fixture bench."""
    ds, _ = load_paper_images(hub["bench"])
    for row in ds:
        slug = f"{row['character']}_{row['image_id'][-6:]}"
        folder = root / slug / "images"
        folder.mkdir(parents=True)
        row["image"].save(folder / f"{row['script']}_1.png")
        truth = json.loads(row["reference"])
        truth["现代字典字头"] = ""  # the runner takes the headword from entry.json
        (folder / f"{row['script']}_1.json").write_text(json.dumps(truth, ensure_ascii=False), "utf-8")
        entry = {"character": row["character"], "group": "g", "difficulty": "easy",
                 "image_records": [{"local_path": f"images/{row['script']}_1.png", "category": row["script"]}]}
        (root / slug / "entry.json").write_text(json.dumps(entry, ensure_ascii=False), "utf-8")
    bad = root / "zz_broken"
    bad.mkdir()
    (bad / "entry.json").write_text('{"character": "X", "image_records": [{"local_path": "a.png"}]}', "utf-8")
    return root


def test_official_bench_layout_runs_and_imports(hub, tmp_path):
    root = _official_fixture(hub, tmp_path / "official")
    rows, problems = read_official_bench(root)
    assert len(problems) == 1 and "a.json" in problems[0]["file"]
    assert all(r["reference"]["现代字典字头"] == r["character"] for r in rows)
    res = evaluate_paper(_opts(hub, tmp_path / "run", "retrieval", bench=str(root)))
    assert res["bench"]["layout"] == "official" and res["bench"]["images"] == len(rows)
    assert res["bench"]["problems"] and res["warnings"]

    report = import_official_bench(root, tmp_path / "imported")
    assert report["images"] == len(rows) and len(report["problems"]) == 1
    images, info = load_paper_images(tmp_path / "imported")
    assert info["layout"] == "hub:images" and len(images) == len(rows)
    questions = load_bench(tmp_path / "imported", "all", "test")
    assert set(questions["kind"]) >= {"CHAR", "SCRC", "STRC", "FORC", "COMP_FULL", "ORIM", "EVOI"}
    with pytest.raises(FileExistsError):
        import_official_bench(root, tmp_path / "imported")


def test_official_dataset_rows_become_trl_rows(hub, tmp_path):
    ds, _ = load_paper_images(hub["bench"])
    (tmp_path / "src" / "images").mkdir(parents=True)
    examples = []
    for k, row in enumerate(list(ds)[:3]):
        path = f"images/img_{k:05d}.png"
        row["image"].save(tmp_path / "src" / path)
        ref = json.loads(row["reference"])
        for task, q, a in (("script", "请判断该字的字形类别。", ref["字形"]), ("meaning", "该字的本义是什么？", ref["本义"])):
            examples.append({"id": f"{row['character']}_{k}::vqa::{task}", "image": path,
                             "character": row["character"], "script": row["script"], "task": task,
                             "question": q, "answer": a})
    examples.append({"id": "x", "image": "images/missing.png", "character": "x", "script": "楷书", "task": "script",
                     "question": "q", "answer": "a"})
    vqa = tmp_path / "src" / "vqa_data.json"
    vqa.write_text(json.dumps({"levels": [{"id": "l1", "tasks": ["script", "meaning"], "examples": examples}]},
                              ensure_ascii=False), "utf-8")
    report = import_official_dataset(vqa, tmp_path / "dataset")
    assert report["rows"] == 3 and report["turns"] == 6 and len(report["problems"]) == 1
    out = datasets.load_dataset("parquet", data_files=str(tmp_path / "dataset" / "all" / "train-*.parquet"),
                                split="train")
    row = out[0]
    assert [m["role"] for m in row["messages"]] == ["user", "assistant", "user", "assistant"]
    assert row["messages"][0]["content"][0]["type"] == "image" and len(row["images"]) == 1
    assert row["subtasks"] == ["SCRC", "ORIM"]


def test_leaderboard_never_ranks_protocols_together(tmp_path):
    board = tmp_path / "board"
    (board / "submissions").mkdir(parents=True)
    strong = Row(id="s1", model_name="strong per-question", source="submitted",
                    scores={**{m: 99.0 for m in labels.METRICS}, "macro": 99.0})
    data = strong.to_dict()
    data.pop("created")
    data.pop("protocol")
    data.pop("scoring")  # a row stored before issue 13: read as per-question + jiezi
    (board / "submissions" / "s1.json").write_text(json.dumps(data), "utf-8")
    rows = table(board)
    paper = [r for r in rows if r.source == "reported in paper"]
    assert all((r.protocol, r.scoring) == ("paper", "reference") for r in paper)
    groups = [protocol_group(r) for r in rows]
    # the strong per-question row is never ranked among (above) the paper's rows
    assert groups == sorted(groups, key=lambda g: PROTOCOL_ORDER.index(g))
    assert rows[-1].model_name == "strong per-question"


def test_space_board_ranks_within_a_protocol(tmp_path):
    from space import board as space_board

    board = tmp_path / "board"
    (board / "submissions").mkdir(parents=True)
    row = Row(id="s1", model_name="strong per-question", source="submitted",
                 scores={**{m: 99.0 for m in labels.METRICS}, "macro": 99.0})
    data = row.to_dict()
    data.pop("created")
    (board / "submissions" / "s1.json").write_text(json.dumps(data), "utf-8")
    frame = space_board.table(board)
    mine = frame[frame["model"] == "strong per-question"].iloc[0]
    assert "per-question protocol" in mine["bench"] and "jiezi scoring" in mine["bench"]
    assert mine["#"] == "b1"  # ranked apart from the paper's rows, however high its macro
    assert set(frame.loc[frame["source"] == space_board.PAPER, "bench"]) == {space_board.PAPER_BENCH}


# ------------------------------------------------------- paper runs on the leaderboard (issue 13)
def _paper_run(hub, root: Path, server_url: str) -> Path:
    """A board's bench beside an openai: paper run answered by ``server_url``."""
    shutil.copytree(hub["bench"], root / "jiezi-bench")
    run = root / "eval" / "paper"
    evaluate_paper(_opts(hub, run, f"openai:tiny-vl@{server_url}", bench=str(root / "jiezi-bench")))
    return run


@pytest.mark.server
def test_a_paper_run_is_a_board_row_of_its_protocol_and_scoring(hub, tmp_path, monkeypatch):
    monkeypatch.setenv("JIEZI_API_KEY", "sk-test")
    ds, _ = load_paper_images(hub["bench"])
    replies = {_png_hash(r["image"]): r["reference"] for r in ds}
    replies[_png_hash(ds[0]["image"])] = "我不知道这个字。"  # one reply without JSON: a failure
    server = PaperServer(replies)
    try:
        run = _paper_run(hub, tmp_path, server.url)
    finally:
        server.close()
    results = json.loads((run / "results.json").read_text("utf-8"))
    board = tmp_path / "leaderboard"
    runner = CliRunner()
    res = runner.invoke(app, ["leaderboard", "submit", str(run / "predictions.jsonl"), "--model-name", "perfect-but-one",
                              "--board", str(board)])
    assert res.exit_code == 0, res.output
    assert "protocol paper, scoring reference" in res.output and "1 of" in res.output
    (row,) = submitted_rows(board)
    n = len(ds)
    assert (row.protocol, row.scoring) == ("paper", "reference")
    # the run's own reference figures, re-scored by the board: strict (failures count 0)
    assert row.scores["CHAR"] == pytest.approx(results["scores"]["CHAR"]["with_failures"]) == pytest.approx(
        100.0 * (n - 1) / n)
    assert row.details["lenient"]["CHAR"] == 100.0 and row.details["counts"]["failures"] == 1
    assert row.details["run"]["protocol"] == "paper" and row.details["run"]["prompt"] == results["prompt"] and "version" in results["prompt"]
    assert row.details["run"]["bench_fingerprint"] == row.details["bench"]["images_fingerprint"]
    assert row.scores["ORIM"] is None and "ORIM" in row.details["not_computed"]  # no BERTScore model offline

    both = runner.invoke(app, ["leaderboard", "submit", str(run / "predictions.jsonl"), "--model-name",
                               "perfect-but-one", "--board", str(board), "--scoring", "both"])
    assert both.exit_code == 0, both.output
    assert "nothing added" in both.output and "protocol paper, scoring jiezi" in both.output
    rows = {protocol_group(r): r for r in submitted_rows(board)}
    assert set(rows) == {("paper", "reference"), ("paper", "jiezi")}
    assert rows[("paper", "jiezi")].scores["CHAR"] == pytest.approx(results["scores_jiezi"]["CHAR"]["with_failures"])
    assert rows[("paper", "jiezi")].id != row.id

    shown = runner.invoke(app, ["leaderboard", "show", "--board", str(board)])
    assert shown.exit_code == 0, shown.output
    titles = [line for line in shown.output.splitlines() if "protocol" in line and "leaderboard" in line]
    assert len(titles) == 2 and "scoring reference" in titles[0] and "scoring jiezi" in titles[1]
    ranked = table(board)
    first = [r for r in ranked if protocol_group(r) == ("paper", "reference")]
    assert len(first) == 19 and "perfect-but-one" in {r.model_name for r in first}  # beside the paper's 18
    assert [protocol_group(r) for r in ranked].index(("paper", "jiezi")) == 19

    for r in rows.values():
        assert verify(board, r.id)["ok"]
    ok = runner.invoke(app, ["leaderboard", "verify", row.id[:10], "--board", str(board)])
    assert ok.exit_code == 0 and "all 16 stored scores reproduced" in ok.output, ok.output
    path = board / "submissions" / f"{row.id}.json"
    data = json.loads(path.read_text("utf-8"))
    data["scores"]["STRC"] += 1.0
    path.write_text(json.dumps(data), "utf-8")
    bad = runner.invoke(app, ["leaderboard", "verify", row.id, "--board", str(board)])
    assert bad.exit_code == 1 and "STRC stored" in bad.output


def test_paper_predictions_without_a_run_record_and_wrong_modes(hub, tmp_path):
    ds, _ = load_paper_images(hub["bench"])
    lines = [json.dumps({"id": iid, "output": ref}, ensure_ascii=False) for iid, ref in zip(ds["image_id"], ds["reference"])]
    data = ("\n".join(lines) + "\n").encode("utf-8")
    board = tmp_path / "board"
    # the Space uploads only the file: its ids (one per image) say it is a paper run
    from space.board import submit as space_submit

    config = SimpleNamespace(board=board, bench=str(hub["bench"]), max_upload_mb=50, bertscore_model=None, judge=None)
    message = space_submit(config, data, "space-paper", None)
    assert message.startswith("✓ **Added**") and "protocol paper, scoring reference" in message, message
    (row,) = submitted_rows(board)
    assert row.scores["CHAR"] == 100.0 and row.details["run"]["recorded"] is False
    with pytest.raises(SubmissionError, match="scoring 'exact' is not known"):
        submit(data, "m", None, board, scoring="exact")
    with pytest.raises(SubmissionError, match="missing bench id"):
        submit(("\n".join(lines[1:]) + "\n").encode(), "m", None, board)
    per_question = json.dumps({"id": load_bench(hub["bench"], "all", "test")["id"][0], "output": "江"}) + "\n"
    with pytest.raises(SubmissionError, match="applies to the paper's protocol"):
        submit(per_question.encode(), "m", None, board, scoring="reference")
    every_question = "".join(json.dumps({"id": i, "output": "江"}) + "\n" for i in load_bench(hub["bench"], "all", "test")["id"])
    assert "protocol per-question" in space_submit(config, every_question.encode(), "space-per-question", None)
    from space import board as space_board

    frame = space_board.table(board)
    labels = dict(zip(frame["model"], frame["bench"]))
    ranks = dict(zip(frame["model"], frame["#"]))
    # each (bench, protocol, scoring) is its own ranking: both are first of their own group
    assert labels["space-paper"] != labels["space-per-question"] and "per-question" in labels["space-per-question"]
    assert ranks["space-paper"][-1] == ranks["space-per-question"][-1] == "1" and ranks["space-paper"][0] != "1"
    results = {"format": "jiezi-eval-results/1", "protocol": "per-question", "model": {"spec": "x"},
               "bench": {"fingerprint": paper_images(open_board(board))["fingerprint"]}}
    with pytest.raises(SubmissionError, match="per-question"):
        submit(data, "m", None, board, protocol="paper", results=results)


def test_paper_run_revision_is_pinned_and_recorded(hub, tmp_path, monkeypatch):
    from harness import bench as bench_module
    from harness.eval import protocol_paper

    res = CliRunner().invoke(app, ["eval", "--model", "retrieval", "--bench", str(hub["bench"]), "--protocol", "paper",
                                   "--revision", "main", "--output", str(tmp_path / "refused"), "--no-progress"])
    assert res.exit_code == 2 and "applies to a Hub repo id" in res.output
    # a repo id read at a commit: the Hub is not reachable here, so its reads are served
    # from the fixture folder and the revision each read asked for is kept
    commit = "0123456789abcdef0123456789abcdef01234567"
    asked = []
    real = protocol_paper.load_hub_layout

    def from_fixture(bench, config, split, *, revision=None):
        if bench != "org/jiezi-bench":  # the gallery, a folder
            return real(bench, config, split, revision=revision)
        asked.append((bench, config, revision))
        return real(hub["bench"], config, split)

    monkeypatch.setattr(protocol_paper, "load_hub_layout", from_fixture)  # the images config
    monkeypatch.setattr(bench_module, "load_hub_layout", from_fixture)  # question rows folded by image
    out = evaluate_paper(_opts(hub, tmp_path / "run", "retrieval", bench="org/jiezi-bench", revision=commit, limit=2))
    assert asked and all(a[0] == "org/jiezi-bench" and a[2] == commit for a in asked)
    assert out["bench"]["revision"] == commit and out["bench"]["source"] == "org/jiezi-bench"
    assert out["bench"]["content_fingerprint"] is None  # a repo id: its commit pins it
    assert json.loads((tmp_path / "run" / "run.json").read_text("utf-8"))["bench_revision"] == commit
    with pytest.raises(RuntimeError, match="bench_revision"):  # another commit is another run
        evaluate_paper(_opts(hub, tmp_path / "run", "retrieval", bench="org/jiezi-bench", revision="f" * 40, limit=2))
    local = evaluate_paper(_opts(hub, tmp_path / "local", "retrieval", limit=2))
    assert local["bench"]["revision"] is None and len(local["bench"]["content_fingerprint"]) == 64
