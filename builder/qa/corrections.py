"""Corrections of the review sheets: checked at ingest, rewritten into the form the build applies.

A correction is applied by the next build (builder/qa/stage.py): a record field gets the
value, a QA item gets ``answer`` and ``answer_struct``. Scores read ``answer_struct``, so a
correction that changed only the answer text (or a label nobody can score) would be
silently useless: every correction is checked here, at ingest (:func:`normalise_correction`),
and rewritten into the one form the build applies. :data:`CORRECTION_FORMS` lists the
accepted forms per subtask or record field (the sheets repeat them in their ``#help`` rows);
the pydantic models are the ``answer_struct`` shapes of ``metrics.acce.answers``.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from builder import ids as ids_mod
from builder.qa.facts import CompFact
from builder.schema import EvolutionType, Formation, FormationLabel, Function, Script, Structure
from hub import templates as qa_templates
from metrics.acce import answers, labels


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# CJK ideograph blocks (URO, extensions A-I, compatibility ideographs and supplement), for
# when the running Python's Unicode tables predate a block
_HAN_RANGES = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2A6DF), (0x2A700, 0x2EE5F),
               (0x2F800, 0x2FA1F), (0x30000, 0x323AF))


def is_han(ch: str) -> bool:
    """Whether ``ch`` is one CJK (unified or compatibility) ideograph, extension blocks included."""
    if len(ch) != 1:
        return False
    if unicodedata.name(ch, "").startswith(("CJK UNIFIED IDEOGRAPH", "CJK COMPATIBILITY IDEOGRAPH")):
        return True
    return any(lo <= ord(ch) <= hi for lo, hi in _HAN_RANGES)


class _CharStruct(_Strict):
    character: str
    accepted: Optional[list[str]] = None  # other accepted characters (a variant form drawn)

    @field_validator("character")
    @classmethod
    def _one(cls, v: str) -> str:
        if len(v.strip()) != 1:
            raise ValueError(f"expected exactly one character, got {v!r}")
        if not is_han(v.strip()):
            raise ValueError(f"expected one CJK ideograph, got {v.strip()!r} (U+{ord(v.strip()):04X})")
        return v.strip()


class _ScriptStruct(_Strict):
    script: Script


class _StructureStruct(_Strict):
    structure: Structure
    accepted: Optional[list[Structure]] = None


class _FormationStruct(_Strict):
    formation: list[FormationLabel] = Field(min_length=1)
    yisheng: Optional[bool] = None
    accepted: Optional[list[list[FormationLabel]]] = None


class _ComponentStruct(_Strict):
    name: str = Field(min_length=1)
    functions: Optional[list[Function]] = None
    interpretation: Optional[str] = None
    evolution_type: Optional[EvolutionType] = None
    abbreviates: Optional[str] = None  # a 省 part: the full component it stands for
    names: Optional[list[str]] = None


class _ComponentsStruct(_Strict):
    components: list[_ComponentStruct] = Field(min_length=1)


class _OrimStruct(_Strict):
    original_meaning: str = Field(min_length=1)


class _EvoiStruct(_Strict):
    evolution: str = Field(min_length=1)
    rules: list[str] = Field(default_factory=list)


class _ExegesisStruct(_Strict):
    character: Optional[str] = None
    script: Optional[Script] = None
    structure: Optional[Structure] = None
    components: Optional[list[_ComponentStruct]] = None
    formation: Optional[list[FormationLabel]] = None
    original_meaning: Optional[str] = None
    evolution: str = Field(min_length=1)


class _RecordComponent(_Strict):
    """A component as the sheet shows it (``builder.schema.Component`` without provenance,
    which the build adds: the audit row)."""

    name: str = Field(min_length=1)
    functions: list[Function] = Field(default_factory=list)
    interpretation: Optional[str] = None
    evolution_type: Optional[EvolutionType] = None
    position: Optional[str] = None


# answer_struct model of each subtask: the keys come from the answer schema
# (metrics/acce/answers.py), each key set with the model that validates it
_MODEL_OF_FIELDS: dict[tuple[str, ...], type[_Strict]] = {
    m_fields: model for model in (_CharStruct, _ScriptStruct, _StructureStruct, _FormationStruct,
                                  _ComponentsStruct, _OrimStruct, _EvoiStruct)
    for m_fields in [tuple(model.model_fields)]
}
_STRUCT_MODELS: dict[str, type[_Strict]] = {code: _MODEL_OF_FIELDS[spec.fields] for code, spec in answers.ANSWERS.items()}

_STRUCTURES = "、".join(labels.STRUCTURES)
_FORMATIONS = "、".join(labels.FORMATIONS)
_SCRIPTS = "、".join(labels.SCRIPTS)
_FUNCTIONS = "、".join(labels.FUNCTIONS)
_EVOLUTION = "、".join(labels.EVOLUTION_TYPES)
_FULL = '{"answer": "<answer text>", "answer_struct": {...}}'
_COMP_KEYS = '"name", "functions" ([' + _FUNCTIONS + ']), "interpretation", "evolution_type" (' + _EVOLUTION + ')'

# What a reviewer may write in ``correction``, per subtask of a QA item (dataset / bench)
# and per record field. Shown in the sheet's help rows, in error messages and in README.md.
CORRECTION_FORMS: dict[str, str] = {
    "CHAR": f'one character, e.g. 江; or {{"character": "江"}}; or {_FULL}',
    "SCRC": f'a script label ({_SCRIPTS}); or {{"script": "篆书"}}; or {_FULL}',
    "STRC": f'a structure label ({_STRUCTURES}) or the answer as written (⿰（左右结构）); '
            f'or {{"structure": "⿰"}}; or {_FULL}',
    "FORC": f'a formation label ({_FORMATIONS}) or the answer as written (形声（亦声，形声兼会意）); '
            f'or {{"formation": ["形声"], "yisheng": false}} (亦声: ["形声", "会意"]); or {_FULL}',
    "COMP": f'JSON only: {{"components": [{{{_COMP_KEYS}}}, ...]}} or the list alone; or {_FULL}; '
            'give every attribute the question asks for',
    "ORIM": f'the original meaning as plain text; or {{"original_meaning": "..."}}; or {_FULL}',
    "EVOI": f'the evolution narrative as plain text; or {{"evolution": "..."}}; or {_FULL}',
    "EXEGESIS": f'JSON only: {_FULL} with answer_struct keys character, script, structure, components, '
                'formation, original_meaning, evolution',
    "record:structure": f'a structure label ({_STRUCTURES}); or {{"structure": "⿰"}}',
    "record:formation": f'a formation label ({_FORMATIONS}); or {{"label": "形声", "yisheng": true}}; '
                        'or {"formation": ["形声"]}',
    "record:components": '[{"name", "functions", "interpretation", "evolution_type", "position"}, ...] '
                         '(JSON list as shown in answer_or_value); or {"components": [...]}',
    "record:ids": "an IDS string, e.g. ⿰氵工",
    "record:text": "plain text (original_meaning, definition_en, evolution)",
    "record:readings": "none: readings and variants cannot be corrected from a sheet; reject the row instead",
}


class CorrectionError(ValueError):
    """A correction that is not a valid value for its item (message says what is accepted)."""


def _kind_of(item_id: str) -> tuple[str, str]:
    """``(what, key)`` of an item id: ``("record", field)`` or ``("qa", template kind)``."""
    if item_id.startswith("record:"):
        return "record", item_id.partition("#")[2]
    return "qa", item_id.rpartition(":")[2]


def _forms_key(item_id: str) -> str:
    what, key = _kind_of(item_id)
    if what == "record":
        if key in ("original_meaning", "definition_en", "evolution"):
            return "record:text"
        if key in ("readings", "variants"):
            return "record:readings"
        return f"record:{key}"
    subtask = qa_templates.KINDS[key][0] if key in qa_templates.KINDS else key
    if key == "EXEGESIS":
        return "EXEGESIS"
    return "COMP" if subtask in labels.COMPONENT_SUBTASKS else subtask


def accepted_forms(item_id: str) -> str:
    """The correction forms accepted for ``item_id`` (one line)."""
    return CORRECTION_FORMS.get(_forms_key(item_id), "")


def _pydantic_reason(exc: ValidationError) -> str:
    bits = []
    for e in exc.errors():
        loc = ".".join(str(x) for x in e["loc"])
        bits.append(f"{loc}: {e['msg']}" if loc else e["msg"])
    return "; ".join(bits)


def _validate(model: type[BaseModel], data) -> BaseModel:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise CorrectionError(_pydantic_reason(exc)) from None


# the answer texts the builder writes for each label (a reviewer may copy one)
_STRUCTURE_TEXT = {answers.structure_text(v): v for v in labels.STRUCTURES}
_FORMATION_TEXT = {answers.formation_text(f.label_set()): f for f in
                   [Formation(label=x) for x in labels.FORMATIONS] + [Formation(label="形声", yisheng=True)]}


def _structure_label(text: str) -> str:
    v = _STRUCTURE_TEXT.get(text, text)
    if v not in labels.STRUCTURES:
        raise CorrectionError(f"structure {text!r} is not one of {_STRUCTURES}")
    return v


def _formation(text: str) -> Formation:
    if text in _FORMATION_TEXT:
        return _FORMATION_TEXT[text]
    if text not in labels.FORMATIONS:
        raise CorrectionError(f"formation {text!r} is not one of {_FORMATIONS}")
    return Formation(label=text)


def _formation_of_set(struct: _FormationStruct) -> Formation | None:
    """The :class:`Formation` whose FORC reference is ``struct`` (None when no single
    formation gives that set, e.g. 会意 + 象形)."""
    got = list(dict.fromkeys(struct.formation))
    if len(got) == 1:
        if struct.yisheng and got[0] != "形声":
            raise CorrectionError(f"yisheng (亦声) is only meaningful with 形声, not {got[0]}")
        return Formation(label=got[0], yisheng=bool(struct.yisheng) and got[0] == "形声")
    if set(got) == {"形声", "会意"} and struct.yisheng is not False:
        return Formation(label="形声", yisheng=True)
    return None


def _parse_json(text: str):
    try:
        return json.loads(text)
    except ValueError as exc:
        raise CorrectionError(f"looks like JSON but does not parse: {exc}") from None


def _answer_of(subtask: str, kind: str, struct: BaseModel) -> tuple[str, dict]:
    """Answer text and ``answer_struct`` of a structured answer, written the way
    :func:`builder.qa.wording.make_qa` writes them."""
    if subtask in ("CHAR", "SCRC", "STRC"):
        data = struct.model_dump(exclude_none=True)  # no empty "accepted"
        return answers.answer_text(subtask, data), data
    if subtask == "FORC":
        form = _formation_of_set(struct)
        if form is not None:
            return answers.formation_text(form.label_set()), {"formation": form.label_set(), "yisheng": form.yisheng}
        got = list(dict.fromkeys(struct.formation))
        return "、".join(got), {"formation": got, "yisheng": False}
    # component kinds: the attributes the question asks for (answer schema, by the metrics
    # the kind is scored on) must all be given
    attrs = answers.component_attributes(qa_templates.KINDS[kind][2])
    facts = []
    for i, c in enumerate(struct.components):
        lacking = [k for k in ("functions", "interpretation", "evolution_type") if k in attrs and not getattr(c, k)]
        if lacking:
            raise CorrectionError(f"components.{i} ({c.name}) lacks {', '.join(lacking)}, which the "
                                  f"{kind} question asks for")
        facts.append(CompFact(name=c.name, functions=list(c.functions or []), provenance=[],
                              interpretation=c.interpretation, evolution_type=c.evolution_type))
    flags = {"functions": "functions" in attrs, "interpretation": "interpretation" in attrs,
             "evolution": "evolution_type" in attrs}
    zh = answers.components_text([f.struct() for f in facts], attrs)
    return zh, {"components": [f.struct(**flags) for f in facts]}


def _normalise_qa(kind: str, text: str) -> str:
    """A QA item's correction (template ``kind``) in the form ``_apply_qa_decision`` of
    builder/qa/stage.py applies. Raises :class:`CorrectionError`."""
    if kind not in qa_templates.KINDS:
        raise CorrectionError(f"unknown template kind {kind!r}")
    subtask = qa_templates.KINDS[kind][0]
    is_json = text.startswith(("{", "["))
    data = _parse_json(text) if is_json else None
    full_keys = {"answer", "answer_struct"}
    if isinstance(data, dict) and data.keys() & full_keys and data.keys() - full_keys:
        raise CorrectionError(f"unexpected key(s) {sorted(data.keys() - full_keys)}: the full form has "
                              "exactly 'answer' and 'answer_struct'")
    if isinstance(data, dict) and data and set(data) <= full_keys:
        answer, struct = data.get("answer"), data.get("answer_struct")
        if answer is None and struct is None:
            raise CorrectionError("'answer' and 'answer_struct' are both null: give a value")
        if answer is not None and not (isinstance(answer, str) and answer.strip()):
            raise CorrectionError("'answer' must be non-empty text")
        if struct is None:  # {"answer": ...} alone is the plain-text form
            return _normalise_qa(kind, answer.strip())
        if answer is None:  # {"answer_struct": ...} alone is the structured form
            return _normalise_qa(kind, json.dumps(struct, ensure_ascii=False))
        model = _ExegesisStruct if kind == "EXEGESIS" else _STRUCT_MODELS[subtask]
        checked = _validate(model, struct)
        if subtask in labels.COMPONENT_SUBTASKS:
            _answer_of(subtask, kind, checked)  # every attribute the question asks for
        if subtask == "FORC" and checked.yisheng is None:
            form = _formation_of_set(checked)  # the builder always writes the flag
            struct = {**struct, "yisheng": bool(form and form.yisheng)}
        return json.dumps({"answer": answer.strip(), "answer_struct": struct}, ensure_ascii=False)
    if kind == "EXEGESIS":
        raise CorrectionError("the exegesis answer holds every field: give the whole answer as JSON")
    if subtask in labels.COMPONENT_SUBTASKS:
        if not is_json:
            raise CorrectionError("component answers are scored on their structure: give JSON")
        if isinstance(data, list):
            data = {"components": data}
        checked = _validate(_ComponentsStruct, data)
    elif is_json:
        if not isinstance(data, dict):
            raise CorrectionError("expected a JSON object")
        checked = _validate(_STRUCT_MODELS[subtask], data)
        if subtask in ("ORIM", "EVOI"):
            # plain text is what the build applies: it keeps the answer_struct's other
            # keys (EVOI's "rules")
            return checked.original_meaning if subtask == "ORIM" else checked.evolution
    elif subtask in ("ORIM", "EVOI"):
        return text
    elif subtask == "CHAR":
        checked = _validate(_CharStruct, {"character": text})
    elif subtask == "SCRC":
        if text not in labels.SCRIPTS:
            raise CorrectionError(f"script {text!r} is not one of {_SCRIPTS}")
        checked = _ScriptStruct(script=text)
    elif subtask == "STRC":
        checked = _StructureStruct(structure=_structure_label(text))
    elif subtask == "FORC":
        form = _formation(text)
        checked = _FormationStruct(formation=form.label_set(), yisheng=form.yisheng)
    else:  # pragma: no cover - every subtask of KINDS is handled above
        raise CorrectionError(f"subtask {subtask!r} cannot be corrected")
    answer, struct = _answer_of(subtask, kind, checked)
    return json.dumps({"answer": answer, "answer_struct": struct}, ensure_ascii=False)


def _normalise_record(fld: str, text: str) -> str:
    """A record field's correction in the form ``_correct_field`` of builder/qa/stage.py
    applies. Raises :class:`CorrectionError`."""
    is_json = text.startswith(("{", "["))
    if fld == "structure":
        if is_json:
            return _validate(_StructureStruct, _parse_json(text)).structure
        return _structure_label(text)
    if fld == "formation":
        if not is_json:
            form = _formation(text)
        else:
            data = _parse_json(text)
            if isinstance(data, dict) and "formation" in data:
                form = _formation_of_set(_validate(_FormationStruct, data))
                if form is None:
                    raise CorrectionError("a record holds one formation (or 形声 + 会意 for 亦声), "
                                          f"not {data['formation']}")
            else:
                form = _validate(Formation, data)
        return json.dumps(form.model_dump(), ensure_ascii=False)
    if fld == "components":
        if not is_json:
            raise CorrectionError("components are corrected as JSON")
        data = _parse_json(text)
        if isinstance(data, dict) and set(data) == {"components"}:
            data = data["components"]
        if not isinstance(data, list) or not data:
            raise CorrectionError("expected a non-empty JSON list of components")
        comps = [_validate(_RecordComponent, c) for c in data]
        return json.dumps([c.model_dump() for c in comps], ensure_ascii=False)
    if fld == "ids":
        try:
            ids_mod.parse(text)
        except ids_mod.IDSError as exc:
            raise CorrectionError(str(exc)) from None
        return text
    if fld in ("original_meaning", "definition_en", "evolution"):
        if is_json:
            raise CorrectionError(f"{fld} is corrected as plain text, not JSON")
        return text
    raise CorrectionError(f"field {fld!r} cannot be corrected from a sheet")


def normalise_correction(item_id: str, correction: str) -> str:
    """Check ``correction`` for the item ``item_id`` and return it in the form the build
    applies.

    QA items (``dataset:`` / ``bench:``): a label, structured answer or ``{"answer",
    "answer_struct"}`` becomes ``{"answer", "answer_struct"}`` JSON, the answer text
    written as the builder writes it (``⿰（左右结构）``); ORIM / EVOI text stays plain
    text. Record fields: the label, JSON or text ``builder/qa/stage.py`` applies to the
    field. Raises :class:`CorrectionError` saying why the value is not valid and which
    forms are accepted (:data:`CORRECTION_FORMS`).
    """
    text = correction.strip()
    what, key = _kind_of(item_id)
    try:
        return _normalise_record(key, text) if what == "record" else _normalise_qa(key, text)
    except CorrectionError as exc:
        forms = accepted_forms(item_id)
        raise CorrectionError(f"{exc}; accepted: {forms}" if forms else str(exc)) from None
