"""ACCE label extraction and normalisation (metrics/acce/normalize.py, extract.py, aliases.py)."""

from __future__ import annotations

import pytest

from metrics.acce.aliases import ALIAS_TO_CANONICAL, canonical_component
from metrics.acce.core import score
from metrics.acce.extract import (
    extract_character,
    extract_evolution,
    extract_formation,
    extract_functions,
    extract_script,
    extract_structure,
)
from metrics.acce.labels import (
    EARLY_FORM_SCRIPTS,
    FORMATIONS,
    MODERN_SCRIPTS,
    REGULAR_SCRIPTS,
    SCRIPTS,
    STRUCTURES,
    scoring_script,
)
from metrics.acce.normalize import component_key, normalize_text, similarity


def test_normalize_fullwidth_traditional_and_whitespace():
    # indentation collapses to one space (kept so nested list items stay distinguishable)
    assert normalize_text("  形聲字，\r\n  從水　工聲。 ") == "形声字,\n 从水 工声。"
    assert normalize_text("形聲字，\n從水", keep_lines=False) == "形声字, 从水"
    assert normalize_text("ＯＲＡＣＬＥ") == "ORACLE"
    assert normalize_text(None) == "" and normalize_text(" \t\n") == ""


def test_ids_and_extension_b_survive_normalisation():
    assert normalize_text("⿰氵工") == "⿰氵工"
    assert normalize_text("𠀀") == "𠀀" and len(normalize_text("𠀀")) == 1  # one code point, no surrogates


@pytest.mark.parametrize(("name", "key"), [
    ("亻", "人"), ("人字旁", "人"), ("单人旁", "人"), (" 人 ", "人"), ("扌", "手"), ("忄", "心"), ("氵", "水"),
    ("三点水", "水"), ("灬", "火"), ("艹", "艸"), ("⺮", "竹"), ("钅", "金"), ("釒", "金"), ("讠", "言"),
    ("纟", "糸"), ("糹", "糸"), ("礻", "示"), ("衤", "衣"), ("犭", "犬"), ("刂", "刀"), ("⺼", "肉"), ("罒", "网"),
    ("阝(左)", "阜"), ("阝（右）", "邑"), ("左耳旁", "阜"), ("贝", "貝"), ("貝", "貝"), ("页", "頁"), ("頁", "頁"),
    ("⻌", "辵"), ("辶", "辵"), ("木字旁", "木"), ("⼈", "人"), ("木缶木", "木缶木"), ("𠀀", "𠀀"), ("阝", "阝"),
])
def test_component_key_aliases(name, key):
    assert component_key(name) == key


def test_alias_table_targets_are_canonical():
    for alias, canonical in ALIAS_TO_CANONICAL.items():
        assert canonical_component(alias) == canonical
        assert ALIAS_TO_CANONICAL[canonical] == canonical


def test_similarity_is_normalised_levenshtein():
    assert similarity("木缶木冖鬯", "木缶木冖彡") == pytest.approx(0.8)
    assert similarity("木缶", "木缶木") == pytest.approx(2 / 3)
    assert similarity("", "") == 1.0 and similarity("木", "") == 0.0
    assert similarity("𠀀木", "𠀀水") == pytest.approx(0.5)


@pytest.mark.parametrize(("text", "label"), [
    ("篆", "篆书"), ("小篆", "篆书"), ("篆書", "篆书"), ("Small seal script", "篆书"), ("金文", "金文"),
    ("不是金文，是甲骨文", "甲骨文"), ("这是小篆，由甲骨文演变而来", "篆书"), ("简体", "简体"),
    ("ＯＲＡＣＬＥ ＢＯＮＥ script", "甲骨文"), ("This is clerical script.", "隶书"), ("楷體", "楷书"),
    ("古文", "战国文字"), ("行书", "行书"), ("不是金文", None), ("古文字", None), ("我不知道", None), ("   ", None),
])
def test_extract_script(text, label):
    assert extract_script(text) == label


@pytest.mark.parametrize(("text", "label"), [
    ("⿰", "⿰"), ("左右结构", "⿰"), ("左右結構", "⿰"), ("left-right", "⿰"), ("⿰氵工", "⿰"),
    ("⿱从⿰口口", "⿱"), ("结构：⿱（上下结构）", "⿱"), ("The character has a top-bottom structure.", "⿱"),
    ("独体字", "独体"), ("不是左右结构，而是上下结构", "⿱"), ("左上包围结构", "⿸"), ("全包围结构", "⿴"),
    ("⿼", "⿷"), ("", None), ("不是左右结构", None),
])
def test_extract_structure(text, label):
    assert extract_structure(text) == label


