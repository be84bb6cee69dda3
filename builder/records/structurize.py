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

from builder.sources.adapters import Entry, cjk
from builder.sources.adapters.cjkvi_ids import AnalysisLine
from builder.sources.adapters.makemeahanzi import ETYMOLOGY_TYPES
from builder.sources.adapters.shuowen import ShuowenEntry
from builder.aliases import canonical, same_component
from builder.ids import IDSError, first_level
from builder.records.fidelity import enforce
from builder.schema import (Component, FidelityFlag, Formation, Grounded, Provenance, Reading, Sense, Variant)
from builder.records.shuowen_rules import Analysis, Found, analyse, analyse_variant, duan_formation, read_gloss


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


def structurize_shuowen(entry: ShuowenEntry) -> list[SourceReading]:
    """Readings of a Shuowen entry: its head, each 重文, and 段玉裁's stated class."""
    head = entry.character
    a: Analysis = analyse(entry.explanation, head)
    key = entry.key
    gloss = None
    if a.gloss:
        gloss = GStr(value=a.gloss.value, provenance=[prov(entry, a.gloss.span, a.gloss.rule)])
    formation = _formation(entry, a.formation, a.yisheng)
    comps = _components(entry, a.components)
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
            inherited_components=[c for c in _components(entry, a.components, ".head_of_variant")
                                  if not any(same_component(c.name, x.name) for x in vcomps)],
            readings=[r.model_copy() for r in readings]))
    senses = [Sense(meaning=s.value, notes="一曰", provenance=[prov(entry, s.span, s.rule)]) for s in a.senses]
    out.insert(0, SourceReading(source="shuowen", entry_key=key, character=head, formation=formation,
                                components=comps, original_meaning=gloss, readings=readings,
                                variants=variants, senses=senses))
    if entry.duan is not None:
        # 段玉裁's edition: the gloss as he quotes it (a second witness of the text, which
        # he sometimes corrects: 背 𦟝也 -> 脊也), and the class where his note states it
        d, dcomps = duan_formation([(n.quote, n.note) for n in entry.duan_notes], head)
        dgloss = None
        if entry.duan_notes and entry.duan_notes[0].quote:
            g, _ = read_gloss(entry.duan_notes[0].quote)
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


_EN_BOUNDARY = re.compile(r"(?:^|[,;:.!?]|\b(?:and|or|of|by|with|from|in|on|under|over|to|for|the|a|an|as|is|its|plus)\b)\s*",
                          re.IGNORECASE)


def hint_phrase(hint: str, ch: str) -> str | None:
    """The English words right before ``ch`` in a makemeahanzi hint (``"a hand 寸"`` -> ``"a hand"``)."""
    i = hint.find(ch)
    if i <= 0:
        return None
    before = hint[:i].rstrip()
    # back to the previous component character or punctuation
    j = max([before.rfind(c) for c in ",;:" ] + [k for k, c in enumerate(before) if cjk(c)] + [-1])
    phrase = before[j + 1:].strip()
    # drop a leading connective (and, of, by, with ...)
    phrase = re.sub(r"^(?:and|or|of|by|with|from|to|plus)\s+", "", phrase, flags=re.IGNORECASE).strip()
    words = phrase.split()
    if not words or len(words) > 6:
        return None
    if all(w.lower().strip(".,;:") in _NOT_A_GLOSS for w in words):
        return None  # "Another 它 person 亻": a determiner or cross-reference, not a gloss of 它
    return phrase


# Words that alone never describe a component (determiners, cross-references, adverbs).
_NOT_A_GLOSS = frozenset({
    "another", "other", "others", "compare", "see", "like", "also", "similar", "same", "just", "only",
    "not", "no", "this", "that", "these", "those", "some", "any", "each", "one", "two", "three",
    "more", "less", "very", "too", "then", "now", "here", "there", "modern", "variant", "variants",
})
# "...; 卖 also provides the pronunciation": the hint names a component that is also phonetic
_HINT_PHONETIC = re.compile(r"(\S)\s*(also\s+)?provides\s+the\s+pronunciation")


