"""Drawing one code point of an installed font face: the one renderer the builder (glyph
images of the font designs, ``builder/glyphs/render.py``) and the harness (the template
reader, ``harness/baselines/templates.py``) share, so a template and a bench rendering of the same
face are the same pixels. fontconfig lists the faces; fontTools reads their cmaps; Pillow
(FreeType) draws.
"""

from __future__ import annotations

import functools
import logging
import shutil
import subprocess
from pathlib import Path

from fontTools.ttLib import TTFont
from PIL import Image, ImageDraw, ImageFont

# Regular-script renderings: the em square is this share of the canvas, and the ink
# box of an unusually large glyph is shrunk to leave at least MARGIN of the canvas free.
EM_SHARE = 0.8
MARGIN_SHARE = 1 / 16
# A code point no CJK font maps (plane 16 private use): drawing it gives the .notdef glyph.
NOTDEF_PROBE = 0x10FFFD

_FONTS: dict[tuple[str, int, int], ImageFont.FreeTypeFont] = {}
_NOTDEF: dict[tuple[str, int, int], bytes | None] = {}


@functools.lru_cache(maxsize=64)
def face_coverage(path: str, index: int) -> frozenset[int]:
    """Code points whose cmap entry in face ``index`` of ``path`` is a real glyph.

    Read with fontTools (the best Unicode cmap subtable); entries mapped to glyph
    ``.notdef`` count as missing. Raises ``ValueError`` naming the file when it has no
    Unicode cmap.
    """
    font = TTFont(path, fontNumber=index, lazy=True)
    post_log = logging.getLogger("fontTools.ttLib.tables._p_o_s_t")
    level = post_log.level
    # CNS 11643 Ext-B faces carry a short 'post' name array; fontTools warns and falls
    # back to generated glyph names, which is harmless for a cmap lookup.
    post_log.setLevel(logging.ERROR)
    try:
        cmap = font.getBestCmap()
        if cmap is None:
            raise ValueError(f"font {path} (face {index}) has no Unicode cmap")
        notdef = font.getGlyphOrder()[0]
        return frozenset(cp for cp, glyph in cmap.items() if glyph != notdef)
    finally:
        post_log.setLevel(level)
        font.close()


@functools.lru_cache(maxsize=1)
def installed_faces() -> tuple[tuple[str, int, tuple[str, ...], tuple[str, ...], int], ...]:
    """Every face fontconfig knows: ``(path, index, families, styles, weight)``.

    Paths are resolved (Debian registers alternatives symlinks too) and duplicates
    dropped. Raises ``RuntimeError`` when ``fc-list`` is not installed.
    """
    exe = shutil.which("fc-list")
    if exe is None:
        raise RuntimeError("fontconfig's fc-list is not installed; install it (apt-get install fontconfig) "
                           "and the CJK font packages listed in the README")
    out = subprocess.run([exe, "-f", "%{file}\t%{index}\t%{family}\t%{style}\t%{weight}\n"],
                         capture_output=True, text=True, check=True).stdout
    seen: dict[tuple[str, int], tuple] = {}
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) != 5 or not parts[0]:
            continue
        path = str(Path(parts[0]).resolve())
        index = int(parts[1] or 0)
        families = tuple(f.strip().replace("\\-", "-") for f in parts[2].split(",") if f.strip())
        styles = tuple(s.strip() for s in parts[3].split(",") if s.strip())
        weight = int(float(parts[4])) if parts[4] else 80
        seen.setdefault((path, index), (path, index, families, styles, weight))
    return tuple(sorted(seen.values(), key=lambda r: (r[0], r[1])))


def _font(path: str, index: int, em: int) -> ImageFont.FreeTypeFont:
    key = (path, index, em)
    font = _FONTS.get(key)
    if font is None:
        # BASIC layout: one code point needs no shaping, and it is independent of libraqm.
        font = ImageFont.truetype(path, em, index=index, layout_engine=ImageFont.Layout.BASIC)
        _FONTS[key] = font
    return font


def _draw_centred(font: ImageFont.FreeTypeFont, text: str, size: int, em: int) -> Image.Image | None:
    # Rasterise once, white on black, on a scratch canvas large enough for any glyph of
    # this em size; the ink box found there is then stamped centred on the output.
    scratch = Image.new("L", (3 * em, 3 * em), 0)
    ImageDraw.Draw(scratch).text((em, 2 * em), text, font=font, fill=255, anchor="ls")
    box = scratch.getbbox()
    if box is None:
        return None
    ink = scratch.crop(box)
    avail = size - 2 * max(1, round(size * MARGIN_SHARE))
    if ink.width > avail or ink.height > avail:
        scale = avail / max(ink.width, ink.height)
        ink = ink.resize((max(1, round(ink.width * scale)), max(1, round(ink.height * scale))),
                         Image.Resampling.LANCZOS)
    out = Image.new("L", (size, size), 255)
    x, y = (size - ink.width) // 2, (size - ink.height) // 2
    out.paste(0, (x, y, x + ink.width, y + ink.height), mask=ink)
    return out


def font_image(path: str, index: int, codepoint: int, size: int) -> Image.Image | None:
    """Code point ``codepoint`` drawn with face ``index`` of ``path``: black on white,
    ``size`` x ``size``, em = :data:`EM_SHARE` of the canvas, ink box centred.

    Returns ``None`` when the glyph has no ink or draws exactly like the face's
    ``.notdef`` glyph (a guard on top of the caller's cmap check: a cmap entry can still
    point at an empty or box glyph).
    """
    em = round(size * EM_SHARE)
    font = _font(path, index, em)
    image = _draw_centred(font, chr(codepoint), size, em)
    if image is None:
        return None
    key = (path, index, size)
    if key not in _NOTDEF:
        notdef = _draw_centred(font, chr(NOTDEF_PROBE), size, em)
        _NOTDEF[key] = notdef.tobytes() if notdef is not None else None
    if _NOTDEF[key] is not None and image.tobytes() == _NOTDEF[key]:
        return None
    return image


def notdef_image(path: str, index: int, size: int) -> Image.Image | None:
    """The face's ``.notdef`` glyph drawn the way :func:`font_image` draws characters
    (``None`` when it is empty). Tests compare renderings against it."""
    em = round(size * EM_SHARE)
    return _draw_centred(_font(path, index, em), chr(NOTDEF_PROBE), size, em)