@pytest.mark.parametrize(("text", "labels", "yisheng"), [
    ("形声", {"形声"}, False), ("形声字", {"形声"}, False), ("形聲", {"形声"}, False),
    ("phono-semantic compound", {"形声"}, False), ("It is a semantic-phonetic character", {"形声"}, False),
    ("pictophonetic", {"形声"}, False), ("象形", {"象形"}, False), ("a pictograph", {"象形"}, False),
    ("不是形声字，而是会意字", {"会意"}, False), ("会意兼形声", {"会意", "形声"}, True),
    ("从水从工，工亦声。", {"会意", "形声"}, True), ("会意字，上部象形，下部象人", {"会意"}, False),
    ("This is not a pictograph but an ideogrammic compound.", {"会意"}, False), ("造字法：指事。", {"指事"}, False),
    ("假借", {"假借"}, False), ("转注", {"转注"}, False),
])
def test_extract_formation(text, labels, yisheng):
    assert extract_formation(text) == (frozenset(labels), yisheng)


@pytest.mark.parametrize("text", ["不是形声字", "并非象形", "not a pictograph", "", "无法判断"])
def test_extract_formation_negated_or_missing(text):
    assert extract_formation(text) is None


@pytest.mark.parametrize(("text", "char"), [
    ("江", "江"), ("江字", "江"), ("「江」", "江"), ("**江**", "江"), ("该字为「江」，从水工声", "江"),
    ("the character is 江", "江"), ("The character is 江 (jiāng).", "江"), ("不是「河」，而是「江」", "江"),
    ("江。从水，工声。", "江"), ("答：江", "江"), ("字头：**江**", "江"), ("这个字是江字。", "江"),
    ("該字為「漢」", "汉"), ("𠀀", "𠀀"), ("该古文字对应的现代汉字为：江", "江"), ("This character is likely 鱼.", "鱼"),
    ("从图像看，这是甲骨文的“鱼”字，象鱼之形。", "鱼"), ("根据字形分析，此字应为「鱼」字的甲骨文写法。", "鱼"), ("⿰氵工", "⿰氵工"), ("这是一个形声字", None), ("", None), ("  ", None),
])
def test_extract_character(text, char):
    assert extract_character(text) == char


@pytest.mark.parametrize(("text", "functions"), [
    ("表意", {"表意"}), ("义符", {"表意"}), ("semantic", {"表意"}), ("声符", {"表音"}), ("phonetic", {"表音"}),
    ("亦声", {"表意", "表音"}), ("表意兼表音", {"表意", "表音"}), ("不表音，表意", {"表意"}), ("符号", {"符号"}),
    ("区别符号", {"符号"}), ("", set()),
])
def test_extract_functions(text, functions):
    assert extract_functions(text) == frozenset(functions)


@pytest.mark.parametrize(("text", "evolution"), [
    ("保留", "保留"), ("讹变", "讹变"), ("未简化，保留", "保留"), ("simplified", "简化"), ("繁化", "繁化"),
    ("分化", "区别"), ("differentiation", "区别"), ("", None),
])
def test_extract_evolution(text, evolution):
    assert extract_evolution(text) == evolution


def test_every_canonical_label_extracts_to_itself():
    for label in SCRIPTS:
        assert extract_script(label) == label
    for label in STRUCTURES:
        assert extract_structure(label) == label
    for label in FORMATIONS:
        assert extract_formation(label) == (frozenset({label}), False)


@pytest.mark.parametrize(("text", "label"), [
    # a family name that fits several IDCs: unparseable, never a non-label string
    ("半包围", None), ("半包围结构", None), ("包围结构", None), ("三面包围", None), ("semi-enclosed", None),
    # ... unless the answer goes on to name the IDC; 全包围 / 四面包围 are ⿴
    ("半包围结构中的左上包围", "⿸"), ("全包围", "⿴"), ("四面包围结构", "⿴"), ("上三包围结构", "⿵"),
])
def test_structure_families_give_no_label(text, label):
    assert extract_structure(text) == label
    assert extract_structure(text) in (None, *STRUCTURES, *"⿼⿽⿾⿿㇯")


@pytest.mark.parametrize(("text", "labels"), [
    ("该字是形声字吗？不，它是会意字。", {"会意"}),        # an echoed question, denied: the answer's claim wins
    ("Is it a pictograph? No, it is an ideogrammic compound.", {"会意"}),
    ("是形声字吗？我认为是会意字。", {"会意"}),              # an asked question gives way to the assertion
    ("是形声字吗？是的。", {"形声"}),                        # confirmed: the only label there is
])
def test_formation_echoed_question(text, labels):
    assert extract_formation(text)[0] == frozenset(labels)


def test_label_echoed_in_a_denied_question_elsewhere():
    assert extract_script("这是金文吗？不是，这是甲骨文。") == "甲骨文"
    assert extract_structure("是左右结构吗？不，是上下结构。") == "⿱"
    assert extract_script("这是金文吗？不是。") is None
    assert extract_evolution("是讹变吗？不，保留了原形。") == "保留"


