"""Findings of the independent reviews of out-r9 / out-r10 (seeds 20261226-20261229), each on
the real sources: a component's own gloss is no numerology, cosmology, quotation or sentence on
another part (士, 人, 弓, 田, 石, 走); Duan's 疊韵 note on 木 「冒也」 leaves no ORIM from the pun's
explanation; an early form's 「木也」 gloss is still a kind of tree (柞); a standard form that only
rearranges the parts is no 简化字 (眥 -> 眦); a seal layout is stated only where Shuowen confirms it
(弟, 導); 「从古字之象」 names no parts; a 重文 note that only names its kind is not quoted (旁)."""

from __future__ import annotations

import pytest

from builder.qa.facts import BENCH
from builder.qa.part_glosses import own_gloss
from qa_fixtures import character_corpus, review_facts, review_index

CHARS = "士人弓田石走彳乏二辰又木穀柞眥眦此目導道寸江水工弟民旁方吉口躳身呂吕尾毛尸"


@pytest.fixture(scope="module")
def recs(sources_dir, tmp_path_factory):
    return review_index(sources_dir, tmp_path_factory.mktemp("r10") / "records", CHARS)


@pytest.fixture(scope="module")
def corpus(sources_dir):
    return character_corpus(sources_dir, "弟民導道寸江水工")


def _gloss(index, name):
    note = own_gloss(index, name, {"〇"})
    return note.provenance[0].span if note else None


def test_a_component_gloss_is_no_numerology_or_cosmology(recs):
    # 士 「事也。數始於一，終於十」 (seed 20261228 item 36), 人 「天地之性最貴者也」, 二 「地之數也」
    _, index = recs
    assert _gloss(index, "士") is None
    assert _gloss(index, "人") == "象臂脛之形"
    assert _gloss(index, "二") is None
    assert _gloss(index, "辰") is None  # a branch: 「房星，天時也」


def test_a_component_gloss_is_no_quotation_nor_a_sentence_on_another_part(recs):
    _, index = recs
    assert _gloss(index, "弓") is None  # 「《周禮》六弓：王弓、弧弓…」 is a quotation
    assert _gloss(index, "乏") is None  # its whole text is a quotation: not the closing 「”」
    assert _gloss(index, "石") == "山石也"  # not 「囗，象形」, which is about the 囗 part
    assert "阡陌" not in (_gloss(index, "田") or "")  # 「十，阡陌之制也」 is about the 十 part
    assert _gloss(index, "走") is None  # 「夭止者，屈也」 explains the analysis 「从夭、止」
    assert _gloss(index, "彳") == "小步也"  # a two-character gloss before the depiction (seed 20261226 item 6)


def test_a_component_without_a_gloss_asks_no_interpretation(recs):
    f = review_facts(recs, "吉_篆书")
    assert {"COMP_ASPECT", "COMP_FULL"} <= set(f.missing)  # 士 has no gloss left: no 「士」表意 alone


def test_duan_naming_a_pun_leaves_no_orim_from_its_explanation(recs):
    # 木 「冒也。冒地而生。東方之行」, Duan: 「以疊韵爲訓」 (seed 20261229 item 53)
    f = review_facts(recs, "木_楷书")
    assert f.orim is None and "ORIM" in f.missing
    g = review_facts(recs, "穀_楷书")  # 「續也。百穀之緫名」: the rest defines the head
    assert g.orim is not None and g.orim[0] == "百穀之緫名"


def test_a_class_gloss_of_an_early_form_names_the_class(recs):
    # 柞's 金文 record has no components of its own (seed 20261228 item 55: 「木」)
    by_id, index = recs
    from builder.qa.compose import facts_for
    rec = by_id["柞_楷书"].model_copy(update={"id": "柞_金文", "script": "金文", "components": []})
    f = facts_for(rec, BENCH, index)
    assert f.orim is not None and f.orim[0].startswith("木名"), f.orim


def test_a_rearranged_standard_form_is_no_simplification(recs):
    # 眥 ⿱此目 -> 眦 ⿰目此 (seed 20261229 item 46)
    f = review_facts(recs, "眥_楷书")
    said = [s.zh for s in f.evolution.statements]
    assert any("今规范字作「眦」" in s for s in said) and not any("简化字" in s for s in said), said
    d = review_facts(recs, "導_楷书")
    assert any("今简化字作「导」" in s.zh for s in d.evolution.statements)


def test_no_seal_layout_where_the_walk_radical_encloses_the_lower_part(recs):
    # 導 ⿱道寸: the seal sets 寸 inside 辵 (seed 20261226 item 46)
    from builder.qa.seal_layout import SEAL_LAYOUT_REASON
    f = review_facts(recs, "導_篆书")
    assert f.structure is None and f.missing["STRC"] == SEAL_LAYOUT_REASON
    assert review_facts(recs, "江_篆书").structure[0] == "⿰"


