"""metrics.acce.core.score: hand-worked expected values for the exact metrics (ACCE.md section 2).

BERTScore (ORIM, COMI) is in test_metric_bertscore.py and the judge (EVOI) in
test_metric_judge.py; here they are switched off and must say so.
"""

from __future__ import annotations

import json

import pytest

from metrics.acce.core import ScorerSettings, parse_answer, score
from metrics.acce.inputs import metrics_of

EXACT = {"bertscore": False, "progress": False}

CHAR = [  # (prediction, reference, expected per-question score or None for unparseable)
    ("江", {"character": "江"}, 1),
    ("「河」", {"character": "江"}, 0),
    ("   ", {"character": "江"}, None),                # whitespace answer
    ("該字為「漢」", {"character": "汉"}, 1),          # traditional vs simplified
    ("𠀀", {"character": "𠀀"}, 1),                    # CJK Extension B
    ("The character is 江.", "江", 1),                 # English; text reference
    ("不是「河」，而是「江」", {"character": "江"}, 1),  # negated candidate skipped
]
SCRC = [
    ("篆書", {"script": "篆书"}, 1),
    ("简体", {"script": "楷书"}, 1),                    # 简体 counts as 楷书
    ("楷书", {"script": "简体"}, 1),
    ("这是小篆，由甲骨文演变而来", {"script": "篆书"}, 1),
    ("不是金文", {"script": "金文"}, None),             # only a negated label
    ("ＯＲＡＣＬＥ ＢＯＮＥ ｓｃｒｉｐｔ", {"script": "甲骨文"}, 1),  # full-width text
    ("隶书", {"script": "篆书"}, 0),
]
STRC = [
    ("⿰", {"structure": "⿰"}, 1),
    ("左右結構", {"structure": "⿰"}, 1),
    ("top-bottom", {"structure": "⿰"}, 0),
    ("⿱从⿰口口", {"structure": "⿱"}, 1),            # an IDS, kept intact: its top-level IDC
    ("", {"structure": "⿰"}, None),                  # empty answer
]
FORC = [  # (prediction, reference, exact, partial)
    ("形聲字", {"formation": ["形声"], "yisheng": False}, 1, 1),
    ("会意兼形声", {"formation": ["形声", "会意"]}, 1, 1),
    ("会意字", {"formation": ["形声", "会意"]}, 0, 0.5),
    ("不是形声字", {"formation": ["形声"]}, None, 0),   # negated label: unparseable
    ("phono-semantic compound", {"formation": ["形声"], "yisheng": True}, 0, 0.5),  # yisheng gold = {形声, 会意}
    ("This is not a pictograph but an ideogrammic compound.", json.dumps({"formation": ["会意"]}), 1, 1),
]

GOLD_A = {"components": [
    {"name": "人", "functions": ["表意"], "interpretation": "人形", "evolution_type": "保留"},
    {"name": "木", "functions": ["表意"], "interpretation": "树木", "evolution_type": "保留"}]}
PRED_A = "```json\n" + json.dumps([  # 亻 vs 人; more predicted components than gold
    {"name": "亻", "functions": ["表意"], "evolution_type": "保留"},
    {"name": "木", "functions": ["表音"], "evolution_type": "讹变"},
    {"name": "口", "functions": ["表意"], "evolution_type": "保留"}], ensure_ascii=False) + "\n```"
GOLD_B = {"components": [
    {"name": "辶", "functions": ["表意"], "interpretation": "行走", "evolution_type": "简化"},
    {"name": "首", "functions": ["表音"], "interpretation": "声符", "evolution_type": "保留"}]}
PRED_B = "1. 构件⻌：功能=表意；演变类型=简化；解释=表示行走。；2. 构件首：功能=表音；演变类型=保留；解释=声符。"
GOLD_C = {"components": [  # 林: the same component twice
    {"name": "木", "functions": ["表意"], "interpretation": "树", "evolution_type": "保留"},
    {"name": "木", "functions": ["表意"], "interpretation": "树", "evolution_type": "保留"}]}
PRED_C = "- 木：表意，保留\n- 木：表意，保留"
GOLD_E = {"components": [
    {"name": "木缶木冖鬯", "functions": ["表意"], "interpretation": "x", "evolution_type": "保留"},
    {"name": "彡", "functions": ["表意"], "interpretation": "x", "evolution_type": "保留"}]}
