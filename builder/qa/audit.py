"""The paper's expert-in-the-loop quality control as review sheets.

``jiezi audit sample`` (:func:`sample`) draws what the paper audited: 10% of the records
(one row per filled field: structure, IDS, formation, components, original meaning, ...),
5,000 QA pairs of JieZi-Dataset and every JieZi-Bench question, into one CSV sheet with
the columns of :data:`COLUMNS`; reviewers fill ``verdict`` (``ok`` / ``reject`` /
``correct``) and, for ``correct``, ``correction``. The accepted correction forms depend on
the item's subtask or record field (:data:`CORRECTION_FORMS`; the sheet repeats them in
its ``#help`` rows right under the header): a canonical label of ``metrics/acce/labels.py``
for CHAR / SCRC / STRC / FORC and the record fields structure / formation; the structured
answer (the ``answer_struct`` shape, e.g. ``{"structure": "⿰"}``, ``{"formation":
["形声"]}``, ``{"components": [...]}``); ``{"answer": ..., "answer_struct": ...}``; plain
text for ORIM / EVOI and the text fields. :func:`normalise_correction` checks a correction
and turns it into the form the build applies (a label or structured answer becomes
``{"answer", "answer_struct"}`` with the answer text written as the builder writes it).

``jiezi audit ingest`` (:func:`ingest`) validates a filled sheet (column order exactly as
written, known item ids, verdict values, every correction a valid value for its item;
every problem is reported with its CSV row number, and nothing is applied if any row is
bad), appends the decisions to
``OUT/audit/decisions.jsonl`` and reports error rates per stage as the paper does
(records: share of reviewed fields and of reviewed records with an error; dataset and
bench: share of reviewed QA pairs). The next ``jiezi build`` (which ``ingest`` runs unless
told not to) applies the decisions: rejected items disappear, corrected ones are
rewritten.

Item ids: ``record:<record id>#<field>``, ``dataset:<image id>:<kind>``,
``bench:<image id>:<kind>``.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import random
import time
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from builder import ids as ids_mod
from builder.qa.facts import CompFact
from builder.qa.stage import read_jsonl
from builder.schema import EvolutionType, Formation, FormationLabel, Function, Script, Structure
from hub import templates as qa_templates
from hub.layout import records_dir_of
from metrics.acce import answers, labels

COLUMNS = ["image_path", "item_id", "stage", "question_or_field", "answer_or_value", "provenance", "verdict", "correction"]
VERDICTS = ("ok", "reject", "correct")
RECORD_FIELDS = ("structure", "ids", "formation", "components", "original_meaning", "definition_en",
                 "evolution", "readings", "variants")
# Columns sample writes and a reviewer must leave alone (ingest compares them with what
# sample wrote; ``stage`` is checked against the item id)
READ_ONLY = ("image_path", "question_or_field", "answer_or_value", "provenance")
# Rows whose item id starts with this are the sheet's own instructions, never items.
HELP_PREFIX = "#"


class AuditSheetError(ValueError):
    """A review sheet that cannot be ingested; ``problems`` lists ``(row, message)``."""

    def __init__(self, sheet: Path, problems: list[tuple[int, str]]):
        self.problems = problems
        lines = "\n".join(f"  row {r}: {m}" for r, m in problems[:50])
        more = f"\n  ... and {len(problems) - 50} more" if len(problems) > 50 else ""
        super().__init__(f"{sheet}: {len(problems)} problem(s), nothing applied:\n{lines}{more}")


def _cell_digests(row: list[str]) -> list[str]:
    """Short digests of a sheet row's :data:`READ_ONLY` cells (kept in the manifest)."""
    cells = dict(zip(COLUMNS, row))
    return [hashlib.sha1(cells[c].encode("utf-8")).hexdigest()[:12] for c in READ_ONLY]


def _records_dir(out_dir: Path) -> Path:
    return records_dir_of(out_dir)


