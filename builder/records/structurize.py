"""Structurizers: source entries -> :class:`SourceReading` (one source's structured reading of one form).

Two kinds, one contract:

- :class:`RuleStructurizer` (the default: offline, deterministic) reads each source by
  its own rules: the 說文 formula (``builder/records/shuowen_rules.py``), makemeahanzi's
  etymology fields, cjkvi-ids' IDS and analysis column, Unihan's fields.
- :class:`builder.records.llm_structurize.LLMStructurizer` asks any OpenAI-compatible endpoint
  to fill the same reading from an entry's raw text, constrained by a JSON Schema.

Both hand every reading to :func:`builder.records.fidelity.enforce`, which drops (and flags)
any value its cited span does not support, so a record never holds an unsupported
value whichever structurizer produced it.

A reading names the *form* it analyses (``character``); a Shuowen entry yields one
reading for its head and one per 重文 (variant form), plus a ``duan`` reading for the
class 段玉裁 states. Cross-source merging is ``builder/records/align.py``'s job.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Iterable

from pydantic import BaseModel, ConfigDict, Field

from builder.sources.adapters import Entry
from builder.sources.adapters.cjkvi_ids import AnalysisLine
from builder.sources.adapters.makemeahanzi import ETYMOLOGY_TYPES
from builder.sources.adapters.shuowen import ShuowenEntry
from builder.aliases import canonical, same_component
from builder.ids import IDSError, first_level, leaves
from builder.records.fidelity import enforce
from builder.schema import (Component, FidelityFlag, Formation, Grounded, Provenance, Reading, Sense, Variant)
from builder.records.shuowen_rules import (Analysis, Found, analyse, analyse_variant, duan_formation, read_gloss,
                                           repair_garbled)


# Parametrised once: subscripting a generic model on every call is slow.
GStr = Grounded[str]
GFormation = Grounded[Formation]


class IdsOption(BaseModel):
    """One IDS a source gives for a form, with the regions it applies to ('' = all)."""

    model_config = ConfigDict(extra="forbid")
    ids: str
    regions: str = ""
    provenance: list[Provenance] = Field(min_length=1)


class SourceReading(BaseModel):
    """One source's structured reading of one written form.

    ``source`` is the authority counted for agreement (shuowen, duan, makemeahanzi,
    cjkvi-ids, unihan, jiezi-official); ``entry_key`` is ``"<source>:<entry_id>"`` of the
    raw text every span cites. ``head`` / ``form_kind`` are set for a Shuowen 重文 (the
    entry's head and the variant's kind); ``links`` are (character, relation) pairs a
    source gives without an analysis of its own (cjkvi-ids ``→X``), followed by
    ``builder/records/align.py``. ``inherited_components`` are a variant's head's components,
    kept by alignment only where the variant's own IDS shows them.
    """

    model_config = ConfigDict(extra="forbid")
    source: str
    entry_key: str
    character: str
    head: str | None = None
    form_kind: str | None = None
    ids_options: list[IdsOption] = Field(default_factory=list)
    formation: Grounded[Formation] | None = None
    components: list[Component] = Field(default_factory=list)
    inherited_components: list[Component] = Field(default_factory=list)
    original_meaning: Grounded[str] | None = None
    definition_en: Grounded[str] | None = None
    readings: list[Reading] = Field(default_factory=list)
    variants: list[Variant] = Field(default_factory=list)
    senses: list[Sense] = Field(default_factory=list)
    radical_stroke: Grounded[str] | None = None
    evolution: Grounded[str] | None = None
    special_structure: Grounded[str] | None = None
    links: list[tuple[str, str]] = Field(default_factory=list)
    flags: list[FidelityFlag] = Field(default_factory=list)

    def is_empty(self) -> bool:
        """True when the reading carries no value at all."""
        return not (self.ids_options or self.formation or self.components or self.original_meaning
                    or self.definition_en or self.readings or self.variants or self.senses
                    or self.radical_stroke or self.evolution or self.links or self.inherited_components)


def prov(entry: Entry, span: str, rule: str) -> Provenance:
    """Provenance citing ``span`` of ``entry`` (``span`` must be a substring of ``entry.raw``).

    Built without re-validation (all four fields are plain strings from the adapter; the
    source name is one of the registry's), because readings create hundreds of
    thousands of them; the fidelity check verifies every span afterwards.
    """
    return Provenance.model_construct(source=entry.source, entry_id=entry.entry_id, span=span, rule=rule)


def normalise_pinyin(p: str) -> str:
    """NFC, with the IPA script g (ɡ, U+0261) some sources use replaced by g."""
    return unicodedata.normalize("NFC", p.replace("\u0261", "g")).strip()


FORMATION_LABELS = {"象形": "象形", "指事": "指事", "会意": "会意", "形声": "形声"}


# ---- 說文 / 段注 -------------------------------------------------------------------------

def _components(entry: Entry, found: Iterable, rule_suffix: str = "") -> list[Component]:
    out = []
    for c in found:
        comp = Component(name=canonical(c.name), functions=list(c.functions),
                         provenance=[prov(entry, c.span, c.rule + rule_suffix)])
        if c.interpretation:
            comp.interpretation = c.interpretation.value
            comp.interpretation_provenance = [prov(entry, c.interpretation.span, c.interpretation.rule)]
        out.append(comp)
    return out


def _formation(entry: Entry, found: Found | None, yisheng: bool, rule_suffix: str = "") -> Grounded[Formation] | None:
    if found is None:
        return None
    label = found.value.split("+")[0]
    yi = yisheng or found.value.endswith("+亦声")
    return GFormation(value=Formation(label=label, yisheng=yi and label == "形声"),
                               provenance=[prov(entry, found.span, found.rule + rule_suffix)])


def _shuowen_readings(entry: ShuowenEntry) -> list[Reading]:
    out = []
    if entry.pronunciation:
        fq = entry.pronunciation[:-1] if entry.pronunciation.endswith("切") else entry.pronunciation
        out.append(Reading(fanqie=fq, provenance=[prov(entry, entry.pronunciation, "shuowen.fanqie")]))
    if entry.pinyin_full:
        out.append(Reading(pinyin=normalise_pinyin(entry.pinyin_full),
                           provenance=[prov(entry, entry.pinyin_full, "shuowen.pinyin")]))
    return out


def _ungarble(entry: ShuowenEntry, a: Analysis) -> tuple[list[Component], list[FidelityFlag]]:
    """:func:`builder.records.shuowen_rules.repair_garbled` on the head's analysis: (the
    parts read from 段玉裁's quotation instead, cited from his entry with rule
    ``shuowen.garbled.duan_reading``; a flag per value dropped)."""
    if not entry.garbled:
        return [], []
    rep = repair_garbled(a, entry.garbled, [n.quote for n in entry.duan_notes], entry.character)
    comps = [Component(name=canonical(c.name), functions=list(c.functions),
                       provenance=[prov(entry.duan, c.span, "shuowen.garbled.duan_reading")]) for c in rep.from_duan]
    flags = [FidelityFlag(field=f, value=v, reason=why, source="shuowen", span=entry.explanation[:200])
             for f, v, why in rep.dropped]
    return comps, flags


# 段玉裁's mark of a head the copyists failed to delete (複舉字): 許慎 wrote the 篆 and then
# its 隸 form before the gloss; later copies deleted the repeated 隸 form, and where one was
# left his note on it says so (訬 「訬、」: 「此複舉字刪之未盡者」, 悔 「按悔乃複舉字之未刪者」).
# Where he says the repeated head belongs to the gloss (河 「許君原本當作河水也」) the note
# says nothing of it being left undeleted, so it does not match.
_REPEATED_HEAD = re.compile(r"複舉(?:篆文|字)?(?:之)?(?:刪之|𠜂之)?(?:未[刪删𠜂盡]|僅存)")


# 段玉裁 doubting that 許慎 wrote the entry at all (㡹 「疑許本無㡹」; review of out-r8, seed
# 20261225 item 118, where his quotation was counted as agreeing with the gloss)
_DOUBTED_ENTRY = re.compile(r"疑許本無|疑非許[書語文]|疑後人[所增]")


def _repeated_head_note(quote: str, note: str, head: str) -> bool:
    """Whether Duan's (quotation, note) marks the head at the start of the gloss as a
    複舉字 left undeleted: the quotation is the bare head (訬 「訬、」) or the note names it
    (悔 「悔乃複舉字之未刪者」), and the note says it was not deleted (:data:`_REPEATED_HEAD`)."""
    if not _REPEATED_HEAD.search(note):
        return False
    bare = re.sub(r"[、，。\s]", "", quote)
    return bool(bare) and set(bare) == {head} or note.find(head) != -1 and note.find(head) < note.find("複舉")


def strip_repeated_head(gloss: str, head: str, notes: list[tuple[str, str]]) -> str:
    """The Shuowen gloss without a leading head Duan marks as a 複舉字 left undeleted
    (:func:`_repeated_head_note` on his note on the first quotation): 訬 「訬，擾」 -> 「擾」,
    悔 「悔恨」 -> 「恨」 (data review 12-04, round 4). Other glosses are returned as they are."""
    if not notes or not gloss.startswith(head) or len(gloss) <= len(head):
        return gloss
    if not _repeated_head_note(notes[0][0], notes[0][1], head):
        return gloss
    rest = gloss
    while rest.startswith(head):  # 歊 「歊歊，气出皃」: 「鍇本衹一歊。複舉字之未刪者耳」
        rest = rest[len(head):].lstrip("，、。 ")
    return rest or gloss


def structurize_shuowen(entry: ShuowenEntry) -> list[SourceReading]:
    """Readings of a Shuowen entry: its head, each 重文, and 段玉裁's stated class."""
    head = entry.character
    a: Analysis = analyse(entry.explanation, head)
    repaired, garbled_flags = _ungarble(entry, a)
    key = entry.key
    gloss = None
    if a.gloss:
        gloss = GStr(value=a.gloss.value, provenance=[prov(entry, a.gloss.span, a.gloss.rule)])
        notes = [(n.quote, n.note) for n in entry.duan_notes]
        rest = strip_repeated_head(a.gloss.value, head, notes)
        if rest != a.gloss.value:
            gloss = GStr(value=rest, provenance=[prov(entry, a.gloss.span, "shuowen.gloss.duan_repeated_head")])
    formation = _formation(entry, a.formation, a.yisheng)
    comps = _components(entry, a.components) + repaired
    readings = _shuowen_readings(entry)
    variants, out = [], []
    for v in entry.variants:
        va = analyse_variant(v.text, head, v.form)
        vcomps = _components(entry, va.components)
        variants.append(Variant(form=v.form, kind=v.kind, analysis=v.text, components=vcomps,
                                provenance=[prov(entry, f"{v.form}\t{v.text}", "shuowen.variant")]))
        # A 重文 takes no formation from its head: 「从鳥隹聲」 classes 鵻, not its 或體 隼
        # (「鵻或从隹、一」). The head's gloss, readings and the parts the variant keeps (射,
        # the 篆文 of 䠶, keeps 身) are the word's, with a rule saying so; alignment uses them
        # only where the variant is still read like its head (builder.records.gather.same_word):
        # 隼 sǔn is not 鵻 zhuī.
        vform = _formation(entry, va.formation, va.yisheng)
        vg = None
        if a.gloss:
            vg = GStr(value=a.gloss.value, provenance=[prov(entry, a.gloss.span, "shuowen.gloss.head_of_variant")])
        out.append(SourceReading(
            source="shuowen", entry_key=key, character=v.form, head=head, form_kind=v.kind,
            formation=vform, components=vcomps, original_meaning=vg,
            # the head's parts complete the variant's own analysis (或从X: the rest is kept);
            # a bare 「古文」 (楍 of 本) says nothing of its parts, which the head's are not
            inherited_components=[c for c in _components(entry, a.components, ".head_of_variant")
                                  if vcomps and not any(same_component(c.name, x.name) for x in vcomps)],
            readings=[r.model_copy() for r in readings]))
    senses = [Sense(meaning=s.value, notes="一曰", provenance=[prov(entry, s.span, s.rule)]) for s in a.senses]
    out.insert(0, SourceReading(source="shuowen", entry_key=key, character=head, formation=formation,
                                components=comps, original_meaning=gloss, readings=readings,
                                variants=variants, senses=senses, flags=garbled_flags))
    if entry.duan is not None:
        # 段玉裁's edition: the gloss as he quotes it (a second witness of the text, which
        # he sometimes corrects: 背 𦟝也 -> 脊也), and the class where his note states it
        d, dcomps = duan_formation([(n.quote, n.note) for n in entry.duan_notes], head)
        dgloss = None
        dn = list(entry.duan_notes[:2])
        if len(dn) == 2 and _repeated_head_note(dn[0].quote, dn[0].note, head):
            dn = dn[1:]  # 訬 「訬、」 is the 複舉字, his gloss is the next quotation 「擾也」
        first = dn[0] if dn else None
        if first is not None and _DOUBTED_ENTRY.search(first.note or ""):
            first = None  # 㡹 「疑許本無㡹」: he quotes the gloss of an entry he doubts, no second witness
        if first is not None and first.quote:
            g, _ = read_gloss(first.quote)
            if g is not None:
                dgloss = GStr(value=g.value, provenance=[prov(entry.duan, g.span, "duan.gloss")])
        if d is not None or dgloss is not None:
            out.append(SourceReading(source="duan", entry_key=entry.duan.key, character=head,
                                     formation=_formation(entry.duan, d, False),
                                     components=_components(entry.duan, dcomps), original_meaning=dgloss))
    return out


