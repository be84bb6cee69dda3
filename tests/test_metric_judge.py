"""The EVOI judge: strict reply parsing, the OpenAI-compatible backend against a real HTTP
server on 127.0.0.1 (retries, timeouts, malformed bodies, bounded concurrency), the
persistent cache (reruns and resumed runs), and EVOI_FAC / EVOI_SCE in ``score``."""

from __future__ import annotations

import re
import time

import pytest
from openai_server import Call, OpenAIServer, Reply

from metrics.acce.core import score
from metrics.acce.judge import (
    PROMPT_VERSION,
    JudgeCache,
    JudgeRequest,
    OpenAIJudge,
    build_messages,
    parse_score,
)


@pytest.mark.parametrize(("reply", "expected"), [
    ("3分", 3), ("Score: 4/4", 4), ("分数：2", 2), ("**3**", 3), ("0", 0), ("评分为 2。", 2),
    ("分数：3\n理由：扣了1分", 3), ("<think>maybe 1</think>\n分数：4", 4), ("three", 3), ("三分", 3),
    ("5", None), ("", None), ("   ", None), (None, None), ("Score: 3/5", None), ("3.5", None),
    ("我给2分，但也可以给3分", None), ("I cannot judge this.", None), ("Score: 7", None),
])
def test_parse_score(reply, expected):
    value, error = parse_score(reply)
    assert value == expected
    assert (error is None) == (expected is not None)


def test_parse_score_reasons():
    assert parse_score("5") == (None, "score 5 is outside 0-4")
    assert parse_score("")[1] == "empty reply"
    assert "scale" in parse_score("Score: 3/5")[1]
    assert "ambiguous" in parse_score("2分或3分")[1]


def test_prompts_carry_reference_prediction_and_axis():
    fac = build_messages("FAC", "甲骨文从水", "金文承之")[1]["content"]
    sce = build_messages("SCE", "甲骨文从水", "金文承之")[1]["content"]
    assert "甲骨文从水" in fac and "金文承之" in fac and "事实一致性" in fac and "学术表达" in sce
    assert "最多2分" in fac and "最多1分" in sce
    with pytest.raises(ValueError):
        build_messages("XYZ", "a", "b")


class JudgeServer(OpenAIServer):
    """The fake OpenAI server (``tests/openai_server.py``) playing a judge with scripted behaviour.

    The prediction in the prompt carries a marker ``#name#``; ``behaviours[name]`` (or
    ``behaviours["name:AXIS"]``) is a list of actions used in turn (the last one repeats):
    ``("reply", text)``, ``("status", code)``, ``("sleep", seconds, text)``, ``("body", raw)``.
    Without a marker it replies ``分数：2``. ``requests`` keeps ``(marker, axis)`` per call.
    """

    def __init__(self, behaviours: dict[str, list[tuple]] | None = None, delay: float = 0.0):
        self.behaviours = behaviours or {}
        self.delay = delay
        self.requests: list[tuple[str, str]] = []  # (marker, axis)
        super().__init__()

    def respond(self, call: Call) -> Reply:
        assert call.body["temperature"] == 0
        text = call.messages[-1]["content"]
        axis = "FAC" if "事实一致性" in text else "SCE"
        m = re.search(r"#(\w+)#", text.split("【模型回答】")[-1])
        marker = m.group(1) if m else ""
        with self.lock:
            n = sum(1 for r in self.requests if r == (marker, axis))
            self.requests.append((marker, axis))
        if self.delay:
            time.sleep(self.delay)
        actions = self.behaviours.get(f"{marker}:{axis}") or self.behaviours.get(marker) or [("reply", "分数：2")]
        action = actions[min(n, len(actions) - 1)]
        if action[0] == "sleep":
            return Reply(action[2], delay=action[1])
        if action[0] == "status":
            return Reply(status=action[1], headers={"Retry-After": "0"})
        if action[0] == "body":
            return Reply(body=action[1])
        return Reply(action[1])

    def count(self, marker: str) -> int:
        with self.lock:
            return sum(1 for m, _ in self.requests if m == marker)


