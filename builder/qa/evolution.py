"""COME and EVOI from evidence, by named rules.

No open source gives a ready evolution narrative or per-component evolution types
(ACCE.md section 4), so both are derived here from what the records do hold: the Shuowen
analysis of the small-seal head (``从水工聲``), the Shuowen 重文 (古文 / 籒文 / 或體 / 篆文)
with their own analyses, the modern IDS (cjkvi-ids, makemeahanzi), traditional ->
simplified links (Unihan, cjkvi-ids) and the 古今字 pairs Duan Yucai names in his notes.

Every component type and every narrative sentence names the rule that made it (the
``rule`` of its provenance, one of :data:`RULES`) and cites the evidence spans. A rule
fires only when its evidence is present; a component no rule covers gets no type (and the
QA stage then asks no COME question for that record), never a guess.

Rule priority when several apply to one component: 区别 > 简化 > 繁化 > 讹变 > 保留
(the more specific change wins over plain retention).
"""

from __future__ import annotations

import json
import re
import typing
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable

from builder import aliases
from builder import ids as ids_mod
from builder.schema import Component, GlyphRecord, Provenance, SourceName, Variant
from metrics.acce import labels

# Rule name -> what it asserts and from which evidence. The names appear verbatim in the
# provenance of every derived item and in the dataset cards.
RULES: dict[str, str] = {
    "evolution.attested_obi": "a real oracle-bone image of the character (a scan such as Oracle-MNIST, or a tracing) is among the build's images: the character is attested in 甲骨文 (evidence of EvidenceIndex.attested; no narrative sentence: a bare attestation says nothing of the form, and no source of the build describes an early form)",
    "evolution.attested_bronze": "a real bronze-inscription image of the character (a tracing) is among the build's images: the character is attested in 金文 (evidence only, as evolution.attested_obi)",
    "evolution.attested_seal_image": "a real small-seal image of the character (a tracing) is among the build's images: the character is attested in 篆书 (evidence only, as evolution.attested_obi)",
    "evolution.seal_analysis": "the Shuowen analysis of the small-seal head (从X / Y聲 / 象形 ...) as the seal-stage composition",
    "evolution.shuowen_variant": "a Shuowen 重文 (古文, 籒文, 或體, 篆文 ...) with its analysis, as an attested earlier or parallel form",
    "evolution.modern_is_variant": "the modern character is itself a form Shuowen or cjkvi-ids records as a 重文 of another head",
    "evolution.retention.seal": "保留: the modern component (IDS) is a component of the Shuowen seal analysis (after radical-alias normalisation)",
    "evolution.retention.position_form": "保留: the modern form writes a Shuowen seal component in its position (偏旁) form (邑 as 阝, 示 as 礻, 艸 as 艹, 人 as 亻, 水 as 氵, 玉 as 王: builder.aliases.POSITION_FORMS); one label for all of them",
    "evolution.retention.variant": "保留: the modern component is a component of a Shuowen 古文 / 籒文 / 或體 / 篆文 analysis of the character",
    "evolution.retention.single": "保留: a single-component character whose Shuowen head is the same character, analysed as one component or as a pictograph (象形 / 指事) without components",
    "evolution.retention.trad_simp": "保留: a component of a simplified character that the traditional form's decomposition has unchanged",
    "evolution.simplification.sheng": "简化: Shuowen marks the component as abbreviated (从X省 / X省聲) and the modern form keeps the abbreviated component",
    "evolution.simplification.single": "简化: a single-component simplified character (飞 for 飛, a one-to-one Unihan pair): the whole glyph is the simplified form",
    "evolution.simplification.trad_simp": "简化: in a simplified character, the component that replaces a traditional component is its simplified form (OpenCC / Unihan)",
    "evolution.simplification.character": "a simplified character with its traditional form (Unihan kTraditionalVariant naming exactly one other character / cjkvi-ids 簡体); a character that is its own traditional form too (芸, 机: Shuowen heads) gets no such claim",
    "evolution.traditional_to_simplified": "a traditional character with its simplified form (Unihan kSimplifiedVariant / cjkvi-ids 簡体) in the 通用规范汉字表 (Unihan kTGH), or, when that form is outside the table, the table's form of the character's variant (鎌 -> 鐮 -> 镰)",
    "evolution.elaboration.added_vs_variant": "繁化: the seal head has a component that its Shuowen 古文 / 籒文 lacks while sharing all the others, and the modern form keeps it",
    "evolution.dropped_vs_variant": "a Shuowen 古文 / 籒文 / 或體 has a component the seal and modern forms lack (statement only: no modern component to type)",
    "evolution.differentiation.gujin": "区别: Duan names the pair as 古今字 and the later character adds one component to the earlier one",
    "evolution.corruption.form_equivalent": "讹变: the modern form writes a Shuowen seal component as another component it merged with (the alias table's form equivalents that are not position forms: 㞷 as 主, 肉 as 月, 𧸇 as 賣)",
    "evolution.duan_later_form": "Duan's note on the entry names a later written form: 隸(變)作X (clerical), 俗作X (popular), 今(字)作X (current)",
    "evolution.corruption.substitution": "讹变: exactly one seal component has no counterpart in an otherwise matching modern decomposition of equal size, and no simplification link explains the change",
}

EVOLUTION_PRIORITY = ("区别", "简化", "繁化", "讹变", "保留")

MODERN_SOURCES = frozenset({"cjkvi-ids", "makemeahanzi"})
OLDER_VARIANT_KINDS = ("古文", "籒文")
SEAL_VARIANT_KINDS = ("篆文",)
PARALLEL_VARIANT_KINDS = ("或體", "奇字", "俗字")

_NON_HAN = re.compile(r"[\s\u2ff0-\u2fff\u31ef？?]")

# Early scripts an image can attest, in narrative order, with the rule of each statement.
EARLY_STAGES = ("甲骨文", "金文", "篆书")
ATTESTED_RULES = {"甲骨文": "evolution.attested_obi", "金文": "evolution.attested_bronze",
                  "篆书": "evolution.attested_seal_image"}
# Image styles that are real writing (not a font): scans, tracings of inscriptions, user corpora.
REAL_IMAGE_STYLES = frozenset({"scan", "tracing", "user"})
_SOURCE_NAMES = frozenset(typing.get_args(SourceName))


@lru_cache(maxsize=1)
def _s2t():
    import opencc  # local: keeps `jiezi --help` start-up cheap

    return opencc.OpenCC("s2t")


@lru_cache(maxsize=65536)
def canonical_component(name: str) -> str:
    """Canonical form of a component name for comparisons across sources.

    Removes whitespace and IDCs, maps radical position forms to their character with the
    builder's alias table (``builder.aliases.canonical``: 氵 -> 水, 讠 -> 言 ...; ACCE.md
    section 2), then converts simplified to traditional with OpenCC (贝 -> 貝), so
    Shuowen (traditional) and IDS (either) meet. Returns ``""`` for an empty name.
    """
    name = _NON_HAN.sub("", name or "")
    if not name:
        return ""
    return _s2t().convert(aliases.canonical(name))


@lru_cache(maxsize=262144)
def alias_equal(a: str, b: str) -> bool:
    """The same component written in a position form (氵 and 水, 讠 and 言)."""
    return canonical_component(a) == canonical_component(b)


@lru_cache(maxsize=262144)
def same_component(a: str, b: str) -> bool:
    """Whether two component names denote the same component: equal canonical forms, or
    a form equivalent the modern script writes for an old component (肉 as 月 in 背)."""
    if canonical_component(a) == canonical_component(b):
        return True
    return aliases.same_component(a, b) or aliases.same_component(_s2t().convert(a), _s2t().convert(b))


