"""Glyph source ``commons-acc-png``: 6,404 Commons drawings of 篆书, 金文, 战国文字 and 甲骨文.

The Wikimedia Commons "Ancient Chinese characters project" drawings as PNG renders (grey
+ alpha, 250 or 960 px), one per (character, period), with their catalog
(``glyph_catalog.json``: character, period, Commons file title, licence, a sub-period
note), as registered in :mod:`builder.sources.registry` (pinned commit, a SHA-256 per
file). Period -> script: 小篆 篆书 (the ``X-seal.svg`` series: the seal forms Shuowen
analyses), 金文, 战国文字, 甲骨文 (:data:`PERIOD_SCRIPTS`).

A drawing is keyed by its Commons file title (``File:馬-seal.svg``): the same title in
``commons-ancient`` is the same drawing, so it is taken once (the SVG copy there; this
copy is logged ``glyph-duplicate-drawing``), and the audited-out lists of both sources
apply by title (:func:`audit_verdict`). Every image records ``origin`` =
``commons:<title>`` (the leakage checks compare drawings by it), its Commons series
(``seal``, ``bronze``, ``silk``, ``slip``, ``bronze-warring`` ...; ``series``) and its
Commons file page (``page``).

Catalog rows whose title names another character than the catalog's (32 in the pinned
catalog; e.g. 溫-seal filed as 温, 杲-seal filed as 波) are used only where Unihan links
the two characters (traditional / simplified / semantic / Z variant), labelled by the
character the title names, and otherwise skipped (``glyph-title-mismatch``). Numbered
titles (``ACC-s05838.svg``: the reading comes from the file page's template only) are
JieZi-Dataset material unless a reviewer checked them (:mod:`builder.glyphs.commons_acc_audit`).
A two-tone render (a Commons component diagram: one part black inside another
character in grey, so the whole picture reads as that character: 斗-silk inside 畚) is
skipped (``glyph-component-diagram``, :data:`builder.glyphs.tracing.TWO_TONE_SHARE`). Like
``commons-ancient``, each drawing gets :data:`AUGMENTS_PER_DRAWING` augmented copies
for JieZi-Dataset only.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote

from builder.glyphs import render, tracing
from builder.glyphs.base import Meta, Plan, Request
from builder.glyphs.commons_acc_audit import AUDITED as ACC_AUDITED
from builder.glyphs.commons_ancient import COMMONS_PAGE, commons_title, tracings as svg_tracings
from builder.glyphs.commons_ancient_audit import AUDITED_OUT as SVG_AUDITED_OUT
from metrics.acce.variants import is_ideograph
from builder.glyphs.oracle_mnist import GlyphSourceError, source_file
from builder.sources.registry import REGISTRY
from hub.skips import SkipLog
from metrics.acce.variants import VARIANT_FIELDS, read_variants

NAME = "commons-acc-png"
LICENCES = {
    "Public domain (ACClicense)": "public domain (PD-ancient-script; Wikimedia Commons Ancient Chinese characters project)",
    "Public domain": "public domain (Wikimedia Commons)",
    "CC0 1.0": "CC0-1.0 (Wikimedia Commons)",
}
PERIOD_SCRIPTS: dict[str, str] = {"小篆": "篆书", "金文": "金文", "战国文字": "战国文字", "甲骨文": "甲骨文"}
AUGMENTS_PER_DRAWING = 4
# Bump when the same render would give other pixels or another verdict (part of the ids):
# "2" skips two-tone component diagrams (builder.glyphs.tracing.ComponentDiagram).
DRAWING_VERSION = "2"
_TITLE = re.compile(r"^File:(?P<stem>[^-]+)-(?P<series>.+?)(?:-\d+)?\.svg$")
_NUMBERED = re.compile(r"^File:ACC-[a-z]\d+\.svg$")


@dataclass(frozen=True)
class Drawing:
    """One catalog row: ``asset`` (file under ``glyphs/``), ``character`` (the label this
    build uses), ``catalog_character`` (the catalog's), ``script``, ``title`` (Commons file
    title), ``series`` (the title's series, None for a numbered title), ``note`` (the
    catalog's sub-period note, e.g. 楚系简帛文字形), ``licence`` and ``check``: ``ok``,
    ``numbered`` or ``variant`` (the title names a Unihan-linked variant)."""

    asset: str
    character: str
    catalog_character: str
    script: str
    title: str
    series: str | None
    note: str
    licence: str
    check: str

    @property
    def page(self) -> str:
        """The Commons file page of the drawing."""
        return COMMONS_PAGE + quote(self.title, safe=":")


def title_character(title: str) -> str | None:
    """The character a Commons file title names (``File:馬-seal.svg`` -> 馬), None for a
    numbered title (``File:ACC-s05838.svg``) or one that names no single ideograph."""
    m = _TITLE.match(title)
    if not m or _NUMBERED.match(title):
        return None
    stem = m.group("stem")
    return stem if len(stem) == 1 and is_ideograph(ord(stem)) else None


def title_series(title: str) -> str | None:
    """The Commons series a file title names (``seal``, ``bronze-warring`` ...; a trailing
    ``-2`` dropped), None for a numbered title."""
    m = _TITLE.match(title)
    return m.group("series") if m and not _NUMBERED.match(title) else None


def unihan_links(sources_dir: Path) -> dict[str, set[str]]:
    """Character -> the characters Unihan lists as its traditional, simplified, semantic
    or Z variants (``Unihan_Variants.txt``, fields :data:`VARIANT_FIELDS`). Raises
    :class:`GlyphSourceError` when the file is missing."""
    path = source_file(sources_dir, "unihan/Unihan_Variants.txt")
    out: dict[str, set[str]] = {}
    for ch, _field, variants, _line in read_variants(path, VARIANT_FIELDS):
        out.setdefault(ch, set()).update(variants)
    return out


def _unihan_linked(a: str, b: str, links: dict[str, set[str]]) -> bool:
    return b in links.get(a, set()) or a in links.get(b, set())


def drawings(sources_dir: Path, links: dict[str, set[str]], skipped: SkipLog,
             wanted: set[str] | None = None) -> list[Drawing]:
    """The catalog's rows as :class:`Drawing` s, in catalog order. ``links``: character ->
    its Unihan variants (traditional, simplified, semantic, Z); ``wanted``: only rows whose
    catalog or title character is one of these (default all). A row with an unknown
    period or licence, or whose title names an unlinked other character, is logged and
    left out. Raises :class:`GlyphSourceError` when the catalog is missing or malformed."""
    path = source_file(sources_dir, f"{NAME}/glyph_catalog.json")
    try:
        rows = json.loads(Path(path).read_text("utf-8"))
    except ValueError as exc:
        raise GlyphSourceError(f"source {NAME!r}: {path} is not valid JSON: {exc}") from exc
    out = []
    for i, row in enumerate(rows):
        if wanted is not None and not ({row.get("character"), title_character(row.get("sourceNumber") or "")} & wanted):
            continue
        d = _drawing(i, row, links, skipped)
        if d is not None:
            out.append(d)
    return out


def _drawing(i: int, row: dict, links: dict[str, set[str]], skipped: SkipLog) -> Drawing | None:
    item = f"catalog row {i} ({row.get('asset')!r})"
    script = PERIOD_SCRIPTS.get(row.get("period"))
    licence = LICENCES.get(row.get("license"))
    title, ch = row.get("sourceNumber") or "", row.get("character") or ""
    if script is None:
        skipped.add(NAME, item, f"period {row.get('period')!r}: expected one of {', '.join(PERIOD_SCRIPTS)}",
                    field="period", kind="glyph-bad-script")
        return None
    if licence is None:
        skipped.add(NAME, item, f"licence {row.get('license')!r}: expected one of {', '.join(LICENCES)}",
                    field="license", kind="glyph-bad-licence")
        return None
    named = title_character(title)
    check, label = "ok", ch
    if named is None:
        check = "numbered"
    elif named != ch:
        if not _unihan_linked(named, ch, links):
            skipped.add(NAME, item, f"Commons title {title!r} names {named}, not the catalog's {ch}, and Unihan "
                        f"links no variant between them", field="character", kind="glyph-title-mismatch")
            return None
        check, label = "variant", named  # the drawing is the title's character
    if title_series(title) == "ancient":
        script = "战国文字"  # Shuowen's 古文 (墉-ancient draws 𩫖), not the small seal: 古文 are Warring States forms
    return Drawing(row["asset"], label, ch, script, title, title_series(title),
                   (row.get("notes") or "").split(" · ")[0], licence, check)


def audit_verdict(title: str) -> str | None:
    """The tracing audit's verdict on the drawing ``title`` from either copy's list
    (``"ok"``, ``"wrong: ..."``, ``"doubtful: ..."``), None when unreviewed."""
    svg = SVG_AUDITED_OUT.get("svg/" + title[len("File:"):])
    return svg or ACC_AUDITED.get(title)


@lru_cache(maxsize=1)
def svg_titles() -> frozenset[str]:
    """Titles of the drawings ``commons-ancient`` already has as SVG."""
    return frozenset(commons_title(rel) for _, _, rel, _ in svg_tracings())


def plan(request: Request, plan: Plan, skipped: SkipLog) -> None:
    """Add each catalog drawing of a requested character, and its augmented copies.

    Left out and logged: a drawing an audit found wrong or doubtful (``glyph-audited-out``),
    one whose title ``commons-ancient`` has (``glyph-duplicate-drawing``), a character not
    requested (not logged: like the font renderings). Raises :class:`GlyphSourceError`
    when the catalog is missing."""
    wanted = set(request.characters)
    have = svg_titles()
    for d in drawings(request.sources_dir, unihan_links(request.sources_dir), skipped, wanted):
        if d.character not in wanted:
            continue
        verdict = audit_verdict(d.title)
        if verdict and verdict != "ok":
            skipped.add(NAME, d.title, verdict, field="character", kind="glyph-audited-out")
            continue
        if d.title in have:
            skipped.add(NAME, d.title, "the same Commons drawing is taken from commons-ancient (SVG)",
                        kind="glyph-duplicate-drawing")
            continue
        _add(request, plan, d)


def _add(request: Request, plan: Plan, d: Drawing) -> None:
    rel = f"glyphs/{d.asset}"
    path = str(source_file(request.sources_dir, f"{NAME}/{rel}"))
    sha = _manifest_sha()[rel]
    origin = f"commons:{d.title}"
    image_id = render.make_id(NAME, sha, tracing.TRACING_VERSION, DRAWING_VERSION, request.size)
    meta = dict(origin=origin, series=d.series or d.note or None, page=d.page)
    plan.add(render.Job("png", d.character, d.script, image_id, path=path),
             Meta(NAME, d.licence, "tracing", item=d.title, **meta))
    for variant in range(AUGMENTS_PER_DRAWING):
        aug_id = render.make_id(f"{NAME}-aug", sha, tracing.AUGMENT_VERSION, DRAWING_VERSION, variant, request.size)
        plan.add(render.Job("png-augment", d.character, d.script, aug_id, path=path, slug=image_id, variant=variant),
                 Meta(NAME, d.licence, "tracing-augmented", item=f"{d.title} copy {variant}",
                      derived_from=image_id, **meta))


@lru_cache(maxsize=1)
def _manifest_sha() -> dict[str, str]:
    return {f.path: f.sha256 for f in REGISTRY[NAME].manifest_files()}
