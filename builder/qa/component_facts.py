"""Component facts a profile states beyond the records' list (split from :mod:`builder.qa.compose`).

Which texts a profile may quote about a component (:func:`_part_sources`), a source's own
interpretation attributed (:func:`_source_interpretation`), a phonetic Duan reads as 亦聲
(:func:`_duan_yisheng`), and a simplified glyph's component named as drawn
(:func:`_name_simplified_as_drawn`). Each reads the composer's context
(:class:`builder.qa.compose._FactsCtx`).
"""

from __future__ import annotations

import re
import typing

from builder.qa import part_glosses
from builder.qa.component_names import _is_simplified_form, canonical_component, ids_operands, same_component, written_as
from builder.qa.evidence import parse_duan_raw
from builder.qa.facts import CompFact, _audit_provs
from builder.qa.interpretation import BENCH_PARTS, PartSources
from builder.records.shuowen_rules import is_variant_quote
from builder.schema import GlyphRecord, Component, Provenance

if typing.TYPE_CHECKING:
    from builder.qa.compose import _FactsCtx


def _part_sources(c: "_FactsCtx") -> PartSources:
    """What a profile may quote about a component (:class:`PartSources`): the bench the
    Shuowen and Duan texts; JieZi-Dataset the head's Shuowen text only for a character not in
    the bench, a component's own Shuowen gloss only for a component character not in the
    bench (nor its traditional / simplified partner), else nothing (no Unihan definition)."""
    if c.strict:
        return BENCH_PARTS
    reserved = c.index.reserved

    def own_ok(name: str) -> bool:
        if reserved is None:
            return False  # the bench is not known yet: no Shuowen gloss may be stated
        forms = {name, canonical_component(name)} | {v.form for r in c.index.records(name) for v in r.variants
                                                      if v.kind in ("繁體", "簡体")}
        return not (forms & reserved)

    return PartSources(host_text=c.may_use_shuowen(), duan=False, own_gloss=own_ok)


def _source_interpretation(cf: CompFact, src: Component, provs: list[Provenance],
                           host: GlyphRecord | None = None) -> tuple[str, str]:
    """A component interpretation a source states (Shuowen 「皿，物之用也」 on 蠱; an
    expert's correction): attributed to Shuowen when it is its text, and to the head it
    explains when it is the host's own gloss (庫 「兵車藏也」 under 車: data review 12-04,
    铸's 金 read as 「銷金也」)."""
    if any(p.source == "shuowen" for p in provs) and not _audit_provs(provs):
        role = "既表意又表音（亦声）" if {"表意", "表音"} <= set(cf.functions) else "表意"
        text = src.interpretation
        sw = "".join(t for k, t in (host.raw if host else {}).items() if k.startswith("shuowen:"))
        if host is not None and re.sub(r"[\W也]", "", text) and re.sub(r"[\W也]", "", text) in re.sub(r"[\W也]", "", sw):
            head = host.traditional or host.character
            return (f"「{cf.name}」{role}；《说文》释「{head}」：「{text}」",
                    f"{cf.name}: Shuowen on {head}: {text}")
        return f"「{cf.name}」{role}；《说文》：「{text}」", f"{cf.name}: Shuowen: {text}"
    return src.interpretation, f"(source text) {src.interpretation}"


_YI_SHENG = re.compile(r"([\u3400-\u9fff\U00020000-\U0003134f])亦聲")


def _duan_yisheng(c: "_FactsCtx", comps: list[CompFact]) -> None:
    """A phonetic that Duan's note on the head says also carries meaning (閹 「奄亦聲」, 貨
    「形聲包會意」 on 「从貝化聲」) is 表意 + 表音 where Duan may be cited (the bench): the
    FORC answer already reads his 亦声, and the component answer must agree with it
    (issue 21 review: 奄 given 表音 only). Modifies ``comps`` in place."""
    if "duan" not in c.allowed:
        return
    phonetics = [x for x in comps if x.functions == ["表音"]]
    semantic = [x for x in comps if x.functions == ["表意"]]  # 庫 「从車在广下」, Duan 「車亦聲」
    if not phonetics and not semantic:
        return
    for eid in part_glosses.host_entries(c.record, c.index, [p for x in comps for p in x.provenance]):
        head = c.index.shuowen_entry(eid).get("wordhead") or c.record.character
        for quote, note in parse_duan_raw(c.index.duan_notes.get(eid, "")):
            if is_variant_quote(quote, head):
                continue  # his note on the 重文 (鐘 「鐘或从甬」: 「甬亦聲」) is about that form
            named = {m.group(1) for m in _YI_SHENG.finditer(note)}
            whole = "形聲包會意" in note and len(phonetics) == 1 and "聲" in quote
            for x in phonetics + semantic:
                if len(x.functions) == 2:
                    continue  # already read from an earlier note
                hit = next((m.group(0) for m in _YI_SHENG.finditer(note) if same_component(m.group(1), x.name)), None)
                if hit or (whole and not named and x.functions == ["表音"]):
                    # Shuowen's own reading stays right (as FORC)
                    x.functions_accepted = [list(x.functions)]
                    x.functions = ["表意", "表音"]
                    x.provenance = x.provenance + [Provenance(source="duan", entry_id=eid, span=hit or "形聲包會意",
                                                              rule="qa.comf.duan_yisheng")]


