"""`jiezi eval --model openai:...` against a real OpenAI-compatible HTTP server on 127.0.0.1.

The server speaks the chat-completions protocol, decodes every image data URL with PIL,
counts requests, and can fail or hang on demand, so the tests see real retries, recorded
errors, a killed run, and resumed runs that ask only what is missing.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from harness.bench import load_bench
from harness.eval.options import EvalOptions, RunError
from harness.eval.run import evaluate
from harness.eval.sampling import stratified_sample
from harness_fixtures import build_hub_folders
from openai_server import Call, OpenAIServer, Reply

REPO = Path(__file__).resolve().parent.parent
ORIM_QUESTION = "该字的本义是什么？"


class ChatServer(OpenAIServer):
    """The fake OpenAI server (``tests/openai_server.py``) answering bench questions: ``fail``
    (substrings of the last user text answered with HTTP 500), ``hang_after`` (requests after
    this many successes block until ``release``). ``requests`` keeps what each call asked."""

    def __init__(self):
        self.requests: list[dict] = []
        self.fail: tuple[str, ...] = ()
        self.hang_after: int | None = None
        self.admitted = 0  # requests let through to an answer
        self.release = threading.Event()
        super().__init__()

    def respond(self, call: Call) -> str | Reply:
        assert all(p["image_url"]["url"].startswith("data:image/png;base64,")
                   for p in call.parts() if p["type"] == "image_url")
        body = call.body
        record = {"model": body["model"], "messages": body["messages"], "images": call.image_sizes,
                  "question": call.question, "auth": call.auth, "temperature": body.get("temperature"),
                  "chat_template_kwargs": body.get("chat_template_kwargs"),
                  "reasoning_effort": body.get("reasoning_effort")}
        with self.lock:
            self.requests.append(record)
            failing = any(s in record["question"] for s in self.fail)
            hang = self.hang_after is not None and self.admitted >= self.hang_after
            if not failing and not hang:
                self.admitted += 1
        if failing:
            return Reply("server exploded", status=500)
        if hang:
            self.release.wait(60)
            return Reply(body="")
        return self.answer(record)

    @staticmethod
    def answer(record: dict) -> str:
        if "评审" in json.dumps(record["messages"], ensure_ascii=False):  # the EVOI judge's prompt
            answer = "分数：3"
        elif "现代字典字头" in record["question"]:  # the paper protocol's eight-field request
            answer = json.dumps({"现代字典字头": "江", "字形": "楷书", "造字法": ["形声字"], "结构": "⿰",
                                 "特殊结构": "", "构件": {"水": {"功能": ["表意"], "演变类型": "保留", "解释": "水流"}},
                                 "本义": "长江", "历代字形演变": "篆书从水工声，隶变后作氵。"}, ensure_ascii=False)
        else:
            answer = "江" if "字" in record["question"] else "形声"
        if (record["chat_template_kwargs"] or {}).get("enable_thinking"):
            answer = "<think>先看字形结构。</think>\n" + answer  # inline, as a server without a reasoning parser
        return answer

    def close(self):
        self.release.set()
        super().close()


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    bench, data = build_hub_folders(tmp_path_factory.mktemp("hub"))
    return {"bench": bench, "dataset": data}


@pytest.fixture
def server():
    s = ChatServer()
    yield s
    s.close()


def _opts(hub, server, out, **kw):
    base = dict(model=f"openai:tiny-vl@{server.url}", bench=str(hub["bench"]), output=out, progress=False,
                bertscore=False, concurrency=4, max_retries=1, timeout=20, cache_dir=out.parent / "cache")
    base.update(kw)
    return EvalOptions(**base)


def _sampled(hub, n: int):
    """The bench rows ``--limit n`` asks: the seeded stratified sample, in bench order."""
    full = load_bench(hub["bench"], "all", "test")
    keep, _ = stratified_sample(full.select_columns(["id", "script", "subtask"]).to_list(), n, 0)
    return full.select(keep)


def _lines(path):
    return [json.loads(x) for x in Path(path).read_text("utf-8").splitlines()]


@pytest.mark.server
def test_server_error_is_recorded_per_item_and_a_resumed_run_asks_only_the_failures(hub, server, tmp_path,
                                                                                       monkeypatch):
    monkeypatch.setenv("JIEZI_API_KEY", "sk-test")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    n = len(load_bench(hub["bench"], "all", "test"))
    n_orim = sum(1 for k in load_bench(hub["bench"], "all", "test")["kind"] if k == "ORIM")
    server.fail = (ORIM_QUESTION,)
    res = evaluate(_opts(hub, server, tmp_path / "run"))
    # every failing item was tried twice (max_retries=1); every other item once
    assert len(server.requests) == n + n_orim
    assert all(r["auth"] == "Bearer sk-test" and r["images"] == [(128, 128)] for r in server.requests)
    assert all(r["temperature"] == 0 for r in server.requests)
    preds = {p["id"]: p for p in _lines(tmp_path / "run" / "predictions.jsonl")}
    failed = [p for p in preds.values() if p["error"]]
    assert len(failed) == n_orim and all(p["id"].endswith("::ORIM") and p["output"] is None for p in failed)
    assert "500" in failed[0]["error"] or "server exploded" in failed[0]["error"]
    assert res["run"]["errors"] == n_orim
    assert res["scores"]["counts"]["CHAR"]["items"] > 0  # results were still written

    server.fail = ()
    server.requests.clear()
    res2 = evaluate(_opts(hub, server, tmp_path / "run"))
    assert len(server.requests) == n_orim
    assert all(ORIM_QUESTION in r["question"] for r in server.requests)
    assert res2["run"]["errors"] == 0 and res2["run"]["errors_retried"] == n_orim
    lines = _lines(tmp_path / "run" / "predictions.jsonl")
    assert len(lines) == n and len({p["id"] for p in lines}) == n  # compacted: each id once

    server.requests.clear()
    evaluate(_opts(hub, server, tmp_path / "run"))
    assert server.requests == []


@pytest.mark.server
def test_a_run_whose_first_answers_all_fail_stops_early_and_a_rerun_completes(hub, server, tmp_path, monkeypatch):
    import harness.eval.ask as ask

    monkeypatch.setattr(ask, "FAIL_FAST_AFTER", 5)
    n = len(load_bench(hub["bench"], "all", "test"))
    assert n > 12
    server.fail = ("",)  # every question answered with HTTP 500: a server that is down
    out = tmp_path / "run"
    with pytest.raises(RunError, match=r"first 5 questions all failed.*server exploded|first 5 questions all failed.*500"):
        evaluate(_opts(hub, server, out, concurrency=1, max_retries=0))
    assert len(server.requests) < n  # it did not go on asking the whole bench
    recorded = _lines(out / "predictions.jsonl")
    assert len(recorded) == 5 and all(p["error"] for p in recorded)
    assert not (out / "results.json").exists()

    server.fail = ()
    server.requests.clear()
    res = evaluate(_opts(hub, server, out, concurrency=1, max_retries=0))
    assert len(server.requests) == n and res["run"]["errors"] == 0 and res["run"]["errors_retried"] == 5


@pytest.mark.server
@pytest.mark.subprocess
def test_a_killed_run_loses_only_in_flight_items(hub, server, tmp_path):
    n = len(load_bench(hub["bench"], "all", "test"))
    server.hang_after = 20
    out = tmp_path / "run"
    # this interpreter and this checkout's CLI (cwd first on sys.path), not whichever `jiezi` is installed
    cmd = [sys.executable, "-m", "jiezi_cli", "eval", "--model", f"openai:tiny-vl@{server.url}",
           "--bench", str(hub["bench"]), "--output", str(out), "--concurrency", "2", "--no-bertscore",
           "--no-progress", "--cache-dir", str(tmp_path / "cache"), "--timeout", "60"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.time() + 120
        pred = out / "predictions.jsonl"
        while time.time() < deadline:
            if len(server.requests) >= 22 and pred.exists() and len(pred.read_bytes().splitlines()) >= 20:
                break
            assert proc.poll() is None, proc.stderr.read().decode()
            time.sleep(0.1)
        else:
            pytest.fail("the run never reached 20 answers")
        os.killpg(proc.pid, signal.SIGKILL)  # a crash: no clean-up code runs
        proc.wait(10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.stderr.close()
    saved = _lines(out / "predictions.jsonl")
    assert len(saved) == 20 and all(p["error"] is None for p in saved)
    assert not (out / "results.json").exists()

    server.hang_after = None
    server.release.set()
    server.requests.clear()
    res = evaluate(_opts(hub, server, out, concurrency=2, timeout=60))
    assert len(server.requests) == n - 20
    assert res["run"]["questions_asked"] == n - 20
    assert len(_lines(out / "predictions.jsonl")) == n


@pytest.mark.server
@pytest.mark.parametrize("strategy", ["icl", "rag", "dict"])
def test_training_free_strategies_put_retrieved_context_in_the_prompt(hub, server, tmp_path, strategy):
    res = evaluate(_opts(hub, server, tmp_path / strategy, strategy=strategy, limit=8))
    assert len(server.requests) == 8 and res["strategy"]["name"] == strategy
    req = next(r for r in server.requests if "本义" in r["question"] or "字形今天" in r["question"])
    msgs = req["messages"]
    assert msgs[0]["role"] == "system"
    if strategy == "icl":
        # three demonstrations: neighbour image + question, then the training answer
        assert len(req["images"]) == 4
        assert [m["role"] for m in msgs[1:]] == ["user", "assistant"] * 3 + ["user"]
    else:
        assert len(req["images"]) == 1
        text = "\n".join(p["text"] for p in msgs[-1]["content"] if p["type"] == "text")
        assert ("[资料1]" in text and "字头:" in text) if strategy == "rag" else ("【" in text and "结构：" in text)
    assert res["strategy"]["retriever"]["embedder"]["embedder"] == "hog"


@pytest.mark.server
def test_paraphrase_run_asks_every_question_in_three_wordings(hub, server, tmp_path):
    res = evaluate(_opts(hub, server, tmp_path / "para", paraphrases=2, limit=8))
    assert len(server.requests) == 24
    for f in ("predictions.jsonl", "predictions-p1.jsonl", "predictions-p2.jsonl"):
        lines = _lines(tmp_path / "para" / f)
        assert len(lines) == 8 and all(p["error"] is None for p in lines)
    questions = {r["question"].split("\n")[0] for r in server.requests}
    originals = {q.split("\n")[0] for q in _sampled(hub, 8)["question"]}
    assert originals < questions and len(questions) >= 3 * len(originals) - 4  # wordings may repeat within a kind
    para = res["paraphrase"]
    assert set(para["scores"]) == {"original", "paraphrase_1", "paraphrase_2"}
    assert "macro" in para["avg_delta"] and para["source"] == "own"
    res2 = evaluate(_opts(hub, server, tmp_path / "para2", paraphrases=1, limit=8, paraphrase_source="templates"))
    assert res2["paraphrase"]["source"] == "templates"


@pytest.mark.server
def test_judge_spec_scores_evoi_through_an_openai_compatible_judge(hub, server, tmp_path, monkeypatch):
    from harness.scoring import ScoringSetupError, make_judge

    monkeypatch.setenv("JIEZI_JUDGE_CACHE", str(tmp_path / "judge.sqlite"))
    res = evaluate(_opts(hub, server, tmp_path / "run", limit=16, judge=f"openai:judge-model@{server.url}"))
    judged = [r for r in server.requests if r["model"] == "judge-model"]
    n_evoi = sum(1 for k in _sampled(hub, 16)["kind"] if k == "EVOI")
    assert n_evoi >= 1 and len(judged) == 2 * n_evoi  # one call per answer and axis
    assert res["scores"]["EVOI_FAC"] == 75.0 and res["scores"]["EVOI_SCE"] == 75.0  # "分数：3" x 25
    assert res["scorer"]["settings"]["judge"]["model"] == "judge-model"
    with pytest.raises(ScoringSetupError, match="openai:MODEL@BASE_URL"):
        make_judge("gpt-4o")


@pytest.mark.server
def test_a_run_with_no_answer_at_all_is_not_scored_and_a_partial_one_warns(hub, server, tmp_path):
    server.fail = ("",)
    out = tmp_path / "run"
    with pytest.raises(RunError, match=r"all 3 questions failed, nothing to score"):
        evaluate(_opts(hub, server, out, limit=3, concurrency=1, max_retries=0))
    assert not (out / "results.json").exists()

    server.fail = (ORIM_QUESTION,)
    res = evaluate(_opts(hub, server, out, concurrency=1, max_retries=0))
    n_orim = sum(1 for k in load_bench(hub["bench"], "all", "test")["kind"] if k == "ORIM")
    assert res["run"]["errors"] == n_orim > 0 and res["run"]["answers_reused"] == 0
    assert any(f"{n_orim} of " in w and "no answer" in w for w in res["warnings"])

    server.fail = ()
    res = evaluate(_opts(hub, server, out, limit=5, concurrency=1, max_retries=0))
    assert any("--limit changed" in w for w in res["warnings"])
    assert res["run"]["answers_reused"] == 5 - sum(1 for k in _sampled(hub, 5)["kind"] if k == "ORIM")
