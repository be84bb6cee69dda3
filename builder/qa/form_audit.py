"""Structure questions on early-form drawings that a reviewer found drawn as Shuowen analyses them.

Shuowen analyses the small seal. An early form (金文, 战国文字, 甲骨文) often has another
composition (終 is written 冬, 鳳 a bird pictograph, 般's 舟 is a 凡 in the early forms), so
the bench asks no L2 question of it unless a source analyses that form (issue 20). The form
audit is that source for single drawings: an independent reviewer looked at each drawing
beside the seal drawing and Shuowen's analysis of the head (contact sheets, enlarged
originals where unsure) and said whether it is made of exactly Shuowen's components, nothing
more and nothing less (``"same <IDC>"``, with the layout of the drawing itself), or
``"differs: ..."`` (another composition), ``"wrong: ..."`` (not the character: such drawings
are also left out by the tracing audit) or ``"doubtful: ..."``. The verdicts live in
``form_audit.json`` beside this module (Commons file title -> verdict); as this module's
data file an edit there changes the QA stage's code key (:func:`builder.codekey.code_digest`).
The 2026-12-04 audit: 622 drawings (金文, 战国文字, 甲骨文 whose character's seal record grounds
every seal L2 question), four reviewers: 408 same, 117 differs, 96 doubtful, 1 wrong; a second
reviewer then read every ``differs`` drawing, and those that draw another character's graph
(中 for 仲) went to the tracing audit as wrong (``builder/glyphs/commons_acc_audit.json``).

A drawing found ``same`` is asked, from the bench facts of its character's seal record: the
components with their functions and interpretations (the component question without
evolution types, ``COMP_ASPECT``: the evolution types compare the seal with the modern form,
and no source here states them for the early form), the formation (FORC) and the drawing's
own layout (STRC, the reviewer's). Every such value cites the verdict beside Shuowen.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

from builder.qa.facts import EARLY_FORM_REASON, L2_KINDS, CompFact, Facts
from builder.schema import GlyphImage, GlyphRecord, Provenance
from metrics.acce import labels

FORM_AUDIT: dict[str, str] = json.loads(Path(__file__).with_suffix(".json").read_text("utf-8"))
FORM_RULE = "form_audit.same_as_shuowen"
# the kinds a confirmed drawing is asked (the component question without COME)
FORM_KINDS = ("STRC", "COMR", "COMF", "COMI", "COMP_ASPECT", "FORC")


def verdict_of(image: GlyphImage) -> str | None:
    """The form audit's verdict on ``image`` (a Commons drawing, ``origin``
    ``commons:<title>``), or None when it has none."""
    origin = image.origin or ""
    return FORM_AUDIT.get(origin[len("commons:"):]) if origin.startswith("commons:") else None


def confirmed_layout(image: GlyphImage) -> str | None:
    """The layout (an IDC or 独体) the reviewer gave for a drawing found ``same``, else None.
    Raises ``ValueError`` naming the drawing when a ``same`` verdict's layout is not an
    ACCE structure label (a malformed data file must not pass silently)."""
    v = verdict_of(image)
    if not v or not v.startswith("same"):
        return None
    layout = v[len("same"):].strip()
    if layout not in labels.STRUCTURES:
        raise ValueError(f"form_audit.json: {image.origin}: verdict {v!r}: expected 'same <IDC>' "
                         f"with one of {' '.join(labels.STRUCTURES)}")
    return layout


def _prov(image: GlyphImage, layout: str) -> Provenance:
    title = (image.origin or "")[len("commons:"):]
    return Provenance(source="user", entry_id=f"form-audit:{title}", span=f"same {layout}", rule=FORM_RULE)


def drawing_facts(early: Facts, seal: Facts | None, image: GlyphImage) -> Facts | None:
    """The bench facts of one early-form drawing the form audit confirmed: ``early`` (the
    facts of its record, which lack every L2 kind) with the seal record's components (no
    evolution types), formation and the reviewer's layout. None when the drawing has no
    ``same`` verdict or ``seal`` cannot ground the component question and FORC."""
    layout = confirmed_layout(image)
    if layout is None or seal is None or not seal.components or seal.formation is None:
        return None
    if any(k in seal.missing for k in ("COMP_ASPECT", "FORC")):
        return None
    prov = _prov(image, layout)
    f = copy.deepcopy(early)
    shuowen = [p for c in seal.components for p in c.provenance if p.source in ("shuowen", "duan")]
    f.structure = (layout, [prov, *shuowen[:1]])
    f.formation = (seal.formation[0], [*seal.formation[1], prov])
    f.components = [_early_component(c, prov) for c in seal.components]
    if "FORC" in seal.accepted:
        f.accepted["FORC"] = copy.deepcopy(seal.accepted["FORC"])
    for k in FORM_KINDS:
        if f.missing.get(k) == EARLY_FORM_REASON:
            del f.missing[k]
    for k in L2_KINDS:
        if k not in FORM_KINDS:
            f.missing[k] = EARLY_FORM_REASON  # COME / the full component question
    return f


def _early_component(c: CompFact, prov: Provenance) -> CompFact:
    return replace(copy.deepcopy(c), provenance=[*c.provenance, prov], evolution_type=None,
                   evolution_provenance=[])


def confirmed_drawings(records: list[GlyphRecord], bench_facts: dict[str, Facts]) -> dict[str, Facts]:
    """``image id -> Facts`` for every early-form drawing :func:`drawing_facts` grounds
    (the seal record of a character is ``<character>_篆书``)."""
    out: dict[str, Facts] = {}
    for r in records:
        early = bench_facts.get(r.id)
        if early is None or r.script not in labels.EARLY_FORM_SCRIPTS:
            continue
        seal = bench_facts.get(f"{r.character}_篆书")
        for im in r.images:
            f = drawing_facts(early, seal, im)
            if f is not None:
                out[im.id] = f
    return out
