"""Regression tests for the QA-stage patterns of the independent review of out-r5
(final-20261218 / final-20261219), on records built from the real sources.

1. A component explained only by its own gloss is asked only in a phrasing that asks what each
   component means (乂, 贊, 采); an own gloss quotes a depiction whole (木 「从屮，下象其根」:
   cut, it no longer says what 木 is) and is no cross-reference to another graph (爪 「丮也」).
2. A gloss Duan names a sound-gloss (田 「敶也」: 「故以㬪韵爲訓」) is no ORIM nor component gloss.
3. 「繁简同形」 only where Unihan gives no simplified form but the character itself (徵 -> 征).
4. No Unihan definition as a component interpretation (殍's 歹 「bad, vicious, depraved」).
5. A one-character gloss that is also a modern simplified form (㭕 「极也」, 极 = 極) is not asked.
"""

from __future__ import annotations

import pytest

from builder.qa import part_glosses, soundgloss
from builder.qa.facts import BENCH, DATASET
from builder.qa.questions import bench_eligible, bench_qa, dataset_qa, own_gloss_only
from builder.qa.wording import make_qa
from hub import templates as T
from builder.schema import GlyphImage
from qa_fixtures import review_facts, review_index

CHARS = "徵征昌田㭕极木去會合殍歹孚乂丿乀贊兟貝采爪丮頁鼹鼴厘釐關关寡馬"


@pytest.fixture(scope="module")
def recs(sources_dir, tmp_path_factory):
    return review_index(sources_dir, tmp_path_factory.mktemp("review_r6a") / "records", CHARS, definitions=True)


facts = review_facts  # (recs, record id, profile=BENCH) -> Facts


def image(script="楷书"):
    return GlyphImage(id=f"test-{script}", path="images/x.png", script=script, source="font:Noto Serif CJK SC",
                      licence="OFL-1.1", style="font-song", font="Noto Serif CJK SC", width=64, height=64,
                      sha256="0" * 64)


# --- 3. 繁简同形 needs no other simplified form -------------------------------------------------

def test_zheng_is_not_same_in_both_standards(recs):
    assert "繁简同形" not in make_qa(facts(recs, "徵_楷书"), "SCRC", 0, image()).answer  # 徵 -> 征
    assert "繁简同形" in make_qa(facts(recs, "昌_楷书"), "SCRC", 0, image()).answer


# --- 2. a sound-gloss Duan names -------------------------------------------------------------

@pytest.mark.parametrize("note,gloss,head,marked", [
    ("各本作陳。今正。敶者、列也。田與敶古皆音陳。故以㬪韵爲訓。取其敶列之整齊謂之田。", "敶也", "田", True),
    ("以疊韻爲訓。", "X也", "Y", True),
    ("以同音爲訓。", "X也", "Y", True),
    ("此聲訓也。", "X也", "Y", True),
    ("各本作某。今正。某者甲也。乙丙丁戊。己與庚以雙聲爲訓。", "X也", "Y", False),  # about other words
    ("敶者、列也。", "敶也", "田", False),
    ("厓今之涯字。附當作駙。馬部曰。駙、近也。瀕賔以㬪韵爲訓。", "水厓", "瀕", False),  # on 賓, not 水厓
])
def test_duan_marks_sound_gloss(note, gloss, head, marked):
    assert soundgloss.duan_marks_sound_gloss(note, gloss, head) is marked


def test_tian_orim_is_no_sound_gloss(recs):
    f = facts(recs, "田_楷书")  # was 「敶也」
    assert f.orim is None and f.missing["ORIM"] == "sound-gloss:original_meaning"
    assert facts(recs, "田_楷书", DATASET).orim is None


def test_tian_own_gloss_drops_the_named_sound_gloss(recs):
    note = part_glosses.own_gloss(recs[1], "田", set())
    assert note is None or "陳也" not in note.zh and "敶也" not in note.zh, note


# --- 5. a one-character gloss that is a modern simplified form ----------------------------------

def test_qu_gloss_ji_is_not_asked(recs):
    for profile in (BENCH, DATASET):
        f = facts(recs, "㭕_楷书", profile)  # was 「极也」 in the dataset
        assert f.orim is None and f.missing["ORIM"] == "simplified-word-gloss:original_meaning"
    modern = recs[1].modern
    assert modern.simplifies_other.get("极") == frozenset("極")
    assert "从" not in modern.simplifies_other and "并" not in modern.simplifies_other  # one word, two forms