def _is_simplified_form(simp: str, trad: str) -> bool:
    """True when ``simp`` is a simplified writing of ``trad`` (different forms, same
    canonical component); 氵 vs 水 is a position form, not a simplification."""
    if simp == trad:
        return False
    if canonical_component(simp) != canonical_component(trad):
        return False
    # 氵 vs 水 is a position form (OpenCC leaves it alone); 讠 vs 言 is a simplification
    return _s2t().convert(simp) != simp


@dataclass
class Statement:
    """One sentence of the evolution narrative, with the rule and evidence behind it."""

    rule: str
    zh: str
    en: str
    provenance: list[Provenance]


@dataclass
class ComponentEvolution:
    """The evolution type of one component of the record, with its rule and evidence."""

    name: str
    type: str
    rule: str
    provenance: list[Provenance]


@dataclass
class Evolution:
    """What :func:`derive` found for one record.

    ``components`` maps each typed component name to its :class:`ComponentEvolution`;
    ``statements`` is the evidence-ordered narrative (oldest form first).
    """

    components: dict[str, ComponentEvolution] = field(default_factory=dict)
    statements: list[Statement] = field(default_factory=list)

    def narrative(self, lang: str = "zh") -> str:
        """The narrative as markdown: a bullet list when three or more statements, else
        one paragraph. ``""`` when no rule fired."""
        parts = [s.zh if lang == "zh" else s.en for s in self.statements]
        if not parts:
            return ""
        if len(parts) >= 3:
            return "\n".join(f"- {p}" for p in parts)
        sep = "；" if lang == "zh" else "; "
        text = sep.join(p.rstrip("。.") for p in parts)
        return text + ("。" if lang == "zh" else ".")

    def provenance(self) -> list[Provenance]:
        """Every statement's evidence, deduplicated, in statement order."""
        out: list[Provenance] = []
        seen: set[tuple] = set()
        for s in self.statements:
            for p in s.provenance:
                key = (p.source, p.entry_id, p.span, p.rule)
                if key not in seen:
                    seen.add(key)
                    out.append(p)
        return out

    def rules(self) -> list[str]:
        """Names of the rules that fired (statements and component types)."""
        names = [s.rule for s in self.statements] + [c.rule for c in self.components.values()]
        return sorted(set(names))


def _cite(provs: Iterable[Provenance], rule: str) -> list[Provenance]:
    """Copy evidence provenance with ``rule`` set to the derivation rule."""
    out, seen = [], set()
    for p in provs:
        key = (p.source, p.entry_id, p.span)
        if key in seen:
            continue
        seen.add(key)
        out.append(Provenance(source=p.source, entry_id=p.entry_id, span=p.span, rule=rule))
    return out


# --- evidence index --------------------------------------------------------------------

_HAN = r"[\u3400-\u4dbf\u4e00-\u9fff\U00020000-\U0003134f]"
_GUJIN = re.compile(rf"({_HAN})[、]?({_HAN})(?:爲|為)?古今字")


@dataclass
class _Seal:
    name: str          # as Shuowen writes it (水, not 氵)
    canon: str
    functions: list[str]
    provenance: list[Provenance]
    sheng: bool


@dataclass
class _VariantAnalysis:
    form: str
    kind: str
    analysis: str
    canon: set[str]
    provenance: list[Provenance]
    partial: bool = False  # the analysis abbreviates a component (从言省): parts not all named


class EvidenceIndex:
    """Cross-record evidence: records by character, parsed Shuowen entries, Duan's 古今字
    pairs and oracle-bone attestations.

    ``duan``: optional ``Shuowen entry id -> Duan's notes raw text`` (the ``duan:<id>``
    text of builder/sources/adapters/shuowen.py) for every entry, not just those the records cite.

    Built once from all records (``O(total raw text)``); :func:`derive` reads it for the
    sibling records of a character (the seal analysis of a simplified character lives on
    its traditional form's records).
    """

    def __init__(self, records: Iterable[GlyphRecord], duan: dict[str, str] | None = None,
                 modern: "ModernForms | None" = None):
        self.by_char: dict[str, list[GlyphRecord]] = defaultdict(list)
        # later character -> [(earlier character, provenance of Duan's statement)]
        self.gujin: dict[str, list[tuple[str, Provenance]]] = defaultdict(list)
        # character -> early script -> provenance of a real image (scan / tracing) of it
        self.attested: dict[str, dict[str, list[Provenance]]] = defaultdict(dict)
        self.shuowen: dict[str, dict] = {}
        self.duan_notes: dict[str, str] = {}
        self.modern = modern
        # Unihan readings (builder.qa.soundgloss.Readings) set by the QA stage; None: the
        # composer reads the records' own readings
        self.readings = None
        self.memo: dict[tuple, object] = {}  # per-character analyses, shared by sibling records
        duan_texts: dict[str, str] = {}
        for rec in records:
            self.by_char[rec.character].append(rec)
            if rec.script in EARLY_STAGES:
                img = next((im for im in rec.images if im.style in REAL_IMAGE_STYLES), None)
                if img is not None:
                    src = img.source.split(":", 1)[0]
                    self.attested[rec.character].setdefault(rec.script, []).append(Provenance(
                        source=src if src in _SOURCE_NAMES else "user",
                        entry_id=img.id, span=f"{rec.character} ({rec.script})", rule=ATTESTED_RULES[rec.script]))
            for key, text in rec.raw.items():
                src, _, entry_id = key.partition(":")
                if src == "shuowen" and "wordhead" not in self.shuowen.get(key, {}):
                    parsed = parse_shuowen_raw(text)
                    if parsed.get("duan"):  # upstream JSON carries Duan's notes inline
                        duan_texts.setdefault(entry_id, "\n".join(parsed["duan"]))
                    self.shuowen[key] = {**self.shuowen.get(key, {}), **parsed}
                elif src == "duan":
                    duan_texts[entry_id] = text
                    self.shuowen.setdefault(f"shuowen:{entry_id}", {}).setdefault(
                        "duan", [q for q, _ in parse_duan_raw(text)])
        # Duan's notes of every Shuowen entry (``entry id -> raw text``, from the source
        # cache): the records keep only the notes they cite
        for entry_id, text in (duan or {}).items():
            duan_texts[entry_id] = text
            self.shuowen.setdefault(f"shuowen:{entry_id}", {})["duan"] = [q for q, _ in parse_duan_raw(text)]
        self.duan_notes = duan_texts
        for entry_id, text in duan_texts.items():
            for m in _GUJIN.finditer(text):
                early, late = m.group(1), m.group(2)
                if early != late:
                    self.gujin[late].append((early, Provenance(
                        source="duan", entry_id=entry_id, span=m.group(0),
                        rule="evolution.differentiation.gujin")))

    @property
    def obi(self) -> dict[str, list[Provenance]]:
        """Character -> provenance of its real oracle-bone images (see ``attested``)."""
        return {c: d["甲骨文"] for c, d in self.attested.items() if "甲骨文" in d}

    def records(self, char: str) -> list[GlyphRecord]:
        """All records (every script) of ``char``."""
        return self.by_char.get(char, [])

    def shuowen_entry(self, entry_id: str) -> dict:
        """The parsed Shuowen entry kept in some record's ``raw`` (``{}`` if unknown)."""
        return self.shuowen.get(f"shuowen:{entry_id}", {})


