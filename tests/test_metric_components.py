"""Component answers: parsing layouts, one-to-one matching and per-question F1 (metrics/acce/components.py)."""

from __future__ import annotations

import json
import re

import pytest

from metrics.acce.component_match import f1_from_counts, match_components
from metrics.acce.component_record import Component, clean_name
from metrics.acce.components import components_from_json, parse_components


def names(comps):
    return [c.name for c in comps]


def test_official_jiezi_layout(sources_dir):
    # The official VQA sample layout, read from the source cache (format interoperability only).
    data = json.loads((sources_dir / "jiezi-official-samples" / "vqa_data.json").read_text(encoding="utf-8"))
    answers = [ex["answer"] for level in data["levels"] for ex in level["examples"] if ex["task"] == "components"]
    assert answers
    for answer in answers:
        comps = parse_components(answer)
        assert comps, answer
        assert all(c.functions and c.evolution_type and c.interpretation for c in comps), answer
        assert len(comps) == len(re.findall(r"\d+\. 构件", answer))
    first = parse_components("1. 构件人：功能=表意；演变类型=保留；解释=象人形，表示人在林中采集。；"
                             "2. 构件林：功能=表意；演变类型=讹变；解释=象二木并立。")
    assert [c.to_dict() for c in first] == [
        {"name": "人", "functions": ["表意"], "interpretation": "象人形,表示人在林中采集", "evolution_type": "保留"},
        {"name": "林", "functions": ["表意"], "interpretation": "象二木并立", "evolution_type": "讹变"},
    ]


@pytest.mark.parametrize("answer", [
    "1. 构件「氵」：功能=表意；演变类型=保留；解释=象水流之形\n2. 构件「工」：功能=表意、表音；演变类型=简化；解释=工亦声",
    "1. Component 氵: function = semantic; evolution = retention; explanation = 象水流之形\n"
    "2. Component 工: function = semantic, phonetic; evolution = simplification; explanation = 工亦声",
])
def test_bench_reference_layouts(answer):
    # the layouts this project's builder writes for reference answers (Chinese and English)
    assert [c.to_dict() for c in parse_components(answer)] == [
        {"name": "氵", "functions": ["表意"], "interpretation": "象水流之形", "evolution_type": "保留"},
        {"name": "工", "functions": ["表意", "表音"], "interpretation": "工亦声", "evolution_type": "简化"}]
    assert names(parse_components("1. 构件「氵」\n2. 构件「工」")) == ["氵", "工"]


def test_json_inside_markdown_fence():
    answer = ("分析如下：\n```json\n" + json.dumps({"components": [
        {"name": "氵", "functions": ["表意"], "interpretation": "象水流之形", "evolution_type": "保留"},
        {"name": "工", "function": "表音", "explanation": "声符", "evolution": "简化"},
    ]}, ensure_ascii=False) + "\n```\n以上。")
    comps = parse_components(answer)
    assert [c.to_dict() for c in comps] == [
        {"name": "氵", "functions": ["表意"], "interpretation": "象水流之形", "evolution_type": "保留"},
        {"name": "工", "functions": ["表音"], "interpretation": "声符", "evolution_type": "简化"},
    ]


def test_json_shapes():
    ref_code_layout = {"构件": {"木": {"功能": ["表意"], "演变类型": "保留", "解释": "树"}}}
    assert names(parse_components(json.dumps(ref_code_layout, ensure_ascii=False))) == ["木"]
    listed = [{"component": "從", "function": ["表意"], "explanation": "二人相从"}]  # official meta layout
    comps = components_from_json(listed)
    assert names(comps) == ["从"] and comps[0].functions == {"表意"} and comps[0].evolution_type is None
    assert names(parse_components('前文 [{"name": "口", "functions": "符号"}] 后文')) == ["口"]


