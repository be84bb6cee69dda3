"""Glyph source ``lxgw-seal``: the LXGW Seal font's glyphs, and when one counts as 篆书.

LXGW Seal (SIL OFL 1.1) is a modern seal-style typeface. Its README says every glyph
follows a Shuowen small-seal form, but an audit of the 37 renderings of an earlier bench
(issue 12) found ten glyphs that draw the modern structure with round strokes (地 清 球
相 祥 禧 語 謹 迎 造) and three seal glyphs filed under simplified characters (语 谨 鸣).
So the font is never a bench image source, and in JieZi-Dataset a glyph is labelled
篆书 only under the rule of :func:`seal_verdict`; any other glyph is kept as a *modern
seal-style font* rendering: style ``modern-seal-style-font``, script 楷书 (the structure
it draws is the modern character's), never 篆书; a glyph filed under a character it does
not write (a simplified or later form mapped onto a seal head) is left out.
"""

from __future__ import annotations

from pathlib import Path

from builder.glyphs import render
from builder.glyphs.base import Plan, Request, font_meta
from builder.glyphs.fonts import _GLYPH_NAME, SealGlyph, seal_design, seal_glyphs
from builder.glyphs.oracle_mnist import LXGW_SEAL_FONT, UNIHAN_VARIANTS, simplified_only, source_file
from hub.skips import SkipLog
from metrics.acce.variants import read_variants

NAME = "lxgw-seal"
CJKVI_IDS = "cjkvi-ids/ids.txt"
MODERN_STYLE = "modern-seal-style-font"

# Post-seal (隶变) reduced components this font draws in their modern shape, as the audit
# of issue 12 found (清 with 氵, 祥 and 禧 with 礻, 迎 and 造 with 辶); small seal writes the
# full component (水, 示, 辵). Other reduced forms in a modern decomposition (艹 of 萬 華
# 芒, 阝 of 降 限, 刂 of 制, 衤 of 初) are drawn in the seal shape by this font and do not
# count. Sources of the pairs: ACCE.md section 2's radical alias table.
REDUCED_FORMS = frozenset("氵礻辶⻌⻍")

# Glyphs an audit looked at and found drawn with a modern component shape that no
# reduced radical betrays (issue 12's review of the bench's LXGW images). Each keeps its
# reason; the list only ever removes a glyph from 篆书.
REVIEWED_MODERN: dict[str, str] = {
    "地": "也 drawn in its modern shape, not the seal 也",
    "相": "目 and 木 drawn as the modern components, not the seal forms",
    "語": "言 and 吾 drawn in their modern shapes",
    "謹": "言 and 堇 drawn in their modern shapes",
    "球": "王 drawn as the modern reduced 玉 (seal 玉 has no dot, seal 球 is ⿰玉求 in the seal hand)",
}


def read_ids(sources_dir: Path, characters: set[str]) -> dict[str, str]:
    """The first IDS of each of ``characters`` in cjkvi-ids ``ids.txt`` (region tags
    dropped). Characters without a line are left out. Raises
    :class:`~builder.glyphs.oracle_mnist.GlyphSourceError` when the file is missing."""
    path = source_file(sources_dir, CJKVI_IDS)
    out: dict[str, str] = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 3 and parts[1] in characters:
                out[parts[1]] = parts[2].split("[", 1)[0]
    return out


def traditional_variants(sources_dir: Path, characters: set[str]) -> dict[str, set[str]]:
    """Unihan ``kTraditionalVariant`` of each of ``characters`` that has one (the
    character itself included where Unihan lists it, as for 献 -> 献 獻)."""
    path = source_file(sources_dir, UNIHAN_VARIANTS)
    out: dict[str, set[str]] = {}
    for ch, _field, variants, _line in read_variants(path, ("kTraditionalVariant",)):
        if ch in characters:
            out[ch] = set(variants)
    return out


def glyph_heads(glyph_name: str, sharers: set[str], traditional: dict[str, set[str]]) -> set[str]:
    """The characters a seal glyph writes, among the ``sharers`` the font maps to it: the
    character its glyph name spells (``uni4E1C`` -> 东) and every sharer that is the
    traditional variant (Unihan ``kTraditionalVariant``) of another sharer (東 for 东,
    華 for 华). A later character merely mapped onto the glyph (花 on 華's) is not one."""
    m = _GLYPH_NAME.match(glyph_name)
    named = chr(int(m.group(1) or m.group(2), 16)) if m else None
    heads = {named} & sharers if named else set()
    for ch in sharers:
        heads |= (traditional.get(ch, set()) - {ch}) & sharers
    # a sharer with a traditional variant among the sharers is the simplified one (献 of 獻)
    return {h for h in heads if not (traditional.get(h, set()) - {h}) & sharers}


