"""What a run asks and reports, and the rough edges a new user hit (issue 24): ``--limit``
as a seeded stratified sample, a level config's own fields only, a mistyped bench path,
the board's refusal of a run of another config, progress bars in a log. Real ``jiezi
eval`` runs (retrieval baseline) on the harness fixture bench, real board folders, real
tqdm in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from harness_fixtures import build_hub_folders
from typer.testing import CliRunner

from harness.bench import load_bench
from harness.eval.options import EvalOptions
from harness.eval.run import evaluate
from harness.eval.sampling import stratified_sample
from jiezi_cli import app
from metrics.acce import labels

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    root = tmp_path_factory.mktemp("settings")
    bench, data = build_hub_folders(root)
    return {"root": root, "bench": bench, "dataset": data}


def test_stratified_sample_covers_the_strata_and_is_seeded():
    # a bench sorted by script, as the real one: the first 12 rows are all one script
    metas = [{"id": f"{s}-{t}-{k}", "script": s, "subtask": t}
             for s in ("甲骨文", "金文", "篆书", "楷书") for t in ("CHAR", "SCRC", "STRC") for k in range(5)]
    picked, record = stratified_sample(metas, 12, seed=3)
    assert len(picked) == 12 and picked == sorted(picked)
    assert {(metas[i]["script"], metas[i]["subtask"]) for i in picked} == {(m["script"], m["subtask"]) for m in metas}
    assert record["strata_total"] == record["strata_drawn"] == 12 and record["seed"] == 3
    again, record2 = stratified_sample(metas, 12, seed=3)
    other, record3 = stratified_sample(metas, 12, seed=4)
    assert again == picked and record2 == record and other != picked and record3["ids_sha256"] != record["ids_sha256"]
    assert stratified_sample(metas, 500)[0] == list(range(len(metas)))


def _run(hub, out: Path, **kw) -> dict:
    return evaluate(EvalOptions(model="retrieval", bench=str(hub["bench"]), output=out, gallery=str(hub["dataset"]),
                                progress=False, bertscore=False, cache_dir=out.parent / "cache", **kw))


def test_limit_draws_over_scripts_and_subtasks(hub, tmp_path):
    full = load_bench(hub["bench"], "all", "test")
    first = {(s, t) for s, t in zip(full["script"][:10], full["subtask"][:10])}
    res = _run(hub, tmp_path / "run", limit=10, seed=0)
    sample = res["bench"]["sample"]
    assert res["bench"]["limit"] == 10 and res["bench"]["rows"] == 10
    assert sample["strata"] == ["script", "subtask"] and sample["seed"] == 0
    ids = [json.loads(x)["id"] for x in (tmp_path / "run" / "predictions.jsonl").read_text("utf-8").splitlines()]
    rows = {i: (s, t) for i, s, t in zip(full["id"], full["script"], full["subtask"])}
    drawn = {rows[i] for i in ids}
    assert len(drawn) == 10 and len(drawn) > len(first)  # ten strata, where the first ten rows have fewer
    assert len({s for s, _ in drawn}) == len(set(full["script"]))  # every script of the bench is in it


def test_a_level_config_reports_its_own_fields_only(hub, tmp_path):
    res = _run(hub, tmp_path / "l2", config="L2")
    scores = res["scores"]
    l2 = [m for m in labels.METRICS if labels.METRIC_LEVEL[m] == "L2"]
    assert set(l2) <= set(scores) and scores["L2"] is not None
    text = json.dumps({"scores": scores, "breakdown": res["breakdown"]})
    for other in ("COME", "EVOI_FAC", "EVOI_SCE", "CHAR", "SCRC", "ORIM", '"L1"', '"L3"', '"L4"', '"macro"'):
        assert other not in text, other
    assert "COME" not in scores["counts"] and "COME" not in scores.get("not_computed", {})


def test_a_mistyped_bench_path_fails_at_once(hub, tmp_path, monkeypatch):
    monkeypatch.chdir(hub["root"])
    t0 = time.monotonic()
    res = CliRunner().invoke(app, ["eval", "--model", "retrieval", "--bench", "jiezi-bench/../jiezi-bnch",
                                   "-o", str(tmp_path / "x"), "--no-progress"])
    res2 = CliRunner().invoke(app, ["eval", "--model", "retrieval", "--bench", f"{hub['root'].name}x/jiezi-bench",
                                    "-o", str(tmp_path / "y"), "--no-progress"])
    monkeypatch.chdir(hub["root"].parent)
    res3 = CliRunner().invoke(app, ["eval", "--model", "retrieval", "--bench", f"{hub['root'].name}/jiezi-bnch",
                                    "-o", str(tmp_path / "z"), "--no-progress"])
    assert time.monotonic() - t0 < 10  # no Hub retries
    for r in (res, res3):
        assert r.exit_code == 2 and "no such bench folder" in r.output, r.output
    assert f"did you mean {hub['root'].name}/jiezi-bench" in res3.output
    assert "no such bench folder" not in res2.output  # ORG/NAME with no such local folder: a Hub id


def test_the_board_names_config_split_and_limit_when_refusing(hub, tmp_path):
    _run(hub, tmp_path / "l2", config="L2", limit=6)
    board = tmp_path / "board"
    res = CliRunner().invoke(app, ["leaderboard", "submit", str(tmp_path / "l2" / "predictions.jsonl"),
                                   "--model-name", "m", "--board", str(board), "--bench", str(hub["bench"])])
    assert res.exit_code == 2
    msg = " ".join(res.output.split())
    assert "config L2 split test" in msg and "--limit 6 (6 rows)" in msg and "this board scores bench" in msg
    assert "config all split test" in msg and "jiezi eval --config all --split test" in msg


PROGRESS = """
import sys, time
if sys.argv[1] == "jiezi":
    import jiezi_cli  # noqa: F401  (what the jiezi command imports first)
from tqdm.auto import tqdm
for _ in tqdm(range(60), desc="answer"):
    time.sleep(0.05)
"""


@pytest.mark.subprocess
@pytest.mark.parametrize("entry", ["jiezi", "bare"])
def test_progress_bars_in_a_log_redraw_at_most_once_a_second(entry):
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("TQDM_")}
    env["PYTHONPATH"] = str(REPO)
    proc = subprocess.run([sys.executable, "-c", PROGRESS, entry], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=300)
    assert proc.returncode == 0, proc.stderr
    redraws = proc.stderr.count("answer:")
    if entry == "jiezi":
        assert redraws <= 4, proc.stderr  # start, end, and nothing between in a 3 s run
    else:
        assert redraws > 10  # tqdm's own default (0.1 s): what the log got before