# ---- makemeahanzi ----------------------------------------------------------------------

def json_span(raw: str, key: str, value) -> str | None:
    """The exact text of ``"key":value`` in a JSON line (or of the bare value), or None."""
    enc = json.dumps(value, ensure_ascii=False)
    for cand in (f'"{key}":{enc}', f'"{key}": {enc}'):
        if cand in raw:
            return cand
    if isinstance(value, str) and value in raw:
        return value
    return None


# "...; 卖 also provides the pronunciation": the hint names a component that is also phonetic
_HINT_PHONETIC = re.compile(r"(\S)\s*(also\s+)?provides\s+the\s+pronunciation")


def _decomposition(r: SourceReading) -> tuple[list, list[str]]:
    """(first-level operands, leaves) of makemeahanzi's own decomposition (empty when it
    gives none or it is no IDS: 孓's bare 「子」 names no operand)."""
    if not r.ids_options:
        return [], []
    ids = r.ids_options[0].ids
    try:
        ops = first_level(ids)
    except IDSError:
        return [], []
    return ops, (leaves(ids) if ops else [])


def _mmh_field_components(entry: Entry, ety: dict, leaves_: list[str]) -> tuple[list[Component], bool]:
    """The ``semantic`` (表意) and ``phonetic`` (表音) parts, each only where the
    decomposition shows it (a part it does not draw, 凤's 凡 in ⿵几又, is no part of this
    glyph), and whether every part the entry names was kept."""
    comps: list[Component] = []
    complete = True
    for key, fn in (("semantic", "表意"), ("phonetic", "表音")):
        v = ety.get(key)
        if not isinstance(v, str) or not v.strip() or v.strip() in ("？", "?"):
            continue
        span = json_span(entry.raw, key, v)
        if not span or not any(same_component(v.strip(), l) for l in leaves_):
            complete = False
            continue
        name = canonical(v.strip())
        p = prov(entry, span, f"makemeahanzi.etymology.{key}")
        have = next((c for c in comps if c.name == name), None)
        if have:
            have.functions.append(fn)
            have.provenance.append(p)
        else:
            comps.append(Component(name=name, functions=[fn], provenance=[p]))
    return comps, complete


