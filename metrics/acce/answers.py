"""The answer schema: per ACCE subtask, the structured fields of its answer and how they read as text.

One table (:data:`ANSWERS`) is the only place that says which keys a subtask's
``answer_struct`` has (JieZi-Bench column ``answer_struct``, JieZi-Dataset's per-turn
``answer_struct``; ARCHITECTURE.md "answer_struct per subtask"), which GlyphRecord field
the answer states, which component attributes a component subtask asks for, and how a
structured answer is written as the reference text. The QA wording
(``builder/qa/wording.py``), the audit's correction models (``builder/qa/audit.py``), the
harness renderer (``harness/render.py``) and the Space (``space/exegesis.py``) read it, so
adding a subtask means: a row here, a question template, a metric.

Text formats (the bench references' wording, which ``metrics.acce.core`` parses):
structure ``⿰（左右结构）``; formation ``形声`` or, for 亦声, ``形声（亦声，形声兼会意）``;
components one numbered line each, ``1. 构件「氵」：功能=表意；演变类型=保留；解释=…``.
``accepted`` (CHAR, STRC, FORC; optional) lists the other answers the sources allow (毓 for a
育 drawn in its 或體; 独体 beside a stroke-level IDS split; ``[["形声"]]`` beside the 亦声 set
when only Duan's note says 亦声); a component's ``names`` lists its accepted names (a 省
part: ``["萬", "蠆"]``) and its ``functions_accepted`` its other accepted function sets (a
phonetic only Duan reads as 亦声: ``[["表音"]]`` beside 表意+表音). Both scorings (``core.score`` and ``paper.score_paper``) credit them.
English renderings (JieZi-Dataset's ``messages_en``, the bench's ``answer_en``) follow
the same layout. Labels: :mod:`metrics.acce.labels` (ACCE.md section 1).

This module is part of the metric folder, which is pushed alone (the ``jiezi/acce``
Space), so it imports nothing outside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from . import labels

#: component attributes in the order a component line states them
COMPONENT_ATTRIBUTES: tuple[str, ...] = ("functions", "evolution_type", "interpretation")


def structure_text(idc: str, lang: str = "zh") -> str:
    """A structure label as the bench writes it: ``"⿰"`` -> ``"⿰（左右结构）"`` (zh) or
    ``"⿰ (left-right)"`` (en); ``"独体"`` -> ``"独体（独体字）"`` / ``"独体 (single component)"``.
    A string that is no structure label (``labels.STRUCTURES``) is returned unchanged."""
    if lang == "en":
        return f"{idc} ({labels.STRUCTURES[idc]})" if idc in labels.STRUCTURES else idc
    if idc in labels.STRUCTURE_ZH:
        return f"{idc}（{labels.STRUCTURE_ZH[idc]}）"
    return idc


def formation_text(label_set: Iterable[str], lang: str = "zh") -> str:
    """A formation label set (the FORC ``answer_struct["formation"]``) as text.

    zh: ``["形声"]`` -> ``形声``; the 亦声 set ``["形声", "会意"]`` -> ``形声（亦声，形声兼会意）``;
    other sets joined with ``、`` in ``labels.FORMATIONS`` order (unknown labels last).
    en: ``phono-semantic compound (形声)``, the 亦声 set adds
    ``, the phonetic also carries meaning (亦声)``; other sets joined with ``, ``."""
    s = set(label_set)
    order = list(labels.FORMATIONS)
    ordered = sorted(s, key=lambda x: order.index(x) if x in order else len(order))
    if lang == "en":
        if s == {"形声", "会意"}:
            return f"{labels.FORMATIONS['形声']} (形声), the phonetic also carries meaning (亦声)"
        return ", ".join(f"{labels.FORMATIONS.get(x, x)} ({x})" for x in ordered)
    if s == {"形声", "会意"}:
        return "形声（亦声，形声兼会意）"
    return "、".join(ordered)


def _component_bits(comp: dict, attributes: Iterable[str], lang: str) -> list[str]:
    bits = []
    want = set(attributes)
    if "functions" in want and comp.get("functions"):
        bits.append("功能=" + "、".join(comp["functions"]) if lang == "zh" else
                    "function = " + ", ".join(labels.FUNCTIONS[x] for x in comp["functions"]))
    if "evolution_type" in want and comp.get("evolution_type"):
        bits.append(f"演变类型={comp['evolution_type']}" if lang == "zh" else
                    f"evolution = {labels.EVOLUTION_TYPES[comp['evolution_type']]}")
    interpretation = comp.get("interpretation" if lang == "zh" else "interpretation_en")
    if "interpretation" in want and interpretation:
        bits.append(f"解释={interpretation}" if lang == "zh" else f"explanation = {interpretation}")
    return bits


def components_text(components: list[dict], attributes: Iterable[str] = COMPONENT_ATTRIBUTES,
                    lang: str = "zh") -> str:
    """Numbered component lines, one per component dict (``name`` and optionally
    ``functions`` (list of labels), ``evolution_type``, ``interpretation`` and, for
    ``lang="en"``, ``interpretation_en``). Only the ``attributes`` asked for are written,
    in :data:`COMPONENT_ATTRIBUTES` order; an attribute without a value is left out of its
    line rather than filled in. zh: ``1. 构件「氵」：功能=表意；演变类型=保留；解释=…``;
    en: ``1. Component 氵: function = semantic; evolution = retention; explanation = …``.
    A 省 part (``abbreviates``: the full component it stands for) is written with the 省
    stated: ``构件「萬（蠆省）」`` / ``Component 萬 (abbreviated 蠆)``.
    Raises ``KeyError`` for an English rendering of a label outside ``labels``."""
    lines = []
    for i, comp in enumerate(components, 1):
        bits = _component_bits(comp, attributes, lang)
        full = comp.get("abbreviates")
        if lang == "en":
            name = f"{comp['name']} (abbreviated {full})" if full else comp["name"]
            lines.append(f"{i}. Component {name}" + (": " + "; ".join(bits) if bits else ""))
        else:
            name = f"{comp['name']}（{full}省）" if full else comp["name"]
            lines.append(f"{i}. 构件「{name}」" + ("：" + "；".join(bits) if bits else ""))
    return "\n".join(lines)


@dataclass(frozen=True)
class AnswerSpec:
    """The answer of one subtask.

    ``fields``: the keys of its ``answer_struct`` (``required`` ones always present);
    ``record_field``: the ``GlyphRecord`` field the answer states (None: read off the
    image label); ``component_attributes``: for component subtasks, the attributes each
    component entry carries besides ``name``; ``text``: ``answer_struct`` -> the Chinese
    reference answer."""

    subtask: str
    fields: tuple[str, ...]
    required: tuple[str, ...]
    record_field: str | None
    text: Callable[[dict], str]
    component_attributes: tuple[str, ...] = ()


def _components_answer(attributes: tuple[str, ...]) -> Callable[[dict], str]:
    return lambda struct: components_text(struct["components"], attributes)


#: subtask -> its answer (ACCE.md section 1; the shapes JieZi-Bench's ``answer_struct`` holds)
ANSWERS: dict[str, AnswerSpec] = {
    "CHAR": AnswerSpec("CHAR", ("character", "accepted"), ("character",), None, lambda s: s["character"]),
    "SCRC": AnswerSpec("SCRC", ("script",), ("script",), None, lambda s: s["script"]),
    "STRC": AnswerSpec("STRC", ("structure", "accepted"), ("structure",), "structure",
                       lambda s: structure_text(s["structure"])),
    "COMR": AnswerSpec("COMR", ("components",), ("components",), "components", _components_answer(()), ()),
    "COMF": AnswerSpec("COMF", ("components",), ("components",), "components",
                       _components_answer(("functions",)), ("functions",)),
    "COMI": AnswerSpec("COMI", ("components",), ("components",), "components",
                       _components_answer(("interpretation",)), ("interpretation",)),
    "FORC": AnswerSpec("FORC", ("formation", "yisheng", "accepted"), ("formation",), "formation",
                       lambda s: formation_text(s["formation"])),
    "ORIM": AnswerSpec("ORIM", ("original_meaning",), ("original_meaning",), "original_meaning",
                       lambda s: s["original_meaning"]),
    "COME": AnswerSpec("COME", ("components",), ("components",), "components",
                       _components_answer(("evolution_type",)), ("evolution_type",)),
    "EVOI": AnswerSpec("EVOI", ("evolution", "rules"), ("evolution",), "evolution", lambda s: s["evolution"]),
}
assert tuple(ANSWERS) == tuple(labels.SUBTASKS), "ANSWERS must list every subtask of labels.SUBTASKS, in order"


def component_attributes(metrics: Iterable[str]) -> tuple[str, ...]:
    """The component attributes a question scored on ``metrics`` (subtask codes, e.g. the
    shared component question's ``COMR COMF COMI COME``) asks for, in
    :data:`COMPONENT_ATTRIBUTES` order; metric keys that are no subtask are ignored."""
    wanted = {a for m in metrics if m in ANSWERS for a in ANSWERS[m].component_attributes}
    return tuple(a for a in COMPONENT_ATTRIBUTES if a in wanted)


def record_fields() -> dict[str, str]:
    """Subtask -> the GlyphRecord field its answer states, for the subtasks with one
    (``{"STRC": "structure", "COMR": "components", ...}``)."""
    return {code: spec.record_field for code, spec in ANSWERS.items() if spec.record_field}


def answer_text(subtask: str, struct: dict) -> str:
    """The Chinese reference answer of ``struct`` (an ``answer_struct`` of ``subtask``).
    Raises ``KeyError`` naming the subtask or the missing field."""
    spec = ANSWERS.get(subtask)
    if spec is None:
        raise KeyError(f"unknown subtask {subtask!r}; expected one of {', '.join(ANSWERS)}")
    missing = [f for f in spec.required if f not in struct]
    if missing:
        raise KeyError(f"{subtask} answer_struct lacks {', '.join(missing)} (has {', '.join(struct) or 'nothing'})")
    return spec.text(struct)
