"""The paper protocol's replies read as the authors' scorer reads them (``paper.score_paper``).

:func:`reply_object` reads the JSON object of a reply (a failure raises
:class:`UnreadableReply`); :func:`normalize_record` normalises its eight fields
(:data:`REFERENCE_FIELDS`) the way the reference scorer does (collapsed whitespace, script
and structure aliases, formation labels completed with 字, component functions and
evolution types kept to the official sets), and :func:`reference_record` a reference the
same way, with this project's accepted alternatives (:data:`ACCEPTED_FIELD`).
"""

from __future__ import annotations

import json

from .labels import SCRIPTS


REFERENCE_FIELDS = ("现代字典字头", "字形", "造字法", "结构", "特殊结构", "构件", "本义", "历代字形演变")
# This project's extension of a reference (absent from the official layout): the other
# answers the sources allow, per field (see the module doc).
ACCEPTED_FIELD = "可接受"

SCRIPT_OFFICIAL = {"战国文字": "古文"}  # this project's label -> the official one
# the official script labels: labels.SCRIPTS with 古文 for 战国文字 (简体 is scored as 楷书,
# labels.scoring_script)
SCRIPT_LABELS = tuple(SCRIPT_OFFICIAL.get(s, s) for s in SCRIPTS)
SCRIPT_SHORT = {"甲骨": "甲骨文", "金": "金文", "古": "古文", "篆": "篆书", "小篆": "篆书", "大篆": "篆书",
                "隶": "隶书", "楷": "楷书", "草": "草书"}
STRUCTURE_LABELS = ("⿰", "⿱", "⿲", "⿳", "⿴", "⿵", "⿶", "⿷", "⿸", "⿹", "⿺", "⿻", "独体")
STRUCTURE_NAMES = {"左右结构": "⿰", "左中右结构": "⿲", "上下结构": "⿱", "上中下结构": "⿳", "全包围结构": "⿴",
                   "上三包围结构": "⿵", "下三包围结构": "⿶", "左三包围结构": "⿷", "左上包围结构": "⿸",
                   "右上包围结构": "⿹", "左下包围结构": "⿺", "镶嵌结构": "⿻"}
FORMATION_SHORT = ("象形", "指事", "会意", "形声", "转注", "假借")  # each completed with 字
FUNCTION_LABELS = ("表意", "表音", "符号")
FUNCTION_DEFAULT = "符号"
EVOLUTION_LABELS = ("保留", "讹变", "简化", "区别", "繁化")
EVOLUTION_DEFAULT = "保留"


class UnreadableReply(ValueError):
    """A reply from which the reference scorer reads no JSON object (a counted failure)."""


# ------------------------------------------------------------------------ reading a reply
def reply_object(text: object) -> dict:
    """The JSON object of one reply, read the way the authors' runner reads it.

    The stripped reply is parsed whole; when that fails, the span from its first ``{`` to
    its last ``}`` is parsed. A reply containing a code fence is cut to that span before the
    first attempt. Python's ``json`` rules apply (no trailing commas, no raw newlines inside
    strings, a repeated key keeps its last value). Raises ``UnreadableReply`` when nothing
    parses, when the value is not an object (a list, a number), or when ``text`` is not str.
    """
    if not isinstance(text, str):
        raise UnreadableReply(f"reply is {type(text).__name__}, not text")
    body = text.strip()
    first, last = body.find("{"), body.rfind("}")
    if "```" in body and first != -1 and last > first:
        body = body[first:last + 1]
        first, last = 0, len(body) - 1
    try:
        value = json.loads(body)
    except ValueError:
        if first == -1 or last <= first:
            raise UnreadableReply("reply holds no JSON object") from None
        try:
            value = json.loads(body[first:last + 1])
        except ValueError as exc:
            raise UnreadableReply(f"reply's JSON object does not parse ({exc})") from None
    if not isinstance(value, dict):
        raise UnreadableReply(f"reply's JSON is a {type(value).__name__}, not an object")
    return value


def collapse(value: object) -> str:
    """Text of a JSON value with every whitespace run turned into one space, ends trimmed.

    None -> ""; other values go through ``str`` (``1`` -> ``"1"``, a list -> its Python repr),
    as the reference scorer does. Whitespace is what ``str.split`` splits on (Unicode).
    """
    if value is None:
        return ""
    return " ".join(str(value).split())