def _field_value(rec: dict, fld: str) -> tuple[str, list] | None:
    v = rec.get(fld)
    if v in (None, [], {}):
        return None
    if fld in ("components", "readings", "variants"):
        provs = [p for item in v for p in item.get("provenance", [])]
        if fld == "components":
            text = json.dumps([{k: c.get(k) for k in ("name", "functions", "interpretation", "evolution_type", "position")}
                               for c in v], ensure_ascii=False)
        else:
            text = json.dumps([{k: x for k, x in item.items() if k != "provenance"} for item in v], ensure_ascii=False)
        return text, provs
    value = v["value"]
    text = json.dumps(value, ensure_ascii=False) if isinstance(value, dict) else str(value)
    return text, v.get("provenance", [])


# --- corrections --------------------------------------------------------------------------
#
# A correction is applied by the next build (builder/qa/stage.py): a record field gets the
# value, a QA item gets ``answer`` and ``answer_struct``. Scores read ``answer_struct``, so a
# correction that changed only the answer text (or a label nobody can score) would be
# silently useless: every correction is checked here, at ingest, and rewritten into the
# one form the build applies.

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


def help_rows() -> list[list[str]]:
    """The sheet's instruction rows (item id ``#help``): how to fill ``verdict`` and the
    correction forms per subtask and record field. Ingest skips them."""
    blank = ["", f"{HELP_PREFIX}help", "", "", "", "", "", ""]

    def row(what: str, text: str) -> list[str]:
        r = list(blank)
        r[3], r[4] = what, text
        return r

    rows = [row("HOW TO REVIEW", "verdict: ok / reject / correct (empty = not reviewed). For correct, "
                "write the right value in correction, in one of the forms below; ingest rejects the "
                "sheet (row numbers given, nothing applied) when a correction is not a valid value. "
                "Ingest ignores these #help rows.")]
    names = {"COMP": "COMR / COMF / COMI / COME / component questions", "EXEGESIS": "EVOI exegesis (dataset)"}
    for key, text in CORRECTION_FORMS.items():
        if key.startswith("record:"):
            fld = key.split(":", 1)[1]
            what = {"text": "original_meaning / definition_en / evolution",
                    "readings": "readings / variants"}.get(fld, fld)
            rows.append(row(f"record field {what}", text))
        else:
            rows.append(row(f"question {names.get(key, key)}", text))
    return rows


def _record_rows(rec_dir: Path, rng: random.Random, record_fraction: float, counts: Counter) -> list[list[str]]:
    """One row per filled field of ``record_fraction`` of the records (two passes: the file
    can be large, so only the sampled lines are parsed)."""
    rows: list[list[str]] = []
    with open(rec_dir / "records.jsonl", encoding="utf-8") as fh:
        n_lines = sum(1 for line in fh if line.strip())
    n_rec = max(1, round(n_lines * record_fraction)) if n_lines else 0
    chosen = set(rng.sample(range(n_lines), n_rec))
    with open(rec_dir / "records.jsonl", encoding="utf-8") as fh:
        i = -1
        for line in fh:
            if not line.strip():
                continue
            i += 1
            if i not in chosen:
                continue
            rec = json.loads(line)
            img = str((rec_dir / rec["images"][0]["path"]).resolve()) if rec.get("images") else ""
            for fld in RECORD_FIELDS:
                fv = _field_value(rec, fld)
                if fv is None:
                    continue
                rows.append([img, f"record:{rec['id']}#{fld}", "records", fld, fv[0],
                             json.dumps(fv[1], ensure_ascii=False), "", ""])
                counts["records"] += 1
            counts["records_sampled"] += 1
    return rows


def _dataset_rows(qa_dir: Path, rec_dir: Path, rng: random.Random, dataset_pairs: int, counts: Counter) -> list[list[str]]:
    """A reservoir sample of ``dataset_pairs`` QA pairs of JieZi-Dataset."""
    reservoir: list[tuple[str, dict, dict]] = []
    seen = 0
    for row in read_jsonl(qa_dir / "dataset.jsonl"):
        for q in row["qa"]:
            seen += 1
            if len(reservoir) < dataset_pairs:
                reservoir.append((row["image"], row, q))
            else:
                j = rng.randrange(seen)
                if j < dataset_pairs:
                    reservoir[j] = (row["image"], row, q)
    rows = []
    for image, row, q in sorted(reservoir, key=lambda t: (t[1]["id"], t[2]["kind"])):
        prov = q.get("provenance_json") or json.dumps(q.get("provenance", []), ensure_ascii=False)
        rows.append([str((rec_dir / image).resolve()), f"dataset:{row['id']}:{q['kind']}", "dataset",
                     q["question"], q["answer"], prov, "", ""])
        counts["dataset"] += 1
    return rows