PRED_E = '[{"name": "木缶木冖彡", "functions": ["表意"], "evolution_type": "保留"}]'
GOLD_F = {"components": [
    {"name": "手", "functions": ["表意"], "interpretation": "手", "evolution_type": "保留"},
    {"name": "工", "functions": ["表音"], "interpretation": "声", "evolution_type": "保留"}]}
PRED_F = "- 扌：表意；保留\n- 工：表音；简化\n- 口：符号；保留\n- 一：符号；繁化"
COMPONENTS = [  # (prediction, reference, COMR, COMF, COME) with None = unparseable
    (PRED_A, GOLD_A, 0.8, 0.4, 0.4),          # 2 pairs of 3 predicted / 2 gold
    (PRED_B, GOLD_B, 1, 1, 1),                 # ⻌ vs 辶
    (PRED_C, GOLD_C, 1, 1, 1),                 # repeated components count once
    ("  ", GOLD_A, None, None, None),          # whitespace answer
    (PRED_E, GOLD_E, 2 / 3, 2 / 3, 2 / 3),     # fuzzy pair (similarity 0.8), 1 of 2 gold
    (PRED_F, GOLD_F, 2 / 3, 2 / 3, 1 / 3),     # 扌 vs 手; 4 predicted / 2 gold; one evolution wrong
]


def _strict(values):
    return 100 * sum(v or 0 for v in values) / len(values)


def _lenient(values):
    parsed = [v for v in values if v is not None]
    return 100 * sum(parsed) / len(parsed)


def _run():
    preds, refs, subs = [], [], []
    for rows, code in ((CHAR, "CHAR"), (SCRC, "SCRC"), (STRC, "STRC")):
        for pred, ref, _ in rows:
            preds.append(pred)
            refs.append(ref)
            subs.append(code)
    for pred, ref, _, _ in FORC:
        preds.append(pred)
        refs.append(ref)
        subs.append("FORC")
    for pred, ref, *_ in COMPONENTS:
        preds.append(pred)
        refs.append(json.dumps(ref, ensure_ascii=False))
        subs.append(["COMR", "COMF", "COME"])
    return score(preds, refs, subs, settings=EXACT, judge=False)


@pytest.fixture(scope="module")
def result():
    return _run()


@pytest.mark.parametrize(("metric", "rows"), [("CHAR", CHAR), ("SCRC", SCRC), ("STRC", STRC)])
def test_categorical_metrics(result, metric, rows):
    values = [v for *_, v in rows]
    assert result[metric] == pytest.approx(_strict(values))
    assert result["lenient"][metric] == pytest.approx(_lenient(values))
    assert result["counts"][metric] == {"items": len(rows), "scored": len(rows),
                                        "unparseable": values.count(None), "invalid_reference": 0}


def test_hand_worked_numbers(result):
    assert result["CHAR"] == pytest.approx(100 * 5 / 7)
    assert result["lenient"]["CHAR"] == pytest.approx(100 * 5 / 6)
    assert result["SCRC"] == pytest.approx(100 * 5 / 7)
    assert result["STRC"] == pytest.approx(60.0) and result["lenient"]["STRC"] == pytest.approx(75.0)
    assert result["FORC"] == pytest.approx(50.0) and result["lenient"]["FORC"] == pytest.approx(60.0)
    assert result["FORC_partial"] == pytest.approx(100 * 4 / 6)
    assert result["lenient"]["FORC_partial"] == pytest.approx(80.0)
    assert result["COMR"] == pytest.approx(100 * (0.8 + 1 + 1 + 0 + 2 / 3 + 2 / 3) / 6)
    assert result["COMF"] == pytest.approx(100 * (0.4 + 1 + 1 + 0 + 2 / 3 + 2 / 3) / 6)
    assert result["COME"] == pytest.approx(100 * (0.4 + 1 + 1 + 0 + 2 / 3 + 1 / 3) / 6)
    assert result["lenient"]["COMR"] == pytest.approx(100 * (0.8 + 1 + 1 + 2 / 3 + 2 / 3) / 5)


def test_forc_and_components_rows(result):
    assert result["FORC"] == pytest.approx(_strict([e for *_, e, _ in FORC]))
    assert result["FORC_partial"] == pytest.approx(_strict([p for *_, p in FORC]))
    for idx, metric in ((2, "COMR"), (3, "COMF"), (4, "COME")):
        values = [row[idx] for row in COMPONENTS]
        assert result[metric] == pytest.approx(_strict(values))
        assert result["counts"][metric]["unparseable"] == 1


