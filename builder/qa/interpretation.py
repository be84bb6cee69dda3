"""COMI: a component's interpretation composed from grounded fields (rule ``qa.comi.by_function``).

The explanation of a component is composed from its function, the formation, the
readings (:func:`_reading`: Unihan's pinyin, the Shuowen fanqie), the radical a reduced
shape stands for (:data:`RADICAL_SHAPES`) and the Shuowen depiction span; Duan's
quotation of a gloss confirms it (:func:`_duan_confirms`) unless his note emends it
(:data:`DUAN_EMENDS`). No fact beyond those fields. Read by :mod:`builder.qa.compose`.
"""

from __future__ import annotations

import re

from builder import aliases
from builder.qa.component_names import written_as
from builder.qa.evidence import EvidenceIndex
from builder.qa.facts import CompFact, Facts
from builder.schema import GlyphRecord, Provenance


def _duan_confirms(record: GlyphRecord, gloss: str, index: EvidenceIndex) -> Provenance | None:
    """Duan's edition repeats the gloss's first clause: a second textual witness.

    Reads Duan's notes kept in the records' ``raw`` (``duan:<id>``, the text Duan quotes).
    Returns the provenance of the confirming quotation, or None.
    """
    head = re.split(r"[。，；.]", gloss.strip())[0].rstrip("也")
    if not head:
        return None
    for key in record.raw:
        src, _, entry_id = key.partition(":")
        if src not in ("shuowen", "duan"):
            continue
        for line in index.shuowen_entry(entry_id).get("duan", []):
            quote, _, note = line.partition("\t")
            if head in quote:
                if DUAN_EMENDS.search(note):
                    return None  # he quotes the gloss to correct it (羌 「其實非也」, 鰋 鮀 for 鮎)
                return Provenance(source="duan", entry_id=entry_id, span=quote, rule="qa.orim.duan_confirms")
    return None


# Words with which 段玉裁's note on a quoted gloss rejects or emends it: no confirmation then.
DUAN_EMENDS = re.compile(r"非也|當作|當爲|當云|之誤|之譌|譌|訛|淺人|妄[改增刪]|衍文|誤[也矣]")


def _reading(index: EvidenceIndex, char: str, sources: frozenset[str]) -> tuple[str | None, str | None, list[Provenance]]:
    """(pinyin, fanqie, provenance) of ``char`` from its records, restricted to sources;
    the pinyin only from a reading Unihan (kMandarin) gives."""
    pinyin = fanqie = None
    provs: list[Provenance] = []
    for rec in index.records(char):
        for r in rec.readings:
            ok = [p for p in r.provenance if p.source in sources]
            if not ok:
                continue
            # the modern reading is Unihan's kMandarin, never the Shuowen edition's pinyin
            # field (谋's 某 is mǒu, not the méi given there; 帙 is zhì, not zhí)
            if r.pinyin and not pinyin and "unihan" in {p.source for p in ok}:
                pinyin = r.pinyin
                provs += ok
            if r.fanqie and not fanqie and "shuowen" in {p.source for p in ok}:
                fanqie = r.fanqie
                provs += ok
        if pinyin and (fanqie or "shuowen" not in sources):
            break
    return pinyin, fanqie, provs


# Shapes that are also a radical's reduced form: 王 at the left of 瓔 is 玉 (radical 96),
# 月 in 腿 is 肉 (radical 130). Unihan kRSUnicode names the radical the character is filed
# under, which tells the two apart (王 in 皇 is 王).
RADICAL_SHAPES: dict[str, tuple[str, str]] = {"王": ("96", "玉"), "月": ("130", "肉")}


def _radical_meaning(name: str, record: GlyphRecord | None) -> str | None:
    """The character a component written ``name`` stands for when it is the record's
    radical in a reduced shape (:data:`RADICAL_SHAPES`), else None."""
    if name not in RADICAL_SHAPES or record is None or record.radical_stroke is None:
        return None
    number, meaning = RADICAL_SHAPES[name]
    rs = str(record.radical_stroke.value).split()[0]
    return meaning if rs.split(".")[0].rstrip("'") == number else None


