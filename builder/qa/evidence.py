"""The evidence the evolution rules read, indexed across records.

:class:`EvidenceIndex` holds every record by character, the parsed Shuowen entries and
Duan's notes (with the 古今字 pairs he names) and the real early-script images that attest
a character; :class:`ModernForms` the 通用规范汉字表 and Unihan's simplified forms. Per
character it gives the Shuowen seal analysis, the 重文 with their analyses, the modern IDS
components and the traditional / simplified partner (memoised in the index, shared by
sibling records). :func:`strip_inherited` removes the Shuowen evidence a 重文 inherited
from another head's entry. Read by :func:`builder.qa.evolution.derive` and the QA composer.
"""

from __future__ import annotations

import json
import re
import typing
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterable

from builder.qa.component_names import canonical_component, same_component
from builder.schema import Component, GlyphRecord, Provenance, SourceName, Variant
from metrics.acce.variants import code_point


MODERN_SOURCES = frozenset({"cjkvi-ids", "makemeahanzi"})


# Early scripts an image can attest, in narrative order, with the rule of each statement.
EARLY_STAGES = ("甲骨文", "金文", "篆书")
ATTESTED_RULES = {"甲骨文": "evolution.attested_obi", "金文": "evolution.attested_bronze",
                  "篆书": "evolution.attested_seal_image"}
# Image styles that are real writing (not a font): scans, tracings of inscriptions, user corpora.
REAL_IMAGE_STYLES = frozenset({"scan", "tracing", "user"})
_SOURCE_NAMES = frozenset(typing.get_args(SourceName))


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
                 modern: "ModernForms | None" = None, entries: dict[str, str] | None = None,
                 definitions: dict[str, str] | None = None):
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
        # Unihan kDefinition per character (component interpretations of JieZi-Dataset)
        self.definitions: dict[str, str] = dict(definitions or {})
        # the bench's characters once selected (builder.qa.stage): a component character in
        # it is not glossed from Shuowen in JieZi-Dataset; None: not known, so never
        self.reserved: frozenset[str] | None = None
        # image ids whose drawing shows no script (builder.qa.script_neutral), set by the stage
        self.script_neutral: set[str] = set()
        duan_texts: dict[str, str] = {}
        # every Shuowen entry of the source cache (``entry id -> raw text``), not only the
        # ones the records cite: a component's own gloss is its own head's entry
        for entry_id, text in (entries or {}).items():
            self.shuowen.setdefault(f"shuowen:{entry_id}", {}).update(parse_shuowen_raw(text))
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
        # Shuowen head -> its entry ids (lowest id first)
        self.heads: dict[str, list[str]] = defaultdict(list)
        for key in sorted(self.shuowen, key=lambda k: int(k.partition(":")[2]) if k.partition(":")[2].isdigit() else 0):
            head = self.shuowen[key].get("wordhead")
            if head:
                self.heads[head].append(key.partition(":")[2])
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


_EDITORS = re.compile(r"徐[鍇锴]曰|臣[鉉铉]等?[曰案按]")


def xu_text(explanation: str) -> str:
    """許慎's own text of a 大徐本 explanation: the editors' notes appended to it (徐鍇曰：“…”,
    臣鉉等曰 / 案) cut off. Their sentences are no Shuowen words (宷's 「釆，别也」 is 徐鍇's,
    quoted as 《说文》 in review of out-r12, seed 20261230 item 3)."""
    m = _EDITORS.search(explanation)
    return explanation[:m.start()].rstrip() if m else explanation