def test_levels_macro_and_not_computed(result):
    assert result["L1"] == pytest.approx((result["CHAR"] + result["SCRC"]) / 2)
    l2 = [result[m] for m in ("STRC", "COMR", "COMF", "FORC")]
    assert result["L2"] == pytest.approx(sum(l2) / 4)
    assert result["L3"] is None and result["ORIM"] is None and result["COMI"] is None
    assert result["L4"] == pytest.approx(result["COME"])
    computed = ["CHAR", "SCRC", "STRC", "COMR", "COMF", "FORC", "COME"]
    assert result["aggregation"]["levels"]["macro"] == computed
    assert result["macro"] == pytest.approx(sum(result[m] for m in computed) / 7)
    assert result["EVOI_FAC"] is None and result["EVOI_SCE"] is None
    assert "not_computed" in result and "ORIM" not in result["not_computed"]  # ORIM: no item asked for it
    assert result["counts"]["ORIM"]["items"] == 0


def test_settings_are_recorded(result):
    s = result["settings"]
    # EXACT turns BERTScore off: the settings name no model rather than the default one
    assert s["scorer"]["bertscore"] is False
    assert s["scorer"]["bertscore_model"] is None and s["scorer"]["bertscore_layers"] is None
    assert s["bertscore"] is None or s["bertscore"]["model"] is None
    assert s["normalization"]["opencc"] == "t2s"
    assert s["component_matching"]["levenshtein_similarity_min"] == 0.8
    assert s["versions"]["bert_score"] and s["versions"]["opencc"]


def test_bad_items_are_skipped_not_fatal():
    r = score(["江", "篆书", "形声", "木"],
              [{"character": "江"}, "{not json", {"script": "篆书"}, {"components": []}],
              ["CHAR", "SCRC", "XYZ", ["COMR"]], ids=["a", "b", "c", "d"], settings=EXACT)
    assert r["CHAR"] == 100.0
    assert r["SCRC"] is None and r["COMR"] is None
    reasons = {(s["id"], s["field"]) for s in r["skipped"]}
    assert reasons == {("b", "references"), ("c", "subtasks"), ("d", "references")}
    assert r["counts"]["COMR"]["invalid_reference"] == 1
    with pytest.raises(ValueError, match="references has 1 entries but predictions has 2"):
        score(["a", "b"], ["a"], ["CHAR", "CHAR"])


def test_reference_missing_attribute_is_invalid_not_zero():
    gold = {"components": [{"name": "木", "functions": ["表意"], "interpretation": "", "evolution_type": None}]}
    r = score(["- 木：表意，保留"], [gold], [["COMR", "COMF", "COME"]], settings=EXACT)
    assert r["COMR"] == 100.0 and r["COMF"] == 100.0
    assert r["COME"] is None and r["counts"]["COME"]["invalid_reference"] == 1
    assert "evolution_type" in r["skipped"][0]["reason"]


def test_reference_defaults_setting_reproduces_reference_code():
    gold = {"components": [{"name": "木", "functions": ["符号"], "interpretation": "x", "evolution_type": "保留"}]}
    pred = '[{"name": "木"}]'  # states neither function nor evolution type
    strict = score([pred], [gold], [["COMF", "COME"]], settings=EXACT)
    assert strict["COMF"] == 0.0 and strict["COME"] == 0.0
    ref = score([pred], [gold], [["COMF", "COME"]], settings={**EXACT, "reference_defaults": True})
    assert ref["COMF"] == 100.0 and ref["COME"] == 100.0


def test_breakdown_by_script_and_split():
    preds = ["江", "河", "篆书", "隶书"]
    refs = [{"character": "江"}, {"character": "江"}, {"script": "篆书"}, {"script": "篆书"}]
    r = score(preds, refs, ["CHAR", "CHAR", "SCRC", "SCRC"], scripts=["篆书", "金文", "篆书", "金文"],
              splits=[["unseen_characters"], [], ["unseen_characters", "unseen_glyphs"], []], settings=EXACT)
    b = r["breakdown"]
    assert b["script"]["篆书"]["CHAR"] == 100.0 and b["script"]["金文"]["CHAR"] == 0.0
    assert b["split"]["all"]["CHAR"] == 50.0 and b["split"]["all"]["n_items"] == 4
    assert b["split"]["unseen_characters"]["SCRC"] == 100.0 and b["split"]["unseen_glyphs"]["n_items"] == 1
    assert b["script_split"]["篆书"]["unseen_characters"]["CHAR"] == 100.0
    assert b["script_split"]["金文"]["all"]["SCRC"] == 0.0