def _mmh_operand_components(entry: Entry, r: SourceReading, ops: list, fn: str | None,
                            have: list[Component]) -> list[Component]:
    """The first-level operands of the decomposition not in ``have``, with function ``fn``
    (会意: every operand is 表意) or none (the part a 形声 entry leaves unnamed: 秀's 乃
    beside its semantic 禾). Nothing when an operand is no character (寢's ⿰爿⿳彐冖又,
    鬥's ⿰丨亅): a partial list would pass for the whole."""
    if not ops or not all(o.is_character for o in ops):
        return []
    dprov = r.ids_options[0].provenance[0]
    tspan = json_span(entry.raw, "type", (entry.data.get("etymology") or {}).get("type"))
    out = []
    for o in ops:
        if o.text == entry.character or any(same_component(o.text, c.name) for c in have + out):
            continue
        provs = [prov(entry, dprov.span, "makemeahanzi.decomposition.operand")]
        if fn and tspan:
            provs.append(prov(entry, tspan, "makemeahanzi.etymology.type"))
        out.append(Component(name=canonical(o.text, o.position), functions=[fn] if fn else [], provenance=provs))
    return out


def _mmh_formation(entry: Entry, r: SourceReading, etype: str | None, ety: dict) -> None:
    """``r.formation`` from the etymology type, unless the entry itself contradicts it:
    an ``ideographic`` (会意) entry whose hint says a part gives the sound (岘: 「见 also
    provides the pronunciation」), or a ``pictophonetic`` (形声) entry that names no
    phonetic (孓, 秀) is flagged, not a formation (issue 20 review: a mnemonic hint is no
    analysis)."""
    if etype not in ETYMOLOGY_TYPES:
        return
    span = json_span(entry.raw, "type", etype)
    if not span:
        return
    label = ETYMOLOGY_TYPES[etype]
    hint = ety.get("hint") if isinstance(ety.get("hint"), str) else ""
    reason = None
    if etype == "ideographic" and _HINT_PHONETIC.search(hint):
        reason = "makemeahanzi's own hint names a part that gives the sound, against its type 'ideographic'"
    elif etype == "pictophonetic" and not (isinstance(ety.get("phonetic"), str) and ety["phonetic"].strip(" ？?")):
        reason = "makemeahanzi's type 'pictophonetic' names no phonetic"
    if reason:
        r.flags.append(FidelityFlag(field="formation", value=label, reason=reason, source="makemeahanzi", span=span))
        return
    r.formation = GFormation(value=Formation(label=label), provenance=[prov(entry, span, "makemeahanzi.etymology.type")])


