"""score_paper: the paper's one-JSON-per-image protocol, scored as the authors' scorer does
(mode="reference") and by this project's scorer (mode="jiezi"). Every expected value is
worked by hand in the comment beside it."""

from __future__ import annotations

import json

import pytest
from test_metric_judge import JudgeServer, make_judge

from metrics.acce.paper import PAPER_METRICS, reference_judge_score, score_paper
from metrics.acce.paper_match import name_key, name_similarity, pair_components
from metrics.acce.paper_reply import (
    UnreadableReply,
    collapse,
    component_table,
    formation_labels,
    reply_object,
    script_label,
    structure_label,
)


def exact_scorer(cands, refs):
    """BERTScore stand-in for hand-worked arithmetic: 1.0 for identical texts, else 0.5."""
    return [1.0 if c == r else 0.5 for c, r in zip(cands, refs)]


NO_MODELS = {"scorer": exact_scorer}


def ref(**over):
    base = {"现代字典字头": "江", "字形": "篆书", "造字法": ["形声"], "结构": "⿰", "特殊结构": "",
            "构件": {"氵": {"功能": ["表意"], "演变类型": "保留", "解释": "水"},
                     "工": {"功能": ["表音"], "演变类型": "简化", "解释": "声符"}},
            "本义": "长江", "历代字形演变": "甲骨文从水工声"}
    base.update(over)
    return base


def reply(**over) -> str:
    return json.dumps(ref(**over), ensure_ascii=False)


def one(rep, reference=None, **kw):
    kw.setdefault("settings", NO_MODELS)
    return score_paper([rep], [reference or ref()], **kw)


# ------------------------------------------------------------------------ reading replies
@pytest.mark.parametrize("text", [
    '{"a": 1}', '```json\n{"a": 1}\n```', '答案：{"a": 1}。', '  {"a": 1}  ', '```\n说明 {"a": 1} 完\n```',
])
def test_reply_object_reads(text):
    assert reply_object(text) == {"a": 1}


@pytest.mark.parametrize("text", [
    "不知道", "", "[1, 2]", "123", '"江"', '{"a": 1} 又 {"b": 2}', '{"a": "x\ny"}', "{'a': 1}", '{"a": 1,}', None,
    '[{"a": 1}]',
])
def test_reply_object_failures(text):
    # no object, several objects, a raw newline inside a string, Python quotes, a trailing
    # comma, a list (even of objects): each is a failure
    with pytest.raises(UnreadableReply):
        reply_object(text)


# --------------------------------------------------------------------------- field rules
def test_collapse_keeps_single_spaces():
    assert collapse("江  河") == "江 河"
    assert collapse("\u3000江\n\n河\t") == "江 河"
    assert collapse(None) == "" and collapse(1) == "1"


@pytest.mark.parametrize(("raw", "label"), [
    ("甲骨", "甲骨文"), ("金", "金文"), ("古", "古文"), ("篆", "篆书"), ("小篆", "篆书"), ("大篆", "篆书"),
    ("隶", "隶书"), ("楷", "楷书"), ("草", "草书"), (" 简体 ", "简体"), ("篆书", "篆书"),
    ("楷書", ""), ("行书", ""), (["篆书"], ""), (None, ""),
])
def test_script_labels(raw, label):
    assert script_label(raw) == label  # no t2s: 楷書 is not a label


@pytest.mark.parametrize(("raw", "label"), [
    ("左右结构", "⿰"), ("上下结构", "⿱"), ("左中右结构", "⿲"), ("镶嵌结构", "⿻"), ("独体", "独体"),
    (" ⿰ ", "⿰"), ("左 右结构", ""), ("⿼", ""), ("左右", ""),
])
def test_structure_labels(raw, label):
    assert structure_label(raw) == label


def test_formation_labels():
    assert formation_labels("形声") == ["形声字"]
    assert formation_labels(["象形", "象形字", "会意"]) == ["象形字", "会意字"]
    assert formation_labels(["形声兼会意", ""]) == ["形声兼会意"]  # unknown labels stay as written
    assert formation_labels(None) == [] and formation_labels(3) == []