def test_details_items_and_parse_answer():
    r = score(["形聲字", ""], [{"formation": ["形声"]}, {"formation": ["会意"]}], ["FORC", "FORC"],
              ids=["x", "y"], settings=EXACT, details=True)
    items = {i["id"]: i for i in r["items"]}
    assert items["x"]["parsed"] == ["形声"] and items["x"]["score"] == 100.0 and items["x"]["status"] == "ok"
    assert items["y"]["status"] == "unparseable" and items["y"]["score"] == 0.0
    assert parse_answer("形聲字", "FORC") == {"formation": ["形声"], "yisheng": False}
    assert parse_answer("会意兼形声", "FORC") == {"formation": ["会意", "形声"], "yisheng": True}
    assert parse_answer("该字为「江」", "CHAR") == {"character": "江"}
    assert parse_answer("小篆", "SCRC") == {"script": "篆书"}
    assert parse_answer("左右结构", "STRC") == {"structure": "⿰"}
    assert parse_answer("江：从水，工声。", ["COMR", "COMF"])["components"][1] == {
        "name": "工", "functions": ["表音"], "interpretation": "", "evolution_type": None}
    assert parse_answer("**本义**：长江。", "ORIM") == {"original_meaning": "长江。"}
    assert parse_answer("甲骨文象水流", "EVOI_FAC") == {"evolution": "甲骨文象水流"}
    assert parse_answer("  ", "ORIM") is None and parse_answer("不是形声字", "FORC") is None
    with pytest.raises(ValueError, match="unknown ACCE subtask"):
        parse_answer("x", "FOO")


def test_metrics_of_and_settings():
    assert metrics_of("EVOI") == ["EVOI_FAC", "EVOI_SCE"]
    assert metrics_of(["COMR", "COMF", "COMI", "COME"]) == ["COMR", "COMF", "COMI", "COME"]
    assert metrics_of('["COMR","COMF"]') == ["COMR", "COMF"] and metrics_of("comr, comf") == ["COMR", "COMF"]
    assert ScorerSettings().bertscore_model == "bert-base-chinese"
    with pytest.raises(ValueError):
        ScorerSettings(bertscore_layers=0)


def test_splits_accepts_one_name_as_a_string_per_item():
    # A plain string per item is one split, not one split per letter.
    preds, refs = ["江", "河"], [{"character": "江"}, {"character": "江"}]
    r = score(preds, refs, ["CHAR", "CHAR"], splits=["unseen_characters", None], settings=EXACT)
    assert set(r["breakdown"]["split"]) == {"all", "unseen_characters"}
    unseen = r["breakdown"]["split"]["unseen_characters"]
    assert unseen["n_items"] == 1 and unseen["CHAR"] == 100.0
    twice = score(preds, refs, ["CHAR", "CHAR"], splits=[["unseen_glyphs", "unseen_glyphs"], ["test"]], settings=EXACT)
    assert twice["breakdown"]["split"]["unseen_glyphs"]["n_items"] == 1  # a repeated name counts once
    assert twice["breakdown"]["split"]["test"]["n_items"] == 1


@pytest.mark.parametrize(("splits", "message"), [
    ([["foo"]], r"splits\[0\] has unknown split 'foo'"),
    ([[], ["unseen_character"]], r"splits\[1\] has unknown split 'unseen_character'"),
    ([["unseen_glyphs"], "unseen-glyphs"], r"splits\[1\] has unknown split 'unseen-glyphs'"),
    ([[], 3], r"splits\[1\] is int 3"),
])
def test_splits_rejects_unknown_names_naming_the_item(splits, message):
    n = len(splits)
    with pytest.raises(ValueError, match=message) as err:
        score(["江"] * n, [{"character": "江"}] * n, ["CHAR"] * n, splits=splits, settings=EXACT)
    assert "['test', 'unseen_characters', 'unseen_glyphs']" in str(err.value)  # the allowed names
    with pytest.raises(ValueError, match="one entry per item"):
        score(["江"], [{"character": "江"}], ["CHAR"], splits="unseen_glyphs", settings=EXACT)


