"""Text normalisation shared by every ACCE metric.

One canonical reading of a string before any comparison (ACCE.md section 2):
- Unicode NFKC: full-width ASCII forms (，：；（ ...) become ASCII, Kangxi radicals
  (U+2F00 block) and CJK compatibility ideographs become unified ideographs;
- traditional -> simplified with OpenCC's ``t2s`` configuration, so 形聲 and 形声, 說文 and
  说文 compare equal (labels in ``labels.py`` are simplified, so this is the one direction);
- whitespace collapsed (or removed, for component names).

Characters outside the BMP (CJK Extension B and later, e.g. 𠀀 U+20000) are single code
points in Python strings; every pattern here works on code points, never on UTF-16 units.
Ideographic Description Characters (U+2FF0..U+2FFF, U+31EF) pass through NFKC and OpenCC
unchanged, so IDS strings such as ``⿰氵工`` stay intact.
"""

from __future__ import annotations

import functools
import re
import unicodedata

import opencc

from .aliases import ALIAS_TO_CANONICAL, canonical_component

# One Han character: unified ideographs, Extension A, compatibility ideographs, and the
# supplementary planes (Extensions B..I, compatibility supplement) as whole code points.
HAN_RANGES = (
    "\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\U00020000-\U0002fa1f\U00030000-\U0003ffff"
)
HAN = f"[{HAN_RANGES}]"
# Characters that may appear inside a component name: Han, CJK radicals (U+2E80..U+2FDF),
# CJK strokes (U+31C0..U+31EF, e.g. ㇇ in the official samples) and IDCs (U+2FF0..U+2FFF).
COMPONENT_CHARS = f"[{HAN_RANGES}\u2e80-\u2fdf\u2ff0-\u2fff\u31c0-\u31ef]"
IDC_CHARS = "\u2ff0-\u2fff\u31ef"

_WS = re.compile(r"\s+")
# CJK punctuation NFKC leaves alone, mapped to one form so patterns stay short.
_PUNCT = str.maketrans({
    "“": '"', "”": '"', "„": '"', "‟": '"', "‘": "'", "’": "'", "〝": '"', "〞": '"',
    "﹁": "「", "﹂": "」", "﹃": "『", "﹄": "』",
    "〜": "~", "～": "~", "・": "·", "‧": "·", "─": "-", "－": "-",
})
# Invisible characters deleted before any comparison (issue 15): zero-width space / joiners,
# word joiner, BOM, soft hyphen, and variation selectors (standard U+FE00..U+FE0F,
# ideographic U+E0100..U+E01EF, Mongolian): 葛 + U+E0100 is 葛, "篆<ZWSP>书" is 篆书, and an
# answer of zero-width spaces is empty.
INVISIBLE = ("\u00ad\u180b\u180c\u180d\u180e\u180f\u200b\u200c\u200d\u2060\ufeff"
             + "".join(map(chr, range(0xFE00, 0xFE10))) + "".join(map(chr, range(0xE0100, 0xE01F0))))
_PUNCT.update(dict.fromkeys(map(ord, INVISIBLE)))


@functools.lru_cache(maxsize=1)
def _t2s() -> opencc.OpenCC:
    return opencc.OpenCC("t2s")


def to_simplified(text: str) -> str:
    """Traditional -> simplified Chinese with OpenCC ``t2s`` (non-Chinese text unchanged)."""
    return _t2s().convert(text) if text else text


_HSPACE = re.compile(r"[^\S\n]+")
_BLANKS = re.compile(r"\n\s*\n+")


def normalize_text(text: str | None, *, keep_lines: bool = True) -> str:
    """Canonical form of free text: NFKC, CJK quotes unified, OpenCC t2s, spaces collapsed.

    With ``keep_lines`` (the default) line breaks survive, because list and table layouts
    are parsed line by line; otherwise every whitespace run becomes one space (the form
    given to BERTScore). ``None`` and whitespace-only strings give ``""``.
    """
    if not text:
        return ""
    # Cached: every extractor normalises its input, and bench answers repeat a lot.
    return _normalize_cached(str(text), keep_lines)


@functools.lru_cache(maxsize=1 << 16)
def _normalize_cached(text: str, keep_lines: bool) -> str:
    text = to_simplified(unicodedata.normalize("NFKC", str(text)).translate(_PUNCT))
    if not keep_lines:
        return _WS.sub(" ", text).strip()
    text = _HSPACE.sub(" ", text.replace("\r\n", "\n").replace("\r", "\n"))
    # Leading spaces survive (collapsed to one) so nested list items stay distinguishable.
    return _BLANKS.sub("\n\n", "\n".join(line.rstrip() for line in text.split("\n"))).strip()


def normalize_char(text: str | None) -> str:
    """Canonical form of one character (or IDS string) for CHAR: NFKC, t2s, no whitespace."""
    if not text:
        return ""
    return to_simplified(_WS.sub("", unicodedata.normalize("NFKC", str(text))))


def component_key(name: str | None) -> str:
    """Matching key of a component name (ACCE.md section 2).

    Whitespace removed, NFKC, OpenCC t2s, then the radical alias table
    (``aliases.canonical_component``): ``"亻"``, ``"人字旁"`` and ``"人"`` all give ``"人"``;
    ``"⻌"`` and ``"辶"`` give ``"辵"``. Returns ``""`` for empty input.
    """
    if not name:
        return ""
    key = _WS.sub("", unicodedata.normalize("NFKC", str(name)).translate(_PUNCT))
    # Aliases are looked up before and after t2s: the table holds both simplified names
    # (三点水) and traditional canonical forms (頁), and t2s would turn 頁 into 页.
    if key in ALIAS_TO_CANONICAL:
        return ALIAS_TO_CANONICAL[key]
    return canonical_component(to_simplified(key))


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions of code points, each cost 1).

    A short dynamic programme: component names are a few characters long, so a compiled
    dependency would buy nothing here.
    """
    if a == b:
        return 0
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return len(a)
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def similarity(a: str, b: str) -> float:
    """Normalised Levenshtein similarity ``1 - distance / max(len)`` in [0, 1].

    Source: ACCE.md section 2 and the reference code's component matching (whitespace is
    removed first; two empty strings are identical, one empty string scores 0).
    """
    a, b = _WS.sub("", a), _WS.sub("", b)
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    return max(0.0, 1.0 - levenshtein(a, b) / max(len(a), len(b)))