def make_judge(server, tmp_path, **kw):
    kw.setdefault("timeout", 5.0)
    return OpenAIJudge(server.url, "loopback-judge", "sk-test", cache=tmp_path / "judge.sqlite", **kw)


@pytest.mark.server
def test_429_then_success_and_non_retryable_status(tmp_path):
    with JudgeServer({"rl": [("status", 429), ("status", 503), ("reply", "分数：4")],
                      "bad_request": [("status", 400)]}) as srv:
        judge = make_judge(srv, tmp_path)
        res = judge.judge([JudgeRequest("FAC", "参考", "回答 #rl#"), JudgeRequest("FAC", "参考", "回答 #bad_request#")],
                          progress=False)
    assert res[0].score == 4 and res[0].error is None and srv.count("rl") == 3
    assert res[1].score is None and res[1].transport and "HTTP 400" in res[1].error and srv.count("bad_request") == 1


@pytest.mark.server
def test_timeout_is_retried_then_gives_up(tmp_path):
    with JudgeServer({"slow_once": [("sleep", 1.5, "分数：1"), ("reply", "分数：3")],
                      "slow": [("sleep", 1.5, "分数：1")]}) as srv:
        judge = make_judge(srv, tmp_path, timeout=0.5, max_retries=1)
        res = judge.judge([JudgeRequest("SCE", "参考", "#slow_once#"), JudgeRequest("SCE", "参考", "#slow#")],
                          progress=False)
    assert res[0].score == 3 and srv.count("slow_once") == 2
    assert res[1].score is None and res[1].transport and "timeout" in res[1].error and srv.count("slow") == 2
    assert len(judge.cache) == 1  # the transport failure is not cached: a rerun retries it


@pytest.mark.server
def test_malformed_body(tmp_path):
    with JudgeServer({"garbled_once": [("body", "<html>oops"), ("reply", "3分")],
                      "garbled": [("body", '{"choices": []}')]}) as srv:
        judge = make_judge(srv, tmp_path, max_retries=2)
        res = judge.judge([JudgeRequest("FAC", "参考", "#garbled_once#"), JudgeRequest("FAC", "参考", "#garbled#")],
                          progress=False)
    assert res[0].score == 3 and srv.count("garbled_once") == 2
    assert res[1].score is None and "malformed response body" in res[1].error and srv.count("garbled") == 3


@pytest.mark.server
def test_cache_makes_reruns_free_and_resumes_interrupted_runs(tmp_path):
    behaviours = {"a": [("reply", "分数：4")], "b": [("reply", "5")], "c": [("status", 500)], "d": [("reply", "1分")]}
    reqs = [JudgeRequest("FAC", "参考", f"回答 #{m}#") for m in "abcd"]
    with JudgeServer(behaviours) as srv:
        first = make_judge(srv, tmp_path, max_retries=1).judge(reqs, progress=False)
        assert [r.score for r in first] == [4, None, None, 1]
        assert first[1].raw == "5" and not first[1].transport  # a parse failure keeps its raw reply
        assert first[2].transport
        before = len(srv.requests)
        srv.behaviours["c"] = [("reply", "分数：2")]  # the server recovers
        second = make_judge(srv, tmp_path).judge(reqs, progress=False)
        assert len(srv.requests) == before + 1  # only the request that never got a reply
        assert [r.cached for r in second] == [True, True, False, True]
        assert [r.score for r in second] == [4, None, 2, 1]
        third = make_judge(srv, tmp_path).judge(reqs, progress=False)
        assert len(srv.requests) == before + 1 and all(r.cached for r in third)
        # retry_failed asks again for replies that did not parse
        make_judge(srv, tmp_path, retry_failed=True).judge(reqs, progress=False)
        assert srv.count("b") == 2
    cache = JudgeCache(tmp_path / "judge.sqlite")
    assert len(cache) == 4


