"""Reading evidence used by the alignment (:mod:`builder.records.align`): Unihan's Mandarin
readings and 反切 of a character, whether two 反切 spell one syllable, and the rules that keep a
component's function off where the readings contradict a learner's or modern label."""

from __future__ import annotations

import re

from builder.aliases import same_component
from builder.records.gather import Candidate, Corpus, _toneless
from builder.schema import FidelityFlag, GlyphRecord
from metrics.acce.labels import REGULAR_SCRIPTS

_UNIHAN_PINYIN = re.compile(r"\tk(?:Mandarin|HanyuPinyin|XHC1983)\t(.+)$", re.M)


def unihan_fanqie(ch: str, corpus: Corpus) -> set[str]:
    return {rd.fanqie for r in corpus.readings.get(ch, []) if r.source == "unihan" for rd in r.readings if rd.fanqie}


def same_fanqie(a: str, b: str, corpus: Corpus) -> bool:
    """Whether two 反切 spell one syllable: each speller the same character, a Unihan
    variant of it (kSemanticVariant / kZVariant / traditional-simplified), or its homophone
    by Unihan's kFanqie (皓 and 晧 are both 胡老: 子皓 and 子晧 are one reading; data review
    12-18 item 110). The upper speller gives the initial, the lower the rhyme and tone, so
    a homophone speller spells the same syllable."""
    if len(a) != len(b) or len(a) != 2:
        return a == b
    return all(x == y or y in corpus.variants.get(x, ()) or bool(unihan_fanqie(x, corpus) & unihan_fanqie(y, corpus))
               for x, y in zip(a, b))


def unstated_modern_phonetic(rec: GlyphRecord, cands: dict[str, list[Candidate]], seal: str, corpus: Corpus) -> None:
    """A modern record with no 說文 entry of its own whose seal form (its Shuowen head,
    :func:`builder.records.align._written_form`) names another phonetic: the drawn part a modern source calls
    表音 stands for Shuowen's phonetic, which no source here says (志 楷书: cjkvi-ids' 「士聲」,
    Shuowen 𢖽 「从心之聲」; data review 12-19 item 106), so the part keeps no function and is
    flagged rather than presented as the phonetic of its own. A part read like the host
    (a shared toneless Unihan reading) is a later form's own phonetic and stays."""
    if rec.script not in REGULAR_SCRIPTS or any(c.via is None for c in cands.get("shuowen", [])):
        return
    if seal == (rec.form or rec.character):
        return
    sw = [x.name for r in corpus.readings.get(seal, []) if r.source == "shuowen" and r.head is None
          for x in r.components if "表音" in x.functions]
    host = all_pinyin(rec.form or rec.character, corpus)
    for comp in rec.components if sw else []:
        if "表音" in comp.functions and not any(same_component(comp.name, p, variants=corpus.variants) for p in sw) \
                and not host & all_pinyin(comp.name, corpus):
            rec.flags.append(FidelityFlag(field="components", value=f"{comp.name}:表音", source=comp.provenance[0].source
                                          if comp.provenance else "", span=comp.provenance[0].span if comp.provenance else "",
                                          reason=f"Shuowen's phonetic of {seal} is {'、'.join(sw)}; that {comp.name} "
                                                 f"writes it is stated by no source"))
            comp.functions = []


def all_pinyin(ch: str, corpus: Corpus) -> set[str]:
    """Toneless Mandarin readings of ``ch``'s own Unihan entry (kMandarin, kHanyuPinyin, kXHC1983)."""
    out: set[str] = set()
    for r in corpus.readings.get(ch, []):
        if r.source == "unihan" and r.head is None:
            for m in _UNIHAN_PINYIN.finditer(corpus.texts.get(r.entry_key, "")):
                out.update(_toneless(x) for item in m.group(1).split() for x in item.split(":")[-1].split(",") if x)
    return out


def unknown_if_read_alike(rec: GlyphRecord, corpus: Corpus) -> None:
    """makemeahanzi's etymology type / hint never makes a part 表意 that reading evidence
    shows to be a phonetic: the part read like the host (a shared toneless Unihan reading,
    or 反切 spelling one syllable, :func:`same_fanqie`) keeps no function and is flagged
    (紥: 扎 is read zā like 紥, which is 紮 「糸 + 札聲」, not 扎 表意 as makemeahanzi's
    'ideographic' has it; data review 12-19 item 96). A 会意 class resting on makemeahanzi
    alone then goes too."""
    host = rec.form or rec.character
    hp, hf = all_pinyin(host, corpus), unihan_fanqie(host, corpus)
    for comp in rec.components:
        if comp.functions != ["表意"] or any(p.source != "makemeahanzi" for p in comp.provenance):
            continue
        cf = unihan_fanqie(comp.name, corpus)
        if not (hp & all_pinyin(comp.name, corpus) or any(same_fanqie(a, b, corpus) for a in hf for b in cf)):
            continue
        rec.flags.append(FidelityFlag(field="components", value=f"{comp.name}:表意", source="makemeahanzi",
                                      span=comp.provenance[0].span if comp.provenance else "",
                                      reason=f"{comp.name} is read like {host} (Unihan): makemeahanzi's type "
                                             f"makes no function of a likely phonetic"))
        comp.functions = []
        if rec.formation and rec.formation.agree == ["makemeahanzi"] and rec.formation.value.label == "会意":
            rec.formation = None
