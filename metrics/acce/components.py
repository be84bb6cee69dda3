"""Component answers (COMR / COMF / COMI / COME): parsing (one-to-one matching and P/R/F1:
``component_match``; the ``Component`` record: ``component_record``).

The four component subtasks share one question ("list every component with its function,
interpretation and evolution type"); one answer is parsed once into ``Component`` records
and scored on the four metrics (ACCE.md section 2):

- names are compared by ``normalize.component_key`` (whitespace removed, NFKC, OpenCC t2s,
  radical alias table);
- exact matches are paired first; the remaining names are paired one-to-one by normalised
  Levenshtein similarity >= 0.8, choosing the pairing with the most pairs, then the highest
  total similarity (ties: the lexicographically smallest sorted list of name pairs, as in
  the reference code);
- with P = x / predicted and R = x / gold: COMR takes x = pairs, COMF the pairs whose
  function sets are equal, COME the pairs whose evolution types are equal, COMI the sum of
  the BERTScore F1 of the paired interpretations; each is the F1 of its P and R.

A component named twice in one answer counts once (its first description is kept): the
reference code holds components in a mapping keyed by name.

Accepted answer layouts, tried in this order: JSON (bare, inside ```json fences, or the first
JSON object/array in the text; list of objects, ``{"components": [...]}``, or name ->
attributes); the official JieZi layout ``1. 构件X：功能=表意；演变类型=保留；解释=...``;
markdown tables; markdown / numbered lists; ``name：attributes`` pairs on one line or one per
line (``水：保留；工：保留``, ``氵：表意，保留``); plain prose (``从水，工声``,
``形旁为氵，声旁为工``, ``由A和B组成``, "semantic component 氵").
"""

from __future__ import annotations

import functools
import json
import re

from .component_record import Component, _NAME_PREFIX, _NAME_RUN, clean_name
from .extract import (
    answer_part,
    extract_evolution,
    extract_formation,
    extract_functions,
    extract_script,
    extract_structure,
    only_question,
    strip_attribute_labels,
)
from .normalize import COMPONENT_CHARS, component_key, normalize_text


# ------------------------------------------------------------------------------- JSON
_LIST_KEYS = {"components", "component", "构件", "构件列表", "构件分析", "部件", "parts", "组件"}
_NAME_KEYS = {"name", "component", "构件", "构件名", "构件名称", "名称", "部件", "part", "组件", "char"}
_FUNC_KEYS = {"functions", "function", "功能", "作用", "role", "roles", "构件功能", "功能类型"}
_INTERP_KEYS = {"interpretation", "explanation", "解释", "说明", "释义", "含义", "description", "构件解释",
                "note", "notes", "analysis", "分析", "meaning"}
_EVO_KEYS = {"evolution_type", "evolution", "演变类型", "演变", "evolutiontype", "构件演变", "change", "变化", "演变方式"}


@functools.lru_cache(maxsize=4096)
def _norm_key(key: object) -> str:
    return re.sub(r"[\s_\-]+", "", normalize_text(str(key))).lower()


_LIST_KEYS, _NAME_KEYS, _FUNC_KEYS, _INTERP_KEYS, _EVO_KEYS = (
    frozenset(_norm_key(k) for k in keys) for keys in (_LIST_KEYS, _NAME_KEYS, _FUNC_KEYS, _INTERP_KEYS, _EVO_KEYS)
)


def _pick(d: dict, keys: frozenset[str]):
    for k, v in d.items():
        if _norm_key(k) in keys:
            return v
    return None


def _as_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return "；".join(_as_text(v) for v in value)
    return str(value)


