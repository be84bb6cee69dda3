"""Records-level regressions of the final data reviews (final-20261210, final-20261211), one
test per pattern on the reviewers' own examples, aligned from the real sources (no images:
:func:`builder.records.align.align` on a restricted corpus). ``<set>-<item>`` is ``## N.``
of /work/review/final-<set>/items.md.

1. 1210-101: a seal drawing filed under a later form shows Shuowen's head (麵-seal draws 麪
   「从麥丏聲」); makemeahanzi's analysis of the modern form is not the seal's.
2. 1210-107: a Shuowen 重文 note's parts stand only where the variant's own IDS draws them.
3. 1210-103: the fuller English definition is kept; agreement means the same senses.
4. 1210-80: a linked code point's analysis names the parts the form draws (遴 ⿺辶粦, not
   䢯 ⿺辶㷠).
5. 1211-65: makemeahanzi's semantic / phonetic is a component only as a whole first-level
   operand (浸's 「彐」 is a fragment of 𠬶).
6. 1211-61: a regular-script record's IDS is the mainland / unmarked alternative (棊 ⿱其木,
   not the Taiwan-only ⿱其朩).
"""

from __future__ import annotations

import pytest
from qa_fixtures import character_corpus

from builder.records.align import align
from builder.records.own_form import choose_definition

CHARS = "麵𧏁円遴粦浸棊复肆廌薑"  # 粦: its Unihan entry links 㷠 (a full build reads all)


@pytest.fixture(scope="module")
def corpus(sources_dir):
    return character_corpus(sources_dir, CHARS)


def parts(rec) -> list[tuple[str, list[str]]]:
    return [(c.name, sorted(c.functions)) for c in rec.components]


def test_a_seal_drawing_of_a_later_form_is_shuowen_s_head(corpus):
    mian = align("麵", "篆书", corpus)
    assert mian.form == "麪" and mian.ids.value.endswith("麥丏")
    assert parts(mian) == [("麥", ["表意"]), ("丏", ["表音"])]
    assert mian.components[0].position == "左"
    assert not any(p.source == "makemeahanzi" for c in mian.components for p in c.provenance)
    assert "makemeahanzi" not in mian.formation.agree
    # Unihan's looser variants are no seal form: 复 simplifies 復/複/覆, 肆 ~ 四, 廌 ~ 豸, 薑 -> 姜
    for ch in "复肆廌薑":
        assert align(ch, "篆书", corpus).form is None, ch


def test_a_chongwen_note_s_parts_must_be_what_its_ids_draws(corpus):
    chen = align("𧏁", "楷书", corpus)  # 古文蚳从辰、土 against ⿺辰⿱虫土 (虫 drawn, not named)
    assert not any(p.rule.startswith("shuowen.variant") for c in chen.components for p in c.provenance)
    assert {c.name for c in chen.components} <= {"辰", "虫", "土"}
    assert "土" not in {c.name for c in chen.components}
    assert not (chen.formation and chen.formation.value.label == "会意")


def test_the_fuller_definition_and_no_overstated_agreement(corpus):
    yen = align("円", "楷书", corpus)
    assert yen.definition_en.value == "circle; yen"
    assert yen.definition_en.agree == ["makemeahanzi"] and yen.definition_en.disagree == {"unihan": "yen"}
    assert choose_definition([("unihan", "select, choose; surname"),
                              ("makemeahanzi", "to select, to choose; surname")]) == (0, [0, 1])


def test_a_linked_code_point_s_parts_are_not_the_form_s(corpus):
    lin = align("遴", "楷书", corpus)
    assert [c.name for c in lin.components] == ["辵", "粦"]
    assert not any("@link:" in p.rule for c in lin.components for p in c.provenance)


def test_a_makemeahanzi_fragment_of_an_operand_is_no_component(corpus):
    jin = align("浸", "楷书", corpus)  # "phonetic":"彐" in ⿰氵⿳彐冖又 / cjkvi ⿰氵𠬶
    assert "彐" not in {c.name for c in jin.components}
    assert parts(jin) == [("水", ["表意"])]  # left short, so the question is not asked


def test_the_modern_ids_is_the_mainland_alternative(corpus):
    qi = align("棊", "楷书", corpus)  # ⿱其木[GJK] ⿱其朩[T]
    assert qi.ids.value == "⿱其木"
    assert [(c.name, c.position) for c in qi.components] == [("其", "上"), ("木", "下")]