def parse_shuowen_raw(text: str) -> dict:
    """A Shuowen entry's raw text -> ``{"wordhead", "explanation", "variants": [{"wordhead",
    "explanation"}]}``. Reads the records' line format (``字頭\t江`` / ``說解\t...`` /
    ``重文\t<form>\t<text>``, builder/sources/adapters/shuowen.py) and the upstream JSON. The
    explanation is Xu's text only (:func:`xu_text`)."""
    text = text or ""
    if text.lstrip().startswith("{"):
        try:
            obj = json.loads(text)
            return {"wordhead": obj.get("wordhead", ""), "explanation": xu_text(obj.get("explanation", "")),
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
            out["explanation"] = xu_text(rest.strip())
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
    # character outside the table -> [(a form of it in the table, the source line)]: Unihan
    # kSemanticVariant / kZVariant and cjkvi-ids variant links (善 →譱, 杯 →桮)
    standard_variants: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    # characters whose kSimplifiedVariant or kTraditionalVariant names any form other than
    # themselves (徵 -> 征 徵: simplified to 征 except in one reading; 鼹 -> 鼴, 厘 -> 釐), so
    # they are not 繁简同形 (data reviews 12-19, 12-21)
    simplifies_elsewhere: frozenset[str] = frozenset()
    # characters whose kTraditionalVariant names another form (极 -> 極): in modern use the
    # simplified form of that other character too (review of out-r5, 12-19: 㭕 「极也」)
    # (:func:`builder.qa.stage._merged_words`: no variant link between them)
    simplifies_other: dict[str, frozenset[str]] = field(default_factory=dict)

    def is_standard(self, ch: str) -> bool:
        """Whether ``ch`` is in the 通用规范汉字表 (an empty table accepts every form)."""
        return not self.standard or ch in self.standard

    def simplified_forms(self) -> frozenset[str]:
        """Every character that is the one-to-one simplified form of another (广 of 廣)."""
        if not hasattr(self, "_simplified_forms"):
            self._simplified_forms = frozenset(form for form, _ in self.simplified_of.values())
        return self._simplified_forms

    def standard_forms(self, ch: str) -> list[tuple[str, Provenance]]:
        """The forms in the 通用规范汉字表 that Unihan or cjkvi-ids link to ``ch`` when ``ch``
        is not in it (譱 -> 善), with provenance; ``[]`` when ``ch`` is in the table."""
        if not self.standard or ch in self.standard:
            return []
        out = []
        for form, line in self.standard_variants.get(ch, []):
            if line.startswith("U+") and "\tk" in line:
                src, entry = "unihan", f"U+{ord(ch):04X}"
            else:  # the entry is the line's own (善's 「→譱」 sits under 善, not 譱)
                src, entry = "cjkvi-ids", f"ids-analysis.txt:{line.split(chr(9))[0]}"
            out.append((form, Provenance(source=src, entry_id=entry, span=line, rule="qa.char.standard_form")))
        return out

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


def _braced(text: str) -> str:
    """The digitised text's corrections kept, the misprint dropped (般's 古文 「从支{攴}」 reads 从攴,
    as Duan corrects it)."""
    return re.sub(r"[^{}]\{([^{}]+)\}", r"\1", text)


def _variant_canon(v: Variant, seal: list[_Seal]) -> set[str]:
    if v.components:
        fixed = dict(re.findall(r"([^{}])\{([^{}])\}", v.analysis or ""))  # 支{攴}: the part is 攴
        return {canonical_component(fixed.get(c.name, c.name)) for c in v.components}
    text = _braced(v.analysis or "")
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
            kind = _shuowen_kind(v) if v.kind == "異體" else v.kind
            if not any(p.source == "shuowen" for p in provs) or kind in ("繁體", "簡体", "異體"):
                continue
            key = (v.form, kind)
            if key not in out and not any(k[0] == v.form for k in out):  # one kind per form
                text = _braced(v.analysis or "").strip()
                out[key] = _VariantAnalysis(v.form, kind, text, _variant_canon(v, seal), provs,
                                            partial=_ABBREVIATES.search(text) is not None)
    return list(out.values())


def _shuowen_kind(v: Variant) -> str:
    """The kind of a Shuowen 重文 the records left as 異體 because its text opens with the
    head (西 「西或从木、妻」: 或體 棲; 疇 「𤲮或省」: 或體 𢏚); 異體 when the text says none."""
    text = v.analysis or next((p.span.partition("\t")[2] for p in v.provenance if p.source == "shuowen"), "")
    return "或體" if "或" in text[:3] else "異體"


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
    return len(forms) == 1 and code_point(forms[0]) != char


def cjkvi_links(path) -> dict[str, list[tuple[str, str]]]:
    """cjkvi-ids variant links of ``ids-analysis.txt`` (``path``) both ways (``U+05584\t善\t→譱``: 善 is a form of 譱), as
    ``character -> [(linked form, line)]``; the 簡体 rows are Unihan's pairs already."""
    out: dict[str, list[tuple[str, str]]] = defaultdict(list)
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            parts = line.rstrip("\n").split("\t")
            # an editor's comment marks no plain variant (朋 →鳳 「# 【字通】象形」: the graph Shuowen
            # reads as 鳳's 古文, a loan; 五 →𠄡 「# 仮借」): such links are left out
            if "#" in line:
                continue
            if len(parts) >= 3 and parts[2].startswith("→") and (len(parts) < 4 or parts[3] != "簡体"):
                a, b = parts[1], parts[2][1:]
                if len(a) == 1 and len(b) == 1:
                    out[a].append((b, line.rstrip("\n")))
                    out[b].append((a, line.rstrip("\n")))
    return out
