"""Findings of the independent review of out-r8 (seeds 20261224 / 20261225), each on the real
sources: a part both the IDS and the Shuowen analysis name keeps a shorter list from being asked
as complete (雙); a component's own gloss is no 《易》 quotation after the analysis (示); Duan's
「X當依Y作Z」 is his reading and his unsettled doubt no confirmation (髟, 近); a head Shuowen uses
for two words is analysed by the entry read as the character is read today (舌); an IDS part
drawn as a sub-structure leaves no partial list (𩕎); an entry Duan doubts has no second witness (㡹)."""

from __future__ import annotations

import pytest

from builder.qa.complete_list import unlisted_ids_part
from builder.qa.compose import facts_for
from builder.qa.facts import BENCH
from builder.qa.orim import DUAN_EMENDS_REASON
from qa_fixtures import review_index

CHARS = "雙雔又江水工示祡此髟長彡近辵斤舌干口氒𩕎舟足頁履㡹广且騶驺馬马芻刍湘相河饨飩饣食屯狗犬句舊臼萑麌鹿呉吳亵褻衣埶"


@pytest.fixture(scope="module")
def recs(sources_dir, tmp_path_factory):
    return review_index(sources_dir, tmp_path_factory.mktemp("r8") / "records", CHARS)


class _C:
    def __init__(self, name):
        self.name = name


def test_a_part_the_ids_and_the_analysis_name_keeps_a_short_list_from_being_asked(recs):
    # 雙 「从雔，又持之」, IDS ⿱雔又: listed as 雔 alone (seed 20261224 item 96)
    by_id, index = recs
    rec = by_id["雙_楷书"]
    assert unlisted_ids_part(rec, [_C("雔")])
    assert not unlisted_ids_part(rec, [_C("雔"), _C("又")])
    assert [c.name for c in rec.components] == ["雔"]  # the records' list from 「从雔」
    assert not facts_for(rec, BENCH, index).components


def test_a_formula_naming_every_ids_part_is_complete(recs):
    by_id, _ = recs
    rec = by_id["江_楷书"]
    assert rec.components and not unlisted_ids_part(rec, [_C(c.name) for c in rec.components])


def test_a_component_gloss_is_no_quotation_after_the_analysis(recs):
    # 示's text: 「…从二。三垂，日月星也。觀乎天文，以察時變。示，神事也」 (seed 20261224 items 24, 40)
    from builder.qa.part_glosses import own_gloss
    _, index = recs
    note = own_gloss(index, "示", {"祡"})
    assert note is not None and note.provenance[0].span == "神事也", note
    assert "觀乎天文" not in note.zh


def test_duan_reading_after_the_book_he_follows_is_no_confirmation(recs):
    # 髟 「長髮猋猋也」, Duan: 「猋猋當依玉篇作髟髟」 (seed 20261225 item 6: marked as confirming)
    by_id, index = recs
    from builder.qa.orim import duan_reading
    rec = by_id["髟_楷书"]
    verdict = duan_reading(rec, "長髮猋猋也", index)
    assert verdict is not None and verdict[0] == "emends" and verdict[2] == "長髮髟髟也", verdict
    # his reading repeats the head (髟髟), no meaning to ask: no question rather than Xu's 猋猋
    f = facts_for(rec, BENCH, index)
    assert f.orim is None or f.orim[3] == "duan", f.orim


def test_duan_doubt_is_no_confirmation(recs):
    # 近 「附也」, Duan: 「疑附近當作坿也」 (seed 20261225 item 9)
    by_id, index = recs
    f = facts_for(by_id["近_楷书"], BENCH, index)
    assert f.orim is None and f.missing.get("ORIM") == DUAN_EMENDS_REASON, (f.orim, f.missing.get("ORIM"))


def test_a_head_of_two_words_is_analysed_by_the_entry_read_as_today(recs):
    # 舌: 「在口，所以言也…从干从口」 (食列切 shé) and 「塞口也。从口，氒省聲」 (古活切 guā, 𠯑);
    # the record took the second (seed 20261224 item 106)
    by_id, _ = recs
    for rid in ("舌_楷书",):
        rec = by_id[rid]
        assert "shuowen:1437" in rec.raw and "shuowen:941" not in rec.raw, (rid, list(rec.raw))
        assert {c.name for c in rec.components} == {"干", "口"}, [c.name for c in rec.components]
        assert "guā" not in {r.pinyin for r in rec.readings}


