"""LLM polish through a real OpenAI-compatible HTTP server on 127.0.0.1."""

from __future__ import annotations

import pytest
from openai_server import Reply

from builder.qa.polish import Polisher, added_facts

ORIGINAL = "1. 构件「氵」：解释=「氵」（即「水」）为形符，表示字义与「水」有关\n2. 构件「工」：解释=「工」为声符，提示字音"
FAITHFUL = "1. 构件「氵」：解释=「氵」即「水」，为形符，其字义与「水」有关\n2. 构件「工」：解释=「工」为声符，用以提示字音"
ADDS_FACT = "1. 构件「氵」：解释=「氵」即「水」，为形符，本义为长江\n2. 构件「工」：解释=「工」为声符，上古音见母东部"


@pytest.fixture()
def server(openai_server):
    """The fake OpenAI server answering from a list of replies, one per call ("500": HTTP 500)."""
    replies: list[str] = []

    def respond(call):
        reply = replies.pop(0)
        return Reply(status=500) if reply == "500" else reply

    openai_server.respond = respond
    openai_server.replies = replies
    return openai_server


def test_added_facts_detects_new_content():
    assert added_facts(ORIGINAL, FAITHFUL) == []
    reasons = added_facts(ORIGINAL, ADDS_FACT)
    assert any("new characters" in r for r in reasons)
    assert "new label '会意'" in added_facts("「江」为形声", "「江」为会意")
    assert any("'gōng'" in r for r in added_facts(ORIGINAL, ORIGINAL + " gōng"))


@pytest.mark.server
def test_polish_accepts_faithful_rewrite_and_rejects_added_fact(server, tmp_path):
    url = server.url
    server.replies[:] = [FAITHFUL, ADDS_FACT, "500"]
    pol = Polisher(url, "tiny-model", api_key="k", cache_path=tmp_path / "cache.jsonl", max_retries=0)
    item = {"kind": "COMI", "answer": ORIGINAL, "provenance": [{"field": "components"}]}
    out, status = pol.polish_item(dict(item))
    assert status == "accepted" and out["answer"] == FAITHFUL
    assert out["provenance"][-1]["rule"] == "polish:tiny-model"
    call = server.calls[0]
    assert call.path == "/v1/chat/completions" and call.auth == "Bearer k"
    assert call.model == "tiny-model" and call.body["temperature"] == 0
    assert call.messages[1]["content"] == ORIGINAL

    other = dict(item, answer=ORIGINAL + "\n3. 构件「口」：解释=「口」表意")
    out, status = pol.polish_item(other)
    assert status == "rejected" and out["answer"] == other["answer"]

    text, status, reasons = pol.polish("「日」为独体")
    assert status == "error" and text == "「日」为独体" and reasons

    # non-reasoning kinds are never sent
    _, status = pol.polish_item({"kind": "SCRC", "answer": "楷书", "provenance": []})
    assert status == "skipped" and len(server.calls) == 3

    # the cache answers a resumed run without calling the server
    pol2 = Polisher(url, "tiny-model", cache_path=tmp_path / "cache.jsonl")
    out, status = pol2.polish_item(dict(item))
    assert status == "accepted" and out["answer"] == FAITHFUL and len(server.calls) == 3