def test_component_table_defaults():
    table = component_table({
        " 水 ": {"功能": "表意、表音", "演变类型": "演变"},  # one unknown function text -> [符号]; 演变 -> 保留
        "工": {"功能": ["表音", "声符", "表音"], "演变类型": None, "解释": " 声  符 "},
        "口": "表意",  # not an object: dropped
        "": {"功能": ["表意"]},  # empty name: dropped
    })
    assert table == {"水": {"功能": ["符号"], "演变类型": "保留", "解释": ""},
                     "工": {"功能": ["表音"], "演变类型": "保留", "解释": "声 符"}}
    assert component_table(["水"]) == {}


@pytest.mark.parametrize(("name", "key"), [
    ("亻", "人"), ("人字旁", "人"), ("单立人", "人"), ("扌", "手"), ("王", "玉"), ("頁", "页"), ("貝", "贝"),
    ("阝(左)", "阜"), ("阝(右)", "邑"), ("阝", "阝"), ("⺼", "肉"), ("馬", "馬"), ("木字", "木字"),
    ("\u2f54", "水"),  # KANGXI RADICAL WATER: NFKC gives 水
])
def test_name_keys(name, key):
    assert name_key(name) == key


def test_similarity_and_threshold():
    assert name_similarity("甲乙丙丁戊", "甲乙丙丁己") == pytest.approx(0.8)  # 1 - 1/5
    assert name_similarity("甲 乙", "甲乙") == 1.0  # whitespace removed for the distance
    # 5 chars, one differs -> 0.8 pairs; 2 differ -> 0.6 does not
    assert pair_components(["甲乙丙丁戊"], ["甲乙丙丁己"]) == {"甲乙丙丁戊": "甲乙丙丁己"}
    assert pair_components(["甲乙丙丁戊"], ["甲乙丙己庚"]) == {}
    # no traditional -> simplified: 馬 and 马 are different one-character names (similarity 0)
    assert pair_components(["马"], ["馬"]) == {}


def test_pairing_prefers_count_then_similarity_then_names():
    # exact keys first: 亻 takes 人字旁 (same key 人)
    assert pair_components(["亻", "木"], ["人字旁", "林"]) == {"亻": "人字旁"}
    # g1 is similar to p1 (0.8) and p2 (0.8); g2 only to p1 (0.8): two pairs beat one
    g1, g2, p1, p2 = "甲乙丙丁戊", "甲乙丙丁辛", "甲乙丙丁己", "甲乙丙丁庚"
    assert name_similarity(g2, p2) == pytest.approx(0.8)
    pairs = pair_components([g1, g2], [p1, p2])
    assert len(pairs) == 2
    # equal count and total: the smaller sorted (gold, pred) tuple wins -> g1 with 己 (U+5DF1 < U+5E9A)
    assert pairs == {g1: p1, g2: p2}
    # one gold, two equally similar predictions: the smaller predicted name
    assert pair_components([g1], [p2, p1]) == {g1: p1}
    # higher similarity wins over name order: 甲乙丙丁戊己 vs 甲乙丙丁戊庚 (5/6) and 甲乙丙丁子丑 (4/6 < 0.8)
    assert pair_components(["甲乙丙丁戊己"], ["甲乙丙丁子丑", "甲乙丙丁戊庚"]) == {"甲乙丙丁戊己": "甲乙丙丁戊庚"}


# ------------------------------------------------------------------------- whole replies
def test_perfect_reply_scores_100_everywhere_but_judge():
    res = one(reply())
    for metric in PAPER_METRICS[:-2]:
        assert res[metric] == {"success_mean": 100.0, "with_failures": 100.0, "n": 1}, metric
    assert res["EVOI_FAC"]["success_mean"] is None and "judge" in res["EVOI_FAC"]["reason"]
    assert res["counts"] == {"samples": 1, "failures": 0, "successes": 1, "skipped": 0}
    assert res["protocol"] == "paper" and res["scoring"] == "reference"