@pytest.mark.parametrize(("text", "labels", "yisheng"), [
    # the first formation statement only (metric card): a later change is not the formation
    ("本字为象形，后来变为形声", {"象形"}, False),
    ("This character is a pictograph, later reused as a phonetic loan.", {"象形"}, False),
    ("象形字。后来假借为代词。", {"象形"}, False),
    ("这是会意字，也有人认为是形声字", {"会意"}, False),
    # one statement may name a set, or qualify its formation with 亦声 / 兼
    ("象形、会意", {"象形", "会意"}, False), ("会意，工亦声", {"会意", "形声"}, True),
    ("属会意，兼形声", {"会意", "形声"}, True), ("既是会意字，又是形声字", {"会意", "形声"}, True),
])
def test_formation_first_statement(text, labels, yisheng):
    assert extract_formation(text) == (frozenset(labels), yisheng)


# ----------------------------------------------------------- echoed questions and options
@pytest.mark.parametrize(("text", "label"), [
    ("请判断书体。可选：甲骨文、金文、战国文字、篆书、隶书、楷书、草书。答：篆书", "篆书"),
    ("可选：甲骨文、金文、战国文字、篆书。该字形属于篆书。", "篆书"),
    ("选项有：甲骨文、金文、篆书。答案是隶书", "隶书"),
    ("Options: oracle bone script, bronze inscription, seal script. Answer: seal script", "篆书"),
    ("该字属于甲骨文、金文还是篆书？回答：金文", "金文"),
])
def test_script_answer_marker_and_option_list(text, label):
    assert extract_script(text) == label


def test_structure_answer_marker_and_option_list():
    assert extract_structure("可选：⿰（左右结构）、⿱（上下结构）。答：⿱") == "⿱"
    assert extract_structure("可选：⿰（左右结构）、⿱（上下结构）、独体。该字为上下结构") == "⿱"
    assert extract_structure("可选：⿰、⿱、⿴。Final answer: ⿴") == "⿴"


def test_formation_echoed_option_list_is_not_an_answer():
    options = "可选：象形、指事、会意、形声、转注、假借。"
    assert extract_formation(options) is None
    assert extract_formation(options + "该字为会意字。") == (frozenset({"会意"}), False)
    assert extract_formation(options + "答：形声") == (frozenset({"形声"}), False)
    assert extract_formation("象形、会意") == (frozenset({"象形", "会意"}), False)  # a real two-label answer


@pytest.mark.parametrize("text", ["有人认为是形声，但实为会意", "旧说以为形声字。其实是会意字。",
                                  "Some say it is phono-semantic, but actually it is an ideogrammic compound."])
def test_formation_contrast_overrules_hedged_attribution(text):
    assert extract_formation(text) == (frozenset({"会意"}), False)


def test_formation_hedge_without_contrast_is_kept():
    assert extract_formation("有人认为是形声字。") == (frozenset({"形声"}), False)


def test_echoed_question_alone_is_unparseable():
    from metrics.acce.core import parse_answer

    assert extract_script("该字属于甲骨文还是金文？") is None
    assert extract_formation("该字是形声字吗？") is None
    assert extract_structure("该字是左右结构还是上下结构？") is None
    assert parse_answer("该字的本义是什么？", "ORIM") is None
    assert parse_answer("请列出该字的每个构件及其功能、解释和演变类型？", "COMR") is None
    # a question the answer goes on to answer still counts
    assert extract_formation("该字是形声字吗？不，它是会意字。") == (frozenset({"会意"}), False)
    assert parse_answer("本义是什么？答：江河", "ORIM") == {"original_meaning": "江河"}


# ------------------------------------------------------------------------------ issue 15
def test_echoed_question_check_is_linear():
    # The echoed-question test looks at each sentence once: 200,000 characters of one
    # unpunctuated run and of many question sentences give the same answers as short ones.
    from metrics.acce.extract import only_question

    assert only_question(normalize_text("该字是形声字吗？")) and only_question("是形声吗\n是会意吗")
    assert not only_question(normalize_text("该字是形声字吗？是的。")) and not only_question("江")
    long_run = "江" * 200_000
    assert not only_question(long_run) and extract_character(long_run) is None
    many = "该字是形声字吗？" * 25_000
    assert only_question(normalize_text(many)) and extract_formation(many) is None


@pytest.mark.parametrize(("answer", "gold"), [
    ("可能是甲骨文、金文或小篆", "甲骨文"), ("金文或甲骨文", "金文"), ("oracle bone or bronze script", "甲骨文"),
])
def test_a_hedge_over_several_scripts_earns_nothing(answer, gold):
    assert extract_script(answer) is None
    r = score([answer], [{"script": gold}], ["SCRC"], settings={"bertscore": False, "progress": False})
    assert r["SCRC"] == 0.0 and r["counts"]["SCRC"]["unparseable"] == 1