def test_markdown_list_table_and_nested_list():
    md = "- **氵**（水）：表意，保留，象水流之形\n- **工**：表音；讹变；工具之形"
    comps = parse_components(md)
    assert [(c.name, set(c.functions), c.evolution_type, c.interpretation) for c in comps] == [
        ("氵", {"表意"}, "保留", "象水流之形"), ("工", {"表音"}, "讹变", "工具之形")]
    table = "| 构件 | 功能 | 演变类型 | 解释 |\n|---|---|---|---|\n| 氵 | 表意 | 保留 | 水 |\n| 工 | 表音 | 简化 | 声符 |"
    assert [(c.name, c.evolution_type) for c in parse_components(table)] == [("氵", "保留"), ("工", "简化")]
    nested = "1. 木\n   - 功能：表意\n   - 演变：保留\n   - 解释：象树木\n2. 口\n   - 功能：符号"
    comps = parse_components(nested)
    assert [(c.name, set(c.functions), c.evolution_type) for c in comps] == [("木", {"表意"}, "保留"), ("口", {"符号"}, None)]


@pytest.mark.parametrize("answer", [
    "该字由以下构件组成：\n\n1. **氵（三点水）**\n   - 功能：表意\n   - 演变类型：简化\n   - 解释：表示与水有关\n\n"
    "2. **工**\n   - 功能：表音\n   - 演变类型：保留\n   - 解释：表示读音",
    "**构件一：氵**\n- 功能：表意\n- 演变：简化\n- 解释：表示与水有关\n\n**构件二：工**\n- 功能：表音\n- 演变：保留\n- 解释：表示读音",
    "- 「氵」：功能为表意，演变类型为简化，解释：表示与水有关。\n- 「工」：功能为表音，演变类型为保留，解释：表示读音。",
    "1. 氵 (water radical): semantic; simplified; 表示与水有关\n2. 工: phonetic; retained; 表示读音",
])
def test_common_chat_model_layouts(answer):
    comps = parse_components(answer)
    assert [(c.name, set(c.functions), c.evolution_type, c.interpretation) for c in comps] == [
        ("氵", {"表意"}, "简化", "表示与水有关"), ("工", {"表音"}, "保留", "表示读音")]


def test_plain_text_layouts():
    assert [(c.name, set(c.functions)) for c in parse_components("江：从水，工声。")] == [("水", {"表意"}), ("工", {"表音"})]
    assert [(c.name, set(c.functions)) for c in parse_components("形旁为氵，声旁为工。")] == [("氵", {"表意"}), ("工", {"表音"})]
    assert names(parse_components("该字由「木」和「口」组成。")) == ["木", "口"]
    en = parse_components("The semantic component is 氵 (water) and the phonetic component is 工.")
    assert [(c.name, set(c.functions)) for c in en] == [("氵", {"表意"}), ("工", {"表音"})]
    assert [(c.name, set(c.functions)) for c in parse_components("江，水。从水工聲。")] == [("水", {"表意"}), ("工", {"表音"})]
    assert [(c.name, set(c.functions)) for c in parse_components("水表意，工表音。")] == [("水", {"表意"}), ("工", {"表音"})]
    assert names(parse_components("该字由两个构件组成：「木」和「口」。")) == ["木", "口"]
    official_long = parse_components("【构件分解】该字由两个构件组成：\n「亠」承担表意功能，象粮仓的顶部；\n"
                                     "「回」承担表意功能，象粮仓的主体。")
    assert [(c.name, set(c.functions), c.interpretation) for c in official_long] == [
        ("亠", {"表意"}, "象粮仓的顶部"), ("回", {"表意"}, "象粮仓的主体")]
    both = parse_components("从言从成，成亦声。")
    assert [(c.name, set(c.functions)) for c in both] == [("言", {"表意"}), ("成", {"表意", "表音"})]


