"""A readable rendering of a :class:`GlyphRecord`: every field with its provenance.

Used by ``jiezi records show`` (and handy in a notebook). Plain text, one value per
line, each followed by the sources that agree / disagree and the cited spans.
"""

from __future__ import annotations

from builder.schema import Component, GlyphRecord, Grounded, Provenance, as_drawn
from metrics.acce import labels


def _span(p: Provenance, limit: int = 60) -> str:
    s = p.span.replace("\t", " ⇥ ").replace("\n", " ⏎ ")
    if len(s) > limit:
        s = s[:limit] + "…"
    return f"{p.source}:{p.entry_id} 「{s}」 ({p.rule})"


def _agreement(agree: list[str], disagree: dict[str, str]) -> str:
    out = f"agree: {', '.join(agree) or '-'}"
    if disagree:
        out += "; disagree: " + ", ".join(f"{s}={v}" for s, v in disagree.items())
    return out


def _grounded(label: str, g: Grounded | None, fmt=str) -> list[str]:
    if g is None:
        return [f"{label}: (no source)"]
    lines = [f"{label}: {fmt(g.value)}    [{_agreement(g.agree, g.disagree)}]"]
    lines += [f"    <- {_span(p)}" for p in g.provenance]
    return lines


def _component(c: Component) -> list[str]:
    fns = "、".join(c.functions) or "(function not stated)"
    lines = [f"  - {c.name} [{c.position or '?'}] {fns}    [{_agreement(c.agree, c.disagree)}]"]
    lines += [f"      <- {_span(p)}" for p in c.provenance]
    if c.interpretation:
        lines.append(f"      interpretation: {c.interpretation}")
        lines += [f"      <- {_span(p)}" for p in c.interpretation_provenance]
    if c.evolution_type:
        lines.append(f"      evolution: {c.evolution_type}")
        lines += [f"      <- {_span(p)}" for p in c.evolution_provenance]
    return lines


def show_record(rec: GlyphRecord) -> str:
    """Every filled field of ``rec`` with its provenance, as plain text; an early-form
    record (甲骨文, 金文) as :func:`builder.schema.as_drawn` gives it, saying why its
    structure, components and formation are not shown."""
    rec = as_drawn(rec)
    head = f"{rec.id}: character {rec.character}, script {rec.script}"
    if rec.form:
        head += f", analysed form {rec.form} (the form the structure and components describe)"
    lines = [head]
    if rec.traditional or rec.simplified:
        lines.append(f"traditional: {rec.traditional or '-'}  simplified: {rec.simplified or '-'}")
    by_src: dict[str, int] = {}
    for im in rec.images:
        by_src[im.font or im.source] = by_src.get(im.font or im.source, 0) + 1
    lines.append(f"images: {len(rec.images)}" + (" (" + ", ".join(f"{k} x{v}" for k, v in by_src.items()) + ")"
                                                 if by_src else ""))
    if rec.script in labels.EARLY_FORM_SCRIPTS:
        lines.append(f"structure, components, formation: no source analyses the {rec.script} form "
                     "(the IDS and Shuowen describe the modern and seal forms)")
    lines += _grounded("structure (STRC)", rec.structure)
    lines += _grounded("IDS", rec.ids)
    lines += _grounded("formation (FORC)", rec.formation,
                       lambda f: f.label + (" (亦声)" if f.yisheng else ""))
    lines.append(f"components (COMR/COMF/COMI): {len(rec.components) or '(no source)'}")
    for c in rec.components:
        lines += _component(c)
    lines += _grounded("original meaning (ORIM)", rec.original_meaning)
    lines += _grounded("English definition", rec.definition_en)
    lines += _grounded("evolution (EVOI)", rec.evolution)
    if rec.readings:
        lines.append("readings:")
        for r in rec.readings:
            lines.append(f"  - {r.pinyin or ''}{' 反切 ' + r.fanqie if r.fanqie else ''}")
            lines += [f"      <- {_span(p)}" for p in r.provenance]
    if rec.variants:
        lines.append("variants:")
        for v in rec.variants:
            comps = ", ".join(f"{c.name}({'、'.join(c.functions)})" for c in v.components)
            lines.append(f"  - {v.form} {v.kind}" + (f": {v.analysis}" if v.analysis else "")
                         + (f"  components {comps}" if comps else ""))
            lines += [f"      <- {_span(p)}" for p in v.provenance]
    if rec.senses:
        lines.append("other senses:")
        for s in rec.senses:
            lines.append(f"  - {s.meaning}" + (f" ({s.notes})" if s.notes else ""))
            lines += [f"      <- {_span(p)}" for p in s.provenance]
    if rec.radical_stroke:
        lines += _grounded("radical-stroke (kRSUnicode)", rec.radical_stroke)
    if rec.flags:
        lines.append("fidelity flags (values removed):")
        lines += [f"  - {f.field} = {f.value}: {f.reason}" for f in rec.flags]
    lines.append("raw texts: " + ", ".join(rec.raw))
    return "\n".join(lines)