def _compose_interpretation(comp: CompFact, facts: Facts, others: list[str], index: EvidenceIndex,
                            sources: frozenset[str], record: GlyphRecord | None = None
                            ) -> tuple[str, str, list[Provenance]] | None:
    """Rule ``qa.comi.by_function``: a component explanation composed from its function,
    the formation and the readings; no fact beyond those fields."""
    # the radical alias only (氵 -> 水); OpenCC would turn 亏 into 虧, another character
    name = comp.name
    canon = _radical_meaning(name, record) or aliases.canonical(name) or name
    alias = f"（即「{canon}」）" if canon != name and len(canon) == 1 else ""
    shown = written_as(record, name) if record is not None else None
    if shown is not None:  # the glyph writes 水 as 氵, 老 as 耂
        alias = f"（字中写作「{shown[0]}」）"
    funcs = set(comp.functions)
    provs = list(comp.provenance)
    if _radical_meaning(name, record):
        provs += list(record.radical_stroke.provenance)
    form = facts.formation[0].label if facts.formation else None
    if {"表意", "表音"} <= funcs:
        zh = f"「{name}」{alias}既表意又表音（亦声），兼示字义与读音"
        en = f"{name} carries both meaning and sound (a phonetic that is also semantic)"
    elif "表音" in funcs:
        py_c, fq_c, p1 = _reading(index, name, sources)
        py, fq, p2 = _reading(index, facts.character, sources)
        zh = f"「{name}」为声符，提示字音"
        en = f"{name} is the phonetic component, indicating the sound"
        if py_c and py:
            zh += f"（「{name}」读{py_c}，「{facts.character}」读{py}）"
            en += f" ({name} is read {py_c}, {facts.character} is read {py})"
            provs += p1 + p2
        elif fq_c and fq:
            zh += f"（「{name}」{fq_c}，「{facts.character}」{fq}）"
            en += f" ({name}: {fq_c}; {facts.character}: {fq})"
            provs += p1 + p2
    elif "表意" in funcs:
        if form == "形声":
            zh = f"「{name}」{alias}为形符，表示字义与「{canon}」有关"
            en = f"{name} is the semantic component: the meaning relates to {canon}"
        elif form == "会意" and others:
            zh = f"「{name}」{alias}表意，与{'、'.join(f'「{o}」' for o in others)}会合成义"
            en = f"{name} carries meaning and combines with {', '.join(others)} to form the sense"
        elif form in ("象形", "指事") and not others:
            # what the single graph draws, in Shuowen's words (「象人之形」); a bare 「象形」
            # says nothing of it, and a generic sentence would be filler (issue 20 review)
            span = _depiction_span(facts.formation[1] if facts.formation else [], index)
            if span is None:
                return None
            kind_zh = "独体象形" if form == "象形" else "独体指事"
            zh = f"「{name}」为{kind_zh}，《说文》：「{span}」"
            en = f"{name} is a single {'pictograph' if form == '象形' else 'indicative graph'}; Shuowen: {span}"
        elif form == "指事":
            zh = f"「{name}」为指事字的构件，以形表意"
            en = f"{name} is part of an indicative character, showing the sense by its shape"
        else:
            zh = f"「{name}」{alias}表意"
            en = f"{name} carries meaning"
        if facts.formation:
            provs += facts.formation[1]
    elif "符号" in funcs:
        zh = f"「{name}」为记号构件，不表音义"
        en = f"{name} is a symbol component, carrying neither sound nor meaning"
    else:
        return None
    return zh, en, [Provenance(source=p.source, entry_id=p.entry_id, span=p.span, rule="qa.comi.by_function")
                    for p in provs]


def _depiction_span(provs: list[Provenance], index: EvidenceIndex) -> str | None:
    """What a single graph draws, in Shuowen's words: the span that says it (「象人之形」);
    None when Shuowen says only 「象形」 / 「指事」 (its gloss is a definition, not a
    description of the graph: 手 「拳也」 would misdescribe an open hand)."""
    for p in provs:
        if p.source == "shuowen" and "象" in p.span and p.span.strip("。，；也") not in ("象形", "指事"):
            return p.span
    return None


def _self_gloss(value: str, record: GlyphRecord) -> bool:
    """A gloss that is only the character itself (or its other form): no meaning stated."""
    core = re.sub(r"[也。，、；\s]", "", value)
    forms = {record.character, record.traditional or "", record.simplified or "", record.form or ""} - {""}
    return core in forms or core == ""