# ----------------------------------------------------------------- issue 13 fixes
@pytest.mark.parametrize(("pred", "gold", "expected"), [
    ("馬", "马", 1), ("马", "馬", 1), ("字头：書", "书", 1),    # one-to-one pairs are one character
    ("後", "后", 0), ("后", "後", 0), ("雲", "云", 0), ("乾", "干", 0), ("歷", "历", 0),  # not one-to-one
    ("後", "後", 1), ("该字为「後」", "後", 1),               # a traditional answer keeps its form
])
def test_char_traditional_simplified_one_to_one_only(pred, gold, expected):
    res = score([pred], [{"character": gold}], ["CHAR"], settings=EXACT, judge=False)
    assert res["CHAR"] == 100.0 * expected


def test_component_names_fold_one_to_one_only():
    gold = {"components": [{"name": "馬", "functions": ["表意"]}, {"name": "後", "functions": ["表意"]}]}
    pred = json.dumps([{"name": "马", "functions": ["表意"]}, {"name": "后", "functions": ["表意"]}],
                      ensure_ascii=False)
    # 馬-马 pair; 後/后 do not: P = 1/2, R = 1/2 -> COMR 50
    res = score([pred], [gold], [["COMR"]], settings=EXACT, judge=False)
    assert res["COMR"] == pytest.approx(50.0)


def test_no_gold_component_is_dropped():
    # gold: 氵 and a 14-character name; the answer names 水 only: P 1/1, R 1/2 -> 66.7 (was 100
    # when the long gold name was dropped)
    long_name = "长长的构件名称一二三四五六七"
    gold = {"components": [{"name": "氵", "functions": ["表意"]}, {"name": long_name, "functions": ["表意"]}]}
    res = score(['[{"name": "水", "functions": ["表意"]}]'], [gold], [["COMR"]], settings=EXACT, judge=False)
    assert res["COMR"] == pytest.approx(200 / 3)


@pytest.mark.parametrize("answer", ["不知道", "我不知道。", "无法判断", "不确定", "Unknown", "I don't know.",
                                    "抱歉，我无法确定这个字的本义。", "本义：未知"])
def test_refusal_is_unparseable_on_orim(answer):
    # unparseable before any BERTScore call: 0, counted, no model needed
    res = score([answer], [{"original_meaning": "长江"}], ["ORIM"],
                settings={"bertscore_model": "no-such-model-dir", "progress": False}, judge=False, details=True)
    cell = res["items"][0]
    assert cell["status"] == "unparseable" and cell["reason"] == "explicit refusal"
    assert res["counts"]["ORIM"]["unparseable"] == 1


def test_hedged_answer_is_not_a_refusal():
    from metrics.acce.normalize import is_refusal

    assert not is_refusal("不确定，可能是水名") and not is_refusal("长江") and is_refusal("无")


def test_refused_component_interpretation_earns_no_credit():
    # 水 pairs with 氵 but its interpretation is a refusal: weight 0 -> COMI 0 without BERTScore
    gold = {"components": [{"name": "氵", "functions": ["表意"], "interpretation": "水流"}]}
    pred = json.dumps([{"name": "水", "functions": ["表意"], "interpretation": "不知道"}], ensure_ascii=False)
    res = score([pred], [gold], [["COMI"]], settings={"bertscore_model": "offline-minilm", "progress": False},
                judge=False)
    if res["COMI"] is None:
        pytest.skip(f"offline BERTScore model not installed: {res['not_computed']}")
    assert res["COMI"] == 0.0


@pytest.mark.parametrize(("reply", "value"), [('{"score": 3}', 3), ('{"score": "3"}', 3),
                                               ('```json\n{"score": 4, "reason": "ok"}\n```', 4),
                                               ('{"score": 5}', None),
                                               ('{"score": 2.5}', None)])
def test_judge_json_replies_parse(reply, value):
    from metrics.acce.judge import parse_score

    assert parse_score(reply)[0] == value


def test_one_to_one_table_matches_unihan(sources_dir):
    from metrics.acce.variants import ONE_TO_ONE, pairs_from_unihan

    path = sources_dir / "unihan" / "Unihan_Variants.txt"
    if not path.exists():
        pytest.skip("Unihan sources not present")
    assert pairs_from_unihan(path) == ONE_TO_ONE
    assert ONE_TO_ONE["馬"] == "马" and ONE_TO_ONE["點"] == "点"
    assert not {"後", "雲", "乾", "歷"} & set(ONE_TO_ONE)
