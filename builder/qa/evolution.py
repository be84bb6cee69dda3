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
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable

from builder import aliases
from builder import ids as ids_mod
from builder.schema import Component, GlyphRecord, Provenance, Variant

# Rule name -> what it asserts and from which evidence. The names appear verbatim in the
# provenance of every derived item and in the dataset cards.
RULES: dict[str, str] = {
    "evolution.attested_obi": "a scanned oracle-bone image of the character exists in the build (Oracle-MNIST label): the character is attested in 甲骨文",
    "evolution.seal_analysis": "the Shuowen analysis of the small-seal head (从X / Y聲 / 象形 ...) as the seal-stage composition",
    "evolution.shuowen_variant": "a Shuowen 重文 (古文, 籒文, 或體, 篆文 ...) with its analysis, as an attested earlier or parallel form",
    "evolution.modern_is_variant": "the modern character is itself a form Shuowen or cjkvi-ids records as a 重文 of another head",
    "evolution.retention.seal": "保留: the modern component (IDS) is a component of the Shuowen seal analysis (after radical-alias normalisation)",
    "evolution.retention.variant": "保留: the modern component is a component of a Shuowen 古文 / 籒文 / 或體 / 篆文 analysis of the character",
    "evolution.retention.single": "保留: a single-component character whose Shuowen head is the same character, analysed as one component or as a pictograph (象形 / 指事) without components",
    "evolution.retention.trad_simp": "保留: a component of a simplified character that the traditional form's decomposition has unchanged",
    "evolution.simplification.sheng": "简化: Shuowen marks the component as abbreviated (从X省 / X省聲) and the modern form keeps the abbreviated component",
    "evolution.simplification.trad_simp": "简化: in a simplified character, the component that replaces a traditional component is its simplified form (OpenCC / Unihan)",
    "evolution.simplification.character": "a simplified character with its traditional form (Unihan kTraditionalVariant / cjkvi-ids 簡体)",
    "evolution.traditional_to_simplified": "a traditional character with its simplified form (Unihan kSimplifiedVariant / cjkvi-ids 簡体)",
    "evolution.elaboration.added_vs_variant": "繁化: the seal head has a component that its Shuowen 古文 / 籒文 lacks while sharing all the others, and the modern form keeps it",
    "evolution.dropped_vs_variant": "a Shuowen 古文 / 籒文 / 或體 has a component the seal and modern forms lack (statement only: no modern component to type)",
    "evolution.differentiation.gujin": "区别: Duan names the pair as 古今字 and the later character adds one component to the earlier one",
    "evolution.corruption.form_equivalent": "讹变: the modern form writes a Shuowen seal component as another character (the alias table's form equivalents: 㞷 as 主, 肉 as 月, 玉 as 王)",
    "evolution.corruption.substitution": "讹变: exactly one seal component has no counterpart in an otherwise matching modern decomposition of equal size, and no simplification link explains the change",
}

EVOLUTION_PRIORITY = ("区别", "简化", "繁化", "讹变", "保留")

MODERN_SOURCES = frozenset({"cjkvi-ids", "makemeahanzi"})
OLDER_VARIANT_KINDS = ("古文", "籒文")
SEAL_VARIANT_KINDS = ("篆文",)
PARALLEL_VARIANT_KINDS = ("或體", "奇字", "俗字")

_NON_HAN = re.compile(r"[\s\u2ff0-\u2fff\u31ef？?]")


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


