"""Fonts for glyph renderings: which installed faces, their style, licence and coverage.

A *design* is one typeface design as the dataset sees it: a name (``"TW-Kai"``), a style
(``font-kai`` / ``font-song`` / ``font-hei`` / ``seal-style-font``), a licence, and one or
more installed faces. Several faces make one design where the foundry split a design
over files by Unicode plane (TW-Kai + TW-Kai-Ext-B, HanaMinA + HanaMinB), so a rare
Extension-B character is still drawn in the same design. A character is drawn with the
first face whose cmap maps it to a real glyph; no other fallback ever happens (Pillow
draws with exactly the face it was given), so a design that lacks a character yields no
image, never a substitute glyph or a missing-glyph box.

Faces are found with fontconfig (``fc-list``), which every Debian font package
registers with.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from fontTools.ttLib import TTFont

from hub.fontdraw import face_coverage, installed_faces  # noqa: F401  (one fontconfig / cmap reader)
from metrics.acce.variants import is_ideograph

STYLES = ("font-kai", "font-song", "font-hei", "seal-style-font")

# Known designs among the Debian CJK font packages. ``families`` are fontconfig family
# names, in the order a character is looked up. Licences are SPDX expressions read from
# each package's /usr/share/doc/<package>/copyright.
_KNOWN: dict[str, tuple[str, str, tuple[str, ...]]] = {
    # name: (style, licence, families)
    "TW-Kai": ("font-kai", "OGDL-TW-1.0", ("TW-Kai", "TW-Kai-Ext-B")),
    "TW-Sung": ("font-song", "OGDL-TW-1.0", ("TW-Sung", "TW-Sung-Ext-B")),
    "Hanazono Mincho": ("font-song", "OFL-1.1 OR LicenseRef-Hanazono-Font-License", ("HanaMinA", "HanaMinB")),
    "BabelStone Han": ("font-song", "Arphic-1999 AND (CC-BY-SA-3.0 OR CC-BY-SA-4.0)", ("BabelStone Han",)),
}
# Style and licence of other installed families, by family-name prefix.
_BY_PREFIX: tuple[tuple[str, str, str], ...] = (
    ("Noto Serif CJK", "font-song", "OFL-1.1"),
    ("Noto Sans", "font-hei", "OFL-1.1"),
    ("AR PL UKai", "font-kai", "Arphic-1999"),
    ("AR PL UMing", "font-song", "Arphic-1999"),
    ("TW-Kai", "font-kai", "OGDL-TW-1.0"),
    ("TW-Sung", "font-song", "OGDL-TW-1.0"),
    ("LXGW WenKai", "font-kai", "OFL-1.1"),
    ("HanaMin", "font-song", "OFL-1.1 OR LicenseRef-Hanazono-Font-License"),
    ("WenQuanYi", "font-hei", "GPL-2.0-only WITH Font-exception-2.0"),
)
# Last resort for a family this table does not know: words in its name.
_STYLE_WORDS: tuple[tuple[str, str], ...] = (
    ("kai", "font-kai"), ("楷", "font-kai"),
    ("hei", "font-hei"), ("黑", "font-hei"), ("sans", "font-hei"), ("gothic", "font-hei"),
    ("song", "font-song"), ("sung", "font-song"), ("宋", "font-song"), ("ming", "font-song"),
    ("明", "font-song"), ("serif", "font-song"), ("mincho", "font-song"),
)

# The default designs: one face per distinct design, covering Kai, Song/Ming and Hei.
# Left out on purpose: regional duplicates (Noto CJK TC/HK/JP/KR, AR PL UKai TW/HK),
# the Mono/Bold/Light cuts, and AR PL UMing, whose Ming glyphs are the same Arphic
# Mingti2L design that BabelStone Han extends (they render identically), with less
# coverage.
DEFAULT_DESIGNS: tuple[str, ...] = (
    "Noto Serif CJK SC",    # Song (Adobe/Google Source Han Serif)
    "TW-Sung",              # Song, Taiwan MOE standard forms (CNS 11643); + TW-Sung-Ext-B
    "Hanazono Mincho",      # Ming (GlyphWiki-based); HanaMinB adds Extensions B-F
    "BabelStone Han",       # Ming (Arphic Mingti2L extended), widest coverage of rare heads
    "TW-Kai",               # Kai, Taiwan MOE standard forms; TW-Kai-Ext-B adds Extension B
    "AR PL UKai CN",        # Kai (Arphic), mainland forms
    "LXGW WenKai",          # Kai (from Klee One)
    "Noto Sans CJK SC",     # Hei (Source Han Sans)
    "WenQuanYi Zen Hei",    # Hei
)


@dataclass(frozen=True)
class FontFace:
    """One installed face: ``path`` to the .ttf/.otf/.ttc file and ``index`` in it."""

    path: str
    index: int
    family: str


@dataclass
class FontDesign:
    """One typeface design: name, style, licence, source label and its faces in lookup order.

    ``script`` is fixed for a seal-style font (篆书) and ``None`` for a regular-script
    font (楷书 or 简体, decided per character). ``fingerprint`` identifies the exact font
    files (each face's ``head.checkSumAdjustment`` and ``fontRevision``, which change
    with any change to the file), so an image id changes when the font does.
    """

    name: str
    style: str
    licence: str
    faces: tuple[FontFace, ...]
    source: str = ""
    script: str | None = None
    fingerprint: str = ""
    _coverage: list[frozenset[int]] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.style not in STYLES:
            raise ValueError(f"font {self.name!r}: style {self.style!r}, expected one of {STYLES}")
        self.source = self.source or f"font:{self.name}"
        if not self.fingerprint:
            self.fingerprint = ";".join(_face_fingerprint(f) for f in self.faces)

    def coverage(self) -> list[frozenset[int]]:
        """Per face, the code points its cmap maps to a glyph other than ``.notdef``."""
        if self._coverage is None:
            self._coverage = [face_coverage(f.path, f.index) for f in self.faces]
        return self._coverage

    def face_for(self, codepoint: int) -> int | None:
        """Index into ``faces`` of the first face that has a glyph for ``codepoint``, else None."""
        for i, cov in enumerate(self.coverage()):
            if codepoint in cov:
                return i
        return None


def _face_fingerprint(face: FontFace) -> str:
    font = TTFont(face.path, fontNumber=face.index, lazy=True)
    try:
        head = font["head"]
        return f"{head.checkSumAdjustment:08x}/{head.fontRevision:.5f}/{font['maxp'].numGlyphs}"
    finally:
        font.close()


def _find_face(family: str) -> FontFace | None:
    """The regular face of an installed fontconfig family (case-insensitive), or None.

    Among several faces of one family, the upright one whose weight is closest to
    fontconfig's Regular (80) wins, then the shortest style list, then the path.
    """
    want = family.casefold()
    hits = [r for r in installed_faces() if any(f.casefold() == want for f in r[2])]
    if not hits:
        return None

    def rank(r):
        italic = any("italic" in s.casefold() or "oblique" in s.casefold() for s in r[3])
        return (italic, abs(r[4] - 80), len(r[3]), r[0], r[1])

    path, index, families, _, _ = min(hits, key=rank)
    return FontFace(path, index, families[0])


def _style_and_licence(name: str, face: FontFace | None) -> tuple[str, str]:
    for prefix, style, licence in _BY_PREFIX:
        if name.casefold().startswith(prefix.casefold()):
            return style, licence
    low = name.casefold()
    style = next((s for word, s in _STYLE_WORDS if word in low), None)
    if style is None:
        raise ValueError(
            f"font {name!r}: cannot tell whether it is a Kai, Song/Ming or Hei design from its name; "
            f"use one of the known families ({', '.join(DEFAULT_DESIGNS)}) or a name containing "
            "Kai/Song/Ming/Hei/Serif/Sans")
    return style, _licence_from_name_table(face) if face else "unknown"


def _licence_from_name_table(face: FontFace) -> str:
    font = TTFont(face.path, fontNumber=face.index, lazy=True)
    try:
        name = font["name"]
        url = name.getDebugName(14)  # licence info URL
        text = name.getDebugName(13)  # licence description
        return (url or (text or "").split("\n", 1)[0] or "unknown").strip()[:200]
    finally:
        font.close()


def resolve_design(spec: str) -> FontDesign:
    """Turn a font name into a :class:`FontDesign`.

    ``spec`` is a known design name (:data:`DEFAULT_DESIGNS`, ``"Hanazono Mincho"``...), a
    fontconfig family name (``"AR PL UMing TW"``), or a path to a font file, optionally
    ``path#index`` for a face in a .ttc collection.

    Raises ``ValueError`` naming the font when it is not installed, or when its style
    cannot be told from its name.
    """
    if spec in _KNOWN:
        style, licence, families = _KNOWN[spec]
        faces = tuple(f for f in (_find_face(fam) for fam in families) if f is not None)
        if not faces or faces[0].family.casefold() != families[0].casefold():
            raise ValueError(f"font {spec!r}: family {families[0]!r} is not installed (see `fc-list :lang=zh`)")
        return FontDesign(spec, style, licence, faces)
    face = _find_face(spec)
    if face is None:
        path_part, _, idx = spec.partition("#")
        if Path(path_part).is_file():
            face = FontFace(str(Path(path_part).resolve()), int(idx or 0), Path(path_part).stem)
            style, licence = _style_and_licence(face.family, face)
            return FontDesign(face.family, style, licence, (face,))
        installed = sorted({r[2][0] for r in installed_faces()})
        raise ValueError(f"font {spec!r} is not installed; installed families: {', '.join(installed)}")
    style, licence = _style_and_licence(spec, face)
    return FontDesign(spec, style, licence, (face,))


def default_designs() -> list[str]:
    """The names of :data:`DEFAULT_DESIGNS` that are installed here, in that order."""
    names = []
    for name in DEFAULT_DESIGNS:
        try:
            resolve_design(name)
        except ValueError:
            continue
        names.append(name)
    return names


# --- LXGW Seal -----------------------------------------------------------------------

# Unicode 18.0 Small Seal block (plane 3, after the CJK extensions that end at U+3347F).
SEAL_BLOCK = range(0x3D000, 0x40000)
_GLYPH_NAME = re.compile(r"^(?:uni([0-9A-F]{4})|u([0-9A-F]{4,6}))$")


@dataclass(frozen=True)
class SealGlyph:
    """One seal-style glyph of LXGW Seal and the modern character it stands for.

    ``draw`` is the code point to draw it with (the modern character when the font maps
    it to the same glyph, else the Seal-block code point); ``seal`` is its Small Seal
    block code point; ``how`` says how the modern character was established: ``"cmap"``
    (the font maps the modern code point to this very glyph) or ``"glyph-name"`` (the
    glyph is named ``uniXXXX`` after it).
    """

    character: str
    draw: int
    seal: int
    glyph: str
    how: str


def seal_glyphs(path: Path) -> tuple[list[SealGlyph], list[tuple[int, str]]]:
    """Map every Small Seal block code point of LXGW Seal to modern characters.

    The font's README says each seal glyph has a Seal-block code point *and* the
    code points of the modern characters it writes (e.g. U+3D307, 春 and 萅 share one
    glyph). So a Seal-block code point stands for every CJK ideograph the cmap maps to
    the same glyph; failing that, for the ideograph its ``uniXXXX`` glyph name spells.
    Glyphs that only modern code points reach (〇, kanbun marks, the logo) are not seal
    forms and are left out.

    Returns ``(glyphs, unmapped)``: one :class:`SealGlyph` per (modern character, glyph)
    sorted by character, and the ``(seal code point, glyph name)`` pairs no modern
    character could be established for.
    """
    font = TTFont(str(path), lazy=True)
    try:
        cmap = font.getBestCmap() or {}
    finally:
        font.close()
    by_glyph: dict[str, list[int]] = {}
    for cp, glyph in cmap.items():
        if is_ideograph(cp):
            by_glyph.setdefault(glyph, []).append(cp)
    out: dict[tuple[str, str], SealGlyph] = {}
    unmapped: list[tuple[int, str]] = []
    for seal_cp in sorted(cp for cp in cmap if cp in SEAL_BLOCK):
        glyph = cmap[seal_cp]
        modern = sorted(by_glyph.get(glyph, []))
        if modern:
            for cp in modern:
                out.setdefault((chr(cp), glyph), SealGlyph(chr(cp), cp, seal_cp, glyph, "cmap"))
            continue
        m = _GLYPH_NAME.match(glyph)
        named = int(m.group(1) or m.group(2), 16) if m else None
        if named is not None and is_ideograph(named):
            out.setdefault((chr(named), glyph), SealGlyph(chr(named), seal_cp, seal_cp, glyph, "glyph-name"))
        else:
            unmapped.append((seal_cp, glyph))
    return sorted(out.values(), key=lambda g: (ord(g.character), g.seal)), unmapped


def seal_design(path: Path) -> FontDesign:
    """The LXGW Seal design (SIL OFL 1.1): style ``seal-style-font``, script 篆书, source
    ``lxgw-seal``. Its images are a modern seal-style design, not authoritative Shuowen
    seal forms."""
    face = FontFace(str(Path(path).resolve()), 0, "LXGW Seal")
    return FontDesign("LXGW Seal", "seal-style-font", "OFL-1.1", (face,), source="lxgw-seal", script="篆书")