@pytest.mark.parametrize(("answer", "expected"), [
    ("水：保留；工：保留", [("水", set(), "保留"), ("工", set(), "保留")]),          # full-width colon, semicolons
    ("水:讹变;工:简化", [("水", set(), "讹变"), ("工", set(), "简化")]),
    ("水：保留\n工：繁化", [("水", set(), "保留"), ("工", set(), "繁化")]),           # one per line
    ("水：保留，工：区别", [("水", set(), "保留"), ("工", set(), "区别")]),           # commas between pairs
    ("氵：表意，保留；工：表音，保留", [("氵", {"表意"}, "保留"), ("工", {"表音"}, "保留")]),
    ("氵：表意，简化", [("氵", {"表意"}, "简化")]),                                   # one pair, its attributes
    ("形旁：水；声旁：工", [("水", {"表意"}, None), ("工", {"表音"}, None)]),          # label heads are not names
])
def test_name_colon_attribute_pairs(answer, expected):
    comps = parse_components(answer)
    assert [(c.name, set(c.functions), c.evolution_type) for c in comps] == expected


def test_name_colon_pairs_score_come():
    from metrics.acce.core import score

    gold = {"components": [{"name": "氵", "functions": ["表意"], "interpretation": "水", "evolution_type": "保留"},
                           {"name": "工", "functions": ["表音"], "interpretation": "声", "evolution_type": "保留"}]}
    r = score(["水：保留；工：保留"], [gold], ["COME"], settings={"bertscore": False, "progress": False})
    assert r["COME"] == 100.0 and r["counts"]["COME"]["unparseable"] == 0


@pytest.mark.parametrize("answer", ["", "   \n\t", "我不知道。", "无法判断"])
def test_unparseable_component_answers(answer):
    assert parse_components(answer) is None


def test_repeated_components_count_once():
    comps = parse_components("- 木：表意，保留\n- 木：表音，讹变\n- 口：符号")
    assert names(comps) == ["木", "口"] and comps[0].functions == {"表意"}  # first description kept


def test_clean_name():
    assert clean_name("**氵**（水）") == "氵"
    assert clean_name("(水)") == "水"
    assert clean_name("阝（左）") == "阝(左)"
    assert clean_name("构件：木") == "木"
    assert clean_name("𠀀") == "𠀀"
    assert clean_name("a very long english phrase") is None
    assert clean_name("木" * 13) is None


def C(name, functions=("表意",), evolution="保留", interp=""):
    return Component(name, frozenset(functions), interp, evolution)


def test_matching_exact_alias_first():
    gold = [C("人"), C("木")]
    pred = [C("亻"), C("木"), C("口")]
    assert match_components(gold, pred) == [(0, 0, 1.0), (1, 1, 1.0)]
    assert match_components([C("辶")], [C("⻌")]) == [(0, 0, 1.0)]
    assert match_components([C("𠀀")], [C("𠀀")]) == [(0, 0, 1.0)]


def test_matching_fuzzy_threshold_and_one_to_one():
    gold = [C("木缶木冖鬯"), C("彡")]
    pred = [C("木缶木冖彡")]
    assert match_components(gold, pred) == [(0, 0, pytest.approx(0.8))]
    # 4 of 5 characters equal is the threshold; 3 of 4 is below it.
    assert match_components([C("木缶木冖")], [C("木缶木口")]) == []
    # most pairs first: pairing A with its best candidate would leave B unmatched.
    gold = [C("甲乙丙丁戊"), C("甲乙丙丁己")]
    pred = [C("甲乙丙丁庚"), C("甲乙丙丁戊己")]
    pairs = match_components(gold, pred)
    assert len(pairs) == 2 and {g for g, _, _ in pairs} == {0, 1} and {p for _, p, _ in pairs} == {0, 1}


def test_matching_prefers_higher_total_similarity():
    gold = [C("甲乙丙丁戊")]
    pred = [C("甲乙丙丁戊己"), C("甲乙丙丁庚")]  # similarities 5/6 and 4/5
    assert match_components(gold, pred) == [(0, 0, pytest.approx(5 / 6))]