def seal_verdict(glyph: SealGlyph, simplified: frozenset[str], ids: dict[str, str],
                 heads: set[str]) -> tuple[str, str] | None:
    """Whether an LXGW glyph is small seal for ``glyph.character``: None when it is, else
    ``(kind, reason)`` with kind ``"not-head"`` (the glyph writes another character: the
    image is left out, that character keeps it) or ``"modern"`` (the glyph draws the
    modern structure: kept as a modern seal-style font rendering, never 篆书).

    The rule, in order:

    1. ``not-head``: a simplified-only character (Unihan ``kTraditionalVariant``, see
       :func:`~builder.glyphs.oracle_mnist.simplified_only`) or one that is not among the
       glyph's ``heads`` (:func:`glyph_heads`): the seal glyph writes the traditional head
       it merged into (语 shows 語, 鸣 shows 鳴) or the head a later character was mapped
       onto (花 on 華);
    2. ``modern``: the character's modern decomposition (cjkvi-ids, first IDS) holds a
       post-seal reduced component (:data:`REDUCED_FORMS`): small seal writes the full
       form, the font draws these from the modern shape (清 with 氵, 祥 and 禧 with 礻, 迎
       and 造 with 辶);
    3. ``modern``: the glyph is one an audit found drawn with modern component shapes
       (:data:`REVIEWED_MODERN`: 地 相 語 謹 球).
    """
    ch = glyph.character
    if ch in simplified:
        return "not-head", "simplified-only character: the seal glyph writes its traditional head"
    if ch not in heads:
        return "not-head", f"glyph {glyph.glyph!r} writes {''.join(sorted(heads)) or 'another head'}, not {ch}"
    reduced = sorted(set(ids.get(ch, "")) & REDUCED_FORMS)
    if reduced:
        return "modern", f"modern decomposition {ids[ch]} has the post-seal reduced form(s) {''.join(reduced)}"
    if ch in REVIEWED_MODERN:
        return "modern", "audited: " + REVIEWED_MODERN[ch]
    return None


def plan(request: Request, plan: Plan, skipped: SkipLog) -> None:
    """Add one job per requested character the font has a Small Seal glyph for, judged by
    :func:`seal_verdict`: script 篆书 (style ``seal-style-font``) when it passes; script
    楷书 with style ``modern-seal-style-font`` for a ``modern`` glyph; nothing for a
    ``not-head`` one (logged, kind ``seal-not-head``: its head keeps the glyph). Logs
    characters without a seal glyph (one line, kind ``seal-not-covered``) and seal code
    points with no modern character (kind ``seal-unmapped``)."""
    seal_path = source_file(request.sources_dir, LXGW_SEAL_FONT)
    simplified = simplified_only(request.sources_dir)
    design = seal_design(seal_path)
    index = plan.design(design)
    found, unmapped = seal_glyphs(seal_path)
    for seal_cp, name in unmapped:
        skipped.add(NAME, f"U+{seal_cp:04X} ({name})",
                    "no modern character could be established for this Small Seal code point", kind="seal-unmapped")
    wanted = set(request.characters)
    chosen = [g for g in found if g.character in wanted]
    ids = read_ids(request.sources_dir, {g.character for g in chosen})
    by_glyph: dict[str, set[str]] = {}
    for g in found:
        by_glyph.setdefault(g.glyph, set()).add(g.character)
    traditional = traditional_variants(request.sources_dir, {g.character for g in found})
    for g in chosen:
        verdict = seal_verdict(g, simplified, ids, glyph_heads(g.glyph, by_glyph[g.glyph], traditional))
        if verdict and verdict[0] == "not-head":
            skipped.add(NAME, f"U+{ord(g.character):04X} {g.character}", verdict[1], kind="seal-not-head")
            continue
        image_id = render.make_id(NAME, design.fingerprint, g.glyph, ord(g.character), request.size)
        plan.add(render.Job("font", g.character, "篆书" if verdict is None else "楷书", image_id,
                            design=index, face=0, codepoint=g.draw),
                 font_meta(design, style=None if verdict is None else MODERN_STYLE))
    seal_chars = {g.character for g in found}
    lacking = len(wanted - seal_chars)
    if lacking:
        # one line, not one per character: the font covers ~140 characters by design
        skipped.add(NAME, f"{lacking} characters",
                    f"LXGW Seal has seal glyphs for {len(seal_chars)} characters; {lacking} of the "
                    f"{len(wanted)} requested characters have none", kind="seal-not-covered")


__all__ = ["NAME", "plan", "seal_verdict", "REDUCED_FORMS", "REVIEWED_MODERN"]