def test_an_ids_sub_structure_leaves_no_partial_component_list(recs):
    # 𩕎 ⿰⿱舟足頁 (會意) was recorded as 頁 alone (seed 20261224 item 109)
    by_id, index = recs
    rec = by_id["𩕎_楷书"]
    assert [c.name for c in rec.components] != ["頁"], [c.name for c in rec.components]
    # nor a fragment 「⿱舟𧾷」 taken from the IDS's first level: no list, no question
    assert not rec.components, [c.name for c in rec.components]
    assert not facts_for(rec, BENCH, index).components


def test_a_gloss_duan_doubts_has_no_second_witness(recs):
    # 㡹 「人相依㡹也」; Duan: 「疑許本無㡹」 (seed 20261225 item 118: counted as agreeing)
    by_id, _ = recs
    om = by_id["㡹_楷书"].original_meaning
    assert om is not None and "duan" not in om.agree, om


def test_a_yisheng_on_duans_word_alone_is_attributed_to_him(recs):
    # 騶 「从馬芻聲」, Duan: 「此舉形聲包會意」 (seed 20261225 item 10: 亦声 stated as fact)
    by_id, index = recs
    rid = next(r for r in by_id if r.startswith("騶_"))
    f = facts_for(by_id[rid], BENCH, index)
    both = [c for c in f.components if set(c.functions) == {"表意", "表音"}]
    assert both and "段注" in both[0].interpretation and "形聲包會意" in both[0].interpretation, both


def test_a_gloss_in_duans_words_is_asked_as_his_edition(recs):
    # 湘: Xu 「水。出零陵陽海山」, the record takes Duan's 「湘水。出零陵縣陽海山」 (head restored, 縣
    # added: 「縣字今補」), which was asked 「据《说文》」 (seed 20261224 item 7)
    by_id, index = recs
    f = facts_for(by_id["湘_楷书"], BENCH, index)
    assert f.orim is not None and f.orim[0].startswith("湘水") and f.orim[3] == "duan", f.orim
    g = facts_for(by_id["頁_楷书"], BENCH, index)  # 「頭也」, Duan quotes it as it is: Xu's
    assert g.orim is not None and g.orim[3] == "shuowen", g.orim


def test_no_seal_to_modern_question_without_a_seal_form(recs):
    # 饨 (飩 is no Shuowen head): 「自小篆至今」 was asked of it (seed 20261224 item 65)
    from builder.qa.compose import NO_SEAL_FORM_REASON
    from builder.qa.facts import DATASET
    by_id, index = recs
    rid = next(r for r in by_id if r.startswith("饨_"))
    assert not any(k.startswith("shuowen:") for k in by_id[rid].raw)
    for profile in (BENCH, DATASET):
        f = facts_for(by_id[rid], profile, index)
        assert f.missing.get("COME") and f.missing.get("COMP_FULL"), f.missing
    assert facts_for(by_id["江_楷书"], BENCH, index).missing.get("COME") != NO_SEAL_FORM_REASON


def test_a_formula_after_a_closing_quotation_mark_names_its_parts(recs):
    # 狗 「孔子曰：“狗，叩也。叩气吠以守。”从犬句聲」: 「”从犬句聲」 named no 犬 (seed 20261226 item 100)
    by_id, _ = recs
    rec = by_id["狗_篆书"] if "狗_篆书" in by_id else by_id["狗_楷书"]
    assert {c.name for c in rec.components} >= {"犬", "句"}, [c.name for c in rec.components]


def test_a_class_only_makemeahanzi_gives_is_not_presented(recs):
    # 亵 会意 from makemeahanzi's "ideographic" alone (seed 20261227 item 113)
    by_id, _ = recs
    rec = by_id["亵_简体"] if "亵_简体" in by_id else by_id["亵_楷书"]
    assert rec.formation is None or rec.formation.agree != ["makemeahanzi"] or rec.formation.value.label == "形声", \
        rec.formation