class EvidenceIndex:
    """Cross-record evidence: records by character, parsed Shuowen entries, Duan's 古今字
    pairs and oracle-bone attestations.

    ``duan``: optional ``Shuowen entry id -> Duan's notes raw text`` (the ``duan:<id>``
    text of builder/sources/adapters/shuowen.py) for every entry, not just those the records cite.

    Built once from all records (``O(total raw text)``); :func:`derive` reads it for the
    sibling records of a character (the seal analysis of a simplified character lives on
    its traditional form's records).
    """

    def __init__(self, records: Iterable[GlyphRecord], duan: dict[str, str] | None = None):
        self.by_char: dict[str, list[GlyphRecord]] = defaultdict(list)
        # later character -> [(earlier character, provenance of Duan's statement)]
        self.gujin: dict[str, list[tuple[str, Provenance]]] = defaultdict(list)
        self.obi: dict[str, list[Provenance]] = defaultdict(list)
        self.shuowen: dict[str, dict] = {}
        self.memo: dict[tuple, object] = {}  # per-character analyses, shared by sibling records
        duan_texts: dict[str, str] = {}
        for rec in records:
            self.by_char[rec.character].append(rec)
            if rec.script == "甲骨文":
                for img in rec.images:
                    if img.style == "scan":
                        self.obi[rec.character].append(Provenance(
                            source="oracle-mnist" if "oracle" in img.source else "user",
                            entry_id=img.id, span=rec.character, rule="evolution.attested_obi"))
                        break
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
        for entry_id, text in duan_texts.items():
            for m in _GUJIN.finditer(text):
                early, late = m.group(1), m.group(2)
                if early != late:
                    self.gujin[late].append((early, Provenance(
                        source="duan", entry_id=entry_id, span=m.group(0),
                        rule="evolution.differentiation.gujin")))

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
            if not provs or v.kind in ("繁體", "簡体", "異體"):
                continue
            key = (v.form, v.kind)
            if key not in out and not any(k[0] == v.form for k in out):  # one kind per form
                out[key] = _VariantAnalysis(v.form, v.kind, (v.analysis or "").strip(),
                                            _variant_canon(v, seal), provs)
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
            provs = [p for p in v.provenance if p.source in sources | {"unihan", "cjkvi-ids"}]
            if provs:
                found.append((v.form, provs))
    if not found:
        return None
    found.sort(key=lambda fp: (fp[0] != wanted, not (index and index.records(fp[0]))))
    return found[0]


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


def _fmt_analysis(seal: list[_Seal]) -> tuple[str, str]:
    """'从水，工声' / 'from 水, with 工 as phonetic' from typed seal components."""
    sem = [s.name for s in seal if "表音" not in s.functions]
    pho = [s.name for s in seal if "表音" in s.functions]
    zh_parts, en_parts = [], []
    if sem:
        zh_parts.append("从" + "、从".join(sem))
        en_parts.append("from " + " and ".join(sem))
    for p in pho:
        both = any(s.name == p and "表意" in s.functions for s in seal)
        zh_parts.append(f"{p}{'亦' if both else ''}声")
        en_parts.append(f"{p} as phonetic{' (also semantic)' if both else ''}")
    return "，".join(zh_parts), ", ".join(en_parts)