def test_aliases_in_reply_fields():
    rep = reply(字形="小篆", 造字法="形声", 结构="左右结构",
                构件={"水": {"功能": "表意", "演变类型": "保留", "解释": "水"},
                      "工": {"功能": ["表音"], "演变类型": "简化", "解释": "声符"}})
    res = one(rep)
    assert [res[m]["success_mean"] for m in ("SCRC", "FORC", "STRC", "COMR", "COMF", "COME", "COMI")] == [100.0] * 7


def test_simplified_counts_as_regular_script():
    assert one(reply(字形="简体"), ref(字形="楷书"))["SCRC"]["success_mean"] == 100.0
    assert one(reply(字形="楷书"), ref(字形="简体"))["SCRC"]["success_mean"] == 100.0
    assert one(reply(字形="隶书"), ref(字形="楷书"))["SCRC"]["success_mean"] == 0.0


def test_headword_whitespace_and_no_folding():
    assert one(reply(现代字典字头=" 江 "))["CHAR"]["success_mean"] == 100.0  # collapsed then trimmed
    assert one(reply(现代字典字头="後"), ref(现代字典字头="后"))["CHAR"]["success_mean"] == 0.0
    assert one(reply(现代字典字头=""), ref(现代字典字头=""))["CHAR"]["success_mean"] == 0.0  # empty never right


def test_formation_strict_and_partial():
    # gold {形声字, 会意字}; pred {形声字}: strict 0, partial 1/2
    res = one(reply(造字法=["形声"]), ref(造字法=["形声", "会意"]))
    assert res["FORC"]["success_mean"] == 0.0 and res["FORC_partial"]["success_mean"] == 50.0
    # both empty: strict 1 and partial 1; gold empty, pred not: strict 0, partial 0
    res = one(reply(造字法=[]), ref(造字法=[]))
    assert res["FORC"]["success_mean"] == 100.0 and res["FORC_partial"]["success_mean"] == 100.0
    res = one(reply(造字法="象形"), ref(造字法=None))
    assert res["FORC"]["success_mean"] == 0.0 and res["FORC_partial"]["success_mean"] == 0.0
    # a superset is not exact: {形声字, 会意字} vs gold {形声字}: strict 0, partial 1
    res = one(reply(造字法=["形声", "会意"]))
    assert res["FORC"]["success_mean"] == 0.0 and res["FORC_partial"]["success_mean"] == 100.0


def test_component_metrics_worked_by_hand():
    # gold 氵(表意,保留,水) 工(表音,简化,声符); pred 水(表意,保留,水) 工(表意,简化,工声) 土(-)
    # pairs: 氵-水 (alias key 水), 工-工 -> 2 pairs, P = 2/3, R = 2/2 -> COMR F1 = 0.8
    # functions right: 氵 only -> P 1/3, R 1/2 -> F1 = 0.4; evolution right: both -> 0.8
    # COMI: 水/水 = 1.0, 工声/声符 = 0.5 -> sum 1.5 -> P 0.5, R 0.75 -> F1 = 0.6
    rep = reply(构件={"水": {"功能": ["表意"], "演变类型": "保留", "解释": "水"},
                      "工": {"功能": ["表意"], "演变类型": "简化", "解释": "工声"}, "土": {}})
    res = one(rep)
    assert res["COMR"]["success_mean"] == pytest.approx(80.0)
    assert res["COMF"]["success_mean"] == pytest.approx(40.0)
    assert res["COME"]["success_mean"] == pytest.approx(80.0)
    assert res["COMI"]["success_mean"] == pytest.approx(60.0)


def test_component_defaults_and_empty_explanations():
    # both sides omit 功能 / 演变类型 -> [符号] and 保留 agree; both 解释 empty add 0 to COMI
    gold = ref(构件={"口": {}})
    res = one(reply(构件={"口": {"解释": ""}}), gold)
    assert res["COMF"]["success_mean"] == 100.0 and res["COME"]["success_mean"] == 100.0
    assert res["COMI"]["success_mean"] == 0.0