def parse_shuowen_raw(text: str) -> dict:
    """A Shuowen entry's raw text -> ``{"wordhead", "explanation", "variants": [{"wordhead",
    "explanation"}]}``. Reads the records' line format (``字頭\t江`` / ``說解\t...`` /
    ``重文\t<form>\t<text>``, builder/sources/adapters/shuowen.py) and the upstream JSON."""
    text = text or ""
    if text.lstrip().startswith("{"):
        try:
            obj = json.loads(text)
            return {"wordhead": obj.get("wordhead", ""), "explanation": obj.get("explanation", ""),
                    "variants": [{"wordhead": v.get("wordhead", ""), "explanation": v.get("explanation", "")}
                                 for v in obj.get("variants") or []],
                    "duan": [f"{d.get('explanation', '')}\t{d.get('note', '')}" for d in obj.get("duan_notes") or []]}
        except ValueError:
            pass
    out: dict = {"wordhead": "", "explanation": "", "variants": []}
    for line in text.splitlines():
        label, _, rest = line.partition("\t")
        if label == "字頭":
            out["wordhead"] = rest.strip()
        elif label == "說解":
            out["explanation"] = rest.strip()
        elif label == "重文":
            form, _, expl = rest.partition("\t")
            out["variants"].append({"wordhead": form.strip(), "explanation": expl.strip()})
    return out


def parse_duan_raw(text: str) -> list[tuple[str, str]]:
    """Duan's notes raw text (``引\t<quoted Shuowen text>`` / ``注\t<note>`` lines) ->
    ``[(quote, note)]``."""
    pairs: list[tuple[str, str]] = []
    quote = None
    for line in (text or "").splitlines():
        label, _, rest = line.partition("\t")
        if label == "引":
            if quote is not None:
                pairs.append((quote, ""))
            quote = rest.strip()
        elif label == "注":
            pairs.append((quote or "", rest.strip()))
            quote = None
    if quote is not None:
        pairs.append((quote, ""))
    return pairs


@dataclass
class ModernForms:
    """Modern-form facts from Unihan: the 通用规范汉字表 (2013) characters (``kTGH``) and
    each character's simplified variants (``kSimplifiedVariant``) with the raw line.

    ``standard``: characters of the table; ``simplified_of``: character -> (simplified
    form, Unihan line). Built by :func:`builder.qa.stage.load_modern_forms`.
    """

    standard: frozenset[str]
    simplified_of: dict[str, tuple[str, str]]

    def is_standard(self, ch: str) -> bool:
        """Whether ``ch`` is in the 通用规范汉字表 (an empty table accepts every form)."""
        return not self.standard or ch in self.standard

    def simplified(self, ch: str) -> tuple[str, list[Provenance]] | None:
        """(simplified form, provenance) of ``ch`` when Unihan gives exactly one other form."""
        got = self.simplified_of.get(ch)
        if got is None:
            return None
        form, line = got
        return form, [Provenance(source="unihan", entry_id=f"U+{ord(ch):04X}", span=line,
                                 rule="evolution.traditional_to_simplified")]


def strip_inherited(records: Iterable[GlyphRecord]) -> int:
    """Remove from each record the Shuowen / Duan evidence it inherited from the entry of
    another head of which its character is only a 重文 (隼 is the 或體 of 鵻: 鵻's 形声,
    隹 表音 and zhuī are not 隼's). The entry stays in ``raw`` (the narrative may say whose
    重文 the character is). Modifies the records in place; returns the number of values
    removed (fields, components, readings)."""
    n = 0
    for rec in records:
        own = {rec.character, rec.form, rec.traditional, rec.simplified} - {None}
        foreign = set()
        for key, text in rec.raw.items():
            src, _, entry_id = key.partition(":")
            if src != "shuowen":
                continue
            e = parse_shuowen_raw(text)
            if e.get("wordhead") and e["wordhead"] not in own and any(
                    v.get("wordhead") in own for v in e.get("variants", [])):
                foreign.add(entry_id)
        if foreign:
            n += _drop_entries(rec, foreign)
    return n


def _drop_entries(rec: GlyphRecord, entries: set[str]) -> int:
    def keep(provs):
        return [p for p in provs if not (p.source in ("shuowen", "duan") and p.entry_id in entries)]

    n = 0
    for fld in ("structure", "formation", "original_meaning", "evolution"):
        g = getattr(rec, fld)
        if g is None:
            continue
        kept = keep(g.provenance)
        if len(kept) != len(g.provenance):
            n += 1
            left = {p.source for p in kept}
            setattr(rec, fld, g.model_copy(update={
                "provenance": kept, "agree": [a for a in g.agree if a in left]}) if kept else None)
    comps = []
    for c in rec.components:
        kept = keep(c.provenance)
        if len(kept) != len(c.provenance):
            n += 1
        if kept:
            comps.append(c.model_copy(update={"provenance": kept, "agree": [a for a in c.agree if a in {p.source for p in kept}]}))
    rec.components = comps
    readings = []
    for r in rec.readings:
        kept = keep(r.provenance)
        if kept:
            readings.append(r.model_copy(update={"provenance": kept}))
        else:
            n += 1
    rec.readings = readings
    return n


def _sources_of(provs: Iterable[Provenance]) -> set[str]:
    return {p.source for p in provs}


def modern_components(record: GlyphRecord) -> list[Component]:
    """The record's components read off the modern IDS (cjkvi-ids / makemeahanzi)."""
    return [c for c in record.components if _sources_of(c.provenance) & MODERN_SOURCES]


def _describes_modern(record: GlyphRecord) -> bool:
    """Whether the record's components describe the modern character itself (the 篆书
    record of 明 describes Shuowen's seal form 朙: ``form`` says so)."""
    return not record.form or record.form == record.character


def _char_modern(index: EvidenceIndex, record: GlyphRecord) -> list[Component]:
    """Modern IDS components of the record's character: its own, else a sibling's that
    describes the modern form."""
    if _describes_modern(record):
        own = modern_components(record)
        if own:
            return own
    for rec in index.records(record.character):
        if rec is not record and _describes_modern(rec):
            comps = modern_components(rec)
            if comps:
                return comps
    return []


def _in_head(index: EvidenceIndex, p: Provenance) -> bool:
    """Whether a Shuowen span belongs to the head entry's own analysis (not a 重文's)."""
    entry = index.shuowen_entry(p.entry_id)
    if not entry:
        return not p.rule.endswith("variant")
    if p.span in entry.get("explanation", ""):
        return True
    return not any(p.span in (v.get("explanation") or "") for v in entry.get("variants", []))


def _shuowen_name(name: str, spans: list[str]) -> str:
    """The component as Shuowen writes it in ``spans`` (氵 -> 水 when the span says 从水)."""
    for span in spans:
        if name in span:
            return name
    for span in spans:
        for ch in span:
            if ch not in "从從聲声省亦也象形。，、" and same_component(ch, name):
                return ch
    return name


def _seal_analysis(index: EvidenceIndex, char: str, sources: frozenset[str]) -> tuple[str, list[_Seal]]:
    """(head form, components) of the Shuowen head analysis of ``char`` (any record),
    memoised per character in the index."""
    key = ("seal", char, sources)
    if key not in index.memo:
        index.memo[key] = _seal_analysis_uncached(index, char, sources)
    return index.memo[key]


def _seal_analysis_uncached(index: EvidenceIndex, char: str, sources: frozenset[str]) -> tuple[str, list[_Seal]]:
    if "shuowen" not in sources:
        return char, []
    out: dict[str, _Seal] = {}
    head = char
    for rec in index.records(char):
        for c in rec.components:
            sw = [p for p in c.provenance if p.source == "shuowen" and _in_head(index, p)]
            if not sw:
                continue
            entry = index.shuowen_entry(sw[0].entry_id)
            head = entry.get("wordhead") or rec.form or head
            name = _shuowen_name(c.name, [p.span for p in sw])
            canon = canonical_component(name)
            sheng = any(f"{name}省" in p.span for p in sw)
            if canon in out:
                out[canon].provenance.extend(p for p in sw if p not in out[canon].provenance)
            else:
                out[canon] = _Seal(name, canon, list(c.functions), list(sw), sheng)
    return head, list(out.values())


