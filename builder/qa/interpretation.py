"""COMI: a component's interpretation composed from grounded fields (rule ``qa.comi.by_function``).

The explanation of a component is composed from its function, the formation, what the
sources say the part is or does (:func:`part_note`, :mod:`builder.qa.part_glosses`: the
head's own Shuowen / Duan text on the part, else the component's own Shuowen gloss, else,
in JieZi-Dataset, Unihan's definition), the readings (:func:`_reading`: Unihan's pinyin,
the Shuowen fanqie), the radical a reduced shape stands for (:data:`RADICAL_SHAPES`) and
the Shuowen depiction span. A semantic part no source speaks of gets no interpretation
(never 「X为形符，表示字义与X有关」). Read by :mod:`builder.qa.compose`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from builder import aliases
from builder.qa import part_glosses
from builder.qa.component_names import written_as
from builder.qa.evidence import EvidenceIndex
from builder.qa.facts import SEAL_FORM_SCRIPTS, CompFact, Facts
from builder.qa.part_glosses import PartNote
from builder.qa.soundgloss import toneless
from builder.schema import GlyphRecord, Provenance


def _reading(index: EvidenceIndex, char: str, sources: frozenset[str]) -> tuple[str | None, list[str], list[Provenance]]:
    """(pinyin, every fanqie, provenance) of ``char`` from its records, restricted to
    sources; the pinyin only from a reading Unihan (kMandarin) gives, the fanqie from
    Shuowen or Unihan (kFanqie: 畐 has 房六 and 芳逼)."""
    pinyin = None
    fanqie: list[str] = []
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
            if r.fanqie and r.fanqie not in fanqie and {p.source for p in ok} & {"shuowen", "unihan"}:
                fanqie.append(r.fanqie)
                provs += ok
        if pinyin and fanqie:
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


@dataclass(frozen=True)
class PartSources:
    """Which texts a profile may quote about a component (:mod:`builder.qa.part_glosses`):
    ``host_text`` the head's own Shuowen text (the bench; JieZi-Dataset for a character not
    in the bench), ``duan`` Duan's notes (the bench), ``own_gloss`` whether a component
    character's own Shuowen gloss may be quoted (JieZi-Dataset: not for a bench
    character). Never a Unihan definition (:mod:`builder.qa.part_glosses`)."""

    host_text: bool = True
    duan: bool = True
    own_gloss: Callable[[str], bool] = lambda name: True


BENCH_PARTS = PartSources()


def part_note(name: str, canon: str, others: list[str], record: GlyphRecord, index: EvidenceIndex,
              src: PartSources, provs: list[Provenance] = ()) -> PartNote | None:
    """What the sources say component ``name`` (``canon``: the character it stands for) is
    or does in ``record``'s character, in the order of :mod:`builder.qa.part_glosses`; a
    formula that says how the parts combine (縣 「从系持𥄉」) is added to a note that is not
    from the head's text, or stands alone (系, whose own gloss 「縣也」 is circular)."""
    host = {record.character, record.traditional, record.form} - {None}
    entries = part_glosses.host_entries(record, index, provs) if src.host_text else []
    note = next((n for eid in entries if (n := part_glosses.host_clause(
        index, eid, name, others, host, duan=src.duan)) is not None), None)
    if note is None and src.duan:
        note = next((n for eid in entries if (n := part_glosses.duan_part_note(index, eid, name, host)) is not None),
                    None)
    if note is None and src.own_gloss(canon):
        note = part_glosses.own_gloss(index, canon, host)
    if note is None or note.kind != "host":
        rel = next((n for eid in entries if (n := part_glosses.relation_clause(
            index, eid, name, [name, *others], host)) is not None), None)
        if rel is not None:
            note = rel if note is None else part_glosses.PartNote(
                f"{note.zh}；{rel.zh}", f"{note.en}; {rel.en}", note.provenance + rel.provenance, note.kind)
    return note