def derive(record: GlyphRecord, index: EvidenceIndex, sources: Iterable[str]) -> Evolution:
    """Derive component evolution types (COME) and the narrative (EVOI) for ``record``.

    ``sources`` are the source names whose evidence may be used; the modern IDS sources
    (cjkvi-ids, makemeahanzi) are always allowed, since every comparison is against the
    modern form. A dataset build for a bench character passes no ``shuowen``. Returns an
    :class:`Evolution` whose ``components`` covers the record's components that a rule
    typed; empty when no rule fires. Never raises on missing fields.
    """
    sources = frozenset(sources) | MODERN_SOURCES
    char = record.character
    evo = Evolution()
    candidates: dict[str, list[ComponentEvolution]] = defaultdict(list)

    def add_type(name: str, typ: str, rule: str, provs: Iterable[Provenance]) -> None:
        candidates[name].append(ComponentEvolution(name, typ, rule, _cite(provs, rule)))

    comps = [c for c in record.components if _sources_of(c.provenance) & sources]
    modern = _char_modern(index, record)
    modern_is_record = _describes_modern(record) and bool(modern_components(record))
    trad = _trad_simp(record, "繁體", sources, index)
    simp = _trad_simp(record, "簡体", sources, index)
    base = trad[0] if trad else char  # Shuowen analyses the traditional form
    head, seal = _seal_analysis(index, base, sources)
    variants = _variants(index, base, sources, seal)
    seal_canon = {s.canon for s in seal}
    single = len(seal) == 1 and seal[0].canon == canonical_component(base)
    # a single pictograph Shuowen analyses without components (月: 象形)
    pictograph: list[Provenance] = []
    if (not seal and "shuowen" in sources and record.structure is not None and record.structure.value == "独体"
            and record.formation is not None and record.formation.value.label in ("象形", "指事")):
        sw = [p for p in record.formation.provenance if p.source == "shuowen"]
        if sw and index.shuowen_entry(sw[0].entry_id).get("wordhead", base) in (base, char):
            pictograph = sw

    # 1. attested in oracle-bone script (scanned images in this build)
    if index.obi.get(char):
        evo.statements.append(Statement(
            "evolution.attested_obi", f"甲骨文已见「{char}」字（本数据收有其甲骨刻辞字形）",
            f"{char} is attested in oracle-bone script (a scanned inscription glyph is in this build)",
            _cite(index.obi[char][:1], "evolution.attested_obi")))

    # 2. older Shuowen variants, 3. the seal analysis, 4. parallel variants
    for v in variants:
        if v.kind in OLDER_VARIANT_KINDS:
            evo.statements.append(_variant_statement(v))
    if seal:
        provs = _cite([p for x in seal for p in x.provenance], "evolution.seal_analysis")
        spans = list(dict.fromkeys(p.span for p in provs))
        quote = "；".join(spans)
        a_zh, a_en = _fmt_analysis(seal)
        if single:
            zh = f"小篆「{head}」为独体，《说文》：「{quote}」"
            en = f"In small seal script {head} is a single-component character (Shuowen: {quote})"
        else:
            zh = f"小篆作「{head}」，《说文》：「{quote}」"
            en = f"In small seal script the form is {head}; Shuowen: {quote} ({a_en})"
        evo.statements.append(Statement("evolution.seal_analysis", zh, en, provs))
    if pictograph:
        label = record.formation.value.label
        quote = "；".join(dict.fromkeys(p.span for p in pictograph))
        evo.statements.append(Statement(
            "evolution.seal_analysis", f"小篆「{base}」为独体{label}字，《说文》：「{quote}」",
            f"In small seal script {base} is a single-component {label} character (Shuowen: {quote})",
            _cite(pictograph, "evolution.seal_analysis")))
        provs = pictograph + list(record.structure.provenance)
        ce = ComponentEvolution(char, "保留", "evolution.retention.single", _cite(provs, "evolution.retention.single"))
        candidates[char].append(ce)
        evo.statements.append(Statement(
            "evolution.retention.single", f"今字形「{char}」仍为独体", f"the modern form {char} is still a single-component character",
            ce.provenance))
    for v in variants:
        if v.kind not in OLDER_VARIANT_KINDS:
            evo.statements.append(_variant_statement(v))

    # the modern character is a recorded 重文 of another head (明 = 古文 of 朙)
    done = False
    for rec in index.records(char):
        for v in rec.variants:
            if done or v.form != char or v.kind not in OLDER_VARIANT_KINDS + SEAL_VARIANT_KINDS + PARALLEL_VARIANT_KINDS:
                continue
            provs = [p for p in v.provenance if p.source in sources]
            if provs and head != char:
                evo.statements.append(Statement(
                    "evolution.modern_is_variant",
                    f"今字形「{char}」即《说文》「{head}」字下所录{v.kind}",
                    f"the modern form {char} is the {v.kind} form recorded under Shuowen's {head}",
                    _cite(provs, "evolution.modern_is_variant")))
                done = True

    # component types of the record's components
    trad_modern: list[Component] = []
    if trad:
        for rec in index.records(trad[0]):
            trad_modern = modern_components(rec)
            if trad_modern:
                break
    retained: list[tuple[str, str]] = []
    simp_changes: list[tuple[str, str]] = []
    for comp in comps:
        in_modern = any(same_component(comp.name, m.name) for m in modern)
        if trad:
            w = written_as(record, comp.name)
            if w is not None and _is_simplified_form(w[0], comp.name):
                add_type(comp.name, "简化", "evolution.simplification.trad_simp",
                         list(trad[1]) + comp.provenance + [w[1]])
                simp_changes.append((comp.name, w[0]))
                continue
        if trad and trad_modern and not any(t.name == comp.name for t in trad_modern):
            t = next((t for t in trad_modern if _is_simplified_form(comp.name, t.name)), None)
            if t is not None:
                add_type(comp.name, "简化", "evolution.simplification.trad_simp",
                         list(trad[1]) + comp.provenance + t.provenance)
                simp_changes.append((t.name, comp.name))
                continue
        s = next((x for x in seal if same_component(x.name, comp.name)), None)
        if s is not None and in_modern:
            written = written_as(record, comp.name) if _describes_modern(record) else None
            now = comp.name if not alias_equal(s.name, comp.name) else (
                written[0] if written and not alias_equal(written[0], comp.name) else None)
            if s.sheng:
                add_type(comp.name, "简化", "evolution.simplification.sheng", s.provenance + comp.provenance)
            elif now is not None:
                # the modern form writes the seal component as another character (㞷 as 主,
                # 肉 as 月): a form equivalence, not the same component kept
                provs = s.provenance + comp.provenance + ([written[1]] if written else [])
                add_type(comp.name, "讹变", "evolution.corruption.form_equivalent", provs)
                evo.statements.append(Statement(
                    "evolution.corruption.form_equivalent",
                    f"篆文之「{s.name}」，今字形写作「{now}」，形体已变",
                    f"the seal component {s.name} is written {now} in the modern form",
                    _cite(provs, "evolution.corruption.form_equivalent")))
            elif single and len(comps) == 1:
                add_type(comp.name, "保留", "evolution.retention.single", s.provenance + comp.provenance)
            else:
                add_type(comp.name, "保留", "evolution.retention.seal", s.provenance + comp.provenance)
                retained.append((s.name, comp.name))
            continue
        if in_modern:
            for v in variants:
                if canonical_component(comp.name) in v.canon:
                    add_type(comp.name, "保留", "evolution.retention.variant", v.provenance + comp.provenance)
                    retained.append((canonical_component(comp.name), comp.name))
                    break
            else:
                t = next((t for t in trad_modern if t.name == comp.name), None) if trad else None
                if t is not None:
                    add_type(comp.name, "保留", "evolution.retention.trad_simp",
                             list(trad[1]) + comp.provenance + t.provenance)

    # 繁化: the seal head adds one component to an older variant sharing the rest;
    # and the components an older variant has that the seal and modern forms lack
    modern_canon = {canonical_component(m.name) for m in modern}
    for v in variants:
        if v.kind not in OLDER_VARIANT_KINDS or not v.canon:
            continue
        added = seal_canon - v.canon
        if v.canon < seal_canon and len(added) == 1:
            s_added = next(s for s in seal if s.canon in added)
            for comp in comps:
                if same_component(comp.name, s_added.name) and canonical_component(comp.name) in modern_canon:
                    add_type(comp.name, "繁化", "evolution.elaboration.added_vs_variant",
                             v.provenance + s_added.provenance + comp.provenance)
            evo.statements.append(Statement(
                "evolution.elaboration.added_vs_variant",
                f"较{v.kind}「{v.form}」，篆文「{head}」增加了「{s_added.name}」",
                f"compared with the {v.kind} form {v.form}, the seal form {head} adds {s_added.name}",
                _cite(v.provenance + s_added.provenance, "evolution.elaboration.added_vs_variant")))
        dropped = v.canon - seal_canon - modern_canon
        if seal and modern and dropped and not v.canon < seal_canon:
            names = "、".join(f"「{d}」" for d in sorted(dropped))
            evo.statements.append(Statement(
                "evolution.dropped_vs_variant",
                f"{v.kind}「{v.form}」从{names}，篆文与今字形均不从此",
                f"the {v.kind} form {v.form} has {', '.join(sorted(dropped))}, which the seal and modern forms lack",
                _cite(v.provenance, "evolution.dropped_vs_variant")))

    # 区别: Duan's 古今字 pair; the later form is the earlier one plus one component
    if "shuowen" in sources or "duan" in sources:
        names = [c.name for c in comps]
        for early, prov in index.gujin.get(char, []):
            hit = [i for i, n in enumerate(names) if same_component(n, early)]
            if len(names) == 2 and len(hit) == 1:
                base_name, other = names[hit[0]], names[1 - hit[0]]
                other_c = comps[1 - hit[0]]
                add_type(other, "区别", "evolution.differentiation.gujin", [prov] + other_c.provenance)
                add_type(base_name, "保留", "evolution.differentiation.gujin", [prov] + comps[hit[0]].provenance)
                evo.statements.append(Statement(
                    "evolution.differentiation.gujin",
                    f"「{early}」「{char}」为古今字（段注：{prov.span}），后起的「{char}」在「{early}」上加「{other}」以相区别",
                    f"Duan names {early} and {char} an ancient/modern character pair; the later {char} adds {other} to {early} to tell them apart",
                    _cite([prov], "evolution.differentiation.gujin")))
                break

    # 讹变: one seal component replaced by an unrelated one in a same-size decomposition
    if modern_is_record and not trad:
        untyped = [c for c in comps if c.name not in candidates]
        seal_left = [s for s in seal if not any(same_component(s.name, c.name) for c in comps)]
        if len(untyped) == 1 and len(seal_left) == 1 and len(seal) == len(comps) >= 2:
            comp, s = untyped[0], seal_left[0]
            add_type(comp.name, "讹变", "evolution.corruption.substitution", s.provenance + comp.provenance)
            evo.statements.append(Statement(
                "evolution.corruption.substitution",
                f"篆文之「{s.name}」，今字形写作「{comp.name}」，形体已变",
                f"the seal component {s.name} is written {comp.name} in the modern form",
                _cite(s.provenance + comp.provenance, "evolution.corruption.substitution")))

    for lst in candidates.values():
        for ce in lst:
            if ce.rule == "evolution.simplification.sheng":
                evo.statements.append(Statement(
                    ce.rule, f"「{ce.name}」为省形（《说文》：{ce.provenance[0].span}）",
                    f"{ce.name} is an abbreviated component (Shuowen: {ce.provenance[0].span})", ce.provenance))

    # traditional / simplified links
    if trad:
        zh = f"繁体作「{trad[0]}」，今简化作「{char}」"
        en = f"the traditional form is {trad[0]}, simplified as {char}"
        if simp_changes:
            zh += "，其中" + "、".join(f"「{t}」简化为「{s}」" for t, s in simp_changes)
            en += "; " + ", ".join(f"{t} simplified to {s}" for t, s in simp_changes)
        evo.statements.append(Statement("evolution.simplification.character", zh, en,
                                        _cite(trad[1], "evolution.simplification.character")))
    elif simp:
        evo.statements.append(Statement(
            "evolution.traditional_to_simplified", f"今简化字作「{simp[0]}」",
            f"the simplified form is {simp[0]}", _cite(simp[1], "evolution.traditional_to_simplified")))

    for name, lst in candidates.items():
        evo.components[name] = min(lst, key=lambda ce: EVOLUTION_PRIORITY.index(ce.type))
    retained = [(a, b) for a, b in retained if b in evo.components and evo.components[b].type == "保留"]
    # what the modern form keeps
    if retained:
        bits_zh, bits_en = [], []
        for seal_name, mod_name in retained:
            w = written_as(record, mod_name)
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
            "evolution.retention.seal", f"今字形「{char}」沿用了{'、'.join(bits_zh)}",
            f"the modern form {char} keeps {', '.join(bits_en)}", provs))
    elif single and any(ce.rule == "evolution.retention.single" for lst in candidates.values() for ce in lst):
        provs = [p for lst in candidates.values() for ce in lst for p in ce.provenance]
        evo.statements.insert(_summary_at(evo), Statement(
            "evolution.retention.single", f"今字形「{char}」仍为独体",
            f"the modern form {char} is still a single-component character", provs))
    return evo


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