# 从言省 / 微省聲: the variant writes a component abbreviated (not 古文省雨: it omits 雨)
_ABBREVIATES = re.compile(rf"{_HAN}省(?!{_HAN})|省[聲声]")
_CONG = re.compile(rf"[从從]({_HAN})")
_SHENG = re.compile(rf"({_HAN})(?:省)?[聲声]")


def _variant_canon(v: Variant, seal: list[_Seal]) -> set[str]:
    if v.components:
        return {canonical_component(c.name) for c in v.components}
    text = v.analysis or ""
    names = [n for n in _CONG.findall(text) + _SHENG.findall(text) if n not in "省亦"]
    if names:
        return {canonical_component(n) for n in names}
    # "古文省雨" (雲 -> 云): the variant form is itself one of the seal components
    form = canonical_component(v.form)
    if any(s.canon == form for s in seal):
        return {form}
    return set()


def _variants(index: EvidenceIndex, char: str, sources: frozenset[str],
              seal: list[_Seal]) -> list[_VariantAnalysis]:
    key = ("variants", char, sources)
    if key not in index.memo:
        index.memo[key] = _variants_uncached(index, char, sources, seal)
    return index.memo[key]


def _variants_uncached(index: EvidenceIndex, char: str, sources: frozenset[str],
                       seal: list[_Seal]) -> list[_VariantAnalysis]:
    out: dict[tuple[str, str], _VariantAnalysis] = {}
    for rec in index.records(char):
        for v in rec.variants:
            provs = [p for p in v.provenance if p.source in sources]
            # narrated as 《说文》收…: only a 重文 Shuowen itself records. cjkvi-ids lists the
            # same 古文 again under other code points (肰: 𥇃 and 𦛡) and adds 俗字 rows
            # Shuowen lacks (事: 亊); those stay in the record, not in the narrative.
            if not any(p.source == "shuowen" for p in provs) or v.kind in ("繁體", "簡体", "異體"):
                continue
            key = (v.form, v.kind)
            if key not in out and not any(k[0] == v.form for k in out):  # one kind per form
                text = (v.analysis or "").strip()
                out[key] = _VariantAnalysis(v.form, v.kind, text, _variant_canon(v, seal), provs,
                                            partial=_ABBREVIATES.search(text) is not None)
    return list(out.values())


def _trad_simp(record: GlyphRecord, kind: str, sources: frozenset[str],
               index: EvidenceIndex | None = None) -> tuple[str, list[Provenance]] | None:
    """The traditional (kind 繁體) or simplified (簡体) form with provenance, if any.

    Prefers the form named by ``record.traditional`` / ``record.simplified``, then a form
    that has records of its own (its analysis is needed), then the first one listed."""
    wanted = record.traditional if kind == "繁體" else record.simplified
    found = []
    for v in record.variants:
        if v.kind == kind and v.form != record.character:
            if not all(_one_to_one(record.character, p) for p in v.provenance):
                continue  # Unihan says the character is its own traditional form too (机, 芸)
            provs = [p for p in v.provenance if p.source in sources | {"unihan", "cjkvi-ids"}]
            if provs:
                found.append((v.form, provs))
    if not found:
        return None
    found.sort(key=lambda fp: (fp[0] != wanted, not (index and index.records(fp[0]))))
    return found[0]


_UNIHAN_LINK = re.compile(r"k(?:Traditional|Simplified)Variant\t(.+)$")


def _one_to_one(char: str, p: Provenance) -> bool:
    """Whether a Unihan traditional/simplified link is one-to-one: it names exactly one
    character and not ``char`` itself (芸: kTraditionalVariant 芸 蕓 says 芸 is a traditional
    character in its own right, so 芸 is no simplification of 蕓). Other sources pass."""
    m = _UNIHAN_LINK.search(p.span) if p.source == "unihan" else None
    if m is None:
        return True
    forms = [f for f in m.group(1).split() if f.startswith("U+")]
    return len(forms) == 1 and _cp(forms[0]) != char


def _cp(code: str) -> str:
    try:
        return chr(int(code[2:].split("<")[0], 16))
    except ValueError:
        return ""


def ids_operands(record: GlyphRecord) -> list[tuple[str, Provenance]]:
    """First-level IDS operands of the record's own form, with the IDS provenance
    (``[]`` when the record has no IDS or it does not parse)."""
    if record.ids is None:
        return []
    try:
        ops = ids_mod.first_level(record.ids.value)
    except ids_mod.IDSError:
        return []
    prov = record.ids.provenance[0]
    return [(o.text, prov) for o in ops if o.is_character]


def written_as(record: GlyphRecord, name: str) -> tuple[str, Provenance] | None:
    """How the record's IDS writes component ``name`` when it writes it differently
    (水 as 氵, 言 as 讠), else None."""
    for text, prov in ids_operands(record):
        if text != name and same_component(text, name):
            return text, prov
    return None


@dataclass(frozen=True)
class DrawnPart:
    """A component a source names in full though the glyph draws only part of it (省).

    ``full``: the component as the analysis names it (蠆 in 癘 「蠆省聲」); ``drawn``: the
    IDS operand that the glyph shows in its place (萬); ``span``: the source text stating
    the abbreviation; ``provenance``: that text's and the IDS's provenance."""

    full: str
    drawn: str
    span: str
    provenance: tuple[Provenance, ...]


def _sheng_span(comp: Component) -> Provenance | None:
    """The provenance whose span marks ``comp`` as abbreviated (蠆省聲, 从和省), or None."""
    forms = {comp.name, canonical_component(comp.name)}
    return next((p for p in comp.provenance for n in forms if f"{n}省" in p.span), None)


def _part_of(drawn: str, full: str, index: "EvidenceIndex | None") -> bool | None:
    """Whether ``drawn`` is a part of ``full``'s IDS (萬 in 蠆 ⿱萬虫); None when no record
    of ``full`` gives an IDS to check."""
    for rec in (index.records(full) if index is not None else []):
        if rec.ids is not None:
            parts = {canonical_component(ch) for ch in rec.ids.value}
            return canonical_component(drawn) in parts or drawn in rec.ids.value
    return None


def abbreviated_parts(record: GlyphRecord, index: "EvidenceIndex | None" = None
                      ) -> tuple[dict[str, DrawnPart], list[str]]:
    """The 省 components of ``record`` and what its glyph draws for each.

    A component is abbreviated when one of its provenance spans reads ``X省`` (Shuowen
    「蠆省聲」, 「从和省」). When the record's first-level IDS operands do not include it, the
    part drawn in its place is the one operand no other component accounts for that is a
    part of X's own IDS (萬 of 蠆 ⿱萬虫 in 癘 ⿸疒萬; 禾 of 和 in 利; 氏 of 氐 in 昏). Without an
    IDS of X to check, a single leftover operand for a single leftover 省 component is
    taken. Only when every other component is an operand as it stands (具 ⿱⿴且一八 draws
    neither 廾 nor 貝 as an operand: nothing is located). Returns ``({full name: DrawnPart}, [full names that could not be located])``;
    an abbreviated component the IDS draws in full is in neither (the glyph shows it)."""
    ops = ids_operands(record)
    names = [c.name for c in record.components]
    free_ops = [(t, p) for t, p in ops if not any(same_component(t, n) for n in names)]
    located: dict[str, DrawnPart] = {}
    unlocated: list[str] = []
    waiting = []
    for comp in record.components:
        sp = _sheng_span(comp)
        if sp is None or any(same_component(t, comp.name) for t, _ in ops):
            continue
        waiting.append((comp, sp))
    others_drawn = all(any(same_component(t, c.name) for t, _ in ops)
                       for c in record.components if c not in [w for w, _ in waiting])
    for comp, sp in waiting:
        if not others_drawn:  # 具 ⿱⿴且一八: 廾 is not an operand either, so 八 is no part of 貝
            unlocated.append(comp.name)
            continue
        fits = [(t, p) for t, p in free_ops if _part_of(t, comp.name, index) is not False]
        checked = [(t, p) for t, p in fits if _part_of(t, comp.name, index)]
        pick = checked if checked else (fits if len(waiting) == 1 else [])
        if len(pick) == 1 and not any(d.drawn == pick[0][0] for d in located.values()):
            located[comp.name] = DrawnPart(comp.name, pick[0][0], sp.span, (sp, pick[0][1]))
        else:
            unlocated.append(comp.name)
    return located, unlocated