@pytest.mark.server
def test_cache_key_includes_model_prompt_version_and_axis(tmp_path):
    with JudgeServer() as srv:
        judge = make_judge(srv, tmp_path)
        judge.judge([JudgeRequest("FAC", "r", "p"), JudgeRequest("SCE", "r", "p"), JudgeRequest("FAC", "r", "p")],
                    progress=False)
        assert len(srv.requests) == 2  # identical requests are asked once
        other = OpenAIJudge(srv.url, "another-model", cache=tmp_path / "judge.sqlite")
        other.judge([JudgeRequest("FAC", "r", "p")], progress=False)
        v2 = OpenAIJudge(srv.url, "loopback-judge", cache=tmp_path / "judge.sqlite", prompt_version=PROMPT_VERSION + "x")
        v2.judge([JudgeRequest("FAC", "r", "p")], progress=False)
        assert len(srv.requests) == 4


@pytest.mark.server
def test_bounded_concurrency(tmp_path):
    reqs = [JudgeRequest("FAC", "参考", f"回答{i}") for i in range(12)]
    with JudgeServer(delay=0.2) as srv:
        res = make_judge(srv, tmp_path, concurrency=4).judge(reqs, progress=False)
    assert all(r.score == 2 for r in res)
    assert 1 < srv.max_in_flight <= 4


