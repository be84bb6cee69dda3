"""Regression tests for the QA-level patterns of the data review (seeds 20261207/8/9), on
records built from the real sources for the reviewers' example characters (rule
structurizer, no images; the composer reads no pixels, except the SCRC rule, tested on
drawn images). Item numbers are ``<set>-<item>`` of /work/review/pre-2026120{7,8,9}.

1. COMI says what a part is or does, from Shuowen / Duan, never a circular template.
2. CHAR asks for the regular-script headword and accepts the 规范 partner.
3. A simplified glyph's component is named as drawn (鳄: 鱼).
4. Duan's 亦声 phonetic is 表意 + 表音 in the bench.
5. A Duan note that emends the gloss is no confirmation; his corrected text is used.
6. ORIM is the gloss sentence proper.
7. Evolution: 省 is no 简化, no invented 省 part, Shuowen's own word on a part, 或體 kept.
8. SCRC is not asked of a glyph that is bars only.
"""

from __future__ import annotations

import json
import re

import pytest

from builder.qa.compose import facts_for
from builder.qa.evolution import derive
from builder.qa.facts import BENCH, DATASET
from builder.qa.orim import DUAN_EMENDS_REASON, NOT_A_MEANING_REASON
from builder.qa.script_neutral import bar_characters, only_bars, script_neutral_images
from builder.qa.wording import make_qa
from builder.schema import GlyphImage
from hub import templates as T
from qa_fixtures import review_index
from metrics.acce.core import score
from metrics.acce.paper import official_reference, score_paper

CHARS = ("昵暱匿尼旨甘匕爲縣𥄉系斬車斤沙水少蠱蟲皿般舟殳笥竹司歂欠耑崇山宗庫库譱善後后兩两鳄鱼魚咢鰐阉閹門奄貨化貝"
         "匊礱顱颅鐃曲瀕楊木昜宮躳呂宀囊㯻襄貴臾西棲疇田壽舍二一棗朿林"
         "丁初刀衣愊心畐繒曾庫广題是頁穩禾隱貨化旁方赤大火烾鳳朋凤恰合侚殉孚爪子社示土𠨖卪巽昌")
CIRCULAR = re.compile(r"表示字义与|会合成义|^「[^」]+」(（[^）]*）)?(表意|为形符)$")
ALL = {"shuowen", "duan", "unihan"}


@pytest.fixture(scope="module")
def recs(sources_dir, tmp_path_factory):
    return review_index(sources_dir, tmp_path_factory.mktemp("review") / "records", CHARS, definitions={"竹": "bamboo; flute; Kangxi radical 118"})


def image(script="楷书"):
    return GlyphImage(id=f"test-{script}", path="images/x.png", script=script, source="font:Noto Serif CJK SC",
                      licence="OFL-1.1", style="font-song", font="Noto Serif CJK SC", width=64, height=64,
                      sha256="0" * 64)


def facts(recs, rid, profile=BENCH, reserved=False):
    by_id, index = recs
    return facts_for(by_id[rid], profile, index, reserved=reserved)


def interp(f, name):
    return next(c.interpretation for c in f.components if c.name == name)


# --- 1. component interpretations ---------------------------------------------------------

@pytest.mark.parametrize("rid,name,says", [
    ("縣_楷书", "𥄉", "到首也"),          # 09-6: 𥄉 is an inverted head
    ("縣_楷书", "系", "从系持𥄉"),        # the formula says what 系 does
    ("斬_楷书", "車", "斬法車裂也"),      # 08-11, Duan: 此說从車之意
    ("斬_楷书", "斤", "鈇鉞之類"),        # Duan: 斤者、鈇鉞之類也
    ("沙_楷书", "水", "水少沙見"),        # 08-59
    ("沙_楷书", "少", "水少沙見"),
    ("蠱_楷书", "蟲", "皿蟲爲蠱"),        # 08-24
    ("般_楷书", "舟", "象舟之旋"),
    ("笥_楷书", "竹", "竹，《说文》：「冬生艸也」"),  # 09-72: the component's own gloss, attributed
    ("歂_楷书", "欠", "欠，《说文》：「張口气悟也」"),  # 09-93
    ("崇_楷书", "山", "山大而高"),        # 07-95: Duan's edition of the gloss names the mountain
])
def test_component_interpretation_says_what_the_part_is(recs, rid, name, says):
    f = facts(recs, rid)
    text = interp(f, name)
    assert says in text, text
    assert not CIRCULAR.search(text), text