def structurize_makemeahanzi(entry: Entry) -> list[SourceReading]:
    """Reading of a makemeahanzi entry: IDS, class, components, English gloss, pinyin.

    Components come only from what the entry states structurally: the ``semantic`` /
    ``phonetic`` fields (where the decomposition shows them) and, for an ``ideographic``
    entry, the decomposition's first-level operands. The English ``hint`` is a mnemonic
    (寢 「A person 彐冖又 lying down on a bed 爿 in their home 宀」), never a component list or
    an interpretation; it only marks a part that it says gives the pronunciation.
    """
    d, raw, ch = entry.data, entry.raw, entry.character
    r = SourceReading(source="makemeahanzi", entry_key=entry.key, character=ch)
    decomp = d.get("decomposition")
    if isinstance(decomp, str) and decomp.strip() and decomp.strip() not in ("？", "?"):
        span = json_span(raw, "decomposition", decomp)
        if span:
            r.ids_options.append(IdsOption(ids=decomp.strip(), provenance=[prov(entry, span, "makemeahanzi.decomposition")]))
    ety = d.get("etymology") or {}
    etype = ety.get("type")
    _mmh_formation(entry, r, etype, ety)
    ops, leaves_ = _decomposition(r)
    comps, complete = _mmh_field_components(entry, ety, leaves_)
    if etype == "pictophonetic" and comps and complete and all(any(same_component(c.name, o.text) for o in ops) for c in comps):
        comps += _mmh_operand_components(entry, r, ops, None, comps)
    elif etype == "ideographic" and not comps:
        comps = _mmh_operand_components(entry, r, ops, "表意", [])
        hint = ety.get("hint") if isinstance(ety.get("hint"), str) else ""
        hint_span = json_span(raw, "hint", hint) if hint else None
        for m in _HINT_PHONETIC.finditer(hint):
            c = next((c for c in comps if same_component(c.name, m.group(1))), None)
            if c is not None and hint_span:
                # 赎: "卖 also provides the pronunciation" (meaning and sound); 亭: "丁
                # provides the pronunciation" (sound only)
                c.functions = ["表意", "表音"] if m.group(2) else ["表音"]
                c.provenance.append(prov(entry, hint_span, "makemeahanzi.hint.phonetic"))
    r.components = comps
    defin = d.get("definition")
    if isinstance(defin, str) and defin.strip():
        span = json_span(raw, "definition", defin)
        if span:
            r.definition_en = GStr(value=defin.strip(), provenance=[prov(entry, span, "makemeahanzi.definition")])
    for p in d.get("pinyin") or []:
        if isinstance(p, str) and p.strip() and json.dumps(p, ensure_ascii=False) in raw:
            r.readings.append(Reading(pinyin=normalise_pinyin(p),
                                      provenance=[prov(entry, json.dumps(p, ensure_ascii=False), "makemeahanzi.pinyin")]))
    return [r]