def _fmt_analysis(seal: list[_Seal]) -> tuple[str, str]:
    """'从水，工声' / 'from 水, with 工 as phonetic' from typed seal components."""
    sem = [s for s in seal if "表音" not in s.functions]
    pho = [s for s in seal if "表音" in s.functions]
    zh_parts, en_parts = [], []
    if sem:
        # an abbreviated component keeps its 省 (从和省), never read as the whole
        zh_parts.append("从" + "、从".join(s.name + ("省" if s.sheng else "") for s in sem))
        en_parts.append("from " + " and ".join(s.name + (" (abbreviated)" if s.sheng else "") for s in sem))
    for s in pho:
        both = "表意" in s.functions
        # 夜 「亦省聲」 is 亦 abbreviated as phonetic, not 亦声
        zh_parts.append(f"{s.name}{'省' if s.sheng else ''}{'亦' if both else ''}声")
        en_parts.append(f"{s.name}{' (abbreviated)' if s.sheng else ''} as phonetic{' (also semantic)' if both else ''}")
    return "，".join(zh_parts), ", ".join(en_parts)


_DEPICTS = re.compile(rf"象{_HAN}[^，。；]*?之?形")
_ANALYSIS_ONLY = re.compile(rf"^(?:[从從]{_HAN}+|{_HAN}(?:亦|省)?[聲声]|[，、；\s])+$")


def _bare_analysis(quote: str) -> bool:
    """Whether a Shuowen quotation is only the composition formula (从水工聲, 从日从月):
    no explanation, no 省 (which the 省 statement states)."""
    return "省" not in quote and _ANALYSIS_ONLY.match(quote) is not None


@dataclass
class _Ctx:
    """What one :func:`derive` call reads (the evidence) and builds (types, statements);
    each rule step of :data:`DERIVE_STEPS` reads it and adds to it."""

    record: GlyphRecord
    index: EvidenceIndex
    sources: frozenset[str]
    comps: list[Component]
    modern: list[Component]
    modern_is_record: bool
    trad: tuple[str, list[Provenance]] | None
    simp: tuple[str, list[Provenance]] | None
    base: str
    head: str
    seal: list[_Seal]
    variants: list[_VariantAnalysis]
    single: bool
    evo: Evolution = field(default_factory=Evolution)
    candidates: dict[str, list[ComponentEvolution]] = field(default_factory=lambda: defaultdict(list))
    pictograph: list[Provenance] = field(default_factory=list)
    trad_modern: list[Component] = field(default_factory=list)
    retained: list[tuple[str, str]] = field(default_factory=list)
    simp_changes: list[tuple[str, str]] = field(default_factory=list)

    @property
    def char(self) -> str:
        return self.record.character

    @property
    def seal_canon(self) -> set[str]:
        return {s.canon for s in self.seal}

    def add_type(self, name: str, typ: str, rule: str, provs: Iterable[Provenance]) -> None:
        self.candidates[name].append(ComponentEvolution(name, typ, rule, _cite(provs, rule)))

    def say(self, rule: str, zh: str, en: str, provs: Iterable[Provenance]) -> None:
        self.evo.statements.append(Statement(rule, zh, en, _cite(provs, rule)))


def _context(record: GlyphRecord, index: EvidenceIndex, sources: frozenset[str]) -> _Ctx:
    trad = _trad_simp(record, "繁體", sources, index)
    own_head, own_seal = _seal_analysis(index, record.character, sources)
    if trad and own_seal and own_head == record.character:
        # a Shuowen head of its own (升 十龠也, 後 遲也) is another word than its Unihan partner
        # (昇, 后): its evolution is its own entry's, with no 繁体 -> 简化 step
        trad = None
    base = trad[0] if trad else record.character  # Shuowen analyses the traditional form
    head, seal = (own_head, own_seal) if base == record.character else _seal_analysis(index, base, sources)
    modern = _char_modern(index, record)
    ctx = _Ctx(record=record, index=index, sources=sources,
               comps=[c for c in record.components if _sources_of(c.provenance) & sources],
               modern=modern, modern_is_record=_describes_modern(record) and bool(modern_components(record)),
               trad=trad, simp=_trad_simp(record, "簡体", sources, index), base=base, head=head, seal=seal,
               variants=_variants(index, base, sources, seal),
               single=len(seal) == 1 and seal[0].canon == canonical_component(base))
    if trad:
        for rec in index.records(trad[0]):
            ctx.trad_modern = modern_components(rec)
            if ctx.trad_modern:
                break
    return ctx


def _rule_older_variants(ctx: _Ctx) -> None:
    """Shuowen 古文 / 籒文, before the seal."""
    for v in ctx.variants:
        if v.kind in OLDER_VARIANT_KINDS:
            ctx.evo.statements.append(_variant_statement(v))


def _rule_seal(ctx: _Ctx) -> None:
    """The small-seal head and its Shuowen analysis."""
    if not ctx.seal:
        return
    provs = _cite([p for x in ctx.seal for p in x.provenance], "evolution.seal_analysis")
    quote = "；".join(dict.fromkeys(p.span for p in provs))
    a_zh, a_en = _fmt_analysis(ctx.seal)
    if ctx.single:
        zh = f"小篆「{ctx.head}」为独体，《说文》：「{quote}」"
        en = f"In small seal script {ctx.head} is a single-component character (Shuowen: {quote})"
    elif _bare_analysis(quote):
        # the composition itself, as a dictionary states it (从水，工声): the quotation would
        # only repeat it
        zh = f"小篆作「{ctx.head}」，《说文》析为{a_zh}"
        en = f"In small seal script the form is {ctx.head}, which Shuowen analyses as {a_en} ({quote})"
    else:
        zh = f"小篆作「{ctx.head}」，{a_zh}（《说文》：「{quote}」）"
        en = f"In small seal script the form is {ctx.head}, {a_en} (Shuowen: {quote})"
    ctx.evo.statements.append(Statement("evolution.seal_analysis", zh, en, provs))


def _rule_pictograph(ctx: _Ctx) -> None:
    """A single pictograph Shuowen analyses without components (月: 象形)."""
    rec = ctx.record
    if (ctx.seal or "shuowen" not in ctx.sources or rec.structure is None or rec.structure.value != "独体"
            or rec.formation is None or rec.formation.value.label not in ("象形", "指事")):
        return
    sw = [p for p in rec.formation.provenance if p.source == "shuowen"]
    if not sw or ctx.index.shuowen_entry(sw[0].entry_id).get("wordhead", ctx.base) not in (ctx.base, ctx.char):
        return
    ctx.pictograph = sw
    label = rec.formation.value.label
    quote = "；".join(dict.fromkeys(p.span for p in sw))
    depicts = next((m.group(0) for p in sw if (m := _DEPICTS.search(p.span))), None)
    # what the pictograph draws, where Shuowen says (象馬頭髦尾四足之形), is the content
    zh = (f"小篆「{ctx.base}」为独体{label}字，{depicts}（《说文》：「{quote}」）" if depicts
          else f"小篆「{ctx.base}」为独体{label}字，《说文》：「{quote}」")
    ctx.say("evolution.seal_analysis", zh,
            f"In small seal script {ctx.base} is a single-component {label} character (Shuowen: {quote})", sw)
    if ctx.trad and ctx.char != ctx.base:
        # a simplified pictograph (飞 for 飛): the whole glyph is simplified, not kept
        rule = "evolution.simplification.single"
        ctx.candidates[ctx.char].append(ComponentEvolution(
            ctx.char, "简化", rule, _cite(list(ctx.trad[1]) + sw + list(rec.structure.provenance), rule)))
        return
    ce = ComponentEvolution(ctx.char, "保留", "evolution.retention.single",
                            _cite(sw + list(rec.structure.provenance), "evolution.retention.single"))
    ctx.candidates[ctx.char].append(ce)
    ctx.evo.statements.append(Statement(
        "evolution.retention.single", f"今字形「{ctx.char}」仍为独体",
        f"the modern form {ctx.char} is still a single-component character", ce.provenance))