def component_from_dict(d: dict, *, name: object = None, gold: bool = False) -> Component | None:
    """Build a ``Component`` from one JSON object (keys in English or Chinese; see module doc).
    ``gold``: a reference's component (its name is kept however long, ``clean_name``)."""
    name = clean_name(name if name is not None else _pick(d, _NAME_KEYS), gold=gold)
    if name is None:
        return None
    functions = _pick(d, _FUNC_KEYS)
    evolution = _pick(d, _EVO_KEYS)
    interp = _pick(d, _INTERP_KEYS)
    also: tuple[str, ...] = ()
    if gold and isinstance(d.get("names"), list):  # the reference's accepted names (a 省 part)
        also = tuple(n for n in (clean_name(x, gold=True) for x in d["names"]) if n and n != name)
    also_fn: tuple[frozenset[str], ...] = ()
    if gold and isinstance(d.get("functions_accepted"), list):  # Shuowen's 表音 beside Duan's 亦声
        also_fn = tuple(f for f in (extract_functions(_as_text(x)) for x in d["functions_accepted"]) if f)
    return Component(
        name=name,
        functions=extract_functions(_as_text(functions)) if functions is not None else frozenset(),
        interpretation=normalize_text(_as_text(interp), keep_lines=False),
        evolution_type=extract_evolution(_as_text(evolution)) if evolution is not None else None,
        also=also,
        also_functions=also_fn,
    )