def test_a_quoted_scholar_is_no_depiction_of_the_graph(recs):
    # 爲 「王育曰：“爪，象形也」 is 王育's word on the 爪 part, not what the single graph draws
    f = facts(recs, "爲_楷书")
    assert all("王育" not in (c.interpretation or "") for c in f.components)


def test_no_bench_interpretation_is_a_template(recs):
    by_id, _ = recs
    seen = 0
    for rid in by_id:
        f = facts(recs, rid)
        for c in f.components:
            if c.interpretation and "表意" in c.functions:
                seen += 1
                assert not CIRCULAR.search(c.interpretation), (rid, c.interpretation)
    assert seen >= 20


def test_dataset_never_states_a_hint_nor_unihan_for_a_bench_component(recs):
    by_id, index = recs
    index.reserved = frozenset({"竹"})  # 竹 in the bench: its Shuowen gloss may not be stated
    try:
        f = facts(recs, "笥_楷书", DATASET)
    finally:
        index.reserved = frozenset()
    text = interp(f, "竹") or ""
    assert "Unihan" not in text and "bamboo" not in text and "《说文》" not in text, text  # review 12-19: no Unihan gloss
    for rid in by_id:  # no makemeahanzi English hint anywhere (貝 "money", 幺 "one")
        for c in facts(recs, rid, DATASET).components:
            assert not any(p.source == "makemeahanzi" and "hint" in p.span for p in c.interpretation_provenance), rid
            assert not any(p.rule == "qa.comi.unihan_definition" for p in c.interpretation_provenance), rid


def test_a_part_no_source_explains_gets_no_filler(recs):
    by_id, index = recs
    index.reserved = None  # the bench not known: no Shuowen gloss of a component in the dataset
    definitions, index.definitions = index.definitions, {}  # and no Unihan definition either
    try:
        f = facts(recs, "笥_楷书", DATASET, reserved=True)
    finally:
        index.reserved, index.definitions = frozenset(), definitions
    assert f.missing["COMI"] == "no-interpretation" and "COMI" not in f.available()


# --- 2. CHAR ---------------------------------------------------------------------------------

def test_char_questions_ask_for_the_headword_and_accept_the_standard_form(recs):
    for zh, en in T.TEMPLATES["CHAR"]:
        assert "现代规范字形" not in zh and "今天写作" not in zh and "modern standard" not in en
    for rid, key, accepted in (("庫_楷书", "庫", "库"), ("兩_楷书", "兩", "两"), ("譱_楷书", "譱", "善")):
        struct = make_qa(facts(recs, rid), "CHAR", 1, image()).answer_struct
        assert struct["character"] == key and accepted in struct["accepted"], struct
    # 後 / 后 is no one-to-one pair (后 is a word of its own): not accepted
    assert "后" not in make_qa(facts(recs, "後_楷书"), "CHAR", 0, image()).answer_struct.get("accepted", [])


def test_char_accepted_scores_in_both_scorings(recs):
    struct = make_qa(facts(recs, "譱_楷书"), "CHAR", 0, image()).answer_struct
    for pred, want in (("善", 100.0), ("譱", 100.0), ("吉", 0.0)):
        assert score([pred], [struct], ["CHAR"], settings={"bertscore": False, "progress": False},
                     judge=False)["CHAR"] == want
    ref = official_reference([struct])
    assert ref["可接受"]["现代字典字头"] == ["善"]
    for pred, want in (("善", 100.0), ("吉", 0.0)):
        res = score_paper([json.dumps({"现代字典字头": pred}, ensure_ascii=False)], [ref],
                          settings={"scorer": lambda c, r: [0.0] * len(c)})
        assert res["per_item"][0]["CHAR"] == want


