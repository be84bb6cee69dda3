"""lmms-eval 0.7.3 through its chat model path (issue 24): ``doc_to_messages`` tasks run by a
chat model class on a tiny random Qwen2.5-VL (tests/tiny_vlm.py) and by lmms-eval's
``openai`` chat model against the loopback chat server of ``test_harness_openai``, both
protocols (the per-question group ``jiezi_bench`` and ``jiezi_bench_paper``); EVOI judged
inside lmms-eval through ``lmms_eval.llm_judge`` with this project's rubric prompts; and
``jiezi leaderboard submit`` of the ``--log_samples`` folders, which must give the rows the
same answers give as ``jiezi eval`` predictions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from harness_fixtures import build_hub_folders
from test_harness_openai import ChatServer
from typer.testing import CliRunner

from harness.board.table import table
from harness.interop.lmms import write_task_folder
from harness.interop.lmms_import import LmmsLogError, read_lmms_log
from jiezi_cli import app
from metrics.acce.judge import OpenAIJudge

REPO = Path(__file__).resolve().parent.parent


def add_images_config(bench: Path) -> None:
    """Give a fixture bench the ``images`` config (one row per image, the eight-field
    reference) that the published bench has and the paper task reads."""
    from harness.eval.protocol_paper import load_paper_images

    ds, _ = load_paper_images(bench)
    (bench / "images").mkdir()
    ds.to_parquet(str(bench / "images" / "test-00000-of-00001.parquet"))
    _, head, body = (bench / "README.md").read_text("utf-8").split("---", 2)
    meta = yaml.safe_load(head)
    meta["configs"].append({"config_name": "images", "data_files": [{"split": "test", "path": "images/test-*"}]})
    (bench / "README.md").write_text("---\n" + yaml.safe_dump(meta, allow_unicode=True, sort_keys=False) + "---" + body,
                                     "utf-8")


def _env(tmp_path: Path, **extra) -> dict:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "HF_HOME": str(tmp_path / "hf-home"), "JIEZI_BERTSCORE_MODEL": "offline-minilm",
           "TOKENIZERS_PARALLELISM": "false", "JIEZI_JUDGE_CACHE": str(tmp_path / "judge.sqlite"),
           "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)}
    for key in ("JIEZI_JUDGE_BASE_URL", "JIEZI_JUDGE_MODEL", "OPENAI_API_URL"):
        env.pop(key, None)
    env.update(extra)
    return env


def _lmms(tmp_path: Path, env: dict, tasks_dir: Path, out: Path, model: str, model_args: str, tasks: str,
          *extra: str) -> dict:
    cmd = [sys.executable, "-m", "lmms_eval", "--model", model, "--model_args", model_args, "--tasks", tasks,
           "--include_path", str(tasks_dir), "--batch_size", "1", "--log_samples", "--output_path", str(out), *extra]
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    log = done.stdout + done.stderr
    assert done.returncode == 0 and "Error during evaluation" not in log, log[-5000:]
    return json.loads(sorted(out.rglob("*_results.json"))[-1].read_text("utf-8"))


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    root = tmp_path_factory.mktemp("lmms-chat")
    bench, _ = build_hub_folders(root / "built")
    add_images_config(bench)
    tasks = write_task_folder(root / "tasks", str(bench))
    return {"root": root, "bench": bench, "tasks": tasks}


@pytest.mark.subprocess
@pytest.mark.slow
def test_a_chat_model_class_runs_both_protocols_on_a_tiny_qwen2_5_vl(bench, tmp_path):
    from tiny_vlm import build_tiny_vlm

    model = build_tiny_vlm("qwen2_5_vl", tmp_path / "tiny-qwen2.5-vl")
    out = tmp_path / "out"
    report = _lmms(tmp_path, _env(tmp_path), bench["tasks"], out, "qwen2_5_vl",
                   f"pretrained={model},device=cpu,device_map=cpu,max_pixels=50176", "jiezi_bench,jiezi_bench_paper",
                   "--limit", "1", "--gen_kwargs", "max_new_tokens=16")
    assert report["config"]["model_backend"].endswith("(chat)"), report["config"]["model_backend"]
    for task in ("jiezi_bench_l1", "jiezi_bench_l2", "jiezi_bench_l3", "jiezi_bench_l4", "jiezi_bench_paper"):
        assert report["n-samples"][task]["effective"] == 1, report["n-samples"]
        assert sorted(out.rglob(f"*_samples_{task}.jsonl")), task
    assert isinstance(report["results"]["jiezi_bench_paper"]["CHAR,none"], float)
    with pytest.raises(LmmsLogError, match="both protocols"):
        read_lmms_log(out)  # one board row is one protocol


@pytest.mark.server
@pytest.mark.subprocess
@pytest.mark.slow
def test_openai_chat_model_llm_judge_and_the_board(bench, tmp_path):
    server = ChatServer()
    try:
        _openai_runs(bench, tmp_path, server)
    finally:
        server.close()


def _openai_runs(bench, tmp_path, server):
    env = _env(tmp_path, OPENAI_API_KEY="sk-test", JIEZI_JUDGE_MODEL="judge-model", JIEZI_JUDGE_BASE_URL=server.url)
    args = f"model_version=tiny-vl,base_url={server.url}"
    outs = {}
    for protocol, tasks in (("per-question", "jiezi_bench"), ("paper", "jiezi_bench_paper")):
        outs[protocol] = tmp_path / f"lmms-{protocol}"
        report = _lmms(tmp_path, env, bench["tasks"], outs[protocol], "openai", args, tasks)
        assert report["config"]["model_backend"] == "lmms_eval.models.chat.openai.OpenAICompatible (chat)"
        if protocol == "per-question":
            # EVOI judged inside lmms-eval through lmms_eval.llm_judge, our rubric: "分数：3" x 25
            judged = [r for r in server.requests if r["model"] == "judge-model"]
            assert judged and all("评审" in json.dumps(r["messages"], ensure_ascii=False) for r in judged)
            assert report["results"]["jiezi_bench_l4"]["EVOI_FAC,none"] == 75.0
            lmms_evoi = report["results"]["jiezi_bench_l4"]["EVOI_SCE,none"]
    board = tmp_path / "board"
    judge = f"openai:judge-model@{server.url}"
    runner = CliRunner()
    for protocol, out in outs.items():
        res = runner.invoke(app, ["leaderboard", "submit", str(out), "--model-name", f"tiny-vl-lmms-{protocol}",
                                  "--board", str(board), "--bench", str(bench["bench"]), "--judge", judge,
                                  "--bertscore-model", "offline-minilm"])
        assert res.exit_code == 0 and "added row" in res.output, res.output
    rows = {r.protocol: r for r in table(board, include_paper=False)}
    assert rows["paper"].scores["CHAR"] is not None and rows["paper"].scores["EVOI_FAC"] == 75.0  # JSON replies
    assert rows["per-question"].scores["EVOI_SCE"] == lmms_evoi == 75.0
    assert rows["per-question"].details["run"]["model_spec"] == "lmms-eval:openai:tiny-vl"
    # the same answers through `jiezi eval` (same server, same prompts): the same rows
    for protocol in ("per-question", "paper"):
        run = tmp_path / f"eval-{protocol}"
        res = runner.invoke(app, ["eval", "--model", f"openai:tiny-vl@{server.url}", "--bench", str(bench["bench"]),
                                  "-o", str(run), "--protocol", protocol, "--judge", judge, "--bertscore-model",
                                  "offline-minilm", "--no-progress"])
        assert res.exit_code == 0, res.output
        res = runner.invoke(app, ["leaderboard", "submit", str(run / "predictions.jsonl"), "--model-name", "ours",
                                  "--board", str(board)])
        assert res.exit_code == 0 and f"already on the board as row {rows[protocol].id[:12]}" in res.output, res.output
        ours = json.loads((run / "results.json").read_text("utf-8"))["scores"]
        for metric in ("CHAR", "SCRC", "STRC", "FORC", "COMR", "EVOI_FAC", "EVOI_SCE"):
            value = ours[metric]["with_failures"] if protocol == "paper" else ours[metric]
            assert rows[protocol].scores[metric] == pytest.approx(value), (protocol, metric)
    print(json.dumps({p: r.scores for p, r in rows.items()}, ensure_ascii=False))


@pytest.mark.server
def test_the_llm_judge_path_scores_as_our_judge(tmp_path):
    """EVOI through lmms_eval.llm_judge (the lmms-eval client, our prompts) equals our own judge."""
    from harness.interop.lmms_judge import LmmsEvalJudge
    from metrics.acce.core import score

    server = ChatServer()
    try:
        refs = [{"evolution": "甲骨文象水流之形，篆书线条化，隶变后作氵。"}] * 2
        preds = ["甲骨文象水流，隶变作氵。", "不知道"]
        via_lmms = LmmsEvalJudge("judge-model", base_url=server.url, cache=tmp_path / "a.sqlite")
        ours = OpenAIJudge(server.url, "judge-model", cache=tmp_path / "b.sqlite", max_retries=0)
        a = score(preds, refs, [["EVOI_FAC", "EVOI_SCE"]] * 2, settings={"bertscore": False, "progress": False},
                  judge=via_lmms)
        b = score(preds, refs, [["EVOI_FAC", "EVOI_SCE"]] * 2, settings={"bertscore": False, "progress": False},
                  judge=ours)
    finally:
        server.close()
    assert a["EVOI_FAC"] == b["EVOI_FAC"] == 75.0 and a["EVOI_SCE"] == b["EVOI_SCE"]
    assert via_lmms.calls == 4 and "lmms_eval.llm_judge" in via_lmms.describe()["via"]
    assert os.environ.get("OPENAI_API_URL") is None  # set only while the provider was built
