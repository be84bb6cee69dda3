"""COME / EVOI derivation by named rules, on hand-built records with real Shuowen spans."""

from __future__ import annotations

import pytest

from builder.qa.component_names import canonical_component
from builder.qa.evidence import EvidenceIndex
from builder.qa.evolution import derive
from builder.qa.narrative import RULES
from builder.schema import Component, GlyphRecord
from qa_fixtures import IDS, SW, _shuowen_raw, build_records

ALL = {"shuowen", "duan", "unihan", "cjkvi-ids", "makemeahanzi"}


@pytest.fixture(scope="module")
def records(sources_dir, tmp_path_factory):
    return build_records(sources_dir, tmp_path_factory.mktemp("records"))


@pytest.fixture(scope="module")
def index(records):
    return EvidenceIndex(records)


def _evo(records, index, rid, sources=ALL):
    return derive(next(r for r in records if r.id == rid), index, sources)


def _types(evo):
    return {k: (v.type, v.rule) for k, v in evo.components.items()}


def test_retention_when_seal_and_modern_agree(records, index):
    evo = _evo(records, index, "江_楷书")
    # 氵 is 水's position form: kept, under the one rule for all position forms (issue 12)
    assert _types(evo) == {"氵": ("保留", "evolution.retention.position_form"), "工": ("保留", "evolution.retention.seal")}
    # the composition as a dictionary states it (issue 21), the quotation in the provenance
    assert evo.statements[0].zh == "小篆作「江」，《说文》析为从水，工声"
    assert evo.statements[0].provenance[0].span == "从水工聲"
    assert "「水」（写作「氵」）" in evo.narrative()


def test_corruption_when_the_modern_form_writes_another_character(records, index):
    # 往: Shuowen 从彳㞷聲, the modern form writes 主 (a form equivalent of 㞷)
    evo = _evo(records, index, "往_楷书")
    assert _types(evo)["主"] == ("讹变", "evolution.corruption.form_equivalent")
    assert _types(evo)["彳"][0] == "保留"
    assert any("「㞷」" in s.zh and "「主」" in s.zh for s in evo.statements)


def test_corruption_needs_a_one_for_one_substitution(records, index):
    # an unrelated component in place of 㞷 in an otherwise matching two-part form
    rec = next(r for r in records if r.id == "往_楷书").model_copy(deep=True)
    rec.components[1] = rec.components[1].model_copy(update={"name": "亍"})
    rec.ids = rec.ids.model_copy(update={"value": "⿰彳亍"})
    evo = derive(rec, index, ALL)
    assert _types(evo)["亍"] == ("讹变", "evolution.corruption.substitution")
    # with a third, unexplained component nothing is asserted for it
    rec.components.append(rec.components[1].model_copy(update={"name": "口"}))
    evo = derive(rec, index, ALL)
    assert "亍" not in evo.components and "口" not in evo.components


def test_simplification_from_the_traditional_form(records, index):
    evo = _evo(records, index, "说_简体")
    assert _types(evo)["讠"] == ("简化", "evolution.simplification.trad_simp")
    assert "繁体作「說」，今简化作「说」" in evo.narrative()
    prov_sources = {p.source for p in evo.components["讠"].provenance}
    assert "unihan" in prov_sources  # the traditional link's evidence is cited


def test_differentiation_from_duan_gujin_pair(records, index):
    evo = _evo(records, index, "惑_楷书")
    # the narrative states Duan's pair; the seal 「从心或聲」 already has 心, so from the seal
    # to today 心 is kept, not a 区别 (data review 12-04: 杙's 木)
    assert "或惑古今字" in evo.narrative() and "加「心」以相区别" in evo.narrative()
    assert _types(evo)["心"][0] == "保留" and _types(evo)["或"][0] == "保留"


def test_elaboration_against_an_older_variant(records, index):
    evo = _evo(records, index, "雲_楷书")
    assert _types(evo)["雨"] == ("繁化", "evolution.elaboration.added_vs_variant")
    assert _types(evo)["云"][0] == "保留"
    assert "较古文「云」，篆文「雲」增加了「雨」" in evo.narrative()


