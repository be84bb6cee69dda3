"""Whether a modern layout (STRC) is also the layout of the seal form a 篆书 image shows.

No source here describes the seal's own layout: the IDS sources describe the modern
character and Shuowen names parts, not their places. A seal image is asked STRC only
where Shuowen's parts are the IDS operands (:func:`layout_matches_shuowen`) and the
modern layout is not one the seal is known to write otherwise (:func:`seal_layout_unsure`).
"""

from __future__ import annotations

from builder.ids import IDSError
from builder.ids import first_level as ids_first_level
from builder.qa.component_names import ids_operands, same_component
from builder.qa.evidence import EvidenceIndex
from builder.records.own_form import SEAL_UNSURE_LAYOUTS, walk_radical_in
from builder.schema import GlyphRecord


def layout_matches_shuowen(record: GlyphRecord) -> bool:
    """A single-source layout is confirmed when the Shuowen analysis agrees with what it
    arranges: 独体 with one Shuowen component, or first-level IDS operands that are exactly
    the Shuowen components (radical aliases applied)."""
    sw = [c for c in record.components if "shuowen" in {p.source for p in c.provenance} | set(c.agree)]
    if record.structure is None or (not sw and record.components):
        return False
    if record.structure is not None and record.structure.value == "独体" and not record.components:
        form = record.formation
        return bool(form and form.value.label in ("象形", "指事")
                    and any(p.source == "shuowen" for p in form.provenance))
    if record.structure.value == "独体":
        return len(sw) == 1 and len(record.components) == 1
    ops = [t for t, _ in ids_operands(record)]
    if len(ops) != len(sw) or len(sw) != len(record.components):
        return False
    return all(any(same_component(o, c.name) for c in sw) for o in ops)


SEAL_LAYOUT_REASON = "seal-form:modern-layout-not-the-seal's"


def _wrap_above(record: GlyphRecord, index: EvidenceIndex) -> bool:
    """Whether a ⿱ layout's upper part is itself written with 辵 / 廴 (導 ⿱道寸): the seal's
    辵 runs down the left and along the foot of the whole graph, so the lower part sits inside
    it and the modern top-bottom split is not the seal's layout (review of out-r9, seed 20261226
    item 46). The upper part's own IDS is read from its records in ``index``."""
    if record.ids is None or not record.ids.value.startswith("⿱"):
        return False
    try:
        top = ids_first_level(record.ids.value)[0].text
    except (IDSError, IndexError):
        return False
    own = [r.ids.value for r in index.records(top) if r.ids is not None] if len(top) == 1 else []
    return walk_radical_in(top, own)


def seal_layout_unsure(record: GlyphRecord, layout: str, index: EvidenceIndex) -> bool:
    """Whether the modern ``layout`` of ``record`` may not be its seal form's: one of
    :data:`builder.records.own_form.SEAL_UNSURE_LAYOUTS`, or a ⿱ whose upper part is written with 辵 / 廴
    (:func:`_wrap_above`)."""
    return layout in SEAL_UNSURE_LAYOUTS or _wrap_above(record, index)
