"""Glyph source ``commons-ancient``: traced oracle-bone, bronze and small-seal glyphs.

The Wikimedia Commons "Ancient Chinese characters project" tracings (public domain,
PD-ancient-script) as registered in :mod:`builder.sources.registry` (source
``commons-ancient``: 359 SVGs ``svg/<character>-<form>.svg``, each pinned by SHA-256).
Form -> script: ``oracle`` 甲骨文, ``bronze`` 金文, ``seal`` 篆书 (:data:`FORM_SCRIPTS`). Tracings an
independent review found not to draw the named character are left out
(:mod:`builder.glyphs.commons_ancient_audit`).

Per requested character and form: the tracing itself (style ``tracing``, rasterised with
cairosvg, see :mod:`builder.glyphs.tracing`) and :data:`AUGMENTS_PER_TRACING` augmented
copies (style ``tracing-augmented``, ``derived_from`` = the tracing's image id). Every
image records its licence and ``origin`` (``commons-ancient:svg/<file>``). Augmented
copies are for JieZi-Dataset only: the bench selection never takes one, and withholds
every image made from a bench tracing (``builder/qa/bench_select.py``).
"""

from __future__ import annotations

from urllib.parse import quote

from builder.glyphs import render, tracing
from builder.glyphs.base import Meta, Plan, Request
from builder.glyphs.commons_ancient_audit import AUDITED_OUT
from metrics.acce.variants import is_ideograph
from builder.glyphs.oracle_mnist import source_file
from builder.sources.registry import REGISTRY
from hub.skips import SkipLog

NAME = "commons-ancient"
LICENCE = "public domain (PD-ancient-script; Wikimedia Commons Ancient Chinese characters project)"
FORM_SCRIPTS: dict[str, str] = {"oracle": "甲骨文", "bronze": "金文", "seal": "篆书"}
AUGMENTS_PER_TRACING = 4
COMMONS_PAGE = "https://commons.wikimedia.org/wiki/"


def form_series(rel: str) -> str:
    """The Commons series of ``svg/<character>-<form>.svg`` (its form: oracle, bronze, seal)."""
    return rel.rsplit("-", 1)[-1].rsplit(".", 1)[0]
# Tracings a paleographer's review found to draw another character than their file name
# says; left out of every build (logged as ``glyph-audited-out``), with the reason.


def commons_title(rel: str) -> str:
    """The Commons file title of the tracing ``svg/<file>`` (``svg/丁-bronze.svg`` ->
    ``File:丁-bronze.svg``): the key of a drawing whichever copy it comes from."""
    return "File:" + rel.rsplit("/", 1)[-1]


def tracings() -> list[tuple[str, str, str, str]]:
    """``(character, script, relative path, sha256)`` of every registered tracing, in the
    registry manifest's order. A file name that is not ``<character>-<form>.svg`` with a
    known form raises ``ValueError`` naming it (the manifest is committed: a bad name is
    a packaging error, not bad data)."""
    out = []
    for f in REGISTRY[NAME].manifest_files():
        name = f.path.rsplit("/", 1)[-1]
        stem, _, ext = name.rpartition(".")
        ch, _, form = stem.rpartition("-")
        if ext != "svg" or len(ch) != 1 or form not in FORM_SCRIPTS:
            raise ValueError(f"source {NAME!r}: file {f.path!r} is not '<character>-<form>.svg' with form one of "
                             f"{', '.join(FORM_SCRIPTS)}")
        out.append((ch, FORM_SCRIPTS[form], f.path, f.sha256))
    return out


def plan(request: Request, plan: Plan, skipped: SkipLog) -> None:
    """Add the tracing and its augmented copies for every tracing whose character is
    requested (like the font renderings, a tracing of another character is not taken); a
    character that is not a CJK ideograph is logged (kind ``glyph-bad-character``). Raises
    :class:`~builder.glyphs.oracle_mnist.GlyphSourceError` when a registered file is
    missing from the cache."""
    wanted = set(request.characters)
    for ch, script, rel, sha in tracings():
        if not is_ideograph(ord(ch)):
            skipped.add(NAME, rel, "not a single CJK ideograph", field="character", kind="glyph-bad-character")
            continue
        if ch not in wanted:
            continue
        if rel in AUDITED_OUT:
            skipped.add(NAME, rel, AUDITED_OUT[rel], field="character", kind="glyph-audited-out")
            continue
        path = str(source_file(request.sources_dir, f"{NAME}/{rel}"))
        title = commons_title(rel)
        origin = f"commons:{title}"  # the drawing, whichever copy: leakage checks compare it
        image_id = render.make_id(NAME, sha, tracing.TRACING_VERSION, request.size)
        plan.add(render.Job("svg", ch, script, image_id, path=path),
                 Meta(NAME, LICENCE, "tracing", item=rel, origin=origin, series=form_series(rel),
                      page=COMMONS_PAGE + quote(title, safe=":")))
        for variant in range(AUGMENTS_PER_TRACING):
            aug_id = render.make_id(f"{NAME}-aug", sha, tracing.AUGMENT_VERSION, variant, request.size)
            plan.add(render.Job("svg-augment", ch, script, aug_id, path=path, slug=image_id, variant=variant),
                     Meta(NAME, LICENCE, "tracing-augmented", item=f"{rel} copy {variant}", origin=origin,
                          derived_from=image_id, series=form_series(rel), page=COMMONS_PAGE + quote(title, safe=":")))