def test_a_seal_record_states_a_layout_only_where_shuowen_confirms_it(corpus):
    # 弟_篆书 ⿱ from the modern ⿱丷𢎨 (seed 20261228 item 116)
    from builder.records.align import align
    di = align("弟", "篆书", corpus)
    assert di.structure is None and any(x.field == "structure" for x in di.flags)
    assert not di.components  # 「从古字之象」 names no 古, 字
    assert not align("民", "篆书", corpus).components  # 「从古文之象」
    assert align("導", "篆书", corpus).structure is None
    assert align("江", "篆书", corpus).structure.value == "⿰"
    assert align("弟", "楷书", corpus).structure.value == "⿱"  # the modern form keeps its IDS layout


def test_a_variant_note_naming_only_its_kind_is_not_quoted(recs):
    # 旁 「《说文》收籒文「𣃪」（籒文）」 (seed 20261227 item 11)
    f = review_facts(recs, "旁_楷书")
    said = [s.zh for s in f.evolution.statements if s.rule == "evolution.shuowen_variant"]
    assert said and all("（" not in s for s in said), said


def test_an_early_form_evoi_question_does_not_say_from_the_seal_on():
    from hub.templates import EVOI_DOCUMENTED, question
    for k in range(len(EVOI_DOCUMENTED)):
        zh, _ = question("EVOI", k, "甲骨文")
        assert "以来" not in zh and "以后" not in zh, zh


def test_a_regular_script_image_keeps_the_part_in_either_glyph_convention(recs):
    # 躳: 「今字形沿用了「身」、「呂」（写作「吕」）」 on a TW-Sung image drawing 呂 (seed 20261228 item 6)
    said = [s.zh for s in review_facts(recs, "躳_楷书").evolution.statements]
    assert any("沿用了「身」、「呂」" in s for s in said) and not any("吕" in s for s in said), said
    jiang = [s.zh for s in review_facts(recs, "江_楷书").evolution.statements]
    assert any("（写作「氵」）" in s for s in jiang), jiang  # a position form is still said


def test_a_part_the_seal_draws_inverted_is_not_typed_kept(recs):
    # 尾 「从到毛在尸後」: 毛 was typed 保留 (seed 20261228 item 67)
    from builder.qa.facts import DATASET
    f = review_facts(recs, "尾_楷书", DATASET)
    types = {c.name: c.evolution_type for c in f.components}
    assert types.get("毛") is None and types.get("尸") == "保留", types


# --- review of out-r12 (seeds 20261230, 20261231) -----------------------------------------------

def test_an_editors_note_is_not_quoted_as_shuowen():
    # 宷 「…从宀从釆。徐锴曰：“宀，覆也。釆，别也…”」: 「釆，别也」 is 徐鍇's (seed 20261230 item 3)
    from builder.qa.evidence import parse_shuowen_raw, xu_text
    assert xu_text("悉也。知宷諦也。从宀从釆。徐锴曰：“宀，覆也。釆，别也。”") == "悉也。知宷諦也。从宀从釆。"
    assert "別" not in parse_shuowen_raw("字頭\t宷\n說解\t悉也。从宀从釆。徐鍇曰：“釆，別也。”")["explanation"]


def test_a_five_phases_colour_is_no_component_gloss(recs):
    _, index = recs
    assert _gloss(index, "白") is None  # 「西方色也」 (seed 20261231 item 50)


def test_duan_reading_other_words_is_no_confirmation(sources_dir, tmp_path):
    # 嘵: Xu 「懼也」, Duan's text 「懼聲也」 was cited as confirming (seed 20261231 item 34)
    from builder.qa.orim import _reads_otherwise
    assert _reads_otherwise("懼聲也。", "懼也", "嘵")
    assert not _reads_otherwise("水厓、人所賔附也。", "水厓。人所賓附", "瀕")  # a variant character
    assert not _reads_otherwise("柞木也。", "木也", "柞")  # the repeated head (複舉字)
    recs = review_index(sources_dir, tmp_path / "records", "嘵悔")
    f = review_facts(recs, "嘵_楷书")
    assert f.orim[0] == "懼聲" and f.orim[3] == "duan", f.orim
    from builder.qa.facts import DATASET
    g = review_facts(recs, "悔_楷书", DATASET)  # 「恨」 rested on Duan's 複舉字 note the dataset does not cite
    assert g.orim is None or g.orim[0] != "恨", g.orim


def test_an_ancient_form_record_has_no_modern_english_definition(corpus_r12):
    from builder.records.align import align
    bian = align("苄", "篆书", corpus_r12)  # Commons' seal 苄 draws 說文's 芐 「地黃」, not "benzyl" (item 115)
    assert bian.definition_en is None and not bian.components and bian.formation is None
    assert align("無", "甲骨文", corpus_r12).definition_en is None  # the oracle form writes 舞 (item 105)
    assert align("無", "楷书", corpus_r12).definition_en is not None


@pytest.fixture(scope="module")
def corpus_r12(sources_dir):
    return character_corpus(sources_dir, "苄無艸下卞")
