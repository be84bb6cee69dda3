"""Regression tests for the component interpretation / function / evolution-type / formation
patterns of the round-4 data review (12-04), on records built from the real sources.

1. (A Unihan definition as a component gloss: dropped altogether since the review of out-r5,
   tests/test_qa_review_r6a.py.)
2. A Shuowen depiction clause about another element (禾's 「𠂹象其穗」) is no gloss of the part.
3. A component's own Shuowen formula (門 「从二戶」) is no interpretation.
4. A makemeahanzi hint never makes 亦声 (讧's 工); a makemeahanzi-only analysis against the
   linked Shuowen head (准 / 準) gives no interpretation.
5. 保留 only of a part the modern IDS draws (爭's 𠬪, 𠂆).
6. No 会意 read off an IDS split alone (氒 ⿱氏十).
7. A phonetic's readings: fanqie where the modern readings differ (單/嘽, 其/斯, 辰/脣) and on a
   seal image (艿 如乘切, 乃 奴亥切).
"""

from __future__ import annotations

import pytest

from builder.qa import part_glosses
from builder.qa.component_facts import MMH_AGAINST_HEAD, SPLIT_ONLY
from builder.qa.facts import BENCH, DATASET
from qa_fixtures import review_facts, review_index

CHARS = "䟔足卜囷禾囗閒門月戶讧訌言工准準水隼仌隹冫爭𠬪𠂆争氒氏十嘽單单斯其斤脣辰肉艿艸乃"


@pytest.fixture(scope="module")
def recs(sources_dir, tmp_path_factory):
    return review_index(sources_dir, tmp_path_factory.mktemp("review_r5b") / "records", CHARS, definitions=True)


facts = review_facts  # (recs, record id, profile=BENCH) -> Facts


def comp(f, name):
    return next(c for c in f.components if c.name == name)


# --- 2. / 3. own gloss: no other element's depiction, no formula -------------------------------

def test_he_is_glossed_by_its_own_gloss_not_by_the_sui_part(recs):
    text = comp(facts(recs, "囷_楷书"), "禾").interpretation
    assert "嘉穀也" in text and "𠂹象其穗" not in text, text  # before: 禾，《说文》：「𠂹象其穗」


def test_other_subject_depiction():
    assert part_glosses._other_subject("𠂹象其穗", "禾")
    assert not part_glosses._other_subject("下象其根", "木")     # a position word, the part itself
    assert not part_glosses._other_subject("象回帀之形", "囗")
    assert not part_glosses._other_subject("云象雲回轉形", "云")


def test_men_own_formula_is_no_interpretation(recs):
    f = facts(recs, "閒_楷书")
    assert "从二戶" not in (comp(f, "門").interpretation or "")   # before: 門，《说文》：「从二戶」
    assert "大陰之精" in comp(f, "月").interpretation               # 月's gloss is fine
    assert f.missing.get("COMI") == "no-interpretation"


# --- 4. makemeahanzi ----------------------------------------------------------------------------

def test_hint_never_makes_yisheng(recs):
    by_id, _ = recs
    rec = next(c for c in by_id["讧_简体"].components if c.name == "工")
    assert any(p.rule == "makemeahanzi.hint.phonetic" for p in rec.provenance)  # the record's hint-made 亦声
    for profile in (DATASET, BENCH):
        f = facts(recs, "讧_简体", profile)
        if not f.components:
            continue
        gong = comp(f, "工")
        assert gong.functions == ["表音"], gong.functions       # Shuowen 「从言工聲」
        assert "亦声" not in (gong.interpretation or "")
        assert not any(p.rule == "makemeahanzi.hint.phonetic" for p in gong.provenance)


def test_mmh_only_analysis_against_the_linked_head_gives_no_interpretation(recs):
    f = facts(recs, "准_楷书", DATASET)
    assert f.components and all(c.interpretation is None for c in f.components)  # before: 仌 「象水凝之形」
    assert f.missing["COMI"] == MMH_AGAINST_HEAD


# --- 5. evolution type 保留 only of a drawn part --------------------------------------------------

def test_zheng_parts_not_retained(recs):
    f = facts(recs, "爭_楷书", DATASET)
    assert {c.name for c in f.components} == {"𠬪", "𠂆"}
    assert all(c.evolution_type != "保留" for c in f.components)  # before: 保留 for both
    assert f.missing.get("COME") == "no-evolution-type"
    assert f.formation is not None and f.formation[0].label == "会意"  # Shuowen's class, not a split


def test_drawn_parts_still_retained(recs):
    assert comp(facts(recs, "斯_楷书"), "斤").evolution_type == "保留"
    assert comp(facts(recs, "脣_楷书"), "辰").evolution_type == "保留"


# --- 6. formation not from an IDS split alone -------------------------------------------------

def test_jue_formation_not_from_the_ids_split(recs):
    f = facts(recs, "氒_楷书", DATASET)
    assert f.formation is None, f.formation  # before: 会意 from cjkvi's ⿱氏十
    # 12-19 review: Shuowen's own formula 「从氏」 states no class, so the record holds none
    assert f.missing["FORC"] in (SPLIT_ONLY, "no-formation")


# --- 7. a phonetic's readings -------------------------------------------------------------------

@pytest.mark.parametrize("rid,name,says", [
    ("嘽_楷书", "單", "都寒切"),
    ("斯_楷书", "其", "渠之切"),
    ("脣_楷书", "辰", "植鄰切"),
])
def test_phonetic_readings_given(recs, rid, name, says):
    text = comp(facts(recs, rid), name).interpretation
    assert says in text and not text.endswith("提示字音"), text


@pytest.mark.parametrize("profile", [BENCH, DATASET])
def test_seal_phonetic_compares_fanqie(recs, profile):
    text = comp(facts(recs, "艿_篆书", profile), "乃").interpretation
    assert "奴亥切" in text and "如乘切" in text and "nǎi" not in text, text  # before: 「乃」读nǎi，「艿」读nǎi
    modern = comp(facts(recs, "艿_楷书"), "乃").interpretation
    assert "读nǎi" in modern, modern  # the regular-script image keeps the modern readings
