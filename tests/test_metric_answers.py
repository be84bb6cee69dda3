"""The answer schema (metrics/acce/answers.py): one table of answer fields and renderings,
read by the QA composer, the audit corrections, the harness renderer and the Space."""

from __future__ import annotations

import pytest

from builder.qa import corrections, wording
from builder.schema import Formation
from harness import render
from hub import templates
from metrics.acce import answers, labels
from space import exegesis


def test_table_covers_every_subtask_in_order():
    assert list(answers.ANSWERS) == list(labels.SUBTASKS)
    for code, spec in answers.ANSWERS.items():
        assert spec.subtask == code and set(spec.required) <= set(spec.fields)
        assert bool(spec.component_attributes) <= (code in labels.COMPONENT_SUBTASKS)


@pytest.mark.parametrize("struct, subtask, text", [
    ({"character": "江"}, "CHAR", "江"),
    ({"script": "篆书"}, "SCRC", "篆书"),
    ({"structure": "⿰"}, "STRC", "⿰（左右结构）"),
    ({"structure": "独体"}, "STRC", "独体（独体字）"),
    ({"formation": ["形声"], "yisheng": False}, "FORC", "形声"),
    ({"formation": ["会意", "形声"], "yisheng": True}, "FORC", "形声（亦声，形声兼会意）"),
    ({"formation": ["会意", "象形"]}, "FORC", "象形、会意"),
    ({"original_meaning": "水名"}, "ORIM", "水名"),
    ({"evolution": "甲骨文……", "rules": []}, "EVOI", "甲骨文……"),
])
def test_answer_text(struct, subtask, text):
    assert answers.answer_text(subtask, struct) == text


COMPS = [{"name": "氵", "functions": ["表意"], "evolution_type": "简化", "interpretation": "表示与水有关",
          "interpretation_en": "relates to water"},
         {"name": "工", "functions": ["表音"], "evolution_type": "保留", "interpretation": None}]


def test_component_lines_per_subtask_and_language():
    s = {"components": COMPS}
    assert answers.answer_text("COMR", s) == "1. 构件「氵」\n2. 构件「工」"
    assert answers.answer_text("COMF", s) == "1. 构件「氵」：功能=表意\n2. 构件「工」：功能=表音"
    assert answers.answer_text("COME", s) == "1. 构件「氵」：演变类型=简化\n2. 构件「工」：演变类型=保留"
    # a missing value is left out of its line, never filled in
    assert answers.answer_text("COMI", s) == "1. 构件「氵」：解释=表示与水有关\n2. 构件「工」"
    assert answers.components_text(COMPS[:1], lang="en") == (
        "1. Component 氵: function = semantic; evolution = simplification; explanation = relates to water")


def test_component_attributes_follow_the_metrics_of_a_template_kind():
    got = {k: answers.component_attributes(m) for k, (_, _, m) in templates.KINDS.items()}
    assert got["COMR"] == () and got["COMF"] == ("functions",) and got["COMI"] == ("interpretation",)
    assert got["COME"] == ("evolution_type",)
    assert got["COMP_FULL"] == ("functions", "evolution_type", "interpretation")
    assert got["COMP_ASPECT"] == ("functions", "interpretation")
    assert got["EVOI"] == got["CHAR"] == ()


def test_errors_name_the_subtask_and_field():
    with pytest.raises(KeyError, match="unknown subtask 'XXXX'"):
        answers.answer_text("XXXX", {})
    with pytest.raises(KeyError, match="STRC answer_struct lacks structure"):
        answers.answer_text("STRC", {"formation": ["形声"]})


def test_every_reader_uses_the_table():
    # the QA wording's helpers (zh and en)
    assert wording._struct_label("⿱") == ("⿱（上下结构）", "⿱ (top-bottom)")
    assert wording._formation_text(Formation(label="形声", yisheng=True)) == (
        "形声（亦声，形声兼会意）", "phono-semantic compound (形声), the phonetic also carries meaning (亦声)")
    # the audit's correction model of each subtask has exactly the table's fields
    for code, model in corrections._STRUCT_MODELS.items():
        assert tuple(model.model_fields) == answers.ANSWERS[code].fields
    # the harness renderer is the table's
    assert render.structure_text is answers.structure_text and render.formation_text is answers.formation_text
    assert render.components_text(COMPS, evolution=False) == answers.components_text(COMPS, ("functions", "interpretation"))
    # the Space reads each question's record field from it
    assert exegesis.RECORD_FIELD == answers.record_fields()
    assert {exegesis.RECORD_FIELD[q] for q in ("STRC", "FORC", "ORIM", "EVOI", "COMR")} == {
        "structure", "formation", "original_meaning", "evolution", "components"}