def _name_simplified_as_drawn(c: "_FactsCtx", comps: list[CompFact]) -> None:
    """On a modern glyph, a component the IDS writes in its simplified form is named as
    drawn (鳄 ⿰鱼咢: 「鱼」, not the 「魚」 of the linked 鰐; the scorer's alias table maps the
    two): data review 07-70/111. Position forms (氵 for 水) keep the character's name."""
    if c.form != "modern" or c.record.ids is None:
        return
    drawn = c.record.ids.value  # at any depth: 质 ⿸𠂆⿱十贝 draws 贝 inside its second operand
    for cf in comps:
        w = written_as(c.record, cf.name)
        if w is None and cf.name not in drawn:
            w = next(((ch, c.record.ids.provenance[0]) for ch in drawn if _is_simplified_form(ch, cf.name)), None)
        if w is not None and _is_simplified_form(w[0], cf.name) and len(w[0]) == 1:
            cf.name = w[0]
            cf.provenance = cf.provenance + [w[1]]


_SAYS_YISHENG = re.compile(r"亦[聲声]")


def _hint_yisheng(comps: list[CompFact]) -> None:
    """A component made 表意 + 表音 (亦声) only by a makemeahanzi hint (讧 「Dissent among
    workers 工; 工 also provides the pronunciation」, where Shuowen's 訌 is 「从言工聲」) is
    the phonetic the hint names, 表音 only: 亦声 comes from Shuowen's 「X亦聲」, a 亦聲 class
    in cjkvi-ids or Duan's note, never from a mnemonic (data review 12-04, round 4).
    Duan's 亦聲 may still make it 表意 + 表音 afterwards (:func:`_duan_yisheng`). Modifies
    ``comps`` in place."""
    for x in comps:
        if not {"表意", "表音"} <= set(x.functions) or _audit_provs(x.provenance):
            continue
        if not any(p.rule == "makemeahanzi.hint.phonetic" for p in x.provenance):
            continue
        if any(p.source != "makemeahanzi" and _SAYS_YISHENG.search(p.span) for p in x.provenance):
            continue
        x.functions = ["表音"]
        x.provenance = [p for p in x.provenance if p.rule != "makemeahanzi.hint.phonetic"]


MMH_AGAINST_HEAD = "mmh-analysis:against-linked-shuowen-head"


def _mmh_against_head(c: "_FactsCtx", f, comps: list[CompFact]) -> None:
    """No component interpretation when the components rest on makemeahanzi alone while
    Unihan / cjkvi-ids link the character to a Shuowen head whose formula does not name
    them (准, the 俗省 of 準 「从水隼聲」, decomposed by makemeahanzi as 冫 + 隹: 冫 read as
    仌 「象水凝之形」 would explain a part 準 never had). Interpretations are cleared and
    COMI / COMP_FULL / COMP_ASPECT counted under :data:`MMH_AGAINST_HEAD` (data review
    12-04, round 4)."""
    if not comps or any(p.source not in ("makemeahanzi", "unihan") for x in comps for p in x.provenance):
        return
    rec = c.record
    linked = {v.form for v in rec.variants if v.form != rec.character} | ({rec.traditional} - {None, rec.character})
    for form in sorted(linked):
        for eid in c.index.heads.get(form, []):
            expl = c.index.shuowen_entry(eid).get("explanation") or ""
            formula = "".join(x for x in re.split(r"[。，；]", expl) if x.startswith(("从", "從")) or "聲" in x)
            if formula and not all(any(same_component(ch, x.name) for ch in formula) for x in comps):
                for x in comps:
                    x.interpretation = x.interpretation_en = None
                    x.interpretation_provenance = []
                for k in ("COMI", "COMP_FULL", "COMP_ASPECT"):
                    f.missing[k] = MMH_AGAINST_HEAD
                return


SPLIT_ONLY = "ids-split-only:formation"


def _formation_from_split_only(c: "_FactsCtx", f) -> None:
    """No FORC when a 会意 class rests only on a decomposition source (cjkvi-ids'
    analysis, makemeahanzi's type; no other source of the record states it) whose split names a part the character's own Shuowen
    analysis does not (氒 ⿱氏十 「會意」 in cjkvi-ids; Shuowen 「木本。从氏。大於末」 names 氏
    only): the class is then read off the modern split, not the analysis (data review
    12-04, round 4). Counted under :data:`SPLIT_ONLY`."""
    if f.formation is None or f.formation[0].label != "会意" or _audit_provs(f.formation[1]):
        return
    whole = c.record.formation.provenance if c.record.formation is not None else []
    if any(p.source not in ("cjkvi-ids", "makemeahanzi") for p in list(f.formation[1]) + list(whole)):
        return  # 爭: Shuowen's 「从𠬪、𠂆」 is 会意 too, whatever the profile may cite
    own = [k.partition(":")[2] for k in c.record.raw if k.startswith("shuowen:")]
    for eid in own:
        e = c.index.shuowen_entry(eid)
        if e.get("wordhead") != c.record.character:
            continue
        formula = "".join(x for x in re.split(r"[。，；]", e.get("explanation") or "") if x.startswith(("从", "從")))
        ops = [t for t, _ in ids_operands(c.record)]
        if ops and any(not any(same_component(ch, t) for ch in formula) for t in ops):
            f.formation = None
            f.missing["FORC"] = SPLIT_ONLY
            return
