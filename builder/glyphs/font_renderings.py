"""Glyph source ``font``: regular-script renderings of the requested characters.

Each requested character is drawn with each font design of ``request.fonts`` whose
cmap has it; style ``font-kai`` / ``font-song`` / ``font-hei``. Script 楷书, except 简体
for a simplified form that differs from its traditional form (Unihan
``kTraditionalVariant`` present and not containing the character itself, see
:func:`builder.glyphs.oracle_mnist.simplified_only`). A design without the character is
skipped and logged (kind ``font-missing-glyph``).
"""

from __future__ import annotations

from builder.glyphs import render
from builder.glyphs.base import Plan, Request, font_meta
from builder.glyphs.fonts import resolve_design
from builder.glyphs.oracle_mnist import simplified_only
from builder.glyphs.user import slugify
from hub.skips import SkipLog

NAME = "font"


def plan(request: Request, plan: Plan, skipped: SkipLog) -> None:
    """Add a job per (requested character, design with a glyph for it), by character
    (code point) then design in ``request.fonts`` order. Raises ``ValueError`` when a
    font of ``request.fonts`` is not installed (see
    :func:`builder.glyphs.fonts.resolve_design`)."""
    simplified = simplified_only(request.sources_dir)
    designs = [resolve_design(name) for name in request.fonts]
    indices = [plan.design(d) for d in designs]
    slugs = ["font-" + slugify(d.name) for d in designs]
    for ch in request.characters:
        script = "简体" if ch in simplified else "楷书"
        for design, index, slug in zip(designs, indices, slugs):
            face = design.face_for(ord(ch))
            if face is None:
                skipped.add(design.source, f"U+{ord(ch):04X} {ch}",
                            f"font {design.name!r} has no glyph for U+{ord(ch):04X} in its cmap",
                            kind="font-missing-glyph")
                continue
            image_id = render.make_id(slug, design.fingerprint, ord(ch), request.size)
            plan.add(render.Job("font", ch, script, image_id, design=index, face=face, codepoint=ord(ch)),
                     font_meta(design))