def _rule_parallel_variants(ctx: _Ctx) -> None:
    """Shuowen 或體 / 篆文 / 俗字, after the seal."""
    for v in ctx.variants:
        if v.kind not in OLDER_VARIANT_KINDS:
            ctx.evo.statements.append(_variant_statement(v))


def _rule_modern_is_variant(ctx: _Ctx) -> None:
    """The modern character is a recorded 重文 of another head (明 = 古文 of 朙)."""
    for rec in ctx.index.records(ctx.char):
        for v in rec.variants:
            if v.form != ctx.char or v.kind not in OLDER_VARIANT_KINDS + SEAL_VARIANT_KINDS + PARALLEL_VARIANT_KINDS:
                continue
            provs = [p for p in v.provenance if p.source in ctx.sources]
            if provs and ctx.head != ctx.char:
                ctx.say("evolution.modern_is_variant", f"今字形「{ctx.char}」即《说文》「{ctx.head}」字下所录{v.kind}",
                        f"the modern form {ctx.char} is the {v.kind} form recorded under Shuowen's {ctx.head}", provs)
                return
    if "shuowen" not in ctx.sources or ctx.seal or ctx.pictograph:
        return
    for rec in ctx.index.records(ctx.char):  # 隼: the 或體 of 鵻, whose analysis is not 隼's
        for key, text in rec.raw.items():
            src, _, entry_id = key.partition(":")
            e = ctx.index.shuowen_entry(entry_id) if src == "shuowen" else {}
            v = next((v for v in e.get("variants", []) if v.get("wordhead") == ctx.char), None)
            if v is None or e.get("wordhead") in (None, "", ctx.char):
                continue
            expl = re.sub(r"<[^>]+>|\[[^\]]*\]|\s+", "", v.get("explanation") or "").split("。")[0]
            kind = _chongwen_kind(expl)
            prov = Provenance(source="shuowen", entry_id=entry_id, span=v.get("explanation") or ctx.char,
                              rule="evolution.modern_is_variant")
            ctx.say("evolution.modern_is_variant",
                    f"「{ctx.char}」为《说文》「{e['wordhead']}」字下所录{kind}" + (f"（{expl}）" if expl else ""),
                    f"{ctx.char} is the {kind} form recorded under Shuowen's {e['wordhead']}" + (f" ({expl})" if expl else ""),
                    [prov])
            return


def _chongwen_kind(expl: str) -> str:
    """The kind of a Shuowen 重文 from its explanation's opening (古文 / 籒文 / 或體 ...)."""
    for opening, kind in (("古文", "古文"), ("籒文", "籒文"), ("籀文", "籒文"), ("篆文", "篆文"),
                          ("俗", "俗字"), ("或", "或體"), ("奇字", "奇字")):
        if opening in expl[:len(opening) + 2]:
            return kind
    return "重文"


def _type_simplified(ctx: _Ctx, comp: Component) -> bool:
    """简化 of one component of a simplified character; True when it typed ``comp``."""
    if not ctx.trad:
        return False
    w = written_as(ctx.record, comp.name)
    if w is not None and _is_simplified_form(w[0], comp.name):
        ctx.add_type(comp.name, "简化", "evolution.simplification.trad_simp",
                     list(ctx.trad[1]) + comp.provenance + [w[1]])
        ctx.simp_changes.append((comp.name, w[0]))
        return True
    if ctx.trad_modern and not any(t.name == comp.name for t in ctx.trad_modern):
        t = next((t for t in ctx.trad_modern if _is_simplified_form(comp.name, t.name)), None)
        if t is not None:
            ctx.add_type(comp.name, "简化", "evolution.simplification.trad_simp",
                         list(ctx.trad[1]) + comp.provenance + t.provenance)
            ctx.simp_changes.append((t.name, comp.name))
            return True
    return False


def _type_against_seal(ctx: _Ctx, comp: Component, s: _Seal) -> None:
    """保留 / 简化 (省) / 讹变 of a modern component that continues seal component ``s``."""
    written = written_as(ctx.record, comp.name) if _describes_modern(ctx.record) else None
    now = comp.name if not alias_equal(s.name, comp.name) else (
        written[0] if written and not alias_equal(written[0], comp.name) else None)
    if s.sheng:
        ctx.add_type(comp.name, "简化", "evolution.simplification.sheng", s.provenance + comp.provenance)
    elif now is not None and not aliases.is_position_form(s.name, now):
        # the modern form writes the seal component as another character (㞷 as 主,
        # 肉 as 月): a merger of shapes, not the same component kept
        provs = s.provenance + comp.provenance + ([written[1]] if written else [])
        ctx.add_type(comp.name, "讹变", "evolution.corruption.form_equivalent", provs)
        ctx.say("evolution.corruption.form_equivalent", f"篆文之「{s.name}」，今字形写作「{now}」，二形相混（讹变）",
                f"the seal component {s.name} is written {now} in the modern form", provs)
    elif ctx.single and len(ctx.comps) == 1 and ctx.trad and ctx.char != ctx.base:
        # a simplified single-component character (飞 for 飛): the whole glyph is simplified
        ctx.add_type(comp.name, "简化", "evolution.simplification.single",
                     list(ctx.trad[1]) + s.provenance + comp.provenance)
    elif ctx.single and len(ctx.comps) == 1:
        ctx.add_type(comp.name, "保留", "evolution.retention.single", s.provenance + comp.provenance)
    elif now is not None or aliases.is_position_form(s.name, written[0] if written else comp.name):
        # a position form (邑 as 阝, 玉 as 王, 示 as 礻): the component is kept
        provs = s.provenance + comp.provenance + ([written[1]] if written else [])
        ctx.add_type(comp.name, "保留", "evolution.retention.position_form", provs)
        ctx.retained.append((s.name, comp.name))
    else:
        ctx.add_type(comp.name, "保留", "evolution.retention.seal", s.provenance + comp.provenance)
        ctx.retained.append((s.name, comp.name))


def _rule_component_types(ctx: _Ctx) -> None:
    """One evolution type per record component from the seal, variant and trad/simp evidence."""
    for comp in ctx.comps:
        if _type_simplified(ctx, comp):
            continue
        in_modern = any(same_component(comp.name, m.name) for m in ctx.modern)
        s = next((x for x in ctx.seal if same_component(x.name, comp.name)), None)
        if s is not None and in_modern:
            _type_against_seal(ctx, comp, s)
            continue
        if not in_modern:
            continue
        v = next((v for v in ctx.variants if canonical_component(comp.name) in v.canon), None)
        if v is not None:
            ctx.add_type(comp.name, "保留", "evolution.retention.variant", v.provenance + comp.provenance)
            ctx.retained.append((canonical_component(comp.name), comp.name))
        elif ctx.trad:
            t = next((t for t in ctx.trad_modern if t.name == comp.name), None)
            if t is not None:
                ctx.add_type(comp.name, "保留", "evolution.retention.trad_simp",
                             list(ctx.trad[1]) + comp.provenance + t.provenance)