# ---- cjkvi-ids -------------------------------------------------------------------------

def structurize_cjkvi_ids(entry: Entry) -> list[SourceReading]:
    """Reading of an ids.txt line: its IDS alternatives with their region tags."""
    r = SourceReading(source="cjkvi-ids", entry_key=entry.key, character=entry.character)
    for ids, regions in entry.data["ids"]:
        if ids in ("？", "?"):
            continue
        r.ids_options.append(IdsOption(ids=ids, regions=regions, provenance=[prov(entry, ids, "cjkvi-ids.ids")]))
    return [r]


CJKVI_LINK_KINDS = {"古文": "古文", "籒文": "籒文", "籀文": "籒文", "或字": "或體", "俗字": "俗字", "篆文": "篆文",
                    "奇字": "奇字", "簡体": "簡体", "": "異體"}


def _analysis_formation(analysis: str) -> tuple[str, bool, str | None] | None:
    """(label, yisheng, phonetic) of an ids-analysis cell, or None when it states no class."""
    m = re.fullmatch(r"(.)(亦)?(省)?聲", analysis)
    if m:
        return "形声", bool(m.group(2)), m.group(1)
    if analysis == "會意":
        return "会意", False, None
    if analysis == "象形":
        return "象形", False, None
    if analysis in ("指事", "指示"):
        return "指事", False, None
    return None


