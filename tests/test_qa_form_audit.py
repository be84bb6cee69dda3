"""The form audit (early-form drawings confirmed to show Shuowen's composition) and the
selection's per-question trimming (a question left out of an image, not the image, when
its label would pass a cap)."""

from __future__ import annotations

import pytest

from builder.qa import bench_balance, form_audit
from builder.qa.compose import EARLY_FORM_REASON, L2_KINDS
from builder.qa.facts import CompFact, Facts
from builder.qa.questions import aspect_only, bench_eligible, bench_kinds, bench_qa
from builder.schema import Formation, GlyphImage, Provenance

SW = Provenance(source="shuowen", entry_id="6859", span="从水工聲", rule="shuowen.analysis")


def _image(title: str, script: str = "金文") -> GlyphImage:
    return GlyphImage(id=f"commons-acc-png-{abs(hash(title)) % 10**8:08d}", path="x.png", script=script,
                      source="commons-acc-png", licence="public domain", style="tracing", width=128,
                      height=128, sha256="0" * 64, origin=f"commons:{title}")


def _seal() -> Facts:
    f = Facts("江_篆书", "江", "篆书", "bench")
    f.structure = ("⿰", [SW])
    f.formation = (Formation(label="形声"), [SW])
    f.components = [CompFact("水", ["表意"], [SW], interpretation="水，《说文》：準也", evolution_type="保留"),
                    CompFact("工", ["表音"], [SW], interpretation="工声", evolution_type="保留")]
    return f


def _early() -> Facts:
    f = Facts("江_金文", "江", "金文", "bench")
    f.missing = {k: EARLY_FORM_REASON for k in L2_KINDS}
    f.missing["ORIM"] = "unconfirmed:original_meaning"
    f.missing["EVOI"] = "no-evolution-evidence"
    return f


@pytest.fixture
def verdicts(monkeypatch):
    table = {"File:江-bronze.svg": "same ⿰", "File:終-silk.svg": "differs: 冬 only, no 糸",
             "File:江-bad.svg": "same left-right"}
    monkeypatch.setattr(form_audit, "FORM_AUDIT", table)
    return table


def test_a_confirmed_drawing_is_asked_the_seal_analysis_without_evolution_types(verdicts):
    f = form_audit.drawing_facts(_early(), _seal(), _image("File:江-bronze.svg"))
    assert f is not None and f.structure[0] == "⿰" and f.formation[0].label == "形声"
    assert [c.name for c in f.components] == ["水", "工"]
    assert all(c.evolution_type is None for c in f.components)
    # the layout is the reviewer's; every value cites the verdict beside Shuowen
    assert f.structure[1][0].rule == form_audit.FORM_RULE and f.structure[1][0].source == "user"
    assert any(p.rule == form_audit.FORM_RULE for p in f.formation[1])
    assert all(any(p.rule == form_audit.FORM_RULE for p in c.provenance) for c in f.components)
    assert "STRC" not in f.missing and "FORC" not in f.missing and "COMP_ASPECT" not in f.missing
    assert f.missing["COMP_FULL"] == EARLY_FORM_REASON and f.missing["COME"] == EARLY_FORM_REASON
    assert bench_eligible(f) and aspect_only(f)
    assert bench_kinds(f) == 5  # CHAR SCRC STRC FORC and the component question
    kinds = [q.kind for q in bench_qa(f, _image("File:江-bronze.svg"), 0, second_component=False)]
    assert "COMP_ASPECT" in kinds and "COMP_FULL" not in kinds and {"STRC", "FORC"} <= set(kinds)


def test_a_drawing_of_another_composition_or_without_a_verdict_gets_no_l2(verdicts):
    assert form_audit.drawing_facts(_early(), _seal(), _image("File:終-silk.svg")) is None
    assert form_audit.drawing_facts(_early(), _seal(), _image("File:江-unreviewed.svg")) is None
    # no seal analysis to confirm: nothing to ask
    assert form_audit.drawing_facts(_early(), None, _image("File:江-bronze.svg")) is None
    seal = _seal()
    seal.missing["FORC"] = "disagree:formation"
    assert form_audit.drawing_facts(_early(), seal, _image("File:江-bronze.svg")) is None


def test_a_malformed_verdict_names_the_drawing(verdicts):
    with pytest.raises(ValueError, match="江-bad.svg"):
        form_audit.drawing_facts(_early(), _seal(), _image("File:江-bad.svg"))


def _cand(strc: str, forc: str, come: tuple[str, ...] | None, n: int) -> bench_balance.Candidate:
    im = _image(f"File:c{n}.svg", "篆书")
    return bench_balance.Candidate(None, im, "篆书", strc, forc, come, 1.0, kinds=6, aspect=True)


def test_a_label_over_its_cap_drops_that_question_not_the_image():
    tally = bench_balance.Tally()
    for i in range(20):
        forc = "形声" if i < 8 else "会意" if i < 14 else "象形"
        tally.add(_cand("⿰" if i < 11 else "⿱", forc, ("保留",) if i < 15 else ("简化",), i))
    # ⿰ at 55% > the 45% cap: a further ⿰ image keeps its FORC and components, not its STRC
    t = bench_balance.trimmed(_cand("⿰", "会意", ("简化",), 99), tally)
    assert t.dropped == ("STRC",) and t.strc is None and t.forc == "会意" and t.kinds == 5
    # 保留 on 75% of the component questions so far: a further 保留 component question is asked
    # without evolution types (the component question stays: kinds unchanged)
    t = bench_balance.trimmed(_cand("⿱", "会意", ("保留",), 98), tally)
    assert t.dropped == ("COME",) and t.come is None and t.kinds == 6
    # a label that lowers an excess already there is kept
    t = bench_balance.trimmed(_cand("⿱", "象形", ("简化",), 97), tally)
    assert t.dropped == () and t is not None