def test_modern_form_recorded_as_guwen(records, index):
    evo = _evo(records, index, "明_楷书")
    assert _types(evo) == {"日": ("保留", "evolution.retention.variant"), "月": ("保留", "evolution.retention.seal")}
    assert "今字形「明」即《说文》「朙」字下所录古文" in evo.narrative()


def test_single_component_and_obi_attestation(records, index):
    evo = _evo(records, index, "日_楷书")
    assert _types(evo) == {"日": ("保留", "evolution.retention.single")}
    rules = [s.rule for s in evo.statements]
    # a bare attestation (甲骨文已见「日」字) says nothing of the form: no sentence (issue 21)
    assert "evolution.attested_obi" not in rules and "已见" not in evo.narrative()
    assert "evolution.shuowen_variant" in rules


def test_sheng_marks_an_abbreviated_component(sources_dir):
    raw = (sources_dir / "shuowen" / "data").glob("*.json")
    entry = next(p for p in raw if '"wordhead": "考"' in p.read_text("utf-8"))
    text = entry.read_text("utf-8")
    eid = entry.stem
    assert "从老省" in text
    rec = GlyphRecord(
        id="考_楷书", character="考", script="楷书",
        components=[Component(name="耂", functions=["表意"], provenance=[SW(eid, "从老省"), IDS("U+8003", "⿱耂丂")]),
                    Component(name="丂", functions=["表音"], provenance=[SW(eid, "丂聲"), IDS("U+8003", "⿱耂丂")])],
        raw=_shuowen_raw(sources_dir, int(eid)))
    evo = derive(rec, EvidenceIndex([rec]), ALL)
    assert _types(evo)["耂"] == ("保留", "evolution.retention.sheng")  # 省 is the seal's make-up, kept (08-7)
    assert _types(evo)["丂"][0] == "保留"


def test_no_rule_no_type_and_every_item_names_a_rule(records, index):
    for rec in records:
        evo = derive(rec, index, ALL)
        for ce in evo.components.values():
            assert ce.rule in RULES and ce.provenance
            assert all(p.rule == ce.rule for p in ce.provenance)
        for st in evo.statements:
            assert st.rule in RULES and st.provenance and st.zh and st.en
    # without Shuowen evidence, nothing Shuowen-based is asserted
    evo = _evo(records, index, "江_楷书", {"unihan", "cjkvi-ids", "makemeahanzi"})
    assert evo.components == {} and evo.statements == []
    evo = _evo(records, index, "说_简体", {"unihan", "cjkvi-ids", "makemeahanzi"})
    assert [s.rule for s in evo.statements] == ["evolution.simplification.character"]


def test_canonical_component_meets_shuowen_and_ids():
    assert canonical_component("氵") == "水"
    assert canonical_component("讠") == canonical_component("言")
    assert canonical_component("贝") == "貝"
    assert canonical_component("⿰") == ""


def test_single_pictograph_without_components(records, index):
    # 月 as the records stage gives it: 独体 by cjkvi-ids, 象形 by Shuowen, no components
    rec = next(r for r in records if r.id == "月_楷书").model_copy(deep=True)
    rec.components = []
    idx = EvidenceIndex([rec] + [r for r in records if r.character != "月"])
    evo = derive(rec, idx, ALL)
    assert _types(evo) == {"月": ("保留", "evolution.retention.single")}
    assert "小篆「月」为独体象形字，《说文》：「象形」" in evo.narrative()


def test_component_kept_through_simplification(records, index):
    # 说 writes 兑 for 說's 兌: simplified; were it written 兌, it would be kept unchanged
    assert _types(_evo(records, index, "说_简体"))["兑"][0] == "简化"
    rec = next(r for r in records if r.id == "说_简体").model_copy(deep=True)
    rec.components[1] = rec.components[1].model_copy(update={"name": "兌"})
    rec.ids = rec.ids.model_copy(update={"value": "⿰讠兌"})
    evo = derive(rec, index, {"unihan", "cjkvi-ids", "makemeahanzi"})
    assert _types(evo)["兌"] == ("保留", "evolution.retention.trad_simp")
    assert _types(evo)["讠"] == ("简化", "evolution.simplification.trad_simp")
