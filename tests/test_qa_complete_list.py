"""Two review findings of round 4-5. A component list asked as complete must hold every drawn part Shuowen names
(data review 12-04, round 4: seal 羊 listed as 𦫳 alone though 「从𦫳，象頭角足尾之形」; 鬼
listed as 人 + 厶 though 「从人，象鬼頭」). Records are built from the real sources."""

from __future__ import annotations

import pytest

from builder.qa.compose import facts_for
from builder.qa.complete_list import unlisted_drawn_part
from builder.qa.facts import BENCH
from qa_fixtures import review_index

CHARS = "羊𦫳鬼人厶甶果木屋尸至曰口乙江水工胃肉勿縣系組冃冂二番釆田"


@pytest.fixture(scope="module")
def recs(sources_dir, tmp_path_factory):
    return review_index(sources_dir, tmp_path_factory.mktemp("complete") / "records", CHARS, readings=False)


class _C:
    def __init__(self, name):
        self.name = name


@pytest.mark.parametrize("rid", ["羊_楷书", "鬼_楷书", "果_楷书"])
def test_a_drawn_part_beside_the_formula_keeps_the_list_from_being_asked(recs, rid):
    by_id, index = recs
    rec = by_id[rid]
    assert unlisted_drawn_part(rec, [_C(c.name) for c in rec.components]), [c.name for c in rec.components]
    f = facts_for(rec, BENCH, index)
    assert not f.components and f.missing.get("COMR"), (rid, f.missing)


@pytest.mark.parametrize("rid", ["江_楷书", "屋_楷书", "曰_楷书"])
def test_a_formula_without_a_drawn_part_is_complete(recs, rid):
    # 江 has no 象 clause; 屋 「尸，象屋形」 says what 尸 depicts; 曰 「亦象口气出也」 is the whole
    by_id, _ = recs
    rec = by_id[rid]
    assert rec.components and not unlisted_drawn_part(rec, [_C(c.name) for c in rec.components])


def test_an_extra_ids_component_stands_for_the_drawn_part():
    # 果 in the regular script: the IDS gives 田 beside 从木, the drawn fruit
    class R:
        raw = {"shuowen:1": "字頭\t果\n說解\t木實也。从木，象果形在木之上。"}
    assert unlisted_drawn_part(R, [_C("木")])
    assert not unlisted_drawn_part(R, [_C("田"), _C("木")])


@pytest.mark.parametrize("rid,text", [("勿_楷书", "大夫士所建旗"), ("縣_楷书", "系也"), ("組_楷书", "綬織也")])
def test_duan_replaces_the_whole_phrase_he_names(recs, rid, text):
    # 勿: 「州里當作大夫士」 replaces both characters (one-for-one matching gave 「州大所建旗」,
    # data review 12-04 round 5)
    by_id, index = recs
    f = facts_for(by_id[rid], BENCH, index)
    assert f.orim is not None and f.orim[0] == text and f.orim[3] == "duan", (f.orim, f.missing.get("ORIM"))


@pytest.mark.parametrize("rid", ["冃_楷书", "番_楷书"])
def test_a_part_named_outside_the_formula_keeps_the_list_from_being_asked(recs, rid):
    # 冃 「从冂；二，其飾也」 listed as 冂 alone (review of out-r7, seed 20261223 item 61)
    from builder.qa.complete_list import unlisted_named_part
    by_id, index = recs
    rec = by_id[rid]
    assert unlisted_named_part(rec, [_C(c.name) for c in rec.components]), [c.name for c in rec.components]
    assert not facts_for(rec, BENCH, index).components


def test_a_named_part_that_is_listed_is_complete(recs):
    from builder.qa.complete_list import unlisted_named_part
    by_id, _ = recs
    rec = by_id["江_楷书"]
    assert not unlisted_named_part(rec, [_C(c.name) for c in rec.components])