def text_list(value: object) -> list[str]:
    """A string or list as a list of collapsed, non-empty, de-duplicated texts (order kept);
    any other value gives ``[]``."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return []
    out: list[str] = []
    for item in value:
        text = collapse(item)
        if text and text not in out:
            out.append(text)
    return out


def script_label(value: object) -> str:
    """字形 -> one of ``SCRIPT_LABELS`` (an alias is expanded) or ``""``."""
    text = collapse(value)
    return text if text in SCRIPT_LABELS else SCRIPT_SHORT.get(text, "")


def structure_label(value: object) -> str:
    """结构 -> one of ``STRUCTURE_LABELS`` (a structure name is mapped) or ``""``."""
    text = collapse(value)
    return text if text in STRUCTURE_LABELS else STRUCTURE_NAMES.get(text, "")


def formation_labels(value: object) -> list[str]:
    """造字法 -> labels in their ``...字`` form (象形 -> 象形字); unknown labels kept as written."""
    out: list[str] = []
    for text in text_list(value):
        label = f"{text}字" if text in FORMATION_SHORT else text
        if label not in out:
            out.append(label)
    return out


def component_table(value: object) -> dict[str, dict]:
    """构件 -> {name: {"功能": [...], "演变类型": str, "解释": str}} (reference scorer's rules).

    Only an object counts; an entry whose collapsed name is empty or whose value is not an
    object is dropped. 功能 keeps 表意/表音/符号 (absent or nothing left -> [符号]); 演变类型
    outside the five (absent, null, other text) -> 保留. Names equal after collapsing share
    one entry holding the later value.
    """
    if not isinstance(value, dict):
        return {}
    out: dict[str, dict] = {}
    for raw_name, attrs in value.items():
        name = collapse(raw_name)
        if not name or not isinstance(attrs, dict):
            continue
        evolution = collapse(attrs.get("演变类型", EVOLUTION_DEFAULT))
        functions = [f for f in text_list(attrs.get("功能", FUNCTION_DEFAULT)) if f in FUNCTION_LABELS]
        out[name] = {"功能": functions or [FUNCTION_DEFAULT],
                     "演变类型": evolution if evolution in EVOLUTION_LABELS else EVOLUTION_DEFAULT,
                     "解释": collapse(attrs.get("解释", ""))}
    return out


def normalize_record(raw: dict) -> dict:
    """The eight fields of one reply or reference after the reference scorer's normalisation."""
    return {"现代字典字头": collapse(raw.get("现代字典字头", "")), "字形": script_label(raw.get("字形", "")),
            "造字法": formation_labels(raw.get("造字法", [])), "结构": structure_label(raw.get("结构", "")),
            "特殊结构": collapse(raw.get("特殊结构", "")), "构件": component_table(raw.get("构件", {})),
            "本义": collapse(raw.get("本义", "")), "历代字形演变": collapse(raw.get("历代字形演变", ""))}


def reference_object(reference: object) -> dict:
    """A reference as a dict: itself, or its JSON text parsed. Raises ``ValueError`` for text
    that is not JSON or a value that is no object, naming the eight expected fields."""
    if isinstance(reference, str):
        try:
            reference = json.loads(reference)
        except ValueError as exc:
            raise ValueError(f"reference is text but not JSON ({exc})") from None
    if not isinstance(reference, dict):
        raise ValueError(f"reference is {type(reference).__name__}: expected an object with the fields "
                         f"{list(REFERENCE_FIELDS)}")
    return reference


def reference_record(reference: object) -> dict:
    """One reference (a dict in the eight official field names, or its JSON text), normalised.

    The headword is kept exactly as given (the authors take it from the bench entry, not
    from a normalised field). Raises ``ValueError`` naming what was expected.
    """
    reference = reference_object(reference)
    record = normalize_record(reference)
    head = reference.get("现代字典字头")
    record["现代字典字头"] = "" if head is None else str(head)
    acc = reference.get(ACCEPTED_FIELD)
    if isinstance(acc, dict):
        comps = acc.get("构件") if isinstance(acc.get("构件"), dict) else {}
        record[ACCEPTED_FIELD] = {
            "现代字典字头": [str(x) for x in text_list(acc.get("现代字典字头"))],
            "结构": [x for x in (structure_label(v) for v in text_list(acc.get("结构"))) if x],
            "造字法": [formation_labels(v) for v in (acc.get("造字法") or []) if isinstance(v, (list, str))],
            "构件": {collapse(k): text_list(v) for k, v in comps.items() if collapse(k)},
            "构件功能": {collapse(k): [[f for f in text_list(x) if f in FUNCTION_LABELS] for x in v if isinstance(x, list)]
                     for k, v in (acc.get("构件功能") or {}).items() if collapse(k) and isinstance(v, list)},
        }
    return record
