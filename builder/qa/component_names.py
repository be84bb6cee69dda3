"""Component identity across sources, and what a record's IDS draws for them.

Shuowen names components as the seal writes them (水, 言), the modern IDS as the modern
form does (氵, 讠), simplified or traditional: :func:`canonical_component` and
:func:`same_component` decide when two names are one component, :func:`written_as` how the
IDS writes it, and :func:`abbreviated_parts` what the glyph draws for a component Shuowen
marks as abbreviated (省). Read by the evolution rules (:mod:`builder.qa.evolution`), the
QA composer and the bench's unseen-component split.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from builder import aliases
from builder import ids as ids_mod
from builder.schema import Component, GlyphRecord, Provenance


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


def drawn_in_ids(record: GlyphRecord, name: str) -> bool:
    """Whether the record's modern IDS draws component ``name``, at any depth, as itself or
    a listed form of it (水 as 氵, 肉 as 月): 爭 ⿱爫⿻⿻コ一亅 draws neither the 𠬪 nor the 𠂆
    of Shuowen's 「从𠬪、𠂆」, so neither is kept (保留) in the modern form (data review 12-04,
    round 4). True when the record has no IDS to check (the modern component list, from the
    IDS sources' spans, then stands alone)."""
    if record.ids is None:
        return True
    text = record.ids.value
    return any(ch == name or same_component(ch, name) for ch in text if not 0x2FF0 <= ord(ch) <= 0x2FFF)


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


def _has_compound_operand(record: GlyphRecord) -> bool:
    """Whether the record's first-level IDS has an operand that is itself a composition."""
    try:
        return any(not o.is_character for o in ids_mod.first_level(record.ids.value)) if record.ids else False
    except ids_mod.IDSError:
        return False


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
    # two 省 parts and an operand the IDS leaves as a compound (囊 ⿳⿻一中冖⿱⿱吅𠀎𧘇, 「从㯻省，
    # 襄省聲」): which leftover belongs to which part cannot be told, so none is located (the
    # 冖 is no 「㯻省」: data review 09-20)
    if len(waiting) > 1 and _has_compound_operand(record):
        others_drawn = False
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