def test_other_one_character_glosses_stay(recs):
    assert facts(recs, "會_楷书", DATASET).missing.get("ORIM") != "simplified-word-gloss:original_meaning"  # 「合也」


# --- 4. no Unihan gloss of a component ----------------------------------------------------------

def test_piao_dai_gets_no_unihan_gloss(recs):
    _, index = recs
    index.reserved = frozenset({"歹", "歺"})  # a bench character: its Shuowen gloss may not be stated
    try:
        f = facts(recs, "殍_楷书", DATASET)
    finally:
        index.reserved = frozenset()
    for c in f.components:
        assert not any(p.rule == "qa.comi.unihan_definition" for p in c.interpretation_provenance), c
        assert "Unihan" not in (c.interpretation or "") and "vicious" not in (c.interpretation or ""), c


# --- 1. own gloss only: no role phrasing; depiction and cross-reference ------------------------

def test_own_gloss_depiction_is_quoted_whole(recs):
    # cut to 「下象其根」 it no longer says what 木 is (review of out-r6, seed 20261220 item 49)
    assert part_glosses.own_gloss(recs[1], "木", set()).zh == "木，《说文》：「从屮，下象其根」"


def test_own_gloss_is_no_cross_reference(recs):
    note = part_glosses.own_gloss(recs[1], "爪", set())
    assert note is None or "丮也" not in note.zh, note  # was 爪，《说文》：「丮也」
    assert "頭也" in part_glosses.own_gloss(recs[1], "頁", set()).zh  # a word, not a graph: stays
    assert not part_glosses._cross_reference(recs[1], "出也", "之")  # 出 is in the standard table


ROLE_WORDS = ("作用", "理据", "在字中的含义", "构字解释", "结合构形")


@pytest.mark.parametrize("rid", ["乂_楷书", "贊_楷书", "采_楷书"])
def test_own_gloss_only_is_asked_what_each_part_means(recs, rid):
    f = facts(recs, rid)
    assert own_gloss_only(f), [c.interpretation for c in f.components]
    for seed in range(12):
        rows = bench_qa(f, image(), seed, second_component=True) if bench_eligible(f) else []
        for qa in rows + dataset_qa(facts(recs, rid, DATASET), image(), seed):
            if qa.kind in T.MEANING_PHRASINGS:
                assert not any(w in qa.question for w in ROLE_WORDS), qa.question


def test_meaning_phrasings_ask_no_role():
    for kind, allowed in T.MEANING_PHRASINGS.items():
        for i in allowed:
            assert not any(w in T.TEMPLATES[kind][i][0] for w in ROLE_WORDS), (kind, i)


# --- review of out-r6 (seed 20261221) -----------------------------------------------------------

@pytest.mark.parametrize("ch", ["鼹", "厘"])
def test_another_traditional_form_is_not_same_in_both_standards(recs, ch):
    # 鼹 -> 鼴, 厘 -> 釐 (Unihan kTraditionalVariant): 「此字繁简同形」 was false
    by_id, _ = recs
    for rid in [r for r in by_id if r.split("_")[0] == ch]:
        assert "繁简同形" not in make_qa(facts(recs, rid), "SCRC", 0, image()).answer, rid


def test_a_learners_dictionary_variant_is_no_accepted_character(recs):
    # 關 -> 寡 is a kSemanticVariant by Lau's Cantonese-English dictionary alone
    forms = {form for form, _ in facts(recs, "關_楷书").char_forms}
    assert "寡" not in forms and "关" in forms, forms



def test_every_sentence_of_the_quotation_duan_calls_a_sound_gloss_goes(recs):
    # 馬 「怒也。武也」: Duan's 「以曡韵爲訓」 is on the quotation of both (review of out-r7,
    # seed 20261222 item 19: the bench answered 「武也」)
    from builder.qa.orim import SOUND_GLOSS_REASON
    f = facts(recs, "馬_楷书")
    assert f.orim is None and f.missing["ORIM"] == SOUND_GLOSS_REASON, (f.orim, f.missing.get("ORIM"))