def _rule_variant_comparison(ctx: _Ctx) -> None:
    """繁化: the seal head adds one component to an older variant sharing the rest; and the
    components an older variant has that the seal and modern forms lack. A variant whose
    analysis abbreviates a component (信's 古文 㐰 从言省, 䉠's 籒文 从微省) does not list
    all its parts, so it is never compared."""
    modern_canon = {canonical_component(m.name) for m in ctx.modern}
    seal_canon = ctx.seal_canon
    for v in ctx.variants:
        if v.kind not in OLDER_VARIANT_KINDS or not v.canon or v.partial:
            continue
        added = seal_canon - v.canon
        if v.canon < seal_canon and len(added) == 1:
            s_added = next(s for s in ctx.seal if s.canon in added)
            for comp in ctx.comps:
                if same_component(comp.name, s_added.name) and canonical_component(comp.name) in modern_canon:
                    ctx.add_type(comp.name, "繁化", "evolution.elaboration.added_vs_variant",
                                 v.provenance + s_added.provenance + comp.provenance)
            ctx.say("evolution.elaboration.added_vs_variant",
                    f"较{v.kind}「{v.form}」，篆文「{ctx.head}」增加了「{s_added.name}」",
                    f"compared with the {v.kind} form {v.form}, the seal form {ctx.head} adds {s_added.name}",
                    v.provenance + s_added.provenance)
        dropped = v.canon - seal_canon - modern_canon
        if ctx.seal and ctx.modern and dropped and not v.canon < seal_canon:
            names = "、".join(f"「{_as_written(d, v.analysis)}」" for d in sorted(dropped))
            ctx.say("evolution.dropped_vs_variant", f"{v.kind}「{v.form}」从{names}，篆文与今字形均不从此",
                    f"the {v.kind} form {v.form} has {', '.join(sorted(dropped))}, which the seal and modern forms lack",
                    v.provenance)


def _as_written(canon: str, text: str) -> str:
    """The component ``canon`` (a :func:`canonical_component` key) as ``text`` writes it:
    the canonical key is OpenCC's traditional form, which can be another character (尸 ->
    屍), so a narrative quotes the variant's own wording (仁: 古文…从尸). ``canon`` when
    ``text`` has no character with that key."""
    return next((ch for ch in text if canonical_component(ch) == canon), canon)


def _rule_gujin(ctx: _Ctx) -> None:
    """区别: Duan's 古今字 pair; the later form is the earlier one plus one component."""
    if not ({"shuowen", "duan"} & ctx.sources):
        return
    names = [c.name for c in ctx.comps]
    for early, prov in ctx.index.gujin.get(ctx.char, []):
        hit = [i for i, n in enumerate(names) if same_component(n, early)]
        if len(names) == 2 and len(hit) == 1:
            base_name, other = names[hit[0]], names[1 - hit[0]]
            ctx.add_type(other, "区别", "evolution.differentiation.gujin", [prov] + ctx.comps[1 - hit[0]].provenance)
            ctx.add_type(base_name, "保留", "evolution.differentiation.gujin", [prov] + ctx.comps[hit[0]].provenance)
            ctx.say("evolution.differentiation.gujin",
                    f"「{early}」「{ctx.char}」为古今字（段注：{prov.span}），后起的「{ctx.char}」在「{early}」上加「{other}」以相区别",
                    f"Duan names {early} and {ctx.char} an ancient/modern character pair; the later {ctx.char} adds {other} to {early} to tell them apart",
                    [prov])
            return


def _rule_substitution(ctx: _Ctx) -> None:
    """讹变: one seal component replaced by an unrelated one in a same-size decomposition."""
    if not ctx.modern_is_record or ctx.trad:
        return
    untyped = [c for c in ctx.comps if c.name not in ctx.candidates]
    seal_left = [s for s in ctx.seal if not any(same_component(s.name, c.name) for c in ctx.comps)]
    if len(untyped) == 1 and len(seal_left) == 1 and len(ctx.seal) == len(ctx.comps) >= 2:
        comp, s = untyped[0], seal_left[0]
        ctx.add_type(comp.name, "讹变", "evolution.corruption.substitution", s.provenance + comp.provenance)
        ctx.say("evolution.corruption.substitution", f"篆文之「{s.name}」，今字形改写作「{comp.name}」（讹变）",
                f"the seal component {s.name} is written {comp.name} in the modern form", s.provenance + comp.provenance)


def _rule_sheng_statements(ctx: _Ctx) -> None:
    """The abbreviated (省) components the seal analysis names, with the part the glyph
    draws in its place where the IDS shows it (:func:`abbreviated_parts`: 「蠆」省作「萬」)."""
    drawn, _ = abbreviated_parts(ctx.record, ctx.index)
    for lst in ctx.candidates.values():
        for ce in lst:
            if ce.rule != "evolution.simplification.sheng":
                continue
            d = drawn.get(ce.name)
            quote = ce.provenance[0].span
            if d is not None:
                zh = f"「{ce.name}」省作「{d.drawn}」（《说文》：{quote}），字中只写「{ce.name}」的一部分"
                en = f"{ce.name} is abbreviated to {d.drawn} (Shuowen: {quote}): the glyph writes only part of {ce.name}"
            else:
                zh = f"「{ce.name}」为省形（《说文》：{quote}）"
                en = f"{ce.name} is an abbreviated component (Shuowen: {quote})"
            ctx.evo.statements.append(Statement(ce.rule, zh, en, ce.provenance))


_DUAN_FORM = re.compile(rf"(今隸變作|今隸作|隸變作|隸省作|隸書作|隸作|今俗作|俗作|今字作|今作)({_HAN})")


def _duan_stage(verb: str) -> tuple[str, str]:
    """(Chinese, English) name of the stage a Duan verb names: 隸 clerical, 俗 popular, 今 current."""
    if "隸" in verb:
        return "隶书", "clerical-script"
    if "俗" in verb:
        return "俗字", "popular"
    return "今字", "current"


def _rule_duan_later_forms(ctx: _Ctx) -> None:
    """Duan's statements of later written forms: 隸變作X, 隸作X, 俗作X, 今作X (clerical,
    popular and current forms), quoted from his notes on the character's entry."""
    if "duan" not in ctx.sources and "shuowen" not in ctx.sources:
        return
    seen: set[str] = set()
    for entry_id in _entry_ids(ctx):
        text = ctx.index.duan_notes.get(entry_id, "")
        for m in _DUAN_FORM.finditer(text):
            verb, form = m.group(1), m.group(2)
            if form == ctx.head or form in seen or len(seen) >= 2 or not _about_head(text[:m.start()], ctx):
                continue
            seen.add(form)
            stage = _duan_stage(verb)
            prov = Provenance(source="duan", entry_id=entry_id, span=m.group(0), rule="evolution.duan_later_form")
            # 隸變: the clerical change itself (隶变), as Duan names it
            verb_zh = "隶变作" if "變" in verb else f"{stage[0]}作"
            ctx.say("evolution.duan_later_form", f"{verb_zh}「{form}」（段注：{m.group(0)}）",
                    f"the {stage[1]} form is {form} (Duan: {m.group(0)})", [prov])


_RHYME_NOTE_END = re.compile(r"部。\s*$")


def _about_head(before: str, ctx: _Ctx) -> bool:
    """Whether a Duan 作 statement speaks of the entry's own character: it follows the
    character itself (凥俗作居) or opens the sentence after Duan's reading note (…切。五部。
    俗作霍), not a word his note quotes (坐: 凥俗作居 is about 凥; 瞽: 朕、俗作眹)."""
    if before[-1:] in (ctx.head, ctx.base, ctx.char):
        return True
    if before[-1:] in "(（":  # a note that opens with it (䑞: (今隸變作舜) is on the head
        return True
    return _RHYME_NOTE_END.search(before) is not None