def structurize_makemeahanzi(entry: Entry) -> list[SourceReading]:
    """Reading of a makemeahanzi entry: IDS, class, semantic/phonetic, hint, English gloss, pinyin."""
    d, raw, ch = entry.data, entry.raw, entry.character
    r = SourceReading(source="makemeahanzi", entry_key=entry.key, character=ch)
    decomp = d.get("decomposition")
    if isinstance(decomp, str) and decomp.strip() and decomp.strip() not in ("？", "?"):
        span = json_span(raw, "decomposition", decomp)
        if span:
            r.ids_options.append(IdsOption(ids=decomp.strip(), provenance=[prov(entry, span, "makemeahanzi.decomposition")]))
    ety = d.get("etymology") or {}
    etype = ety.get("type")
    if etype in ETYMOLOGY_TYPES:
        span = json_span(raw, "type", etype)
        if span:
            r.formation = GFormation(value=Formation(label=ETYMOLOGY_TYPES[etype]),
                                              provenance=[prov(entry, span, "makemeahanzi.etymology.type")])
    hint = ety.get("hint") if isinstance(ety.get("hint"), str) else None
    hint_span = json_span(raw, "hint", hint) if hint else None
    comps: list[Component] = []
    for key, fn in (("semantic", "表意"), ("phonetic", "表音")):
        v = ety.get(key)
        if not isinstance(v, str) or not v.strip() or v.strip() in ("？", "?"):
            continue
        span = json_span(raw, key, v)
        if not span:
            continue
        name = canonical(v.strip())
        have = next((c for c in comps if c.name == name), None)
        if have:
            have.functions.append(fn)
            have.provenance.append(prov(entry, span, f"makemeahanzi.etymology.{key}"))
            continue
        comps.append(Component(name=name, functions=[fn], provenance=[prov(entry, span, f"makemeahanzi.etymology.{key}")]))
    if hint and hint_span:
        if etype == "pictophonetic":
            for c in comps:
                if "表意" in c.functions and "表音" not in c.functions:
                    c.interpretation = hint
                    c.interpretation_provenance = [prov(entry, hint_span, "makemeahanzi.hint.semantic")]
        elif etype == "ideographic" and not comps:
            # the hint names the components it combines ("The light of the sun 日 and moon 月")
            for chh in dict.fromkeys(c for c in hint if cjk(c)):
                if chh == ch:
                    continue
                comp = Component(name=canonical(chh), functions=["表意"],
                                 provenance=[prov(entry, hint_span, "makemeahanzi.hint.components")])
                phrase = hint_phrase(hint, chh)
                if phrase:
                    comp.interpretation = phrase
                    comp.interpretation_provenance = [prov(entry, hint_span, "makemeahanzi.hint.phrase")]
                comps.append(comp)
            for m in _HINT_PHONETIC.finditer(hint):
                c = next((c for c in comps if c.name == canonical(m.group(1))), None)
                if c is not None:
                    # 赎: "卖 also provides the pronunciation" (meaning and sound); 亭: "丁
                    # provides the pronunciation" (sound only)
                    c.functions = ["表意", "表音"] if m.group(2) else ["表音"]
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
            continue
        if r.formation is not None or not line.ids:
            continue
        f = _analysis_formation(line.analysis)
        if f is None:
            continue
        label, yi, phon = f
        r.formation = GFormation(value=Formation(label=label, yisheng=yi),
                                          provenance=[prov(entry, line.analysis, "cjkvi-ids.analysis")])
        try:
            ops = [o for o in first_level(line.ids) if o.is_character]
        except IDSError:
            ops = []
        comps: list[Component] = []
        if label == "形声" and phon:
            fns = ["表意", "表音"] if yi else ["表音"]
            comps.append(Component(name=canonical(phon), functions=fns,
                                   provenance=[prov(entry, line.text, "cjkvi-ids.analysis.phonetic")]))
            if any(same_component(o.text, phon, equivalents=False) for o in ops):
                for o in ops:
                    if not same_component(o.text, phon, equivalents=False):
                        comps.append(Component(name=canonical(o.text, o.position), functions=["表意"],
                                               provenance=[prov(entry, line.text, "cjkvi-ids.analysis.semantic")]))
        elif label == "会意":
            for o in ops:
                if o.text != ch:
                    comps.append(Component(name=canonical(o.text, o.position), functions=["表意"],
                                           provenance=[prov(entry, line.text, "cjkvi-ids.analysis.huiyi")]))
        r.components = comps
        r.ids_options.append(IdsOption(ids=line.ids, regions="analysis",
                                       provenance=[prov(entry, line.ids, "cjkvi-ids.analysis.ids")]))
    return [r]


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