# --- 3. components named as drawn ------------------------------------------------------------

def test_simplified_glyph_names_the_simplified_component(recs):
    f = facts(recs, "鳄_简体", DATASET)
    assert [c.name for c in f.components][0] == "鱼", [c.name for c in f.components]


# --- 4. Duan's 亦声 ----------------------------------------------------------------------

@pytest.mark.parametrize("rid,name", [("阉_简体", "奄"), ("貨_楷书", "化")])
def test_duan_yisheng_phonetic_also_carries_meaning(recs, rid, name):
    bench = next(c for c in facts(recs, rid).components if c.name == name)
    assert bench.functions == ["表意", "表音"] and "既表意又表音" in bench.interpretation
    assert any(p.source == "duan" and p.rule == "qa.comf.duan_yisheng" for p in bench.provenance)
    data = next(c for c in facts(recs, rid, DATASET).components if c.name == name)
    assert data.functions == ["表音"]  # the dataset may not cite Duan


def test_duan_only_yisheng_accepts_shuowen_plain_phonetic_in_both_scorings(recs):
    struct = make_qa(facts(recs, "阉_简体"), "COMP_ASPECT", 0, image("简体")).answer_struct
    yan = next(c for c in struct["components"] if c["name"] == "奄")
    assert yan["functions"] == ["表意", "表音"] and yan["functions_accepted"] == [["表音"]]
    settings = {"bertscore": False, "progress": False}
    for pred, want in (("门：表意；奄：表音", 100.0), ("门：表意；奄：表意、表音", 100.0), ("门：表意；奄：表意", 50.0)):
        assert score([pred], [struct], [["COMF"]], settings=settings, judge=False)["COMF"] == pytest.approx(want), pred
    ref = official_reference([struct])
    assert ref["可接受"]["构件功能"] == {"奄": [["表音"]]}
    for fn, want in ((["表音"], 100.0), (["表意", "表音"], 100.0), (["表意"], 50.0)):
        reply = json.dumps({"构件": {"门": {"功能": ["表意"]}, "奄": {"功能": fn}}}, ensure_ascii=False)
        res = score_paper([reply], [ref], settings={"scorer": lambda c, r: [0.0] * len(c)})
        assert res["per_item"][0]["COMF"] == pytest.approx(want), fn


# --- 5. Duan emending the gloss -------------------------------------------------------------

@pytest.mark.parametrize("rid", ["匊_楷书", "礱_楷书"])
def test_duan_correcting_the_gloss_is_no_confirmation(recs, rid):
    f = facts(recs, rid)
    assert f.orim is None and f.missing["ORIM"] == DUAN_EMENDS_REASON


@pytest.mark.parametrize("rid", ["顱_楷书", "颅_简体"])
def test_a_binome_holding_the_head_is_no_meaning(recs, rid):
    # Duan's 「𩑒顱也」 names the word the head belongs to, not its sense (data review 12-04:
    # 詘 「詰詘也」, 絇 「纑繩絇也」 read as circular)
    f = facts(recs, rid)
    assert f.orim is None and f.missing["ORIM"] == "not-a-meaning-gloss:original_meaning"


@pytest.mark.parametrize("rid,text", [("崇_楷书", "山大而高也")])
def test_duan_corrected_text_is_the_reference_and_named(recs, rid, text):
    f = facts(recs, rid)
    assert f.orim[0] == text and f.orim[3] == "duan"
    assert all(p.rule != "qa.orim.duan_confirms" for p in f.orim[2])
    q = make_qa(f, "ORIM", 0, image())
    assert "段" in q.question and q.answer == text


# --- 6. ORIM text ----------------------------------------------------------------------------

@pytest.mark.parametrize("rid,want", [("鐃_楷书", "小鉦也"), ("瀕_楷书", "水厓。人所賓附"),
                                      ("楊_楷书", "木名（《说文》：「木也」）")])
def test_orim_is_the_gloss_proper(recs, rid, want):
    assert facts(recs, rid).orim[0] == want


