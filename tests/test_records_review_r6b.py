"""Records-level regressions of the final data reviews final-20261218 / final-20261219 (round
6b), aligned from the real sources (:func:`builder.records.align.align` on a restricted corpus).
``<seed>-<item>`` is ``## N.`` of /work/review/final-2026121<seed - 10>/items.md.

1. 19-101 / 18-116: the class comes from the character's own 說文 formula; makemeahanzi's type
   and cjkvi-ids' labels are flagged, not presented, where they disagree (再, 佼).
2. 19-96: makemeahanzi's type makes no 表意 of a part read like the host (紥: 扎, zā).
3. 18-106 / 19-115: a dialect / naming note is no original meaning (甾 「東楚名缶曰甾」: none;
   譎 「權詐也。益、梁曰謬欺，天下曰譎」: 「權詐也」); the QA ORIM rule shares the pattern.
4. 19-106: a modern record's phonetic that is not its seal form's (志 士, Shuowen 𢖽 「之聲」) and
   is not read like the host keeps no function (no source says 士 writes 之).
5. 18-110: two 反切 whose spellers are one character, its Unihan variant or its homophone
   (same Unihan kFanqie) are one reading (蚤 子皓 / 子晧).
"""

from __future__ import annotations

import pytest
from qa_fixtures import character_corpus

from builder.records.align import align

CHARS = "再佼甾譎紥扎志𢖽士之麵麪面丏"


@pytest.fixture(scope="module")
def corpus(sources_dir):
    return character_corpus(sources_dir, CHARS)


def test_shuowen_formula_governs_the_class(corpus):
    for script in ("楷书", "篆书"):
        zai = align("再", script, corpus)  # 「一舉而二也。从冓省」: no class stated, and not 象形
        assert zai.formation is None
        assert {f.source for f in zai.flags if f.field == "formation"} >= {"makemeahanzi", "cjkvi-ids"}
        jiao = align("佼", script, corpus)  # 「从人从交」 against cjkvi 交聲 / makemeahanzi pictophonetic
        assert jiao.formation.value.label == "会意" and jiao.formation.agree == ["shuowen"]
        assert jiao.formation.disagree == {"cjkvi-ids": "形声", "makemeahanzi": "形声"}
        assert all(p.source == "shuowen" for p in jiao.formation.provenance)


@pytest.fixture(scope="module")
def zao_corpus(sources_dir):
    return character_corpus(sources_dir, "蚤皓晧")


def test_fanqie_with_homophone_spellers_are_one_reading(zao_corpus):
    # 18-110: Shuowen 子皓切 and Unihan 子晧 (皓 and 晧 are both 胡老 in Unihan's kFanqie)
    zao = align("蚤", "楷书", zao_corpus)
    fq = [r for r in zao.readings if r.fanqie]
    assert [r.fanqie for r in fq] == ["子皓"]
    assert {p.source for p in fq[0].provenance} == {"shuowen", "unihan"}


def test_dialect_notes_are_no_original_meaning(corpus):
    assert align("甾", "楷书", corpus).original_meaning is None
    jue = align("譎", "篆书", corpus)
    assert jue.original_meaning.value == "權詐也" and "shuowen" in jue.original_meaning.agree


@pytest.mark.parametrize("gloss,kept", [
    ("桯也，東方謂之蕩", "桯也"),
    ("沛國謂稻曰稬", ""),
    ("水。出東萊曲城陽丘山，南入海", "水。出東萊曲城陽丘山，南入海"),
    ("江水大波謂之澐", "江水大波謂之澐"),
    ("分物得增益曰戴", "分物得增益曰戴"),
    ("《國語》曰：“回禄信於耹遂。”闕", "《國語》曰：“回禄信於耹遂。”闕"),
])
def test_dialect_note_pattern(gloss, kept):
    from builder.records.meaning import without_dialect_notes
    assert without_dialect_notes(gloss) == kept


def test_mmh_type_makes_no_function_of_a_read_alike_part(corpus):
    za = align("紥", "楷书", corpus)
    assert [(c.name, c.functions) for c in za.components if c.name == "扎"] == [("扎", [])]
    assert za.formation is None  # 会意 rested on makemeahanzi's 'ideographic' alone
    assert any(f.field == "components" and f.source == "makemeahanzi" for f in za.flags)
    seal = align("紥", "篆书", corpus)  # a seal record takes no list from makemeahanzi at all (review of out-r12)
    assert not seal.components and seal.formation is None


def test_modern_phonetic_unlike_the_seal_s_is_not_presented(corpus):
    zhi = align("志", "楷书", corpus)
    assert [(c.name, c.functions) for c in zhi.components if c.name == "士"] == [("士", [])]
    assert any(f.field == "components" and "之" in f.reason for f in zhi.flags)
    # makemeahanzi's 麵 makes 麥 the phonetic (seal 麪 「丏聲」) and 面 表意 (read miàn like 麵): neither stays
    mian = align("麵", "楷书", corpus)
    assert all(not c.functions for c in mian.components), mian.components
