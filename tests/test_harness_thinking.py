"""Thinking recorded as a run setting (issue 24): ``jiezi eval --thinking on|off
--thinking-budget EFFORT`` against the loopback chat server of ``test_harness_openai``
(what the server receives, what results.json and board rows record), and a board with
one row per setting of the same model."""

from __future__ import annotations

import json

import pytest
from test_harness_openai import ChatServer, _opts
from typer.testing import CliRunner

from harness.board.table import table
from harness.board.verify import verify
from harness.eval import thinking
from harness.eval.options import EvalOptions, RunError
from harness.eval.run import evaluate
from harness_fixtures import build_hub_folders
from jiezi_cli import app


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    bench, data = build_hub_folders(tmp_path_factory.mktemp("hub"))
    return {"bench": bench, "dataset": data}


@pytest.fixture
def server():
    s = ChatServer()
    yield s
    s.close()


@pytest.mark.server
def test_each_setting_is_sent_and_recorded(hub, server, tmp_path):
    off = evaluate(_opts(hub, server, tmp_path / "off", config="L1", thinking="off"))
    sent = [(r["chat_template_kwargs"], r["reasoning_effort"]) for r in server.requests]
    assert set(map(json.dumps, sent)) == {json.dumps(({"enable_thinking": False}, None))}
    assert off["model"]["thinking"] == {"mode": "off", "budget": None,
                                        "how": "chat_template_kwargs.enable_thinking=False"}
    server.requests.clear()
    on = evaluate(_opts(hub, server, tmp_path / "on", config="L1", thinking="on", thinking_budget="high"))
    assert all(r["chat_template_kwargs"] == {"enable_thinking": True} and r["reasoning_effort"] == "high"
               for r in server.requests)
    assert on["model"]["thinking"]["mode"] == "on" and on["model"]["thinking"]["budget"] == "high"
    preds = [json.loads(x) for x in (tmp_path / "on" / "predictions.jsonl").read_text("utf-8").splitlines()]
    assert preds and all("<think>" not in p["output"] for p in preds)  # the answer, not the reasoning
    assert on["scores"]["CHAR"] == off["scores"]["CHAR"]
    server.requests.clear()
    default = evaluate(_opts(hub, server, tmp_path / "default", config="L1"))
    assert all(r["chat_template_kwargs"] is None and r["reasoning_effort"] is None for r in server.requests)
    assert default["model"]["thinking"]["mode"] == "unknown"


@pytest.mark.server
def test_a_changed_setting_is_another_run_and_bad_values_are_refused(hub, server, tmp_path):
    evaluate(_opts(hub, server, tmp_path / "run", config="L1", thinking="off"))
    with pytest.raises(RunError, match="holds another run"):
        evaluate(_opts(hub, server, tmp_path / "run", config="L1", thinking="on"))
    for kw, message in (({"thinking": "maybe"}, "expected on or off"), ({"thinking_budget": "lots"}, "minimal"),
                        ({"thinking": "off", "thinking_budget": "low"}, "applies to thinking on")):
        with pytest.raises(RunError, match=message):
            evaluate(EvalOptions(model=f"openai:m@{server.url}", bench=str(hub["bench"]), output=tmp_path / "x", **kw))


@pytest.mark.server
def test_a_board_has_one_row_per_setting(hub, server, tmp_path):
    for mode, budget in (("off", None), ("on", "high")):
        # the loopback model answers the same either way: still one row per setting
        evaluate(_opts(hub, server, tmp_path / mode, thinking=mode, thinking_budget=budget))
        res = CliRunner().invoke(app, ["leaderboard", "submit", str(tmp_path / mode / "predictions.jsonl"),
                                       "--model-name", "tiny-vl", "--board", str(tmp_path / "board"),
                                       "--bench", str(hub["bench"]), "--bertscore-model", "offline-minilm"])
        assert res.exit_code == 0 and "added row" in res.output, res.output
    rows = [r for r in table(tmp_path / "board", include_paper=False)]
    assert sorted(r.thinking for r in rows) == ["off", "on (high)"] and {r.model_name for r in rows} == {"tiny-vl"}
    assert all(verify(tmp_path / "board", r.id)["ok"] for r in rows)
    shown = CliRunner().invoke(app, ["leaderboard", "show", "--board", str(tmp_path / "board"), "--no-paper"])
    assert "thinking" in shown.output and "on (high)" in shown.output and " off " in shown.output


def test_hf_setting_follows_the_template_switch():
    class Proc:  # the attributes transformers processors carry
        def __init__(self, template):
            self.chat_template = template

    with_switch = Proc("{% if enable_thinking is defined and not enable_thinking %}<think></think>{% endif %}")
    assert thinking.hf_setting(with_switch, None, None) == (False, {"mode": "off", "budget": None,
                                                                    "how": "chat template enable_thinking=False"})
    assert thinking.hf_setting(with_switch, "on", None)[1]["mode"] == "on"
    assert thinking.hf_setting(Proc("{{ messages }}"), "on", None)[1]["mode"] == "unknown"
    with pytest.raises(ValueError, match="max-new-tokens"):
        thinking.hf_setting(with_switch, "on", "high")
    assert thinking.strip_thinking("<think>a\nb</think>\n江") == "江"