def structurize_cjkvi_analysis(entry: Entry) -> list[SourceReading]:
    """Reading of a character's ids-analysis.txt lines: class, components, links.

    With ``X聲`` the phonetic X is 表音 and, when X is a first-level operand of the
    line's IDS, the other operands are 表意; ``X亦聲`` makes X 表意+表音; ``會意`` makes
    every first-level operand 表意. ``→X`` / ``←X`` lines become links (a 簡体 link also
    a 繁體 variant).
    """
    ch = entry.character
    r = SourceReading(source="cjkvi-ids", entry_key=entry.key, character=ch)
    lines: list[AnalysisLine] = entry.data["lines"]
    for line in lines:
        if line.link:
            kind = CJKVI_LINK_KINDS.get(line.analysis, "異體")
            r.links.append((line.link, kind))
            if line.analysis == "簡体":
                r.variants.append(Variant(form=line.link, kind="繁體",
                                          provenance=[prov(entry, line.text, "cjkvi-ids.analysis.simplified_of")]))
            f = _analysis_formation(line.analysis)
            if f is not None and r.formation is None and line.text.split("\t")[2].startswith("<"):
                # 「㐆 <身> 象形」: a glyph form of 身 whose own class cjkvi-ids states (not 身's 申省聲)
                r.formation = GFormation(value=Formation(label=f[0], yisheng=f[1]),
                                         provenance=[prov(entry, line.analysis, "cjkvi-ids.analysis.glyph_form")])
            continue
        if r.formation is not None or not line.ids:
            continue
        f = _analysis_formation(line.analysis)
        if f is None:
            continue
        label, yi, phon = f
        r.formation = GFormation(value=Formation(label=label, yisheng=yi),
                                          provenance=[prov(entry, line.analysis, "cjkvi-ids.analysis")])
        r.components = _analysis_components(entry, line, label, yi, phon)
        r.ids_options.append(IdsOption(ids=line.ids, regions="analysis",
                                       provenance=[prov(entry, line.ids, "cjkvi-ids.analysis.ids")]))
    return [r]


