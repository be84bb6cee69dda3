"""hub.openai_client: the one OpenAI-compatible client (the openai package's retries and
timeouts) and its reply cache, against the tests' fake server."""

from __future__ import annotations

import pickle

import pytest
from openai_server import Reply

from hub.openai_client import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, ChatClient, ChatError, ReplyCache, cache_key
from metrics.acce import judge


def test_the_judge_states_the_same_client_settings():
    # metrics/acce is published alone and cannot import hub: its copy of the settings must agree
    assert (judge.DEFAULT_TIMEOUT, judge.DEFAULT_MAX_RETRIES) == (DEFAULT_TIMEOUT, DEFAULT_MAX_RETRIES)
    j = judge.OpenAIJudge("http://127.0.0.1:9/v1", "m", cache=False)
    assert (j.timeout, j.max_retries) == (DEFAULT_TIMEOUT, DEFAULT_MAX_RETRIES)


@pytest.mark.server
def test_retries_then_answers_and_passes_parameters(openai_server):
    replies = [Reply(status=503), Reply(status=429, headers={"Retry-After": "0"}), "江"]
    openai_server.respond = lambda call: replies.pop(0)
    client = ChatClient(openai_server.url, "tiny", api_key="sk-x", max_retries=2)
    reply = client.complete([{"role": "user", "content": "字"}], temperature=0, max_tokens=7)
    assert reply.text == "江" and reply.finish_reason == "stop" and len(openai_server.calls) == 3
    call = openai_server.calls[-1]
    assert call.auth == "Bearer sk-x" and call.model == "tiny" and call.body["max_tokens"] == 7


@pytest.mark.server
def test_no_usable_reply_is_a_chat_error(openai_server):
    client = ChatClient(openai_server.url, "tiny", max_retries=1)
    openai_server.respond = lambda call: Reply("server exploded", status=500)
    with pytest.raises(ChatError, match="InternalServerError.*server exploded"):
        client.complete([{"role": "user", "content": "x"}])
    assert len(openai_server.calls) == 2  # one retry
    openai_server.respond = lambda call: Reply(body="<html>oops")
    with pytest.raises(ChatError, match="malformed reply"):
        client.complete([{"role": "user", "content": "x"}])
    openai_server.respond = lambda call: Reply(body='{"choices": []}')
    with pytest.raises(ChatError, match="no message"):
        client.complete([{"role": "user", "content": "x"}])
    with pytest.raises(ChatError, match="APIConnectionError"):
        ChatClient("http://127.0.0.1:9/v1", "m", max_retries=0, timeout=2).complete([{"role": "user", "content": "x"}])


@pytest.mark.server
def test_a_copy_sent_to_a_worker_opens_its_own_connections(openai_server):
    openai_server.respond = lambda call: "ok"
    client = ChatClient(openai_server.url, "tiny")
    client.complete([{"role": "user", "content": "x"}])
    copy = pickle.loads(pickle.dumps(client))
    assert copy.complete([{"role": "user", "content": "x"}]).text == "ok"


def test_reply_cache_survives_a_torn_line(tmp_path):
    path = tmp_path / "cache.jsonl"
    cache = ReplyCache(path)
    key = cache_key("model", "prompt-v1", "江")
    cache.put(key, {"formation": "形声"})
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('{"key": "cut off')  # the last line of a crashed run
    again = ReplyCache(path)
    assert len(again) == 1 and again.get(key) == {"formation": "形声"} and again.get("other") is None