def test_long_gold_name_is_never_dropped():
    # gold 氵 and a 14-character name; the reply names 水 only: 1 pair, P = 1/1, R = 1/2 -> 2/3
    long_name = "长长的构件名称一二三四五六七"
    gold = ref(构件={"氵": {"功能": ["表意"]}, long_name: {"功能": ["表意"]}})
    res = one(reply(构件={"水": {"功能": ["表意"]}}), gold)
    assert res["COMR"]["success_mean"] == pytest.approx(200 / 3)


def test_reference_without_components_scores_zero():
    res = one(reply(构件={}), ref(构件={}))
    assert res["COMR"]["success_mean"] == 0.0 and res["COMI"]["success_mean"] == 0.0


def test_orim_rows_empty_on_both_sides_are_left_out():
    refs = [ref(本义=""), ref(本义="长江"), ref(本义="长江")]
    reps = [reply(本义=""), reply(本义=""), reply(本义="长江")]
    res = score_paper(reps, refs, settings=NO_MODELS)
    # row 0 has no ORIM value; row 1: one side empty -> 0; row 2: 1.0 -> mean (0 + 100) / 2
    assert res["ORIM"] == {"success_mean": 50.0, "with_failures": 50.0, "n": 2}
    assert res["per_item"][0]["ORIM"] is None and res["per_item"][1]["ORIM"] == 0.0


def test_failures_and_the_with_failures_aggregate():
    # 3 successes (CHAR 1, 1, 0) and 1 failure: success mean 66.67; with failures 66.67 x 3/4 = 50
    reps = [reply(), reply(), reply(现代字典字头="河"), "我不知道这个字。"]
    res = score_paper(reps, [ref()] * 4, settings=NO_MODELS)
    assert res["CHAR"]["success_mean"] == pytest.approx(200 / 3)
    assert res["CHAR"]["with_failures"] == pytest.approx(50.0)
    assert res["CHAR"]["n"] == 3 and res["counts"]["failures"] == 1 and res["per_item"][3] is None
    assert res["failures"][0]["index"] == 3


def test_all_failures_give_no_value():
    res = score_paper(["不知道"], [ref()], settings=NO_MODELS)
    assert res["CHAR"] == {"success_mean": None, "with_failures": None, "n": 0}


def test_no_bertscore_means_none_with_reason():
    res = one(reply(), settings={"bertscore": False})
    assert res["COMI"]["success_mean"] is None and res["ORIM"]["success_mean"] is None
    assert "BERTScore" in res["COMI"]["reason"] and res["COMR"]["success_mean"] == 100.0


def test_unreadable_reference_is_skipped_not_raised():
    res = score_paper([reply(), reply()], [ref(), ["not", "an", "object"]], settings=NO_MODELS)
    assert res["counts"]["skipped"] == 1 and res["skipped"][0]["index"] == 1
    assert res["CHAR"]["n"] == 1 and res["counts"]["samples"] == 1
    with pytest.raises(ValueError):
        score_paper([reply()], [], settings=NO_MODELS)
    with pytest.raises(ValueError):
        score_paper([reply()], [ref()], mode="other")


def test_reference_as_json_text():
    assert one(reply(), json.dumps(ref(), ensure_ascii=False))["STRC"]["success_mean"] == 100.0


# ----------------------------------------------------------------------------- judge
@pytest.mark.parametrize(("raw", "value"), [
    ('{"score": 3, "reason": "ok"}', 3.0), ('{"score": "3"}', 3.0), ('{"score": 5}', 4.0), ('{"score": -1}', 0.0),
    ('{"score": 2.5}', 2.0), ('{"score": 3.5}', 4.0),  # round half to even
    ('{"score": "high"}', 0.0), ('{"reason": "none"}', 0.0), ('{"fact_alignment": {"score": 1}}', 1.0),
    ('{"fact_alignment": 2}', 2.0), ("分数：3", None), (None, None), ('{"score": NaN}', None),
])
def test_reference_judge_reading(raw, value):
    assert reference_judge_score(raw, "fact_alignment") == value