def test_a_depiction_is_no_original_meaning(recs):
    f = facts(recs, "曲_楷书")
    assert f.orim is None and f.missing["ORIM"] == NOT_A_MEANING_REASON


# --- 7. evolution ----------------------------------------------------------------------------

def test_sheng_is_kept_not_simplified(recs):
    by_id, index = recs
    evo = derive(by_id["宮_楷书"], index, ALL)
    assert all(c.type != "简化" or c.rule != "evolution.simplification.sheng" for c in evo.components.values())
    assert evo.components["躳"].type == "保留"
    assert "以字中的「呂」为「躳」之省" in evo.narrative() and "今字形仍作「呂」" in evo.narrative()


def test_no_invented_or_repeated_sheng_line(recs):
    by_id, index = recs
    nang = derive(by_id["囊_楷书"], index, ALL).narrative()
    assert "冖" not in nang and "为省形" not in nang, nang  # 09-20
    she = derive(by_id["舍_楷书"], index, ALL).narrative()
    assert "为省形" not in she  # 07-24


def test_seal_statement_keeps_shuowen_word_on_a_part(recs):
    by_id, index = recs
    assert "臾，古文蕢" in derive(by_id["貴_楷书"], index, ALL).narrative()  # 09-24


def test_narrative_keeps_the_huoti_and_the_seal_and_the_rewritten_part(recs):
    by_id, index = recs
    xi = derive(by_id["西_楷书"], index, ALL).narrative()
    assert "或體「棲」" in xi and "小篆作「西」" in xi, xi  # 08-6
    chou = derive(by_id["疇_楷书"], index, ALL).narrative()
    assert "象耕屈之形" in chou and "今字形写作「壽」" in chou and "或體「𢏚」" in chou, chou  # 08-58


def test_a_seal_part_the_modern_form_writes_otherwise_is_said(recs):
    by_id, index = recs
    zhi = derive(by_id["旨_楷书"], index, ALL).narrative()
    assert "篆文之「甘」，今字形写作「日」" in zhi, zhi  # 从甘匕聲 against ⿱匕日
    ni = derive(by_id["昵_楷书"], index, ALL).narrative()
    assert "今字形写作「尼」" not in ni, ni  # 昵 is 暱's 或體 (从尼): no seal 匿 rewritten as 尼


def test_an_early_form_narrative_keeps_the_characters_seal_and_modern_statements(recs):
    by_id, index = recs
    kai = by_id["旨_楷书"]
    # an early-form record carries no components (no source analyses the drawing)
    early = kai.model_copy(update={"id": "旨_金文", "script": "金文", "components": []})
    narrative = derive(early, index, ALL)
    assert narrative.narrative() == derive(kai, index, ALL).narrative()
    assert "今字形写作「日」" in narrative.narrative() and narrative.components == {}


def test_a_doubled_part_is_said_doubled(recs):
    by_id, index = recs
    zao = derive(by_id["棗_楷书"], index, ALL).narrative()
    lin = derive(by_id["林_楷书"], index, ALL).narrative()
    assert "从重朿" in zao and "析为从朿" not in zao, zao
    assert "从二木" in lin and "析为从木" not in lin, lin


def test_no_rewritten_part_where_shuowen_describes_a_part(recs):
    by_id, index = recs
    hou = derive(by_id["后_楷书"], index, ALL).narrative()
    assert "今字形写作" not in hou, hou  # 后 「象人之形…从一、口」: 一 did not become 𠂋


def test_component_evolution_questions_ask_for_the_seal_to_modern_span():
    for kind in ("COME", "COMP_FULL"):
        for zh, en in T.TEMPLATES[kind]:
            assert "小篆" in zh and "small seal" in en  # 09-54: no claim about the oracle-bone form


# --- 8. SCRC of bars ------------------------------------------------------------------------

def _draw(path, shapes):
    from PIL import Image, ImageDraw

    im = Image.new("L", (64, 64), 255)
    d = ImageDraw.Draw(im)
    for box in shapes:
        d.rectangle(box, fill=0)
    im.save(path)