def test_hedges_in_structure_and_formation_but_not_label_lists():
    assert extract_structure("⿰或⿱") is None and extract_structure("左右结构或上下结构") is None
    assert extract_formation("形声或会意") is None
    assert extract_formation("象形、会意") == (frozenset({"象形", "会意"}), False)  # a set of two, as ACCE allows
    assert extract_script("可选：甲骨文、金文、篆书。答：金文") == "金文"  # an echoed option list is no hedge
    assert extract_script("不是金文，是甲骨文") == "甲骨文"


@pytest.mark.parametrize(("radical", "ideograph"), [
    ("⻘", "青"), ("⻣", "骨"), ("⺊", "卜"), ("⻩", "黄"), ("⻝", "食"), ("⺁", "厂"), ("⺪", "疋"),
])
def test_radicals_supplement_match_their_unicode_equivalents(radical, ideograph):
    # Unicode's EquivalentUnifiedIdeograph data, not a hand table
    assert component_key(radical) == component_key(ideograph)
    r = score(["构件：" + radical], [{"components": [{"name": ideograph, "functions": ["表意"]}]}], ["COMR"],
              settings={"bertscore": False, "progress": False})
    assert r["COMR"] == 100.0


def test_equivalent_unified_ideograph_data_is_unicodes():
    from metrics.acce.aliases import EQUIVALENT_UNIFIED_IDEOGRAPH, load_equivalent_unified_ideographs

    assert len(EQUIVALENT_UNIFIED_IDEOGRAPH) > 300
    assert EQUIVALENT_UNIFIED_IDEOGRAPH["⻌"] == "辶" and EQUIVALENT_UNIFIED_IDEOGRAPH["⼈"] == "人"
    assert component_key("⻒") == component_key("長")  # the old hand table said 金: Unicode says 镸
    assert component_key("⻖") == "阜" and component_key("⺼") == "肉"  # ACCE.md's side and 肉 rules kept


def test_malformed_equivalent_unified_ideograph_file_names_the_line(tmp_path):
    from metrics.acce.aliases import load_equivalent_unified_ideographs

    bad = tmp_path / "EquivalentUnifiedIdeograph.txt"
    bad.write_text("2E81 ; 5382 # ok\nnot a mapping\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r":2: expected"):
        load_equivalent_unified_ideographs(bad)


@pytest.mark.parametrize("answer", [
    "〔江〕", "〈江〉", "江—", "——江——", "※江", "・江", "\u200b江\u200b", "\ufeff江", "\u2060江\u2060", "该字为〔江〕",
])
def test_char_answers_in_brackets_marks_and_invisibles(answer):
    assert extract_character(answer) == "江"


def test_variation_selectors_and_zero_width_characters_are_dropped():
    assert extract_character("葛\U000E0100") == "葛" and extract_character("辶\ufe00") == "辶"
    assert extract_script("篆\u200b书") == "篆书"
    r = score(["\u200b\u200b\u200b"], [{"original_meaning": "江水"}], ["ORIM"],
              settings={"bertscore": False, "progress": False})
    assert r["counts"]["ORIM"]["unparseable"] == 1  # zero-width spaces answer nothing


@pytest.mark.parametrize("ids", ["⿼冂口", "⿽口木", "⿾人", "⿿木", "㇯口木"])
def test_unicode_15_1_idcs_agree_between_builder_and_metric(ids):
    from builder.ids import structure_label

    gold = structure_label(ids)  # what the builder writes as the STRC reference
    assert extract_structure(ids) == gold and extract_structure(ids[0]) == gold
    r = score([ids[0], ids], [{"structure": gold}] * 2, ["STRC"] * 2, settings={"bertscore": False, "progress": False})
    assert r["STRC"] == 100.0  # the source's own IDC, alone or as an IDS, scores


def test_script_classes_partition_the_scripts():
    # early forms, the seal and the modern scripts: every script in exactly one class (the
    # harness's fused baseline and the builder's glyph_form read these classes)
    assert not EARLY_FORM_SCRIPTS & MODERN_SCRIPTS and "篆书" not in EARLY_FORM_SCRIPTS | MODERN_SCRIPTS
    assert EARLY_FORM_SCRIPTS | MODERN_SCRIPTS | {"篆书"} == set(SCRIPTS)
    assert set(REGULAR_SCRIPTS) <= MODERN_SCRIPTS
    assert {s for s in SCRIPTS if scoring_script(s) != s} == {"简体"} and scoring_script("简体") == "楷书"