def test_judge_callable_scales_and_skips_empty_reference():
    calls = []

    def judge(axis, reference, prediction):
        calls.append((axis, reference, prediction))
        return 3 if axis == "FAC" else None  # SCE fails: left out

    refs = [ref(), ref(历代字形演变="  ")]
    res = score_paper([reply(), reply()], refs, settings=NO_MODELS, judge=judge)
    assert len(calls) == 2  # one row x two axes; the empty reference is not judged
    assert res["EVOI_FAC"] == {"success_mean": 75.0, "with_failures": 75.0, "n": 1}
    assert res["EVOI_SCE"] == {"success_mean": None, "with_failures": None, "n": 0}


@pytest.mark.server
def test_judge_over_loopback_server_json_and_text_replies(tmp_path):
    behaviours = {"a:FAC": [("reply", '{"score": 4}')], "a:SCE": [("reply", '{"score": "2"}')],
                  "b:FAC": [("reply", "分数：1")], "b:SCE": [("reply", "无法评分")]}
    with JudgeServer(behaviours) as srv:
        judge = make_judge(srv, tmp_path)
        reps = [reply(历代字形演变="#a# 甲骨文从水"), reply(历代字形演变="#b# 金文"), "失败"]
        res = score_paper(reps, [ref()] * 3, settings=NO_MODELS, judge=judge)
    # FAC: 4 and 1 -> (100 + 25) / 2 = 62.5; with failures x 2/3
    assert res["EVOI_FAC"]["success_mean"] == pytest.approx(62.5)
    assert res["EVOI_FAC"]["with_failures"] == pytest.approx(62.5 * 2 / 3)
    # SCE: "2" -> 50; the unparseable judge reply is a judge failure, left out
    assert res["EVOI_SCE"] == {"success_mean": 50.0, "with_failures": pytest.approx(100 / 3), "n": 1}
    assert res["settings"]["judge"]["failures"] == 1


# ------------------------------------------------------------------------ jiezi mode
def test_jiezi_mode_reads_free_text_and_json():
    reps = [reply(字形="小篆"), "这是篆书的“江”字，形声字，左右结构。"]
    res = score_paper(reps, [ref(), ref()], mode="jiezi", settings={"bertscore": False})
    assert res["scoring"] == "jiezi" and res["counts"]["failures"] == 1
    assert res["per_item"][0]["CHAR"] == 100.0 and res["per_item"][0]["SCRC"] == 100.0
    assert res["per_item"][1]["SCRC"] == 100.0 and res["per_item"][1]["STRC"] == 100.0
    assert res["ORIM"]["success_mean"] is None and "BERTScore" in res["ORIM"]["reason"]


def test_official_reference_from_bench_structs():
    from metrics.acce.paper import official_reference

    structs = [{"character": "江"}, {"script": "战国文字"}, {"structure": "⿰"},
               {"formation": ["形声"], "yisheng": True},
               {"components": [{"name": "氵", "functions": ["表意"], "interpretation": "水"}]},  # aspect question
               {"components": [{"name": "氵", "functions": ["表意"], "interpretation": "水", "evolution_type": "简化"}]},
               json.dumps({"original_meaning": "长江"}, ensure_ascii=False), {"evolution": "从水工声"}]
    ref = official_reference(structs)
    assert tuple(ref) == ("现代字典字头", "字形", "造字法", "结构", "特殊结构", "构件", "本义", "历代字形演变")
    assert ref["字形"] == "古文"  # the official label of 战国文字
    assert ref["造字法"] == ["形声字", "会意字"]  # 亦声: both labels
    assert ref["构件"] == {"氵": {"功能": ["表意"], "解释": "水", "演变类型": "简化"}}  # the richer question wins
    assert official_reference([]) == {"现代字典字头": "", "字形": "", "造字法": [], "结构": "", "特殊结构": "",
                                      "构件": {}, "本义": "", "历代字形演变": ""}
    # the reference answers itself perfectly under the reference scorer
    res = score_paper([json.dumps(ref, ensure_ascii=False)], [ref], settings=NO_MODELS)
    assert all(res[m]["success_mean"] == 100.0 for m in ("CHAR", "SCRC", "STRC", "FORC", "COMR", "COMF", "COME"))