def test_bars_only_glyph_gets_no_script_question(recs, tmp_path):
    by_id, index = recs
    assert {"一", "二"} <= bar_characters(list(by_id.values())) and "西" not in bar_characters(list(by_id.values()))
    _draw(tmp_path / "bars.png", [(10, 20, 54, 24), (6, 40, 58, 45)])
    _draw(tmp_path / "cross.png", [(10, 30, 54, 34), (30, 8, 34, 56)])
    assert only_bars(tmp_path / "bars.png") and not only_bars(tmp_path / "cross.png")
    rec = by_id["二_楷书"].model_copy(update={"script": "篆书", "images": [
        image("篆书").model_copy(update={"id": "bars", "path": "bars.png", "style": "tracing"}),
        image("篆书").model_copy(update={"id": "cross", "path": "cross.png", "style": "tracing"})]})
    assert script_neutral_images([rec], tmp_path) == {"bars"}
    index.script_neutral = {"bars"}
    try:
        f = facts_for(rec, BENCH, index)
    finally:
        index.script_neutral = set()
    assert make_qa(f, "SCRC", 0, rec.images[0]) is None and make_qa(f, "SCRC", 0, rec.images[1]) is not None


# --- leakage through a traditional / simplified partner ---------------------------------

def test_a_bench_characters_partner_is_reserved_in_the_dataset(recs):
    from builder.qa.stage import _reserved

    by_id, _ = recs
    assert _reserved(by_id["颅_简体"], {"顱"}) and _reserved(by_id["顱_楷书"], {"颅"})
    assert not _reserved(by_id["顱_楷书"], {"匊"})
    f = facts(recs, "颅_简体", DATASET, reserved=_reserved(by_id["颅_简体"], {"顱"}))
    assert f.orim is None  # 顱's Shuowen gloss is the bench reference: not stated for 颅 either


# --- final reviews 12-04 (seeds 20261210 / 20261211) ----------------------------------------

@pytest.mark.parametrize("rid,reason", [
    ("丁_楷书", "cosmological-gloss:original_meaning"),   # 「夏時萬物皆丁實」: a calendar sign
    ("二_楷书", "cosmological-gloss:original_meaning"),   # 「地之數也」
    ("初_楷书", "duan-extended-sense:original_meaning"),  # 「始也」, Duan: 引伸爲凡始之偁
])
def test_no_orim_where_the_gloss_is_not_the_original_meaning(recs, rid, reason):
    for profile in (BENCH, DATASET):
        f = facts(recs, rid, profile)
        assert f.orim is None and f.missing["ORIM"] == reason


def test_a_reading_note_shows_the_sound_link_or_nothing(recs):
    fu = interp(facts(recs, "愊_楷书"), "畐")
    assert "芳逼切" in fu and "读fú" not in fu, fu  # 畐 fú hides its 芳逼 reading, 愊's
    zeng = interp(facts(recs, "繒_楷书"), "曾")
    assert "读céng" not in zeng, zeng  # 曾 also reads zēng: no contrast of first readings ...
    assert "作滕切" in zeng and "疾陵切" in zeng, zeng  # ... but every fanqie of both (data review 12-04, round 4)


def test_duan_yisheng_on_a_huiyi_head(recs):
    bench = facts(recs, "庫_楷书")
    form, _ = bench.formation
    assert form.label_set() == ["形声", "会意"] and form.yisheng  # Duan 「車亦聲」
    assert bench.accepted["FORC"] == [["会意"]]  # Shuowen's 「从車在广下」 stays right
    che = next(c for c in bench.components if c.name == "車")
    assert che.functions == ["表意", "表音"] and che.functions_accepted == [["表意"]]
    data, _ = facts(recs, "庫_楷书", DATASET).formation
    assert data.label_set() == ["会意"]  # cjkvi-ids 會意; no Duan, no 形声 from nowhere