def _analysis_components(entry: Entry, line: AnalysisLine, label: str, yisheng: bool, phon: str | None) -> list[Component]:
    """The components a cjkvi-ids analysis line gives: the 聲 part (表音, 表意 too for 亦聲) and,
    when the IDS shows it, the rest as 表意 (形声); every operand but the head itself (会意).
    None when an operand is drawn as a sub-structure (𩕎 ⿰⿱舟足頁): a list without it is short."""
    try:
        every = first_level(line.ids)
    except IDSError:
        every = []
    if not all(o.is_character for o in every):
        return []
    comps: list[Component] = []
    if label == "形声" and phon:
        fns = ["表意", "表音"] if yisheng else ["表音"]
        comps.append(Component(name=canonical(phon), functions=fns,
                               provenance=[prov(entry, line.text, "cjkvi-ids.analysis.phonetic")]))
        if any(same_component(o.text, phon, equivalents=False) for o in every):
            comps += [Component(name=canonical(o.text, o.position), functions=["表意"],
                                provenance=[prov(entry, line.text, "cjkvi-ids.analysis.semantic")])
                      for o in every if not same_component(o.text, phon, equivalents=False)]
    elif label == "会意":
        comps += [Component(name=canonical(o.text, o.position), functions=["表意"],
                            provenance=[prov(entry, line.text, "cjkvi-ids.analysis.huiyi")])
                  for o in every if o.text != entry.character]
    return comps


# ---- Unihan ----------------------------------------------------------------------------

UNIHAN_VARIANT_KINDS = {"kSimplifiedVariant": "簡体", "kTraditionalVariant": "繁體",
                        "kSemanticVariant": "異體", "kZVariant": "異體"}


def _unihan_line(entry: Entry, field: str) -> str | None:
    for line in entry.raw.split("\n"):
        if f"\t{field}\t" in line:
            return line
    return None


def structurize_unihan(entry: Entry) -> list[SourceReading]:
    """Reading of a Unihan entry: English definition, pinyin, 反切, variants, radical-stroke."""
    d, ch = entry.data, entry.character
    r = SourceReading(source="unihan", entry_key=entry.key, character=ch)
    if d.get("kDefinition"):
        r.definition_en = GStr(value=d["kDefinition"], provenance=[prov(entry, d["kDefinition"], "unihan.kDefinition")])
    for p in (d.get("kMandarin") or "").split():
        r.readings.append(Reading(pinyin=normalise_pinyin(p), provenance=[prov(entry, p, "unihan.kMandarin")]))
    for fq in (d.get("kFanqie") or "").split():
        r.readings.append(Reading(fanqie=fq, provenance=[prov(entry, fq, "unihan.kFanqie")]))
    for fld, kind in UNIHAN_VARIANT_KINDS.items():
        line = _unihan_line(entry, fld)
        for v in d.get(fld) or []:
            if v != ch and line:
                r.variants.append(Variant(form=v, kind=kind, provenance=[prov(entry, line, f"unihan.{fld}")]))
    if d.get("kRSUnicode"):
        rs = d["kRSUnicode"].split()[0]
        r.radical_stroke = GStr(value=rs, provenance=[prov(entry, rs, "unihan.kRSUnicode")])
    return [r]


class RuleStructurizer:
    """The default structurizer: per-source rules, offline and deterministic.

    :meth:`structurize` takes any adapter entry and returns its readings (possibly
    empty), already passed through :func:`builder.records.fidelity.enforce`.
    """

    name = "rule"

    def structurize(self, entry: Entry) -> list[SourceReading]:
        if isinstance(entry, ShuowenEntry):
            readings = structurize_shuowen(entry)
            texts = {entry.key: entry.raw}
            if entry.duan is not None:
                texts[entry.duan.key] = entry.duan.raw
        else:
            fn = {"makemeahanzi": structurize_makemeahanzi, "unihan": structurize_unihan}.get(entry.source)
            if entry.source == "cjkvi-ids":
                fn = structurize_cjkvi_analysis if "lines" in entry.data else structurize_cjkvi_ids
            if fn is None:
                raise ValueError(f"no rule structurizer for source {entry.source!r} (entry {entry.key})")
            readings = fn(entry)
            texts = {entry.key: entry.raw}
        return [enforce(r, texts) for r in readings]