def _compose_interpretation(comp: CompFact, facts: Facts, others: list[str], index: EvidenceIndex,
                            sources: frozenset[str], record: GlyphRecord | None = None, *,
                            host: GlyphRecord | None = None, parts: PartSources = BENCH_PARTS
                            ) -> tuple[str, str, list[Provenance]] | None:
    """Rule ``qa.comi.by_function``: a component's function, with what the sources say the
    part is or does (:func:`part_note`: the head's Shuowen / Duan text on the part, the
    component's own gloss) and, for a phonetic, the readings. A semantic part no source
    speaks of gets None (no 「X为形符，表示字义与X有关」 filler). ``record``: the record when
    the glyph is its modern form (the IDS says how a part is written); ``host``: the
    record whose texts speak of the parts (default ``record``)."""
    # the radical alias only (氵 -> 水); OpenCC would turn 亏 into 虧, another character
    name = comp.name
    host = host or record
    canon = _radical_meaning(name, record) or aliases.canonical(name) or name
    alias = f"（即「{canon}」）" if canon != name and len(canon) == 1 else ""
    shown = written_as(record, name) if record is not None else None
    if shown is not None:  # the glyph writes 水 as 氵, 老 as 耂
        alias = f"（字中写作「{shown[0]}」）"
    funcs = set(comp.functions)
    # a makemeahanzi etymology hint is a mnemonic, never evidence for what a part means
    provs = [p for p in comp.provenance if not (p.source == "makemeahanzi" and '"hint"' in p.span)]
    if _radical_meaning(name, record):
        provs += list(record.radical_stroke.provenance)
    form = facts.formation[0].label if facts.formation else None
    seal = facts.script in SEAL_FORM_SCRIPTS
    note = None
    if "表意" in funcs and host is not None and not (form in ("象形", "指事") and not others):
        note = part_note(name, canon, others, host, index, parts, comp.provenance)
    if {"表意", "表音"} <= funcs:
        # 亦声 on Duan's word alone is said to be his (驺 「此舉形聲包會意」; review of out-r8,
        # seed 20261225 item 10: stated as fact)
        duan = next((p.span for p in comp.provenance if p.rule == "qa.comf.duan_yisheng"), None)
        zh = f"「{name}」{alias}既表意又表音（" + (f"亦声，段注：「{duan}」）" if duan else "亦声）")
        en = f"{name} carries both meaning and sound (a phonetic that is also semantic)"
        zh, en, provs = _with_note(zh, en, provs, note)
        zh, en, provs = _with_reading(zh, en, provs, name, facts.character, index, sources, seal=seal)
    elif "表音" in funcs:
        zh, en, provs = _with_reading(f"「{name}」为声符，提示字音", f"{name} is the phonetic component, indicating the sound",
                                      provs, name, facts.character, index, sources, seal=seal)
    elif "表意" in funcs:
        if form in ("象形", "指事") and not others:
            # what the single graph draws, in Shuowen's words (「象人之形」); a bare 「象形」
            # says nothing of it, and a generic sentence would be filler (issue 20 review)
            span = _depiction_span(facts.formation[1] if facts.formation else [], index)
            if span is None:
                return None
            kind_zh = "独体象形" if form == "象形" else "独体指事"
            zh = f"「{name}」为{kind_zh}，《说文》：「{span}」"
            en = f"{name} is a single {'pictograph' if form == '象形' else 'indicative graph'}; Shuowen: {span}"
        elif note is None:
            return None  # no source says what the part is: no filler (issue 20/21 reviews)
        else:
            role = ("为形符", "is the semantic component") if form == "形声" else ("表意", "carries meaning")
            zh, en, provs = _with_note(f"「{name}」{alias}{role[0]}", f"{name} {role[1]}", provs, note)
        if facts.formation:
            provs += facts.formation[1]
    elif "符号" in funcs:
        zh = f"「{name}」为记号构件，不表音义"
        en = f"{name} is a symbol component, carrying neither sound nor meaning"
    else:
        return None
    return zh, en, [Provenance(source=p.source, entry_id=p.entry_id, span=p.span,
                               rule=p.rule if p.rule.startswith("qa.comi.") else "qa.comi.by_function")
                    for p in provs]


def _with_note(zh: str, en: str, provs: list[Provenance], note: PartNote | None):
    """Append what a source says of the part (``；`` + the attributed sentence)."""
    if note is None:
        return zh, en, provs
    return f"{zh}；{note.zh}", f"{en}; {note.en}", provs + list(note.provenance)


def _with_reading(zh: str, en: str, provs: list[Provenance], name: str, char: str, index: EvidenceIndex,
                  sources: frozenset[str], *, seal: bool = False):
    """Append the readings of the phonetic and the character where they show the sound link:
    the same pinyin up to tone (Unihan kMandarin), else a fanqie the two share (愊 and 畐 both
    芳逼). Two different first readings are not printed: the phonetic often has the host's
    reading as a second one (曾 zēng as in 缯, 邪 yé as in 䓉) that the first hides (data
    review 12-04). A seal image (the Shuowen head) compares the fanqie, not the modern pinyin,
    when Shuowen spells both (艿 如乘切, 乃 奴亥切: modern nǎi / nǎi hides the difference; data
    review 12-04, round 4)."""
    py_c, fq_c, p1 = _reading(index, name, sources)
    py, fq, p2 = _reading(index, char, sources)
    by_fanqie = seal and all(any(p.source == "shuowen" for p in ps) for ps in (p1, p2))
    if py_c and py and toneless(py_c) == toneless(py) and not by_fanqie:
        return (zh + f"（「{name}」读{py_c}，「{char}」读{py}）", en + f" ({name} is read {py_c}, {char} is read {py})",
                provs + p1 + p2)
    shared = next((x for x in fq if x in fq_c), None)
    if shared:
        keep = [p for p in p1 + p2 if p.span == shared or shared in p.span]
        return (zh + f"（「{name}」有{shared}切一读，与「{char}」同）", en + f" ({name} has the reading {shared} 切, as {char} has)",
                provs + (keep or p1 + p2))
    if fq_c and fq:
        # every fanqie of both (單 都寒切、市連切; 嘽 他干切): the sound link shown in full, not
        # hidden behind one modern reading each, nor left as a bare 「提示字音」 (data review 12-04)
        a, b = "、".join(f"{x}切" for x in fq_c), "、".join(f"{x}切" for x in fq)
        return zh + f"（「{name}」{a}；「{char}」{b}）", en + f" ({name}: {a}; {char}: {b})", provs + p1 + p2
    return zh, en, provs


def _depiction_span(provs: list[Provenance], index: EvidenceIndex) -> str | None:
    """What a single graph draws, in Shuowen's words: the span that says it (「象人之形」);
    None when Shuowen says only 「象形」 / 「指事」 (its gloss is a definition, not a
    description of the graph: 手 「拳也」 would misdescribe an open hand)."""
    for p in provs:
        # not a quotation of another scholar (爲 「王育曰：“爪，象形也」 is 王育's word on 爪)
        if (p.source == "shuowen" and "象" in p.span and p.span.strip("。，；也") not in ("象形", "指事")
                and not re.search(r"曰|“", p.span)):
            return p.span
    return None