def test_no_seal_layout_from_a_modern_surround(recs):
    by_id, index = recs
    seal = by_id["題_楷书"].model_copy(update={"id": "題_篆书", "script": "篆书"})
    f = facts_for(seal, BENCH, index)
    assert f.structure is None and f.missing["STRC"].startswith("seal-form:")  # seal 題 is ⿰, not ⿺


def test_a_list_missing_a_sheng_part_is_not_asked(recs):
    from builder.qa.complete_list import unlisted_sheng as _unlisted_sheng
    from builder.qa.facts import CompFact
    from builder.schema import Provenance

    sw = Provenance(source="shuowen", entry_id="4440", span="从禾，隱省", rule="shuowen.components")
    assert _unlisted_sheng([CompFact(name="禾", functions=["表意"], provenance=[sw])])  # 穩 without 隱
    li = Provenance(source="shuowen", entry_id="2705", span="从刀，和省", rule="shuowen.components")
    assert not _unlisted_sheng([CompFact(name="刀", functions=["表意"], provenance=[li]),
                                CompFact(name="和", functions=["表意"], provenance=[li])])


def test_a_book_duan_quotes_is_not_duan(recs):
    hua = interp(facts(recs, "貨_楷书"), "化")
    assert "變化反易之物" not in hua, hua  # Duan quotes 蔡氏《化清經》 via 廣韻


def test_shuowen_que_is_kept(recs):
    by_id, index = recs
    pang = derive(by_id["旁_楷书"], index, ALL).narrative()
    assert "闕" in pang, pang  # 「从二，闕；方聲」: not 「从二，方声」


def test_char_accepts_no_variant_the_drawing_is_not(recs):
    tracing = image("篆书").model_copy(update={"style": "tracing", "origin": "commons:File:赤-seal.svg"})
    struct = make_qa(facts(recs, "赤_楷书"), "CHAR", 0, tracing).answer_struct
    assert "烾" not in struct.get("accepted", [])  # 古文 烾 (从炎、土) is not this 大-over-火 drawing
    feng = make_qa(facts(recs, "鳳_楷书"), "CHAR", 0, image()).answer_struct
    assert "朋" not in feng.get("accepted", [])  # cjkvi 「朋 →鳳 # 【字通】象形」 is no variant link


# --- final reviews 12-04, round 3 (seeds 20261214 / 20261215) --------------------------------

def test_a_xinfu_entry_is_not_shuowen(recs):
    by_id, _ = recs
    qia = by_id["恰_楷书"]  # 「用心也」 is Xu Xuan's 新附, absent from Duan's edition
    assert not any(k.startswith("shuowen:") for k in qia.raw)
    assert facts(recs, "恰_楷书").orim is None


def test_a_matthews_only_semantic_variant_is_no_char_answer(recs):
    struct = make_qa(facts(recs, "侚_楷书"), "CHAR", 0, image()).answer_struct
    assert "殉" not in struct.get("accepted", [])


def test_duan_part_note_keeps_the_whole_clause(recs):
    assert "故字从示土" in interp(facts(recs, "社_楷书"), "示")


def test_a_part_gets_no_calendar_or_quoted_gloss(recs):
    for profile in (BENCH, DATASET):
        zi = interp(facts(recs, "孚_楷书", profile), "子") or ""
        assert "十一月" not in zi and "陽气" not in zi and "李陽冰" not in zi, zi


def test_a_huiyi_head_with_duan_yisheng_leads_with_huiyi(recs):
    qa = make_qa(facts(recs, "庫_楷书"), "FORC", 0, image())
    assert qa.answer.startswith("会意") and "亦声" in qa.answer, qa.answer


def test_que_leaves_no_orim(recs):
    assert facts(recs, "𠨖_楷书").orim is None  # 「二卪也。巽从此。闕。」


def test_same_in_both_standards_only_for_the_standard_table(recs):
    chang = make_qa(facts(recs, "昌_楷书"), "SCRC", 0, image()).answer
    assert "繁简同形" in chang  # 昌 is in the 通用规范汉字表 and has no other form
    assert "繁简同形" not in make_qa(facts(recs, "侚_楷书"), "SCRC", 0, image()).answer  # 侚 is not
