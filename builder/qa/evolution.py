"""COME and EVOI from evidence, by named rules.

No open source gives a ready evolution narrative or per-component evolution types
(ACCE.md section 4), so both are derived here from what the records do hold: the Shuowen
analysis of the small-seal head (``从水工聲``), the Shuowen 重文 (古文 / 籒文 / 或體 / 篆文)
with their own analyses, the modern IDS (cjkvi-ids, makemeahanzi), traditional ->
simplified links (Unihan, cjkvi-ids) and the 古今字 pairs Duan Yucai names in his notes.

Every component type and every narrative sentence names the rule that made it (the
``rule`` of its provenance, one of ``builder.qa.narrative.RULES``) and cites the evidence
spans (``builder.qa.evidence``; component identity: ``builder.qa.component_names``). A rule
fires only when its evidence is present; a component no rule covers gets no type (and the
QA stage then asks no COME question for that record), never a guess.

Rule priority when several apply to one component: 区别 > 简化 > 繁化 > 讹变 > 保留
(the more specific change wins over plain retention).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterable

from builder import aliases
from builder.qa.component_names import (
    _is_simplified_form,
    alias_equal,
    canonical_component,
    drawn_in_ids,
    ids_operands,
    same_component,
    written_as,
)
from builder.qa.evidence import (
    EvidenceIndex,
    MODERN_SOURCES,
    _HAN,
    _Seal,
    _VariantAnalysis,
    _char_modern,
    _describes_modern,
    _seal_analysis,
    _sources_of,
    _trad_simp,
    _variants,
    modern_components,
)
from builder.qa.evolution_later import (
    _accounted, _modern_record, _rule_duan_later_forms, _rule_sheng_statements, _rule_trad_simp, _said_rewritten,
)
from builder.qa.narrative import ComponentEvolution, Evolution, Statement, _cite
from builder.schema import Component, GlyphRecord, Provenance


EVOLUTION_PRIORITY = ("区别", "简化", "繁化", "讹变", "保留")

OLDER_VARIANT_KINDS = ("古文", "籒文")
SEAL_VARIANT_KINDS = ("篆文",)
PARALLEL_VARIANT_KINDS = ("或體", "奇字", "俗字")


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


_DOUBLED = re.compile(rf"[从從][重二三四]{_HAN}")


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
    notes = [n for n in _part_notes(ctx) if n.span not in quote]
    if notes:  # 貴 「臾，古文蕢」: Shuowen's own word on what a part is (data review 09-24)
        provs += notes
        quote_notes = "；".join(n.span for n in notes)
        if _bare_analysis(quote):
            a_zh += f"（{quote_notes}）"
            a_en += f" ({quote_notes})"
        else:
            quote += f"」；「{quote_notes}"
    if _DOUBLED.search(quote) or "闕" in quote:
        # 棗 「从重朿」, 林 「从二木」: the typed list holds the part once, so 「析为从朿」 would
        # lose the doubling, and 旁 「从二，闕；方聲」 its 闕 (a part Xu could not explain);
        # Shuowen's own words say it
        zh = f"小篆作「{ctx.head}」，《说文》：「{quote}」"
        en = f"In small seal script the form is {ctx.head} (Shuowen: {quote})"
    elif ctx.single:
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


def _part_notes(ctx: _Ctx) -> list[Provenance]:
    """Sentences of the head's Shuowen text that say what one of its parts is (貴 「臾，古文
    蕢」, 蠱 「皿，物之用也」), as provenance (rule ``evolution.seal_analysis``)."""
    out = []
    for eid in dict.fromkeys(p.entry_id for x in ctx.seal for p in x.provenance if p.source == "shuowen"):
        for sent in re.split(r"[。；]", ctx.index.shuowen_entry(eid).get("explanation") or ""):
            sent = sent.strip()
            if any(sent.startswith((f"{x.name}，", f"{x.name}者")) for x in ctx.seal) and len(sent) <= 24:
                out.append(Provenance(source="shuowen", entry_id=eid, span=sent, rule="evolution.seal_analysis"))
    return out


def _rule_seal_formation(ctx: _Ctx) -> None:
    """The seal stage of a head Shuowen classes without naming parts the records keep (西
    「鳥在巢上。象形」, laid out ⿱ by the IDS so no pictograph rule fires): its own words."""
    rec = ctx.record
    if ctx.seal or ctx.pictograph or "shuowen" not in ctx.sources or rec.formation is None:
        return
    for p in rec.formation.provenance:
        e = ctx.index.shuowen_entry(p.entry_id) if p.source == "shuowen" else {}
        expl = e.get("explanation") or ""
        at = expl.find(p.span)
        if e.get("wordhead") not in (ctx.base, ctx.char) or at < 0 or at > 30:
            continue
        quote = expl[:at + len(p.span)]
        prov = Provenance(source="shuowen", entry_id=p.entry_id, span=quote, rule="evolution.seal_analysis")
        ctx.say("evolution.seal_analysis", f"小篆作「{e['wordhead']}」，《说文》：「{quote}」",
                f"In small seal script the form is {e['wordhead']} (Shuowen: {quote})", [prov])
        return


def _rule_depicted_part(ctx: _Ctx) -> None:
    """A seal part Shuowen describes by a drawing (疇 「从田，象耕屈之形」) that the modern
    form writes as a character (疇 ⿰田壽): the modern IDS keeps every named seal part and has
    exactly one more operand, which is written where the drawn part was (data review 08-58)."""
    spans = [p.span for x in ctx.seal for p in x.provenance]
    depicts = next((m.group(0) for sp in spans if (m := _DEPICTS.search(sp))), None)
    if not depicts or not _describes_modern(ctx.record) or ctx.trad or ctx.single:
        return
    ops = ids_operands(ctx.record)
    extra = [(t, p) for t, p in ops if not any(same_component(t, x.name) for x in ctx.seal)]
    kept = all(any(same_component(t, x.name) for t, _ in ops) for x in ctx.seal)
    if len(extra) == 1 and kept:
        name, prov = extra[0]
        provs = [p for x in ctx.seal for p in x.provenance] + [prov]
        ctx.say("evolution.depicted_part_written", f"小篆「{ctx.head}」中「{depicts}」的部分，今字形写作「{name}」",
                f"the part of the seal form {ctx.head} that Shuowen describes as {depicts} is written {name} in the modern form",
                provs)


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
    if any(re.search(f"[到倒反]{re.escape(s.name)}", p.span or "") for p in s.provenance):
        return  # the seal draws it turned over (尾 「从到毛」): no 保留, no source says what it became
    written = written_as(ctx.record, comp.name) if _describes_modern(ctx.record) else None
    now = comp.name if not alias_equal(s.name, comp.name) else (
        written[0] if written and not alias_equal(written[0], comp.name) else None)
    if s.sheng:
        # 省 is the seal's own make-up (宮 「躳省聲」 already writes 呂): kept, not simplified
        ctx.add_type(comp.name, "保留", "evolution.retention.sheng", s.provenance + comp.provenance)
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
        s = next((x for x in ctx.seal if same_component(x.name, comp.name)), None)
        # a type only of a part the modern IDS draws (爭's 𠂆 is written 亅: no 保留), or a 省 part
        in_modern = any(same_component(comp.name, m.name) for m in ctx.modern) and (
            drawn_in_ids(ctx.record, comp.name) or (s is not None and s.sheng))
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
            if not any(same_component(s.name, other) for s in ctx.seal):
                # COME spans seal -> modern: where the seal already has the added part (杙
                # 「从木弋聲」) the differentiation predates it, and the rules below type it
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


def _rule_rewritten_part(ctx: _Ctx) -> None:
    """A seal part the modern IDS writes as another character, read off the two analyses
    (旨: Shuowen 「从甘，匕聲」, IDS ⿱匕日 -> 篆文之「甘」，今字形写作「日」): exactly one seal part
    is not among the first-level IDS operands and exactly one operand is no seal part, no
    part is abbreviated (省) and no other rule has said what became of it (statement only:
    the record's component list is Shuowen's, so no COME type is given)."""
    if not _describes_modern(ctx.record) or ctx.trad or ctx.single or len(ctx.seal) < 2:
        return
    if any(s.sheng for s in ctx.seal) or any(st.rule in ("evolution.corruption.substitution",
                                                          "evolution.depicted_part_written",
                                                          "evolution.modern_is_variant")
                                             for st in ctx.evo.statements):
        return  # 昵 is the 或體 of 暱 (从尼): no seal 匿 became 尼
    entry = "".join(t for k, t in ctx.record.raw.items() if k.startswith("shuowen:"))
    if _DEPICTS.search(entry):
        return  # 后 「象人之形…从一、口」: a part Shuowen describes, not lists, may be the changed one
    ops = ids_operands(ctx.record)
    missing = [s for s in ctx.seal if not any(same_component(t, s.name) for t, _ in ops)]
    extra = [(t, p) for t, p in ops if not any(same_component(t, s.name) for s in ctx.seal)]
    if (len(missing) == 1 and len(extra) == 1 and len(ops) == len(ctx.seal)
            and not any(canonical_component(extra[0][0]) in v.canon for v in ctx.variants)):
        s, (name, prov) = missing[0], extra[0]
        ctx.say("evolution.rewritten_part", f"篆文之「{s.name}」，今字形写作「{name}」",
                f"the seal component {s.name} is written {name} in the modern form", s.provenance + [prov])


def _resolve(ctx: _Ctx) -> None:
    """Pick each component's type by priority and summarise what the modern form keeps."""
    evo = ctx.evo
    for name, lst in ctx.candidates.items():
        evo.components[name] = min(lst, key=lambda ce: EVOLUTION_PRIORITY.index(ce.type))
    retained = [(a, b) for a, b in ctx.retained if b in evo.components and evo.components[b].type == "保留"
                and not _said_rewritten(evo, a)]
    if retained and _accounted(ctx, retained):
        bits_zh, bits_en = [], []
        for seal_name, mod_name in retained:
            w = written_as(ctx.record, mod_name)
            # a regular-script image is drawn in either glyph convention (躳's 呂 is 吕 in mainland fonts only)
            if w is not None and not (ctx.record.script == "楷书" and _is_simplified_form(w[0], seal_name)):
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
    ("seal stage in Shuowen's words", _rule_seal_formation),
    ("Shuowen 或體 / 篆文", _rule_parallel_variants),
    ("modern form is a 重文", _rule_modern_is_variant),
    ("component types", _rule_component_types),
    ("繁化 / dropped against older variants", _rule_variant_comparison),
    ("区别 (古今字)", _rule_gujin),
    ("讹变 by substitution", _rule_substitution),
    ("a drawn part written as a character", _rule_depicted_part),
    ("a seal part written as another character", _rule_rewritten_part),
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
    modern = _modern_record(record, index)
    ctx = _context(modern, index, frozenset(sources) | MODERN_SOURCES)
    for _name, step in DERIVE_STEPS:
        step(ctx)
    if modern is not record:  # the statements hold for the character; no component of the drawing is typed
        ctx.evo.components = {}
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
    # 「籒文。」, 「亦古文㫄。」 only name the kind and the head: no analysis to quote (review of
    # out-r9, seed 20261227 item 11: 「收籒文「𣃪」（籒文）」 said nothing)
    if len(re.sub(r"古文|籒文|籀文|或體|篆文|奇字|今文|[或亦俗也，、]", "", analysis)) <= 1:
        analysis = ""
    if analysis:
        zh += f"（{analysis}）"
        en += f" ({analysis})"
    return Statement("evolution.shuowen_variant", zh, en, _cite(v.provenance, "evolution.shuowen_variant"))