def test_f1_from_counts():
    assert f1_from_counts(2, 3, 2) == pytest.approx(0.8)  # P 2/3, R 1
    assert f1_from_counts(1, 3, 2) == pytest.approx(0.4)  # P 1/3, R 1/2
    assert f1_from_counts(0, 3, 2) == 0.0
    assert f1_from_counts(1, 0, 2) == 0.0
    assert f1_from_counts(1.5, 2, 2) == pytest.approx(0.75)  # COMI: a BERTScore-weighted count


@pytest.mark.parametrize("answer", [
    "答：水：保留；工：保留",
    "构件如下：\n水：保留；工：保留",
    "构件如下：水：保留；工：保留",
    "构件分析：\n水：保留\n工：保留",
    "请列出该字的每个构件及其功能、解释和演变类型？\n水：保留；工：保留",
    "请列出该字的每个构件及其功能、解释和演变类型？\n答案：水：保留；工：保留",
])
def test_component_lead_in_is_not_a_component(answer):
    comps = parse_components(answer)
    assert [c.name for c in comps] == ["水", "工"]
    assert all(c.evolution_type == "保留" for c in comps)


def test_official_layout_heading_with_colon_is_kept():
    comps = parse_components("1. 构件水：\n功能=表意；演变类型=保留\n2. 构件工：\n功能=表音；演变类型=保留")
    assert [c.name for c in comps] == ["水", "工"]


@pytest.mark.parametrize(("answer", "expected"), [
    ("辶", [("辶", set())]), ("⻌", [("⻌", set())]), ("构件：⻌（表意）", [("⻌", {"表意"})]),
    ("氵（表意），工（表音）", [("氵", {"表意"}), ("工", {"表音"})]), ("水、工", [("水", set()), ("工", set())]),
])
def test_bare_component_answers_parse(answer, expected):
    comps = parse_components(answer)
    assert [(c.name, set(c.functions)) for c in comps] == expected


@pytest.mark.parametrize("answer", ["左右结构", "小篆", "我不知道", "无法判断"])
def test_bare_labels_and_sentences_are_no_components(answer):
    assert parse_components(answer) is None


def test_bare_radical_answer_matches_its_reference():
    from metrics.acce.core import score

    r = score(["⻌"], [{"components": [{"name": "辵", "functions": ["表意"]}]}], ["COMR"],
              settings={"bertscore": False, "progress": False})
    assert r["COMR"] == 100.0


def test_many_echoed_questions_parse_in_linear_time():
    # leading echoed questions are skipped by position, not by re-splitting the rest each time
    answer = "构件有哪些？" * 20_000 + "\n水：表意；工：表音"
    assert [c.name for c in parse_components(answer)] == ["水", "工"]


def test_repeated_parses_are_equal_and_independent():
    # parse_components and the reference parse are memoised: a caller changing its list
    # must not change what the next caller gets.
    text = "水：表意，保留；工：表音，保留"
    first = parse_components(text)
    first.append(first[0])
    again = parse_components(text)
    assert [c.name for c in again] == ["水", "工"] and again is not first
    ref = {"components": [{"name": "水", "functions": ["表意"], "interpretation": "水流", "evolution_type": "保留"}]}
    from metrics.acce.core import _gold_components

    gold = _gold_components(ref)
    gold.clear()
    assert [c.name for c in _gold_components(ref)] == ["水"]
    with pytest.raises(ValueError, match="lists no component"):
        _gold_components({"components": []})


def test_a_numbered_list_on_one_line_keeps_every_component():
    # fresh-user trial of c09a032: `jiezi explain`'s own layout on one line parsed as 水 alone
    from metrics.acce.core import parse_answer

    got = parse_answer("1. 构件「水」：功能=表意 2. 构件「工」：功能=表音", ["COMF"])
    assert [(c["name"], c["functions"]) for c in got["components"]] == [("水", ["表意"]), ("工", ["表音"])]