def components_from_json(obj: object, *, gold: bool = False) -> list[Component]:
    """Components from a decoded JSON value (list of objects, wrapper object, name -> attributes).
    ``gold``: the value is a reference's (no component name is dropped for its length)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if _norm_key(k) in _LIST_KEYS and isinstance(v, (list, dict)):
                return components_from_json(v, gold=gold)
        if _pick(obj, _NAME_KEYS) is not None and not isinstance(_pick(obj, _NAME_KEYS), (dict, list)):
            comp = component_from_dict(obj, gold=gold)
            return [comp] if comp else []
        out = []
        for k, v in obj.items():
            if isinstance(v, dict):
                comp = component_from_dict(v, name=k, gold=gold)
            elif isinstance(v, (str, list)):
                comp = _component_from_text(str(k), _as_text(v))
            else:
                comp = None
            if comp:
                out.append(comp)
        return out
    if isinstance(obj, list):
        out = []
        for item in obj:
            if isinstance(item, dict):
                comp = component_from_dict(item, gold=gold)
            elif isinstance(item, str):
                comp = _item_component(normalize_text(item))
            else:
                comp = None
            if comp:
                out.append(comp)
        return out
    return []


_FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript|js)?[ \t]*\n?(.*?)```", re.S)


def _json_values(text: str):
    for m in _FENCE.finditer(text):
        yield m.group(1).strip()
    yield text.strip()
    decoder = json.JSONDecoder()
    tries = 0
    for m in re.finditer(r"[\[{]", text):
        tries += 1
        if tries > 30:
            break
        try:
            value, _ = decoder.raw_decode(text, m.start())
        except ValueError:
            continue
        yield value


def _parse_json(text: str) -> list[Component]:
    for candidate in _json_values(text):
        if isinstance(candidate, str):
            if not candidate or candidate[0] not in "[{":
                continue
            try:
                candidate = json.loads(candidate)
            except ValueError:
                continue
        comps = components_from_json(candidate)
        if comps:
            return comps
    return []


# ---------------------------------------------------------------------- text layouts
_FIELD = re.compile(
    r"(?P<f>功能|作用|function|role)\s*(?:[=:：]|为|是)|(?P<e>演变类型|演变|evolution(?:\s*type)?)\s*(?:[=:：]|为|是)|"
    r"(?P<i>解释|说明|释义|构字解释|interpretation|explanation)\s*(?:[=:：]|为)",
    re.I,
)
_SEGMENT_SPLIT = re.compile(r"[;；,，、。/|]")
_LABEL_WORDS = re.compile(r"功能|作用|演变类型|演变|类型|构件|部件|偏旁|function|role|evolution|type|component|[=:：\s()（）.\-]",
                          re.I)


def _describe(name: str, desc: str) -> Component:
    """Component ``name`` with attributes read from its description text."""
    fields = list(_FIELD.finditer(desc))
    if fields:
        values: dict[str, str] = {}
        for idx, m in enumerate(fields):
            end = fields[idx + 1].start() if idx + 1 < len(fields) else len(desc)
            kind = next(k for k in ("f", "e", "i") if m.group(k))
            values.setdefault(kind, desc[m.end():end].strip(" ;；,，。.\n"))
        return Component(
            name=name,
            functions=extract_functions(values.get("f", "")),
            interpretation=normalize_text(values.get("i", ""), keep_lines=False),
            evolution_type=extract_evolution(values["e"]) if "e" in values else None,
        )
    # No labelled fields: short segments that only name a function / evolution type are
    # attributes; the rest is the interpretation.
    functions: set[str] = set()
    evolution = None
    rest = []
    for seg in _SEGMENT_SPLIT.split(desc):
        seg = seg.strip()
        if not seg:
            continue
        f = extract_functions(seg)
        e = extract_evolution(seg)
        if (f or e) and len(_LABEL_WORDS.sub("", strip_attribute_labels(seg))) <= 3:
            functions |= f
            evolution = evolution or e
        else:
            functions |= f if len(seg) <= 14 else frozenset()
            rest.append(seg)
    if evolution is None:
        evolution = extract_evolution(desc)
    if not functions:
        functions = set(extract_functions(desc))
    return Component(name, frozenset(functions), normalize_text("，".join(rest), keep_lines=False), evolution)


def _component_from_text(name: object, desc: str) -> Component | None:
    clean = clean_name(name)
    return _describe(clean, normalize_text(desc)) if clean else None


# official JieZi layout: "1. 构件人：功能=表意；演变类型=保留；解释=..."
_OFFICIAL = re.compile(
    rf"(?:^|(?<=[\n;；。，,\s]))\s*(?:\d+\s*[.、)]\s*)?构件\s*(?!(?:[一二三四五六七八九十]+|\d+)\s*[:：.、](?!\s*(?:功能|作用|演变|解释|说明)))"
    rf"[「\"'《(]?\s*(?P<name>{COMPONENT_CHARS}{{1,8}}(?:\([左右]\))?)"
    rf"\s*[」\"'》)]?\s*[:：]"
    # or a numbered heading: "**构件一：氵**" / "### 构件2: 工"
    rf"|(?:^|(?<=\n))[\s*#>\-]*构件\s*(?:[一二三四五六七八九十]+|\d+)\s*[:：.、]\s*[*「\"'《]*\s*"
    rf"(?P<name2>{COMPONENT_CHARS}{{1,8}}(?:\([左右]\))?)[^\n]*"
)


def _parse_official(text: str) -> list[Component]:
    heads = list(_OFFICIAL.finditer(text))
    out = []
    for idx, m in enumerate(heads):
        end = heads[idx + 1].start() if idx + 1 < len(heads) else len(text)
        name = clean_name(m.group("name") or m.group("name2"))
        if name:
            out.append(_describe(name, text[m.end():end]))
    return out


_TABLE_ROW = re.compile(r"^\s*\|(.+)\|\s*$")


def _parse_table(text: str) -> list[Component]:
    rows = [m.group(1) for line in text.split("\n") if (m := _TABLE_ROW.match(line))]
    if len(rows) < 2:
        return []
    cells = [[c.strip() for c in row.split("|")] for row in rows]
    header = [c.lower() for c in cells[0]]

    def col(words: tuple[str, ...]) -> int | None:
        for i, h in enumerate(header):
            if any(w in h for w in words):
                return i
        return None

    c_name = col(("构件", "部件", "名称", "组件", "component", "name", "part"))
    c_func = col(("功能", "作用", "function", "role"))
    c_evo = col(("演变", "evolution"))
    c_int = col(("解释", "说明", "释义", "interpretation", "explanation", "meaning", "note"))
    if c_name is None:
        return []
    out = []
    for row in cells[1:]:
        if all(re.fullmatch(r":?-{2,}:?|", c) for c in row):
            continue

        def get(i: int | None, row: list[str] = row) -> str:
            return row[i] if i is not None and i < len(row) else ""

        name = clean_name(get(c_name))
        if not name:
            continue
        out.append(Component(
            name=name,
            functions=extract_functions(get(c_func)),
            interpretation=normalize_text(get(c_int), keep_lines=False),
            evolution_type=extract_evolution(get(c_evo)) if get(c_evo) else None,
        ))
    return out


_ITEM = re.compile(r"^(?P<indent>\s*)(?:[-*+•·]|\d{1,2}\s*[.、)）]|[(（]\d{1,2}[)）]|[①-⑳])\s*(?P<body>.+)$")
_HEAD_SPLIT = re.compile(r"\s*(?:[:：=]|\s[-–—]\s|——|—)\s*")
_LABELLED_NAME = re.compile(rf"(?:构件|部件|名称|component|name)\s*[:：=]\s*[*「\"'《]*\s*({COMPONENT_CHARS}{{1,8}}(?:[(（][左右][)）])?)", re.I)


def _item_component(body: str) -> Component | None:
    body = re.sub(r"\*\*|__|`", "", body).strip()
    labelled = _LABELLED_NAME.search(body)
    if labelled:
        name = clean_name(labelled.group(1))
        desc = body[:labelled.start()] + body[labelled.end():]
        return _describe(name, desc) if name else None
    parts = _HEAD_SPLIT.split(body, maxsplit=1)
    head = parts[0]
    desc = parts[1] if len(parts) > 1 else ""
    name = clean_name(head)
    if name is None:
        # "water radical 氵 (semantic)": the first run of CJK characters in the head.
        run = _NAME_RUN.search(head)
        if run is None or len(run.group()) > 8:
            return None
        name = clean_name(run.group())
        desc = head[run.end():] + " " + desc
        if name is None:
            return None
    elif len(parts) == 1:
        # "氵（表意，保留）象水流" : a name with its description glued on.
        bare = _NAME_PREFIX.sub("", head.strip())
        m = re.match(rf"^[*「\"'《]*({COMPONENT_CHARS}{{1,4}}(?:[(（][左右][)）])?)[」\"'》]*\s*(.*)$", bare)
        if m and m.group(2):
            name = clean_name(m.group(1))
            # a parenthesised gloss of the name ("氵（三点水）") is not a description
            desc = re.sub(r"^[(（][^)）]{1,8}[)）]", "", m.group(2))
    return _describe(name, desc) if name else None


def _parse_list(text: str) -> list[Component]:
    lines = text.split("\n")
    items = [m for line in lines if (m := _ITEM.match(line))]
    if not items:
        return []
    top = min(len(m.group("indent")) for m in items)
    blocks: list[list[str]] = []
    for line in lines:
        m = _ITEM.match(line)
        if m and len(m.group("indent")) == top:
            blocks.append([m.group("body")])
        elif blocks and line.strip():
            blocks[-1].append(re.sub(r"^\s*(?:[-*+•·]|\d{1,2}\s*[.、)）])\s*", "", line))
    out = []
    for block in blocks:
        comp = _item_component(block[0])
        if comp is None:
            continue
        if len(block) > 1:
            extra = _describe(comp.name, "；".join(block[1:]))
            comp = Component(
                comp.name,
                comp.functions | extra.functions,
                "，".join(x for x in (comp.interpretation, extra.interpretation) if x),
                comp.evolution_type or extra.evolution_type,
            )
        out.append(comp)
    return out


# "水：保留；工：保留" / "氵: 表意, 保留" (NFKC has made the colons and semicolons ASCII):
# short name, colon, its attributes; pairs separated by semicolons, newlines or commas.
_PAIR = re.compile(rf"^\s*[「\"'《]?\s*(?P<name>{COMPONENT_CHARS}{{1,4}}(?:\([左右]\))?)\s*[」\"'》]?\s*[:=]\s*(?P<desc>\S.*)$")
# Heads that are labels of the answer, not component names ("形旁：水", "本义：…").
_NOT_A_PAIR_NAME = re.compile(r"^(?:构件|部件|组件|偏旁|部首|形旁|声旁|形符|声符|意符|义符|音符|功能|作用|演变|演变类型|类型|"
                              r"解释|说明|释义|本义|分析|结构|造字法|六书|字形|书体|答案|结论|字头|注|备注)$")


def _parse_pairs(text: str) -> list[Component]:
    """Components written as ``name：attributes`` pairs (``水：保留；工：保留``).

    Every non-empty piece must be such a pair and at least one must state a function or an
    evolution type: a lone ``分析：…`` line is prose, not a component list. Pieces are split
    on semicolons and newlines; when that leaves a single piece, on commas first
    (``水:保留,工:保留``), then that piece is read as one pair (``氵:表意,保留``).
    """
    def split(pattern: str) -> list[str]:
        return [p.strip(" .。") for p in re.split(pattern, text) if p.strip(" .。")]

    tries = [split(r"[;\n]")]
    if len(tries[0]) == 1:  # "水:保留,工:保留" first; then "氵:表意,保留" as one pair
        tries.insert(0, split(r"[;\n,、]"))
    for pieces in tries:
        out, attributed = [], False
        for piece in pieces:
            m = _PAIR.match(piece)
            name = clean_name(m.group("name")) if m else None
            if name is None or _NOT_A_PAIR_NAME.match(name):
                out = []
                break
            comp = _describe(name, m.group("desc"))
            attributed = attributed or bool(comp.functions) or comp.evolution_type is not None
            out.append(comp)
        if out and attributed:
            return out
    return []


_ONE = COMPONENT_CHARS
_PROSE_PATTERNS = (
    # Shuowen style: 从X / 从X省 (semantic), X声 / X省声 (phonetic), X亦声 (both)
    (re.compile(rf"从({_ONE})(?=[,，、。;；\s从省声会以]|$)"), frozenset({"表意"})),
    (re.compile(rf"(?:^|(?<=[,，、。;；\s]))({_ONE})(?:省)?声(?!符|旁)"), frozenset({"表音"})),
    (re.compile(rf"({_ONE})亦声"), frozenset({"表意", "表音"})),
    (re.compile(rf"(?:形旁|形符|意符|义符|意旁|义旁)\s*(?:为|是|[:：=])?\s*[「\"'《]?({_ONE}{{1,3}}?)[」\"'》]?(?=[,，、。;；\s)）]|$)"),
     frozenset({"表意"})),
    (re.compile(rf"(?:声旁|声符|音符)\s*(?:为|是|[:：=])?\s*[「\"'《]?({_ONE}{{1,3}}?)[」\"'》]?(?=[,，、。;；\s)）]|$)"),
     frozenset({"表音"})),
    (re.compile(rf"(?:semantic|meaning|signific)\w*\s+(?:component|element|radical|part|indicator)\s*(?:is\s+)?[\"'「(]?({_ONE}{{1,3}})", re.I),
     frozenset({"表意"})),
    (re.compile(rf"(?:phonetic|sound)\w*\s+(?:component|element|part|indicator)\s*(?:is\s+)?[\"'「(]?({_ONE}{{1,3}})", re.I),
     frozenset({"表音"})),
    (re.compile(rf"({_ONE}{{1,3}})\s*[(（]\s*(?:semantic|meaning)", re.I), frozenset({"表意"})),
    (re.compile(rf"({_ONE}{{1,3}})\s*[(（]\s*(?:phonetic|sound)", re.I), frozenset({"表音"})),
)
_CONG_SHENG = re.compile(rf"从({_ONE})({_ONE})(?:省)?声(?!符|旁)")
_MADE_OF = re.compile(r"由(.{1,24}?)(?:[两二三四几]个?)?(?:部分|构件|部件|偏旁)?(?:组成|构成|组合而成|合成)")
_LISTED = re.compile(r"(?:组成|构成|构件(?:有|是|为|包括)|components? (?:are|is))\s*[:：]\s*(.{1,40}?)(?:[。;；\n]|$)", re.I)
_MADE_OF_EN = re.compile(r"(?:consists of|composed of|made up of|components? (?:are|is))\s+(.{1,80}?)(?:[.。;]|$)", re.I)


# "「亠」承担表意功能，象粮仓的顶部；" (the official long-answer layout), "水表意，工表音",
# "異兼表声": a name, then its function; the text up to the next such head or the end of the
# sentence is its interpretation.
_ROLE = re.compile(
    rf"(?:^|(?<=[\s,，、。;；:：(（]))[「\"'《]?(?P<name>{_ONE}{{1,4}}?)[」\"'》]?\s*"
    rf"(?:承担|起|具有|表示|作|兼|亦|也)?\s*(?P<f>表意|表义|表音|表声|示音|符号|记号)"
    rf"(?:兼(?P<f2>表意|表义|表音|表声))?(?:的)?(?:功能|作用)?"
)
# counting words and layout words that a "由A和B组成" sentence may put where names go
_NOT_A_NAME = re.compile(r"^(?:[一二两三四五六七八九十几多]+个?|部分|构件|部件|偏旁|以下|如下|上下|左右|内外)$")


def _parse_prose(text: str) -> list[Component]:
    found: dict[str, tuple[int, set[str], str]] = {}

    def note(name: str | None, pos: int, functions: frozenset[str] | set[str], interp: str = "") -> None:
        if not name or _NOT_A_NAME.match(name):
            return
        old_pos, old_fs, old_interp = found.get(name, (pos, set(), ""))
        found[name] = (min(old_pos, pos), old_fs | set(functions), old_interp or interp)

    heads = list(_ROLE.finditer(text))
    for k, m in enumerate(heads):
        functions = extract_functions(m.group("f"))
        if m.group("f2"):
            functions |= extract_functions(m.group("f2"))
        end = heads[k + 1].start() if k + 1 < len(heads) else len(text)
        interp = re.split(r"[;；。\n]", text[m.end():end], maxsplit=1)[0].strip(" ,，:：")
        note(clean_name(m.group("name")), m.start(), functions, interp)
    for m in _CONG_SHENG.finditer(text):  # Shuowen's glued "从水工声"
        note(clean_name(m.group(1)), m.start(1), {"表意"})
        note(clean_name(m.group(2)), m.start(2), {"表音"})
    for regex, functions in _PROSE_PATTERNS:
        for m in regex.finditer(text):
            note(clean_name(m.group(1)), m.start(), functions)
    for regex in (_MADE_OF, _LISTED, _MADE_OF_EN):
        for m in regex.finditer(text):
            for piece in re.split(r"[和与及、,，+]|\band\b", m.group(1)):
                for run in _NAME_RUN.findall(piece):
                    name = clean_name(run)
                    if name and len(name) <= 4 and name not in found:
                        note(name, m.start(1) + m.group(1).find(run), set())
    ordered = sorted(found.items(), key=lambda kv: kv[1][0])
    return [Component(name, frozenset(fs), normalize_text(interp, keep_lines=False))
            for name, (_, fs, interp) in ordered]


# A bare answer: only component names, each with an optional attribute in brackets
# ("辶", "⻌", "构件：⻌（表意）", "氵（表意），工（表音）", "水、工").
_BARE_LEAD = re.compile(r"^(?:构件|部件|组件|偏旁|components?|parts?)\s*(?:有|是|为|包括|are|is)?\s*[:：=]?\s*", re.I)
_BARE_PIECE = re.compile(rf"^[「\"'《【\[]?\s*(?P<name>{COMPONENT_CHARS}{{1,4}}(?:\([左右]\))?)\s*[」\"'》】\]]?"
                         r"\s*(?:\((?P<desc>[^()]{1,40})\))?$")
_BARE_SPLIT = re.compile(r"\s*(?:[、,;/\n]|和|与|及|\band\b)\s*", re.I)


def _names_a_label(name: str) -> bool:
    """A structure, script or formation label ("左右结构", "小篆"), which is no component name."""
    return bool(extract_structure(name) or extract_script(name) or extract_formation(name))


def _parse_bare(text: str) -> list[Component]:
    """Components of an answer that is nothing but names (see ``_BARE_PIECE``); [] when any
    piece is something else, so prose never reads as a list of names."""
    body = _BARE_LEAD.sub("", text.strip()).strip(" .。")
    pieces = [p for p in _BARE_SPLIT.split(body) if p]
    if not pieces or len(pieces) > 12:
        return []
    out = []
    for piece in pieces:
        m = _BARE_PIECE.match(piece)
        name = clean_name(m.group("name")) if m else None
        # a name longer than two characters must be a known radical name (三点水), so short
        # sentences ("我不知道", "无法判断") never pass for component names
        if (name is None or _NOT_A_PAIR_NAME.match(name) or (len(name) > 2 and component_key(name) == name)
                or (len(name) > 1 and _names_a_label(name))):
            return []
        out.append(_describe(name, m.group("desc") or ""))
    return out


# A header before the list ("构件如下：", "构件分析：", "Components:") names no component.
_HEADER_END = r"(?:如下|以下|分析|拆分|列表|结果|as follows|analysis|breakdown)"
# Matched at a position (``pattern.match(text, pos)``), so none starts with ^ (which only
# matches at the start of the string) and the line end is a lookahead, not $.
_HEADER_LINE = re.compile(rf"[\s#*>]*[^\n:]{{0,16}}?(?:{_HEADER_END}|构件|部件|组件|components?|parts)[ \t*]*:[ \t*]*(?=\n|$)", re.I)
_HEADER_CLAUSE = re.compile(rf"[\s#*>]*[^\n:]{{0,16}}?{_HEADER_END}[\s*]*:[\s*]*(?=\S)", re.I)
_ECHOED_QUESTION = re.compile(r"[^\n?:]*\?[\s*]*")
_NON_SPACE = re.compile(r"\S")


def _focus(norm: str) -> str:
    """The component list of a normalised answer: after the last answer marker (答：), without
    leading echoed question sentences and a leading header ("构件如下："); "" when the answer
    is only an echoed question.

    The leading parts are skipped by moving one position forward, never by re-splitting
    the rest of the text, so an answer of many echoed questions costs linear time (issue 15).
    """
    text = answer_part(norm)
    if only_question(text):
        return ""
    pos = 0
    while True:
        line = _HEADER_LINE.match(text, pos)
        if line and not extract_functions(line.group()) and extract_evolution(line.group()) is None:
            rest = _NON_SPACE.search(text, line.end())
            pos = rest.start() if rest else len(text)
            continue
        q = _ECHOED_QUESTION.match(text, pos)
        if q and _NON_SPACE.search(text, q.end()):
            pos = q.end()
            continue
        h = _HEADER_CLAUSE.match(text, pos)
        if h and not extract_functions(h.group()) and extract_evolution(h.group()) is None:
            pos = h.end()
            continue
        return text[pos:]


def parse_components(text: str | None) -> list[Component] | None:
    """Parse a component answer into a list of ``Component`` (first mention of a name wins).

    Returns None when the text holds no recognisable component (an unparseable answer).
    """
    if not text or not str(text).strip():
        return None
    found = _parse_components(str(text))  # memoised: verify and resubmissions score the same texts again
    return list(found) if found else None


@functools.lru_cache(maxsize=16384)
def _parse_components(raw: str) -> tuple[Component, ...] | None:
    comps = _parse_json(raw)
    if not comps:
        norm = _focus(normalize_text(raw))
        if not norm:
            return None
        comps = (_parse_json(norm) or _parse_official(norm) or _parse_table(norm) or _parse_list(norm)
                 or _parse_pairs(norm) or _parse_prose(norm) or _parse_bare(norm))
    return tuple(dedupe(comps))


def dedupe(components: list[Component]) -> list[Component]:
    """Drop repeated names (same name after whitespace removal), keeping the first."""
    seen: set[str] = set()
    out = []
    for comp in components:
        if comp.name not in seen:
            seen.add(comp.name)
            out.append(comp)
    return out