def _bench_rows(qa_dir: Path, rec_dir: Path, counts: Counter) -> list[list[str]]:
    """Every JieZi-Bench row."""
    rows = []
    for r in read_jsonl(qa_dir / "bench.jsonl"):
        rows.append([str((rec_dir / r["image"]).resolve()), f"bench:{r['id']}", "bench",
                     r["question"], r["answer"], json.dumps(r["provenance"], ensure_ascii=False), "", ""])
        counts["bench"] += 1
    return rows


def _write_sheet(sheet: Path, rows: list[list[str]]) -> None:
    sheet.parent.mkdir(parents=True, exist_ok=True)
    tmp = sheet.with_name(sheet.name + ".tmp")
    with open(tmp, "w", encoding="utf-8-sig", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        # the instructions travel with the sheet, right under the header (the column
        # check reads row 1 only; ingest skips #help rows)
        w.writerows(help_rows())
        w.writerows(rows)
    tmp.replace(sheet)


def _record_manifest(out_dir: Path, sheet: Path, rows: list[list[str]], counts: Counter, seed: int) -> None:
    """Add the sheet's item ids and read-only cell digests to ``audit/manifest.json``."""
    audit_dir = out_dir / "audit"
    audit_dir.mkdir(parents=True, exist_ok=True)
    man_path = audit_dir / "manifest.json"
    manifest = json.loads(man_path.read_text("utf-8")) if man_path.exists() else {"ids": {}, "sheets": []}
    cells = manifest.setdefault("cells", {})
    for r in rows:
        manifest["ids"][r[1]] = r[2]
        cells[r[1]] = _cell_digests(r)
    manifest["sheets"].append({"sheet": str(sheet.resolve()), "written_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                               "counts": dict(counts), "seed": seed})
    man_tmp = man_path.with_name("manifest.json.tmp")
    man_tmp.write_text(json.dumps(manifest, ensure_ascii=False), "utf-8")
    man_tmp.replace(man_path)


def sample(out_dir: Path, sheet: Path, *, seed: int = 0, record_fraction: float = 0.10,
           dataset_pairs: int = 5000, bench: bool = True) -> dict:
    """Write a review sheet for the build in ``out_dir`` and return counts by stage.

    Records: ``record_fraction`` of the records (deterministic for ``seed``), a row per
    filled field; dataset: ``dataset_pairs`` QA pairs drawn uniformly; bench: every row.
    Image paths are absolute. Also records the sampled ids in ``out_dir/audit/manifest.json``
    (ingest accepts only those). Raises ``FileNotFoundError`` when the build is missing.
    """
    out_dir, sheet = Path(out_dir), Path(sheet)
    qa_dir = out_dir / "qa"
    rec_dir = _records_dir(out_dir)
    if not (qa_dir / "dataset.jsonl").exists():
        raise FileNotFoundError(f"{qa_dir}: no stage-3 outputs; run `jiezi build --output {out_dir}` first")
    rng = random.Random(f"audit:{seed}")
    counts: Counter = Counter()
    rows = _record_rows(rec_dir, rng, record_fraction, counts)
    rows += _dataset_rows(qa_dir, rec_dir, rng, dataset_pairs, counts)
    if bench:
        rows += _bench_rows(qa_dir, rec_dir, counts)
    _write_sheet(sheet, rows)
    _record_manifest(out_dir, sheet, rows, counts, seed)
    return dict(counts)


def _decode_sheet(sheet: Path) -> str:
    raw = sheet.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        row = raw[:exc.start].count(b"\n") + 1
        raise AuditSheetError(sheet, [(row, f"{sheet.name}: not UTF-8 (byte offset {exc.start}); "
                                            "save it as 'CSV UTF-8' (Excel: File > Save As > CSV UTF-8)")]) from None


def _check_item(n: int, row: list[str], cells: dict, known_ids: dict[str, str], seen: dict[str, int],
                written_cells: dict[str, list[str]] | None) -> str | None:
    """The problem with one row's item id, stage or read-only cells (None when fine); a
    known, first-seen item is entered in ``seen``. A stage mismatch is reported but the row
    is still read (its verdict may carry other problems)."""
    item_id = cells["item_id"].strip()
    if item_id not in known_ids:
        return f"unknown item id {item_id!r} (not in any sheet `jiezi audit sample` wrote)"
    if item_id in seen:
        return f"item {item_id} appears twice, on rows {seen[item_id]} and {n}: keep one row per item"
    seen[item_id] = n
    wrote = (written_cells or {}).get(item_id)
    if wrote is not None:
        edited = [c for c, a, b in zip(READ_ONLY, _cell_digests(row), wrote) if a != b]
        if edited:
            return (f"item {item_id}: read-only column(s) {', '.join(edited)} differ from "
                    "what `jiezi audit sample` wrote; restore them and put the right value "
                    "in the correction column (verdict 'correct')")
    return None


def _read_verdict(item_id: str, cells: dict) -> tuple[str, str, str | None]:
    """(verdict, normalised correction, problem or None) of one row."""
    verdict = cells["verdict"].strip().lower()
    correction = written = cells["correction"].strip()
    if not verdict:
        return "", correction, None
    if verdict not in VERDICTS:
        return verdict, correction, f"verdict {cells['verdict']!r} is not one of {', '.join(VERDICTS)}"
    if verdict != "correct":
        return verdict, correction, None
    if not correction:
        return verdict, correction, (f"item {item_id}: verdict 'correct' needs a correction; "
                                     f"accepted: {accepted_forms(item_id)}")
    try:
        return verdict, normalise_correction(item_id, written), None
    except CorrectionError as exc:
        return verdict, correction, f"item {item_id}: correction {written!r} is not valid: {exc}"
    except (AttributeError, TypeError, KeyError, ValueError) as exc:  # a shape no check foresaw
        return verdict, correction, (f"item {item_id}: correction {written!r} has an unexpected shape "
                                     f"({type(exc).__name__}: {exc}); accepted: {accepted_forms(item_id)}")


def read_sheet(sheet: Path, known_ids: dict[str, str], written_cells: dict[str, list[str]] | None = None) -> list[dict]:
    """Validate and read a filled sheet. Returns the reviewed rows (non-empty verdict) as
    decisions ``{"item_id", "stage", "verdict", "correction", "sheet", "row"}``.

    ``correction`` is the normalised form (:func:`normalise_correction`);
    ``correction_as_written`` keeps the reviewer's text when it differs. Rows whose item id
    starts with ``#`` (the sheet's help rows) are skipped, whatever they hold.

    Raises :class:`AuditSheetError` listing every bad row: changed column order or names
    (row 1), unknown item id, stage not matching the id, verdict not in
    ``ok`` / ``reject`` / ``correct``, ``correct`` without a correction, a correction that
    is not a valid value for its item (a label outside the subtask's label set, JSON that
    does not parse or has the wrong shape, ...), the same item on two rows, a read-only
    cell (:data:`READ_ONLY`) that differs from what sample wrote (``cells``: item id ->
    :func:`_cell_digests`, from the manifest; ``written_cells``, not checked when None), a file that is not
    UTF-8 (Excel's plain "CSV" on a Chinese Windows writes GBK).
    """
    sheet = Path(sheet)
    problems: list[tuple[int, str]] = []
    decisions: list[dict] = []
    seen: dict[str, int] = {}
    with io.StringIO(_decode_sheet(sheet), newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if header != COLUMNS:
            raise AuditSheetError(sheet, [(1, f"columns changed: expected {COLUMNS}, got {header}")])
        for n, row in enumerate(reader, 2):
            if len(row) != len(COLUMNS):
                problems.append((n, f"expected {len(COLUMNS)} cells, got {len(row)}"))
                continue
            cells = dict(zip(COLUMNS, row))
            item_id = cells["item_id"].strip()
            if item_id.startswith(HELP_PREFIX):
                continue  # an instruction row (a verdict filled down a column over it means nothing)
            stage_ok = item_id not in known_ids or cells["stage"].strip() == known_ids[item_id]
            problem = _check_item(n, row, cells, known_ids, seen, written_cells)
            if item_id in known_ids and item_id in seen and seen[item_id] == n and not stage_ok:
                problems.append((n, f"stage {cells['stage']!r} does not match item {item_id!r} (stage {known_ids[item_id]!r})"))
            if problem is not None:
                problems.append((n, problem))
                continue
            verdict, correction, problem = _read_verdict(item_id, cells)
            if problem is not None:
                problems.append((n, problem))
                continue
            if not verdict:
                continue
            decision = {"item_id": item_id, "stage": known_ids[item_id], "verdict": verdict,
                        "correction": correction, "sheet": sheet.name, "row": n}
            if correction != cells["correction"].strip():
                decision["correction_as_written"] = cells["correction"].strip()
            decisions.append(decision)
    if problems:
        raise AuditSheetError(sheet, problems)
    return decisions


def error_rates(decisions: list[dict]) -> dict:
    """Error rates per stage from reviewed decisions (the paper's audit figures).

    Returns ``{stage: {"reviewed", "ok", "reject", "correct", "error_rate"}}``, with the
    records stage also giving ``records_reviewed`` and ``record_error_rate`` (share of
    records with at least one rejected or corrected field). Rates are in 0..1.
    """
    out: dict[str, dict] = {}
    by_stage: dict[str, Counter] = {}
    bad_records: dict[str, bool] = {}
    for d in decisions:
        c = by_stage.setdefault(d["stage"], Counter())
        c["reviewed"] += 1
        c[d["verdict"]] += 1
        if d["stage"] == "records":
            rid = d["item_id"][len("record:"):].split("#", 1)[0]
            bad_records[rid] = bad_records.get(rid, False) or d["verdict"] != "ok"
    for stage, c in sorted(by_stage.items()):
        errors = c["reject"] + c["correct"]
        out[stage] = {"reviewed": c["reviewed"], "ok": c["ok"], "reject": c["reject"], "correct": c["correct"],
                      "error_rate": round(errors / c["reviewed"], 4) if c["reviewed"] else None}
        if stage == "records":
            out[stage]["records_reviewed"] = len(bad_records)
            out[stage]["record_error_rate"] = round(sum(bad_records.values()) / max(1, len(bad_records)), 4)
    return out


def ingest(out_dir: Path, sheet: Path) -> dict:
    """Validate ``sheet`` and append its decisions to ``out_dir/audit/decisions.jsonl``.

    Returns ``{"decisions": n, "rates": error_rates(this sheet), "rates_all":
    error_rates(every decision so far)}``. Raises :class:`AuditSheetError` (nothing
    written) for a bad sheet and ``FileNotFoundError`` when no sheet was ever sampled.
    """
    out_dir = Path(out_dir)
    man_path = out_dir / "audit" / "manifest.json"
    if not man_path.exists():
        raise FileNotFoundError(f"{man_path}: no audit manifest; run `jiezi audit sample --output {out_dir}` first")
    manifest = json.loads(man_path.read_text("utf-8"))
    decisions = read_sheet(sheet, manifest["ids"], manifest.get("cells"))
    dec_path = out_dir / "audit" / "decisions.jsonl"
    with open(dec_path, "a", encoding="utf-8") as fh:
        for d in decisions:
            fh.write(json.dumps(d, ensure_ascii=False) + "\n")
    latest: dict[str, dict] = {}
    for line in dec_path.read_text("utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            latest[d["item_id"]] = d
    rates = {"decisions": len(decisions), "rates": error_rates(decisions),
             "rates_all": error_rates(list(latest.values()))}
    (out_dir / "audit" / "rates.json").write_text(json.dumps(rates, ensure_ascii=False, indent=1), "utf-8")
    return rates
