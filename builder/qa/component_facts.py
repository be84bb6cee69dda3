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
from builder.qa.component_names import _is_simplified_form, canonical_component, same_component, written_as
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
    bench (nor its traditional / simplified partner), else Unihan's definition."""
    if c.strict:
        return BENCH_PARTS
    reserved = c.index.reserved

    def own_ok(name: str) -> bool:
        if reserved is None:
            return False  # the bench is not known yet: no Shuowen gloss may be stated
        forms = {name, canonical_component(name)} | {v.form for r in c.index.records(name) for v in r.variants
                                                      if v.kind in ("繁體", "簡体")}
        return not (forms & reserved)

    return PartSources(host_text=c.may_use_shuowen(), duan=False, own_gloss=own_ok, unihan="unihan" in c.allowed)


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