def test_env_configuration(tmp_path, monkeypatch):
    monkeypatch.setenv("JIEZI_JUDGE_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("JIEZI_JUDGE_MODEL", "env-model")
    monkeypatch.setenv("JIEZI_JUDGE_CONCURRENCY", "3")
    judge = OpenAIJudge(cache=tmp_path / "c.sqlite")
    assert judge.model_id == "env-model" and judge.base_url == "http://127.0.0.1:9/v1" and judge.concurrency == 3
    monkeypatch.delenv("JIEZI_JUDGE_MODEL")
    with pytest.raises(ValueError, match="JIEZI_JUDGE_MODEL"):
        OpenAIJudge(cache=False)


EVOI_REF = {"evolution": "甲骨文象水流之形，金文承之，篆文整齐化，隶变后作江。"}


@pytest.mark.server
def test_evoi_in_score_strict_lenient_and_counts(tmp_path):
    behaviours = {
        "i1:FAC": [("reply", "3分")], "i1:SCE": [("reply", "Score: 4/4")],
        "i2:FAC": [("reply", "5")], "i2:SCE": [("reply", "three")],
        "i3:FAC": [("reply", "")], "i3:SCE": [("reply", "分数：2")],
    }
    preds = ["甲骨文象水形 #i1#", "金文作江 #i2#", "篆文 #i3#", "   "]
    with JudgeServer(behaviours) as srv:
        judge = make_judge(srv, tmp_path)
        r = score(preds, [EVOI_REF] * 4, ["EVOI", ["EVOI_FAC", "EVOI_SCE"], "EVOI", "EVOI"], judge=judge,
                  settings={"progress": False}, details=True)
        assert len(srv.requests) == 6  # the empty answer is not sent
        r2 = score(preds, [EVOI_REF] * 4, ["EVOI"] * 4, judge=make_judge(srv, tmp_path), settings={"progress": False})
        assert len(srv.requests) == 6  # rerun: all from the cache
    # FAC: 3 -> 75; "5" and "" are judge failures (0); empty answer unparseable (0)
    assert r["EVOI_FAC"] == pytest.approx(75 / 4) and r["lenient"]["EVOI_FAC"] == pytest.approx(75.0)
    # SCE: 4 -> 100, "three" -> 75, 2 -> 50, empty answer 0
    assert r["EVOI_SCE"] == pytest.approx(225 / 4) and r["lenient"]["EVOI_SCE"] == pytest.approx(75.0)
    assert r["counts"]["EVOI_FAC"] == {"items": 4, "scored": 4, "unparseable": 1, "invalid_reference": 0,
                                       "judged": 1, "judge_failures": 2}
    assert r["counts"]["EVOI_SCE"]["judged"] == 3 and r["counts"]["EVOI_SCE"]["judge_failures"] == 0
    assert any("EVOI_FAC: 2 judge failure" in w for w in r["warnings"])
    assert r["L4"] == pytest.approx((75 / 4 + 225 / 4) / 2)
    assert r["settings"]["judge"]["model"] == "loopback-judge" and r["settings"]["judge"]["prompt_version"] == PROMPT_VERSION
    replies = {(i["index"], i["metric"]): i for i in r["items"]}
    assert replies[(1, "EVOI_FAC")]["judge_reply"] == "5" and replies[(1, "EVOI_FAC")]["status"] == "judge_failure"
    assert replies[(1, "EVOI_FAC")]["reason"] == "score 5 is outside 0-4"
    assert r2["EVOI_FAC"] == r["EVOI_FAC"] and r2["EVOI_SCE"] == r["EVOI_SCE"]


def test_evoi_without_judge_is_not_computed(monkeypatch):
    monkeypatch.delenv("JIEZI_JUDGE_BASE_URL", raising=False)
    monkeypatch.delenv("JIEZI_JUDGE_MODEL", raising=False)
    r = score(["甲骨文象水形"], [EVOI_REF], ["EVOI"], settings={"progress": False})
    assert r["EVOI_FAC"] is None and r["EVOI_SCE"] is None and r["L4"] is None
    assert "no judge configured" in r["not_computed"]["EVOI_FAC"]
    assert r["counts"]["EVOI_FAC"]["items"] == 1 and r["counts"]["EVOI_FAC"]["judged"] == 0


def test_unreachable_judge_is_not_computed(tmp_path):
    judge = OpenAIJudge("http://127.0.0.1:9/v1", "nobody", cache=tmp_path / "c.sqlite", max_retries=0, timeout=1)
    r = score(["甲骨文象水形"], [EVOI_REF], ["EVOI_FAC"], judge=judge, settings={"progress": False})
    assert r["EVOI_FAC"] is None and "failed to get a reply" in r["not_computed"]["EVOI_FAC"]


def test_unloadable_local_judge_is_not_computed(tmp_path):
    from metrics.acce.judge import TransformersJudge

    judge = TransformersJudge(str(tmp_path / "no-such-model"), cache=tmp_path / "c.sqlite")
    r = score(["甲骨文象水形", "金文"], [EVOI_REF] * 2, ["EVOI", "EVOI"], judge=judge, settings={"progress": False})
    assert r["EVOI_FAC"] is None and r["EVOI_SCE"] is None
    assert "could not load judge model" in r["not_computed"]["EVOI_SCE"]
    assert len(judge.cache) == 0


# ---------------------------------------------------------------- issue 15: axes and JSON
BOTH_AXES = "事实对齐：3分…\n学术表达：2"


def test_a_reply_scoring_both_axes_gives_the_asked_axis_or_fails():
    assert parse_score(BOTH_AXES, "FAC") == (3, None)
    assert parse_score(BOTH_AXES, "SCE") == (2, None)
    value, error = parse_score(BOTH_AXES)  # no axis asked: two different scores are ambiguous
    assert value is None and "ambiguous" in error
    value, error = parse_score("学术表达：2", "FAC")  # only the other axis: a failure, not a FAC score
    assert value is None and "not FAC" in error


@pytest.mark.parametrize(("reply", "axis", "expected"), [
    ('{"score": 3}', "FAC", 3), ('{"score": "3"}', "SCE", 3), ('```json\n{"score": 2}\n```', None, 2),
    ('{"分数": 1}', "FAC", 1), ('{"FAC": 3, "SCE": 1}', "SCE", 1), ('{"FAC": 3, "SCE": 1}', "FAC", 3),
    ('{"score": 3.5}', "FAC", None), ('{"score": 7}', "FAC", None), ('{"score": true}', "FAC", None),
    ('{"SCE": 2}', "FAC", None),
])
def test_json_replies_parse(reply, axis, expected):
    value, error = parse_score(reply, axis)
    assert value == expected and (error is None) == (expected is not None)


@pytest.mark.server
def test_evoi_reads_each_axis_from_a_two_axis_reply(tmp_path):
    with JudgeServer({"both": [("reply", BOTH_AXES)]}) as srv:
        r = score(["金文作江 #both#"], [EVOI_REF], ["EVOI"], judge=make_judge(srv, tmp_path),
                  settings={"progress": False})
    assert r["EVOI_FAC"] == pytest.approx(75.0) and r["EVOI_SCE"] == pytest.approx(50.0)