def _entry_ids(ctx: _Ctx) -> list[str]:
    """Shuowen entry ids of the character's own head (seal analysis, pictograph, raw texts)."""
    ids = [p.entry_id for s in ctx.seal for p in s.provenance if p.source == "shuowen"]
    ids += [p.entry_id for p in ctx.pictograph]
    for rec in ctx.index.records(ctx.base):
        for key in rec.raw:
            src, _, entry_id = key.partition(":")
            if src in ("shuowen", "duan") and ctx.index.shuowen_entry(entry_id).get("wordhead") in (ctx.base, ctx.head):
                ids.append(entry_id)
    return list(dict.fromkeys(ids))


def _rule_trad_simp(ctx: _Ctx) -> None:
    """Traditional / simplified links (one-to-one Unihan pairs; a simplified form outside the
    通用规范汉字表 gives way to the table's form of the character's variant: 鎌 -> 镰)."""
    if ctx.trad:
        zh = f"繁体作「{ctx.trad[0]}」，今简化作「{ctx.char}」"
        en = f"the traditional form is {ctx.trad[0]}, simplified as {ctx.char}"
        if ctx.simp_changes:
            zh += "，其中" + "、".join(f"「{t}」简化为「{s}」" for t, s in ctx.simp_changes)
            en += "; " + ", ".join(f"{t} simplified to {s}" for t, s in ctx.simp_changes)
        ctx.say("evolution.simplification.character", zh, en, ctx.trad[1])
        return
    found = _standard_simplified(ctx)
    if found is None:
        return
    form, via, provs = found
    if via is None:
        ctx.say("evolution.traditional_to_simplified", f"今简化字作「{form}」", f"the simplified form is {form}", provs)
    else:
        ctx.say("evolution.traditional_to_simplified",
                f"「{ctx.char}」与「{via}」为异体，今规范字作「{form}」",
                f"{ctx.char} is a variant of {via}; the standard modern form is {form}", provs)


def _standard_simplified(ctx: _Ctx) -> tuple[str, str | None, list[Provenance]] | None:
    """(simplified form, the variant it was reached through or None, provenance)."""
    modern = ctx.index.modern
    if ctx.simp and (modern is None or modern.is_standard(ctx.simp[0])):
        return ctx.simp[0], None, ctx.simp[1]
    if modern is None or not ctx.simp:
        return None
    for v in ctx.record.variants:  # 鎌: 𰾮 is not in the table; its variant 鐮 simplifies to 镰
        if v.kind != "異體" or not [p for p in v.provenance if p.source == "unihan"]:
            continue
        link = modern.simplified(v.form)
        if link is not None and modern.is_standard(link[0]):
            return link[0], v.form, list(v.provenance) + link[1]
    return None


def _resolve(ctx: _Ctx) -> None:
    """Pick each component's type by priority and summarise what the modern form keeps."""
    evo = ctx.evo
    for name, lst in ctx.candidates.items():
        evo.components[name] = min(lst, key=lambda ce: EVOLUTION_PRIORITY.index(ce.type))
    retained = [(a, b) for a, b in ctx.retained if b in evo.components and evo.components[b].type == "保留"]
    if retained:
        bits_zh, bits_en = [], []
        for seal_name, mod_name in retained:
            w = written_as(ctx.record, mod_name)
            if w is not None:
                mod_name = w[0]
            if seal_name == mod_name:
                bits_zh.append(f"「{mod_name}」")
                bits_en.append(mod_name)
            else:
                bits_zh.append(f"「{seal_name}」（写作「{mod_name}」）")
                bits_en.append(f"{seal_name} (written {mod_name})")
        provs = [p for ce in evo.components.values() if ce.type == "保留" for p in ce.provenance]
        evo.statements.insert(_summary_at(evo), Statement(
            "evolution.retention.seal", f"今字形「{ctx.char}」沿用了{'、'.join(bits_zh)}",
            f"the modern form {ctx.char} keeps {', '.join(bits_en)}", provs))
    elif ctx.single and any(ce.rule == "evolution.retention.single" for lst in ctx.candidates.values() for ce in lst):
        provs = [p for lst in ctx.candidates.values() for ce in lst for p in ce.provenance]
        evo.statements.insert(_summary_at(evo), Statement(
            "evolution.retention.single", f"今字形「{ctx.char}」仍为独体",
            f"the modern form {ctx.char} is still a single-component character", provs))


# The rule table, in narrative order (oldest stage first); each step reads the evidence in
# the context and adds component types and statements. ``derive`` runs them in turn.
DERIVE_STEPS: tuple[tuple[str, object], ...] = (
    ("Shuowen 古文 / 籒文", _rule_older_variants),
    ("small-seal analysis", _rule_seal),
    ("single pictograph", _rule_pictograph),
    ("Shuowen 或體 / 篆文", _rule_parallel_variants),
    ("modern form is a 重文", _rule_modern_is_variant),
    ("component types", _rule_component_types),
    ("繁化 / dropped against older variants", _rule_variant_comparison),
    ("区别 (古今字)", _rule_gujin),
    ("讹变 by substitution", _rule_substitution),
    ("省 components", _rule_sheng_statements),
    ("Duan's 隸 / 俗 / 今 forms", _rule_duan_later_forms),
    ("traditional / simplified", _rule_trad_simp),
    ("resolve types, modern summary", _resolve),
)


def derive(record: GlyphRecord, index: EvidenceIndex, sources: Iterable[str]) -> Evolution:
    """Derive component evolution types (COME) and the narrative (EVOI) for ``record``.

    ``sources`` are the source names whose evidence may be used; the modern IDS sources
    (cjkvi-ids, makemeahanzi) are always allowed, since every comparison is against the
    modern form. A dataset build for a bench character passes no ``shuowen``. Runs the
    steps of :data:`DERIVE_STEPS` in order. Returns an :class:`Evolution` whose
    ``components`` covers the record's components that a rule typed; empty when no rule
    fires. Never raises on missing fields.
    """
    ctx = _context(record, index, frozenset(sources) | MODERN_SOURCES)
    for _name, step in DERIVE_STEPS:
        step(ctx)
    return ctx.evo


def _summary_at(evo: Evolution) -> int:
    """Where the modern-form summary goes: before the traditional/simplified sentence."""
    for i, st in enumerate(evo.statements):
        if st.rule in ("evolution.simplification.character", "evolution.traditional_to_simplified"):
            return i
    return len(evo.statements)


def _variant_statement(v: _VariantAnalysis) -> Statement:
    analysis = re.sub(r"<[^>]+>|\[[^\]]*\]", "", v.analysis)
    analysis = re.sub(r"\s+", "", analysis).rstrip("。")
    zh = f"《说文》收{v.kind}「{v.form}」"
    en = f"Shuowen records the {v.kind} form {v.form}"
    if analysis:
        zh += f"（{analysis}）"
        en += f" ({analysis})"
    return Statement("evolution.shuowen_variant", zh, en, _cite(v.provenance, "evolution.shuowen_variant"))


def rules_table_markdown() -> str:
    """The rule table as markdown (for the dataset cards)."""
    lines = ["| rule | asserts |", "|---|---|"]
    lines += [f"| `{k}` | {v} |" for k, v in RULES.items()]
    return "\n".join(lines)


def to_json(evo: Evolution) -> str:
    """Compact JSON of an :class:`Evolution` (for debugging and the audit sheet)."""
    return json.dumps({
        "components": {k: {"type": v.type, "rule": v.rule} for k, v in evo.components.items()},
        "statements": [{"rule": s.rule, "zh": s.zh} for s in evo.statements],
    }, ensure_ascii=False)
