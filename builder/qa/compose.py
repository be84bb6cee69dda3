"""QA pairs from glyph records (the paper's stage 3), for JieZi-Dataset and JieZi-Bench.

A record's fields are first reduced to the *facts* one profile may use
(:func:`facts_for`):

- ``dataset`` (JieZi-Dataset): answers from makemeahanzi, cjkvi-ids and Unihan
  (ACCE.md section 4). Where these have no Chinese text, the Shuowen gloss (ORIM) and the
  Shuowen-based evolution rules (COME / EVOI) are used for characters that are *not* in
  JieZi-Bench; for bench characters the dataset falls back to the English gloss and to
  the evolution rules that need no Shuowen evidence, so the bench's reference texts never
  appear in training.
- ``bench`` (JieZi-Bench): references from Shuowen (with Duan's notes) and Unihan, and a
  fact is kept only where independent sources agree (the records' ``agree`` /
  ``disagree``; the Shuowen gloss confirmed by Duan's edition).

Then :func:`dataset_qa` draws 5-10 QA pairs per glyph image (at least one per level when
the record allows, deterministic for a seed) and :func:`bench_qa` makes the bench's rows.
Factual answers are filled from fields; reasoning answers (COMI, EVOI, the four-level
exegesis) are composed from grounded fields by rule. Every QA pair keeps the provenance of
the fields it used and, for categorical and component answers, a structured form.
A missing field yields no QA pair for that subtask; the reason is counted, never a blank.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable

from builder import aliases
from builder.ids import PLACEHOLDERS, IDSError
from builder.ids import first_level as ids_first_level
from builder.qa import soundgloss
from builder.qa.component_names import abbreviated_parts, ids_operands, same_component, written_as
from builder.qa.evidence import EvidenceIndex, MODERN_SOURCES, REAL_IMAGE_STYLES
from builder.qa.evolution import derive
from builder.qa.narrative import Evolution
from builder.schema import EARLY_FORM_SCRIPTS, Component, Formation, GlyphImage, GlyphRecord, Provenance
from hub import templates as T
from metrics.acce import answers, labels

DATASET_SOURCES = frozenset({"makemeahanzi", "cjkvi-ids", "unihan"})
BENCH_SOURCES = frozenset({"shuowen", "duan", "unihan"})
IMAGE_SOURCES = frozenset({"oracle-mnist", "lxgw-seal", "font", "user", "jiezi-official"})
# An expert's correction from an audit sheet (builder/qa/stage.py ``_audit_prov``): source
# "user", this rule, entry id "<sheet>:<row>". Both profiles use it, strict or not: the
# reviewer's word replaces the sources' (it is what the audit is for).
AUDIT_RULE = "audit.correction"


def _audit_provs(provs) -> list[Provenance]:
    """The audit-correction provenance among ``provs`` (empty when the value is the sources')."""
    return [p for p in provs if p.source == "user" and p.rule == AUDIT_RULE]

_LATIN = re.compile(r"[A-Za-z]")


@dataclass(frozen=True)
class Profile:
    """Which sources a QA answer may draw on.

    ``name``: ``"dataset"`` or ``"bench"``; ``sources``: sources for the answers;
    ``gap_sources``: extra sources used only for ORIM / COME / EVOI of characters the
    caller does not reserve (dataset: Shuowen for non-bench characters);
    ``strict``: require cross-source agreement (the bench).
    """

    name: str
    sources: frozenset[str]
    gap_sources: frozenset[str] = frozenset()
    strict: bool = False


DATASET = Profile("dataset", DATASET_SOURCES, gap_sources=frozenset({"shuowen"}))
BENCH = Profile("bench", BENCH_SOURCES, strict=True)


@dataclass
class CompFact:
    """One component as a profile may state it."""

    name: str
    functions: list[str]
    provenance: list[Provenance]
    interpretation: str | None = None
    interpretation_en: str | None = None
    interpretation_provenance: list[Provenance] = field(default_factory=list)
    evolution_type: str | None = None
    evolution_provenance: list[Provenance] = field(default_factory=list)
    abbreviates: str | None = None  # the full component a 省 part stands for (萬 for 蠆)

    def struct(self, *, functions=True, interpretation=True, evolution=True) -> dict:
        """The component's ``answer_struct`` entry (ARCHITECTURE.md). A 省 part adds
        ``abbreviates`` (the full component) and ``names`` (the accepted names: the part
        drawn, then the full one), which both scorings match."""
        d: dict = {"name": self.name}
        if self.abbreviates:
            d["abbreviates"] = self.abbreviates
            d["names"] = [self.name, self.abbreviates]
        if functions:
            d["functions"] = list(self.functions)
        if interpretation:
            d["interpretation"] = self.interpretation
        if evolution:
            d["evolution_type"] = self.evolution_type
        return d


@dataclass
class Facts:
    """The facts of one record usable under one profile, with provenance.

    ``missing`` maps a template kind to the reason it cannot be asked (counted by the
    stage report).
    """

    record_id: str
    character: str
    script: str
    profile: str
    structure: tuple[str, list[Provenance]] | None = None
    formation: tuple[Formation, list[Provenance]] | None = None
    components: list[CompFact] = field(default_factory=list)
    orim: tuple[str, str, list[Provenance], str] | None = None  # zh, en, provenance, kind
    evolution: Evolution | None = None
    evolution_sources: frozenset[str] = frozenset()
    missing: dict[str, str] = field(default_factory=dict)
    richness: float = 0.0
    ids_regions: frozenset[str] | None = None  # see :func:`_ids_regions`
    # kind -> the other answers the sources allow (answer_struct "accepted"; issue 21)
    accepted: dict[str, list] = field(default_factory=dict)
    variant_forms: list[str] = field(default_factory=list)  # Shuowen 重文 forms a glyph may be drawn in

    def available(self) -> list[str]:
        """Template kinds this record can answer (image kinds always)."""
        return [k for k in T.KINDS if k not in self.missing]


@dataclass
class QA:
    """One question-answer pair.

    ``kind`` is the template kind (:data:`hub.templates.KINDS`), ``subtask`` its
    ACCE code, ``metrics`` the metric keys a bench row is scored on, ``provenance`` a list
    of ``{"field", "source", "entry_id", "span", "rule"}`` dicts, ``fields`` the record
    fields used (the audit drops QA pairs by field).
    """

    kind: str
    subtask: str
    level: str
    question: str
    answer: str
    question_en: str
    answer_en: str
    answer_struct: dict
    metrics: list[str]
    provenance: list[dict]
    fields: list[str]
    template: str

    def to_dict(self) -> dict:
        return {
            "kind": self.kind, "subtask": self.subtask, "level": self.level,
            "question": self.question, "answer": self.answer,
            "question_en": self.question_en, "answer_en": self.answer_en,
            "answer_struct": self.answer_struct, "metrics": self.metrics,
            "provenance": self.provenance, "fields": self.fields, "template": self.template,
        }


def _prov(field_name: str, provs: Iterable[Provenance]) -> list[dict]:
    out, seen = [], set()
    for p in provs:
        key = (field_name, p.source, p.entry_id, p.span, p.rule)
        if key not in seen:
            seen.add(key)
            out.append({"field": field_name, **p.model_dump()})
    return out


def _supporters(g) -> set[str]:
    return set(g.agree) | {p.source for p in g.provenance}


# --- facts ------------------------------------------------------------------------------

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


def _component_confirmed(c: Component) -> bool:
    """Bench rule for one component: Shuowen names it, a modern analysis (cjkvi-ids or
    makemeahanzi) agrees on it, it has functions, and the agreeing sources outnumber those
    giving other functions (a source that merely does not list it is no contradiction)."""
    sources = {p.source for p in c.provenance} | set(c.agree)
    if "shuowen" not in sources or not (sources & MODERN_SOURCES) or not c.functions:
        return False
    return _majority(len(sources), {k: v for k, v in c.disagree.items() if v != "not listed"})


def _majority(n_agree: int, disagree: dict) -> bool:
    """Independent sources confirm a value: at least two agree and they outnumber the
    sources that say something else (makemeahanzi splitting a pictograph into strokes
    does not veto Shuowen and cjkvi-ids agreeing that it is 独体)."""
    return n_agree >= 2 and n_agree > len(disagree)


def _layout_matches_shuowen(record: GlyphRecord) -> bool:
    """A single-source layout is confirmed when the Shuowen analysis agrees with what it
    arranges: 独体 with one Shuowen component, or first-level IDS operands that are exactly
    the Shuowen components (radical aliases applied)."""
    sw = [c for c in record.components if "shuowen" in {p.source for p in c.provenance} | set(c.agree)]
    if record.structure is None or (not sw and record.components):
        return False
    if record.structure is not None and record.structure.value == "独体" and not record.components:
        form = record.formation
        return bool(form and form.value.label in ("象形", "指事")
                    and any(p.source == "shuowen" for p in form.provenance))
    if record.structure.value == "独体":
        return len(sw) == 1 and len(record.components) == 1
    ops = [t for t, _ in ids_operands(record)]
    if len(ops) != len(sw) or len(sw) != len(record.components):
        return False
    return all(any(same_component(o, c.name) for c in sw) for o in ops)


def _has_audit(record: GlyphRecord) -> bool:
    """Whether an audit correction set one of ``record``'s fields."""
    fields = [record.structure, record.formation, record.original_meaning, record.evolution]
    return (any(g is not None and _audit_provs(g.provenance) for g in fields)
            or any(_audit_provs(c.provenance) for c in record.components))


# Which written form an image's L2 answers (structure, components, functions, formation)
# describe. ``modern``: the character's IDS; ``seal``: Shuowen's analysis of the small-seal
# form; ``early``: an oracle-bone, bronze or Warring States form, which none of the build's
# sources analyses (Shuowen describes the seal, its 古文 / 籒文 forms come without images,
# and the IDS describe the modern character): such an image gets no L2 question at all.
SEAL_FORM_SCRIPTS = frozenset({"篆书"})
L2_KINDS = ("STRC", "COMR", "COMF", "COMI", "COME", "COMP_FULL", "COMP_ASPECT", "FORC")
EARLY_FORM_REASON = "early-form:no-source-analyses-it"
SEAL_FORM_REASON = "seal-form:no-shuowen-analysis"


def glyph_form(script: str) -> str:
    """``"early"``, ``"seal"`` or ``"modern"``: the form the L2 answers of a ``script`` image
    describe (see :data:`EARLY_FORM_SCRIPTS`; 隶书, 楷书, 草书 and 简体 follow the IDS)."""
    if script in EARLY_FORM_SCRIPTS:
        return "early"
    return "seal" if script in SEAL_FORM_SCRIPTS else "modern"


@dataclass
class _FactsCtx:
    """What the per-subtask fact functions share for one (record, profile)."""

    record: GlyphRecord
    profile: Profile
    index: EvidenceIndex
    gap: frozenset[str]
    form: str

    @property
    def allowed(self) -> frozenset[str]:
        return self.profile.sources

    @property
    def strict(self) -> bool:
        return self.profile.strict

    def may_use_shuowen(self) -> bool:
        return "shuowen" in self.allowed | self.gap


def _strc_facts(c: _FactsCtx, f: Facts) -> None:
    """STRC: the IDS sources give the layout; the bench needs a majority of at least two
    (two IDS sources, or one and a matching Shuowen analysis): no bench source describes
    layout (documented in the card). A seal image: the IDS layout only where Shuowen's seal
    components are exactly the IDS operands (or a pictograph Shuowen gives no parts)."""
    record = c.record
    if record.structure is not None and _audit_provs(record.structure.provenance):
        f.structure = (record.structure.value, _audit_provs(record.structure.provenance))
        return
    if c.form == "early":
        f.missing["STRC"] = EARLY_FORM_REASON
        return
    s = record.structure
    if s is None:
        f.missing["STRC"] = "no-structure"
        return
    if c.form == "seal" and not (c.may_use_shuowen() and _layout_matches_shuowen(record)):
        f.missing["STRC"] = SEAL_FORM_REASON
        return
    sup = _supporters(s) & (MODERN_SOURCES | c.allowed)
    if not c.strict:
        provs = [p for p in s.provenance if p.source in c.allowed | MODERN_SOURCES]
        if provs:
            f.structure = (s.value, provs)
        else:
            f.missing["STRC"] = "no-structure"
    elif _majority(len(sup) + _layout_matches_shuowen(record), s.disagree):
        f.structure = (s.value, list(s.provenance))
    else:
        f.missing["STRC"] = "disagree:structure" if s.disagree else "single-source:structure"


# Single strokes: an IDS whose operands are these (or placeholders such as ③) splits a
# single-component character into strokes (不 ⿱一③), not into components.
STROKE_OPERANDS = frozenset("一丨丿丶乙亅乚乛𠃌㇀㇏") | frozenset(chr(c) for c in range(0x31C0, 0x31F0))


def _stroke_split(record: GlyphRecord) -> bool:
    """Whether the record's IDS is a stroke-level split (an operand is a placeholder or a
    CJK stroke, or every operand is a single stroke) of a character Shuowen analyses as
    象形 / 指事: such a character is 独体 (不), whatever layout the split draws."""
    form = record.formation
    if record.ids is None or form is None or form.value.label not in ("象形", "指事"):
        return False
    if not any(p.source == "shuowen" for p in form.provenance):
        return False
    try:
        ops = [o.text for o in ids_first_level(record.ids.value)]
    except IDSError:
        return False
    return bool(ops) and (any(len(o) == 1 and (o in PLACEHOLDERS or 0x31C0 <= ord(o) < 0x31F0) for o in ops)
                          or all(o in STROKE_OPERANDS for o in ops))


def _structure_accepted(c: _FactsCtx, f: Facts) -> None:
    """STRC of a stroke-level split (:func:`_stroke_split`): the reference is 独体 and the
    split's layout is accepted too (``Facts.accepted["STRC"]``)."""
    if f.structure is None or f.structure[0] == "独体" or not _stroke_split(c.record):
        return
    value, provs = f.structure
    form_provs = [p for p in c.record.formation.provenance if p.source == "shuowen"]
    f.structure = ("独体", [Provenance(source=p.source, entry_id=p.entry_id, span=p.span, rule="qa.strc.stroke_split")
                          for p in form_provs + provs])
    f.accepted["STRC"] = [value]


def _yisheng_from_duan_only(provs: list[Provenance]) -> bool:
    """Whether only Duan's note says 亦声 (販: Shuowen 「从貝反聲」, Duan 「形聲包會意」): no
    other source's span states it (X亦聲 / 亦声 / 兼)."""
    says = {p.source for p in provs if re.search(r"亦[聲声]|兼|[包苞]", p.span)}
    return says == {"duan"}


def _shuowen_class(provs: list[Provenance]) -> str | None:
    """The class Shuowen's own span gives (its rule: ``shuowen.formation.huiyi...`` 会意,
    ``...sheng...`` 形声), None when Shuowen is not among ``provs``."""
    for p in provs:
        if p.source == "shuowen" and p.rule.startswith("shuowen.formation"):
            return "会意" if "huiyi" in p.rule else "形声" if "sheng" in p.rule else None
    return None


def _formation_accepted(c: _FactsCtx, f: Facts) -> None:
    """FORC whose 亦声 rests on Duan alone: plain 形声 is accepted beside 形声+会意; a
    profile that may not use Duan (JieZi-Dataset) states plain 形声."""
    if f.formation is None or _audit_provs(f.formation[1]):
        return
    form, provs = f.formation
    if not (form.yisheng and c.record.formation and _yisheng_from_duan_only(c.record.formation.provenance)):
        return
    if "duan" in {p.source for p in provs}:
        # Shuowen's own class is the plain 形声 of 「从貝反聲」, or 会意 where it lists the
        # parts without 聲 (說 「从言、兌」, Duan 兑亦聲): both answers are Shuowen's or Duan's
        f.accepted["FORC"] = [["会意"]] if _shuowen_class(provs) == "会意" else [["形声"]]
    else:
        f.formation = (Formation(label=form.label, yisheng=False), provs)


def _variant_forms(record: GlyphRecord) -> list[str]:
    """The Shuowen 重文 forms recorded for the character (育: 或體 毓): a real glyph (scan,
    tracing) may be drawn in one of them, so CHAR accepts them too."""
    # the kind a merged variant carries may be another source's (育's 或體 毓 is Unihan's 異體
    # too): a Shuowen 重文 is one Shuowen's provenance cites, whatever kind is shown
    out = [v.form for v in record.variants
           if v.kind not in ("繁體", "簡体") and any(p.source == "shuowen" for p in v.provenance)]
    return [x for x in dict.fromkeys(out) if len(x) == 1 and x != record.character]


def _forc_facts(c: _FactsCtx, f: Facts) -> None:
    """FORC: the formation class; the bench needs Shuowen and a majority; a seal image needs
    Shuowen's class (it analyses that form); an early form gets none."""
    g = c.record.formation
    if g is not None and _audit_provs(g.provenance):
        f.formation = (g.value, _audit_provs(g.provenance))
        return
    if c.form == "early":
        f.missing["FORC"] = EARLY_FORM_REASON
        return
    if g is None:
        f.missing["FORC"] = "no-formation"
        return
    srcs = {p.source for p in g.provenance}
    if c.form == "seal" and not ("shuowen" in srcs and c.may_use_shuowen()):
        f.missing["FORC"] = SEAL_FORM_REASON
    elif not c.strict:
        usable = c.allowed | MODERN_SOURCES | (c.gap if c.form == "seal" else frozenset())
        provs = [p for p in g.provenance if p.source in usable]
        if provs:
            f.formation = (g.value, provs)
        else:
            f.missing["FORC"] = "other-source:formation"
    elif "shuowen" in srcs and _majority(len(_supporters(g)), g.disagree):
        f.formation = (g.value, list(g.provenance))
    elif "shuowen" not in srcs:
        f.missing["FORC"] = "no-shuowen:formation"
    else:
        f.missing["FORC"] = "disagree:formation" if g.disagree else "unconfirmed:formation"


def _seal_components(c: _FactsCtx) -> list[Component] | None:
    """The record's components that Shuowen's analysis of the head names (the seal form's
    parts); None when the profile may not use Shuowen."""
    if not c.may_use_shuowen():
        return None
    return [x for x in c.record.components if "shuowen" in {p.source for p in x.provenance} | set(x.agree)]


def _component_list(c: _FactsCtx, f: Facts) -> list[CompFact]:
    """The components the profile may state, in record order; sets ``f.missing["COMP"]``."""
    record = c.record
    audited = bool(record.components) and all(_audit_provs(x.provenance) for x in record.components)
    if c.form == "early" and not audited:
        f.missing["COMP"] = EARLY_FORM_REASON
        return []
    source_comps = record.components
    usable = c.allowed | MODERN_SOURCES
    if c.form == "seal" and not audited:
        source_comps = _seal_components(c)
        if source_comps is None:
            f.missing["COMP"] = SEAL_FORM_REASON
            return []
        usable = usable | c.gap
    n_ops = len(ids_operands(record))
    if (not record.components and f.structure and f.structure[0] == "独体" and f.formation
            and f.formation[0].label in ("象形", "指事")):
        # a single pictograph (月, 牛): its one component is the character itself
        # (the official layout's "构件整体"), grounded by the layout and the formation
        return [CompFact(record.character, ["表意"], [
            Provenance(source=p.source, entry_id=p.entry_id, span=p.span, rule="qa.single_component")
            for p in f.structure[1] + f.formation[1]])]
    if audited:
        # the reviewer's component list replaces the sources' (complete by their word)
        return [CompFact(x.name, list(x.functions), _audit_provs(x.provenance)) for x in record.components]
    if not source_comps:
        f.missing["COMP"] = "no-components" if c.form == "modern" else SEAL_FORM_REASON
        return []
    if c.form == "modern" and 0 < len(record.components) < n_ops:
        # fewer components than the IDS shows (雲 = ⿱雨云 listed with 雨 only): a partial
        # list would be a wrong answer
        f.missing["COMP"] = "incomplete-components"
        return []
    if c.strict:
        if all(_component_confirmed(x) for x in source_comps):
            return [CompFact(x.name, list(x.functions), list(x.provenance)) for x in source_comps]
        f.missing["COMP"] = "disagree:components"
        return []
    comps = []
    for x in source_comps:
        provs = [p for p in x.provenance if p.source in usable]
        if provs:
            comps.append(CompFact(x.name, list(x.functions), provs))
    if len(comps) < len(source_comps):
        # a component only Shuowen names (往's 㞷): a partial list would be a wrong answer
        f.missing["COMP"] = "partial-components"
        return []
    return comps


def _component_details(c: _FactsCtx, f: Facts, comps: list[CompFact], evo: Evolution) -> None:
    """Each component's interpretation (source text, else composed by rule) and evolution type."""
    record = c.record
    src_by_name = {x.name: x for x in record.components}
    src_by_name.update({x.name: Component(name=x.name, functions=x.functions, provenance=x.provenance)
                        for x in comps if x.name not in src_by_name})
    names = [x.name for x in comps]
    for cf in comps:
        src: Component = src_by_name[cf.name]
        interp_ok = [p for p in src.interpretation_provenance if p.source in c.allowed or _audit_provs([p])]
        if src.interpretation and interp_ok and not _LATIN.search(src.interpretation):
            cf.interpretation = src.interpretation
            cf.interpretation_en = f"(source text) {src.interpretation}"
            cf.interpretation_provenance = interp_ok
        else:
            # a seal glyph does not write the modern position forms (亻 for 人): no "written as"
            comp = _compose_interpretation(cf, f, [n for n in names if n != cf.name], c.index,
                                           c.allowed | MODERN_SOURCES, record if c.form == "modern" else None)
            if comp:
                cf.interpretation, cf.interpretation_en, cf.interpretation_provenance = comp
        ce = evo.components.get(cf.name)
        if src.evolution_type and _audit_provs(src.provenance):
            cf.evolution_type, cf.evolution_provenance = src.evolution_type, _audit_provs(src.provenance)
        elif ce is not None:
            cf.evolution_type, cf.evolution_provenance = ce.type, ce.provenance


SHENG_UNLOCATED = "sheng:drawn-part-not-located"
SHENG_RESERVED = "sheng:source-reserved"


def _name_drawn_parts(c: _FactsCtx, f: Facts, comps: list[CompFact]) -> list[CompFact]:
    """Name each 省 component as the glyph draws it (issue 21): 癘 shows 萬 where Shuowen
    reads 「蠆省聲」, so the component is 萬 with ``abbreviates`` 蠆, and its interpretation
    says what the part is and what it stands for (「萬」为「蠆」之省 …，代「蠆」为声符).
    A 省 component whose drawn part the IDS does not show, or whose 省 statement comes
    from a source the profile may not use, leaves the record without component questions
    (``missing["COMP"]`` :data:`SHENG_UNLOCATED` / :data:`SHENG_RESERVED`): naming the
    full component would describe a part the glyph does not have. Returns the list."""
    if not comps:
        return comps
    located, unlocated = abbreviated_parts(c.record, c.index)
    names = {x.name for x in comps}
    if names & set(unlocated):
        f.missing["COMP"] = SHENG_UNLOCATED
        return []
    usable = c.allowed | c.gap | {"user"}
    for cf in comps:
        d = located.get(cf.name)
        if d is None or cf.abbreviates:
            continue
        if d.provenance[0].source not in usable:
            f.missing["COMP"] = SHENG_RESERVED
            return []
        full = cf.name
        cf.abbreviates, cf.name = full, d.drawn
        cited = d.provenance[0].source == "shuowen"
        zh = f"「{d.drawn}」为「{full}」之省" + (f"（《说文》：{d.span}）" if cited else "")
        en = f"{d.drawn} is an abbreviated {full}" + (f" (Shuowen: {d.span})" if cited else "")
        own = cf.interpretation and not any(p.rule == "qa.comi.by_function" for p in cf.interpretation_provenance)
        role = "为声符" if cf.functions == ["表音"] else "表意"
        if own:
            zh += f"，代「{full}」{role}：{cf.interpretation}"
            en += f", standing for {full}: {cf.interpretation}"
        elif cf.interpretation:
            zh += f"，在字中代「{full}」。{cf.interpretation}"
            en += f", standing for {full} in the character. {cf.interpretation_en or ''}".rstrip()
        else:
            zh += f"，在字中代「{full}」{role}"
            en += f", standing for {full}"
        cf.interpretation, cf.interpretation_en = zh, en
        rule = "qa.comi.sheng_drawn"
        cf.interpretation_provenance = cf.interpretation_provenance + [
            Provenance(source=p.source, entry_id=p.entry_id, span=p.span, rule=rule) for p in d.provenance]
        cf.provenance = cf.provenance + [d.provenance[1]]
    return comps


def _component_missing(f: Facts, comps: list[CompFact]) -> None:
    """The component kinds that cannot be asked, from what the list lacks."""
    if not comps:
        for k in ("COMR", "COMF", "COMI", "COME", "COMP_FULL", "COMP_ASPECT"):
            f.missing[k] = f.missing["COMP"]
    else:
        if not all(x.functions for x in comps):
            for k in ("COMF", "COMP_FULL", "COMP_ASPECT"):
                f.missing[k] = "no-function"
        if not all(x.interpretation for x in comps):
            for k in ("COMI", "COMP_FULL", "COMP_ASPECT"):
                f.missing.setdefault(k, "no-interpretation")
        if not all(x.evolution_type for x in comps):
            for k in ("COME", "COMP_FULL"):
                f.missing.setdefault(k, "no-evolution-type")
        if len(comps) < 2:
            f.missing.setdefault("COMP_ASPECT", "single-component")
    f.missing.pop("COMP", None)


def _orim_facts(c: _FactsCtx, f: Facts) -> None:
    """ORIM: a Chinese gloss; the bench needs the Shuowen gloss confirmed by a second
    witness (another source's agreement, or Duan quoting the same words: an ``agree`` from
    Duan whose quotation differs is no confirmation, 牛: Duan rejects 大牲也)."""
    record, strict = c.record, c.strict
    om = record.original_meaning
    if om is not None and _self_gloss(om.value, record):
        f.missing["ORIM"] = "self-gloss:original_meaning"  # Shuowen 巳: "巳也" says nothing
        om = None
    if om is not None and _audit_provs(om.provenance):
        f.orim = (om.value, om.value, _audit_provs(om.provenance), "audit")
    elif om is not None:
        srcs = {p.source for p in om.provenance}
        english = bool(_LATIN.search(om.value))
        if strict:
            sw = [p for p in om.provenance if p.source == "shuowen"]
            others = set(om.agree) - {"shuowen", "duan"}
            confirm = None if (not sw or others) else _duan_confirms(record, om.value, c.index)
            if sw and not english and (others or confirm):
                f.orim = (om.value, f"Shuowen gloss: {om.value}", sw + ([confirm] if confirm else []), "shuowen")
            else:
                f.missing["ORIM"] = "unconfirmed:original_meaning" if sw else "no-shuowen-gloss"
        elif not english and srcs & (c.allowed | c.gap):
            provs = [p for p in om.provenance if p.source in c.allowed | c.gap]
            f.orim = (om.value, f"Shuowen gloss: {om.value}" if "shuowen" in srcs else om.value,
                      provs, "shuowen" if "shuowen" in srcs else "gloss")
    _orim_sound_gloss(c, f)
    # No Chinese gloss, no ORIM question: a modern (English) dictionary definition is not
    # the original meaning, and an answer saying "no source has it" would teach a model to
    # decline. The record's English definition still appears in the record and the Space.
    if f.orim is None:
        f.missing.setdefault("ORIM", "no-original-meaning")


SOUND_GLOSS_REASON = "sound-gloss:original_meaning"


def _orim_sound_gloss(c: _FactsCtx, f: Facts) -> None:
    """Drop Shuowen's sound-gloss (声训) sentences from the ORIM reference
    (:mod:`builder.qa.soundgloss`: 羊 「祥」, 母 「牧」, 古 「故」 are no original meanings):
    日 「實也。太陽之精不虧」 keeps 太陽之精不虧; a gloss that is only a sound-gloss leaves
    no ORIM question (``missing["ORIM"]`` = :data:`SOUND_GLOSS_REASON`)."""
    if f.orim is None or f.orim[3] != "shuowen":
        return
    zh, _en, provs, kind = f.orim
    index = c.index
    if index.readings is None:
        index.readings = index.memo.setdefault(("readings",), soundgloss.readings_from_records(
            r for recs in index.by_char.values() for r in recs))
    rec = c.record
    heads = [rec.character, rec.traditional or "", rec.form or ""]
    rest, dropped = soundgloss.strip_sound_gloss(zh, heads, index.readings)
    if not dropped:
        return
    if not rest:
        f.orim = None
        f.missing["ORIM"] = SOUND_GLOSS_REASON
        return
    f.orim = (rest, f"Shuowen gloss: {rest}", provs, kind)


# Statement rules that say no change: the seal's analysis, a stage attested, a part kept.
# A narrative of these alone ("小篆作X，《说文》析为…；今字形沿用了X") tells nothing of an
# evolution (the independent review of issue 20 counted it a defect): no EVOI is asked.
NO_CHANGE_RULES = ("evolution.seal_analysis", "evolution.retention", "evolution.attested")
NO_CHANGE_REASON = "evoi:no-change-stated"


def _evoi_facts(c: _FactsCtx, f: Facts, evo: Evolution) -> None:
    """EVOI (two statements at least, one of them a change: :data:`NO_CHANGE_RULES`) and
    the dataset-only / bench-only kinds."""
    # a kept part the modern form writes in another shape (「水」写作「氵」) is a change
    changes = [s for s in evo.statements if not s.rule.startswith(NO_CHANGE_RULES) or "写作" in s.zh]
    if len(evo.statements) >= 2 and changes:
        f.evolution = evo
    else:
        f.missing["EVOI"] = NO_CHANGE_REASON if evo.statements else "no-evolution-evidence"
    if f.evolution is None or f.orim is None or not (f.structure or f.components):
        f.missing["EXEGESIS"] = "incomplete-levels"
    if c.strict:
        f.missing["EXEGESIS"] = "dataset-only"
        for k in ("COMR", "COMF", "COMI", "COME"):
            f.missing.setdefault(k, "dataset-only")
    else:
        f.missing.setdefault("COMP_ASPECT", "bench-only")


SEAL_VARIANT_REASON = "seal-form:drawing-of-a-variant"


def _seal_variant(c: _FactsCtx, f: Facts) -> None:
    """A 篆书 record whose form is another head (雰 is Shuowen's 或體 of 氛, 㔳 its 古文 of
    簋): the drawing may show the variant while the analysis, layout and gloss are the
    head's, so no L2 or ORIM question is asked of it (the image is not bench-eligible)."""
    if c.form != "seal" or not c.record.form or c.record.form == c.record.character:
        return
    for k in L2_KINDS + ("ORIM", "EXEGESIS"):
        f.missing[k] = SEAL_VARIANT_REASON
    f.structure, f.formation, f.components, f.orim = None, None, [], None


def facts_for(record: GlyphRecord, profile: Profile, index: EvidenceIndex, *,
              reserved: bool = False) -> Facts:
    """Reduce ``record`` to the facts ``profile`` may state about the form its images show.

    ``reserved``: the character is in JieZi-Bench, so the dataset profile must not use its
    ``gap_sources`` (Shuowen). The L2 facts follow :func:`glyph_form` of the record's
    script: an early form (甲骨文, 金文) gets none (``missing`` reason
    :data:`EARLY_FORM_REASON`), a seal image only Shuowen's analysis of the seal. Returns
    :class:`Facts`; a kind that cannot be asked is in ``Facts.missing`` with a reason
    (``"no-structure"``, ``"disagree:formation"`` ...).
    """
    f = Facts(record.id, record.character, record.script, profile.name)
    c = _FactsCtx(record, profile, index, frozenset() if reserved else profile.gap_sources,
                  glyph_form(record.script))
    _strc_facts(c, f)
    _forc_facts(c, f)
    _structure_accepted(c, f)
    _formation_accepted(c, f)
    f.variant_forms = _variant_forms(record)
    comps = _component_list(c, f)
    evo_sources = (c.allowed | c.gap | MODERN_SOURCES) if not c.strict else (BENCH_SOURCES | MODERN_SOURCES)
    if _has_audit(record):
        evo_sources = evo_sources | {"user"}  # corrected components / formation feed the evolution
    evo = derive(record, index, evo_sources)
    f.evolution_sources = evo_sources
    _component_details(c, f, comps, evo)
    comps = _name_drawn_parts(c, f, comps)
    f.components = comps
    _component_missing(f, comps)
    _orim_facts(c, f)
    _evoi_facts(c, f, evo)
    _seal_variant(c, f)
    f.ids_regions = _ids_regions(record)
    sw_raw = sum(len(t) for k, t in record.raw.items() if k.startswith("shuowen:"))
    f.richness = (min(sw_raw, 2000) / 200 + 2 * len(record.variants) + 3 * len(evo.statements)
                  + len(comps) + (2 if f.orim else 0))
    return f


# Region whose standard glyph shapes a font design follows (the cjkvi-ids region tags:
# G mainland China, T Taiwan, J Japan, K Korea). A design not listed has no known region.
FONT_REGIONS: dict[str, str] = {
    "Noto Serif CJK SC": "G", "Noto Sans CJK SC": "G", "AR PL UKai CN": "G", "AR PL UMing CN": "G",
    "WenQuanYi Zen Hei": "G", "LXGW WenKai": "G",
    "TW-Kai": "T", "TW-Sung": "T", "AR PL UKai TW": "T", "AR PL UMing TW": "T",
    "Hanazono Mincho": "J",
}
STRUCTURE_KINDS = frozenset({"STRC", "COMR", "COMF", "COMI", "COME", "COMP_FULL", "COMP_ASPECT", "EXEGESIS"})
FONT_REGION_REASON = "font-draws-another-decomposition"


def _ids_regions(record: GlyphRecord) -> frozenset[str] | None:
    """Regions whose glyph the record's IDS describes, when cjkvi-ids gives the character
    different IDS per region (舊: ⿱萑臼 [GJK], ⿱雈臼 [T]); None when it gives one."""
    if record.ids is None:
        return None
    line = next((t for k, t in record.raw.items() if k.startswith("cjkvi-ids:ids.txt:")), "")
    opts = re.findall(r"([^\t\[\]]+)\[([A-Z]+)\]", "\t".join(line.split("\t")[2:]))
    if len({ids for ids, _ in opts}) < 2:
        return None
    return frozenset(r for ids, regions in opts if ids.strip() == record.ids.value for r in regions)


def image_missing(facts: Facts, image: GlyphImage) -> dict[str, str]:
    """Kinds one image of a record cannot be asked though the record can: a font whose
    region draws another decomposition than the record's IDS (舊 in Hanazono Mincho shows
    萑, the record's IDS 雈) gets no structure or component question
    (:data:`FONT_REGION_REASON`). ``{}`` for scans, tracings and fonts that match."""
    if facts.ids_regions is None or not image.style.startswith("font"):
        return {}
    if FONT_REGIONS.get(image.font or "") in facts.ids_regions:
        return {}
    return {k: FONT_REGION_REASON for k in STRUCTURE_KINDS if k not in facts.missing}


# --- rendering --------------------------------------------------------------------------

def _struct_label(s: str) -> tuple[str, str]:
    return answers.structure_text(s, "zh"), answers.structure_text(s, "en")


def _formation_text(form: Formation) -> tuple[str, str]:
    return answers.formation_text(form.label_set(), "zh"), answers.formation_text(form.label_set(), "en")


def _comp_lines(comps: list[CompFact], *, functions: bool, interpretation: bool,
                evolution: bool) -> tuple[str, str]:
    wanted = {"functions": functions, "evolution_type": evolution, "interpretation": interpretation}
    attrs = [a for a in answers.COMPONENT_ATTRIBUTES if wanted[a]]
    dicts = [{"name": c.name, "functions": c.functions, "evolution_type": c.evolution_type,
              "interpretation": c.interpretation, "interpretation_en": c.interpretation_en,
              "abbreviates": c.abbreviates} for c in comps]
    return answers.components_text(dicts, attrs, "zh"), answers.components_text(dicts, attrs, "en")


def _comp_prov(comps: list[CompFact], *, interpretation: bool, evolution: bool) -> list[dict]:
    out = []
    for c in comps:
        out += _prov("components", c.provenance)
        if interpretation:
            out += _prov("components.interpretation", c.interpretation_provenance)
        if evolution:
            out += _prov("components.evolution_type", c.evolution_provenance)
    return out


def make_qa(facts: Facts, kind: str, phrasing: int, image: GlyphImage) -> QA | None:
    """Compose the QA pair of ``kind`` (phrasing index ``phrasing``) for ``image``.

    Returns None when ``facts`` lack a field the kind needs (see ``Facts.missing``).
    """
    if kind in facts.missing or kind in image_missing(facts, image):
        return None
    subtask, level, metrics = T.KINDS[kind]
    attributed = kind != "ORIM" or facts.orim[3] == "shuowen"
    parts = tuple(p for p, v in (("structure", facts.structure), ("components", facts.components),
                                 ("formation", facts.formation)) if v)
    q_zh, q_en = T.question(kind, phrasing, script=facts.script, attributed=attributed, parts=parts)
    tid = T.template_id(kind, phrasing)
    image_prov = [{"field": "image", "source": _image_source(image), "entry_id": image.id,
                   "span": facts.character, "rule": "image.label"}]
    c = facts.character

    def qa(answer, answer_en, struct, provenance, fields):
        return QA(kind, subtask, level, q_zh, answer, q_en, answer_en, struct, list(metrics),
                  provenance, fields, tid)

    if kind == "CHAR":
        struct = {"character": c}
        if facts.variant_forms and image.style in REAL_IMAGE_STYLES:
            struct["accepted"] = list(facts.variant_forms)
        return qa(c, c, struct, image_prov, ["character"])
    if kind == "SCRC":
        s = facts.script
        return qa(s, f"{labels.SCRIPTS[s]} ({s})", {"script": s},
                  [{**image_prov[0], "span": s, "rule": "image.script"}], ["script"])
    if kind == "STRC":
        v, provs = facts.structure
        zh, en = _struct_label(v)
        struct = {"structure": v, **({"accepted": facts.accepted["STRC"]} if "STRC" in facts.accepted else {})}
        return qa(zh, en, struct, _prov("structure", provs), ["structure"])
    if kind == "FORC":
        form, provs = facts.formation
        zh, en = _formation_text(form)
        struct = {"formation": form.label_set(), "yisheng": form.yisheng}
        if "FORC" in facts.accepted:
            struct["accepted"] = facts.accepted["FORC"]
            sw = facts.accepted["FORC"][0][0]
            span = next((p.span for p in provs if p.source == "shuowen" and p.rule.startswith("shuowen.formation")), "")
            zh += f"；此亦声之说出自段注，《说文》作{sw}" + (f"（「{span}」）" if span else "")
            en += (f"; the 亦声 reading is Duan's, Shuowen's analysis is "
                   f"{'an ideographic compound' if sw == '会意' else 'a plain phono-semantic compound'}")
        return qa(zh, en, struct, _prov("formation", provs), ["formation"])
    if kind in ("COMR", "COMF", "COMI", "COME", "COMP_FULL", "COMP_ASPECT"):
        fn = kind in ("COMF", "COMP_FULL", "COMP_ASPECT")
        it = kind in ("COMI", "COMP_FULL", "COMP_ASPECT")
        ev = kind in ("COME", "COMP_FULL")
        zh, en = _comp_lines(facts.components, functions=fn, interpretation=it, evolution=ev)
        struct = {"components": [x.struct(functions=fn, interpretation=it, evolution=ev)
                                 for x in facts.components]}
        fields = ["components"] + (["components.interpretation"] if it else []) + (
            ["components.evolution_type"] if ev else [])
        return qa(zh, en, struct, _comp_prov(facts.components, interpretation=it, evolution=ev), fields)
    if kind == "ORIM":
        zh, en, provs, _ = facts.orim
        return qa(zh, en, {"original_meaning": zh}, _prov("original_meaning", provs), ["original_meaning"])
    if kind == "EVOI":
        evo = facts.evolution
        zh, en = evo.narrative("zh"), evo.narrative("en")
        return qa(zh, en, {"evolution": zh, "rules": evo.rules()}, _prov("evolution", evo.provenance()),
                  ["evolution"])
    if kind == "EXEGESIS":
        return _exegesis(facts, image, qa, image_prov)
    raise KeyError(f"unknown template kind {kind!r}")


def _image_source(image: GlyphImage) -> str:
    src = image.source.split(":", 1)[0]
    return src if src in IMAGE_SOURCES else "font" if image.style.startswith("font") else "user"


def _exegesis(facts: Facts, image: GlyphImage, qa, image_prov) -> QA:
    S, E = T.EXEGESIS_SECTIONS_ZH, T.EXEGESIS_SECTIONS_EN
    c, s = facts.character, facts.script
    zh = [f"【{S[0]}】图中为「{c}」字的{s}字形。"]
    en = [f"[{E[0]}] The image shows the character {c} in {labels.SCRIPTS[s]} ({s})."]
    prov = list(image_prov)
    struct: dict = {"character": c, "script": s}
    part_zh, part_en = [], []
    if facts.structure:
        v, p = facts.structure
        a, b = _struct_label(v)
        part_zh.append(f"结构为{a}")
        part_en.append(f"structure {b}")
        prov += _prov("structure", p)
        struct["structure"] = v
    if facts.components:
        part_zh.append("由" + "、".join(f"「{x.name}」" for x in facts.components) + "构成")
        part_en.append("components " + ", ".join(x.name for x in facts.components))
        lines_zh, lines_en = _comp_lines(facts.components, functions=all(x.functions for x in facts.components),
                                         interpretation=all(x.interpretation for x in facts.components),
                                         evolution=all(x.evolution_type for x in facts.components))
        prov += _comp_prov(facts.components, interpretation=True, evolution=True)
        struct["components"] = [x.struct() for x in facts.components]
    zh.append(f"【{S[1]}】" + "，".join(part_zh) + "。" + ("\n" + lines_zh if facts.components else ""))
    en.append(f"[{E[1]}] " + "; ".join(part_en) + "." + ("\n" + lines_en if facts.components else ""))
    if facts.formation:
        form, p = facts.formation
        a, b = _formation_text(form)
        zh.append(f"【{S[2]}】{a}。")
        en.append(f"[{E[2]}] {b}.")
        prov += _prov("formation", p)
        struct["formation"] = form.label_set()
    o_zh, o_en, p, o_kind = facts.orim
    zh.append(f"【{S[3]}】" + (f"《说文》：{o_zh}" if o_kind == "shuowen" else o_zh))
    en.append(f"[{E[3]}] {o_en}")
    prov += _prov("original_meaning", p)
    struct["original_meaning"] = o_zh
    evo = facts.evolution
    zh.append(f"【{S[4]}】\n{evo.narrative('zh')}")
    en.append(f"[{E[4]}]\n{evo.narrative('en')}")
    prov += _prov("evolution", evo.provenance())
    struct["evolution"] = evo.narrative("zh")
    fields = ["character", "script", "structure", "components", "formation", "original_meaning", "evolution"]
    return qa("\n\n".join(zh), "\n\n".join(en), struct, prov, fields)


# --- sampling ---------------------------------------------------------------------------

# Kinds JieZi-Dataset draws from, in turn order.
DATASET_KINDS = ("CHAR", "SCRC", "STRC", "COMR", "COMF", "COMI", "COMP_FULL", "FORC", "ORIM",
                 "COME", "EVOI", "EXEGESIS")


def dataset_qa(facts: Facts, image: GlyphImage, seed: int, stats: Counter | None = None,
               *, min_pairs: int = 5, max_pairs: int = 10) -> list[QA]:
    """Draw ``min_pairs``..``max_pairs`` QA pairs for one glyph image of a record.

    Deterministic for ``(seed, image.id)``. One kind per level first (so every level the
    record can ground is asked), then the rest at random, each with a random phrasing;
    duplicates removed. ``stats`` (a Counter) receives ``missing:<kind>:<reason>``,
    ``images_missing_level:<L>`` and ``images_below_min`` counts.
    """
    rng = random.Random(f"{seed}:{image.id}")
    missing = {**facts.missing, **image_missing(facts, image)}
    avail = [k for k in DATASET_KINDS if k not in missing]
    if stats is not None:
        for k in DATASET_KINDS:
            if k in missing:
                stats[f"missing:{k}:{missing[k]}"] += 1
    n = rng.randint(min_pairs, max_pairs)
    chosen: list[str] = []
    for level in labels.LEVELS:
        if any(T.in_level(k, level) for k in chosen):
            continue
        opts = [k for k in avail if T.in_level(k, level) and k not in chosen]
        if opts:
            chosen.append(rng.choice(opts))
        elif stats is not None:
            stats[f"images_missing_level:{level}"] += 1
    rest = [k for k in avail if k not in chosen]
    rng.shuffle(rest)
    chosen += rest[: max(0, n - len(chosen))]
    if stats is not None and len(chosen) < min_pairs:
        stats["images_below_min"] += 1
    out, seen = [], set()
    for k in sorted(chosen, key=DATASET_KINDS.index):
        item = make_qa(facts, k, rng.randrange(len(T.TEMPLATES[k])), image)
        if item is None or not item.answer.strip():
            continue
        key = (item.question, item.answer)
        if key in seen:
            continue
        seen.add(key)
        out.append(item)
    return out


BENCH_KINDS = ("CHAR", "SCRC", "STRC", "COMP_FULL", "COMP_ASPECT", "FORC", "ORIM", "EVOI")
BENCH_REQUIRED = ("CHAR", "SCRC", "STRC", "COMP_FULL", "FORC", "ORIM", "EVOI")
SEAL_L2_KINDS = ("STRC", "COMP_FULL", "FORC")


def bench_eligible(facts: Facts) -> bool:
    """True when the image can be a bench image. A modern form: every one-per-image bench
    kind can be asked (agreeing sources). An early form (甲骨文, 金文, 战国文字) is eligible
    without its L2 kinds, which no source analyses for that form (:data:`EARLY_FORM_REASON`):
    it is asked CHAR, SCRC and those of ORIM and EVOI its sources support. A seal form (篆书)
    needs CHAR, SCRC and at least one L2 kind from Shuowen's analysis of that head (STRC,
    the component question or FORC): a layout Shuowen's parts do not confirm, or a head
    whose gloss Duan rejects, drops that question, not the image (the seal drawings are the
    bench's L2 on ancient forms; the selection prefers the images with more questions)."""
    if "CHAR" in facts.missing or "SCRC" in facts.missing:
        return False
    if any(facts.missing.get(k) == EARLY_FORM_REASON for k in L2_KINDS):
        return True
    if facts.script in SEAL_FORM_SCRIPTS:
        return any(k not in facts.missing for k in SEAL_L2_KINDS)
    # a narrative that states no change drops the EVOI question, not the image
    return all(k not in facts.missing for k in BENCH_REQUIRED if k != "EVOI")


def bench_kinds(facts: Facts) -> int:
    """How many of the one-per-image bench kinds (:data:`BENCH_REQUIRED`) ``facts`` can ask."""
    return sum(k not in facts.missing for k in BENCH_REQUIRED)


def l2_dropped(facts: Facts) -> list[str]:
    """The L2 kinds of ``facts`` not asked because the glyph is an early form no source
    analyses (counted in the stage report)."""
    return [k for k in L2_KINDS if facts.missing.get(k) == EARLY_FORM_REASON]


def bench_qa(facts: Facts, image: GlyphImage, seed: int, *, second_component: bool) -> list[QA]:
    """The bench rows of one image: CHAR, SCRC, STRC, the shared component question,
    FORC, ORIM and EVOI, plus the second (function + interpretation) component question
    when ``second_component``. Raises ``ValueError`` when ``facts`` are not
    :func:`bench_eligible` (the selection must not pick such an image)."""
    if not bench_eligible(facts):
        raise ValueError(f"record {facts.record_id}: not bench-eligible: "
                         f"{ {k: facts.missing[k] for k in BENCH_REQUIRED if k in facts.missing} }")
    rng = random.Random(f"bench:{seed}:{image.id}")
    out = []
    for k in BENCH_KINDS:
        if k == "COMP_ASPECT" and not (second_component and "COMP_ASPECT" not in facts.missing):
            continue
        if k in facts.missing:  # an early form's L2 kinds, a seal form's unconfirmed ones
            continue
        item = make_qa(facts, k, rng.randrange(len(T.TEMPLATES[k])), image)
        if item is not None:
            out.append(item)
    return out
