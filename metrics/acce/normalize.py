"""Text normalisation shared by every ACCE metric.

One canonical reading of a string before any comparison (ACCE.md section 2):
- Unicode NFKC: full-width ASCII forms (，：；（ ...) become ASCII, Kangxi radicals
  (U+2F00 block) and CJK compatibility ideographs become unified ideographs;
- traditional -> simplified with OpenCC's ``t2s`` configuration for free text, so 形聲 and
  形声, 說文 and 说文 compare equal (labels in ``labels.py`` are simplified, so this is the one
  direction); the answer character (CHAR) and component names fold only one-to-one pairs
  (``variants.py``: 馬 = 马, but 後 != 后, 雲 != 云, 乾 != 干);
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
from .variants import fold_one_to_one

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


def normalize_text(text: str | None, *, keep_lines: bool = True, simplify: bool = True) -> str:
    """Canonical form of free text: NFKC, CJK quotes unified, OpenCC t2s, spaces collapsed.

    With ``keep_lines`` (the default) line breaks survive, because list and table layouts
    are parsed line by line; otherwise every whitespace run becomes one space (the form
    given to BERTScore). ``simplify=False`` folds only one-to-one traditional/simplified
    pairs (``variants.fold_one_to_one``) instead of OpenCC t2s: the form for a component
    name. ``None`` and whitespace-only strings give ``""``.
    """
    if not text:
        return ""
    # Cached: every extractor normalises its input, and bench answers repeat a lot.
    return _normalize_cached(str(text), keep_lines, simplify)


@functools.lru_cache(maxsize=1 << 16)
def _normalize_cached(text: str, keep_lines: bool, simplify: bool = True) -> str:
    text = unicodedata.normalize("NFKC", str(text)).translate(_PUNCT)
    text = to_simplified(text) if simplify else fold_one_to_one(text)
    if not keep_lines:
        return _WS.sub(" ", text).strip()
    text = _HSPACE.sub(" ", text.replace("\r\n", "\n").replace("\r", "\n"))
    # Leading spaces survive (collapsed to one) so nested list items stay distinguishable.
    return _BLANKS.sub("\n\n", "\n".join(line.rstrip() for line in text.split("\n"))).strip()


def normalize_char(text: str | None) -> str:
    """Canonical form of one character (or IDS string) for CHAR: NFKC, no whitespace, and
    only one-to-one traditional/simplified pairs folded (馬 -> 马; 後 stays 後)."""
    if not text:
        return ""
    return fold_one_to_one(_WS.sub("", unicodedata.normalize("NFKC", str(text))))


def original_form(text: str | None, found: str | None) -> str | None:
    """The character of ``text`` that OpenCC t2s turned into ``found`` (one character).

    Extractors read t2s text, so a traditional answer 後 comes back as 后. When the
    characters of ``text`` that t2s maps to ``found`` are all one character, that character
    is returned (後); when several differ (後 and 后 both occur) or ``found`` is not one
    character, ``found`` is returned unchanged. None stays None.
    """
    if not found or len(found) != 1 or not text:
        return found
    nfkc = unicodedata.normalize("NFKC", str(text))
    forms = {ch for ch in set(nfkc) if ch == found or to_simplified(ch) == found}
    return forms.pop() if len(forms) == 1 else found


def component_key(name: str | None) -> str:
    """Matching key of a component name (ACCE.md section 2).

    Whitespace removed, NFKC, one-to-one traditional/simplified pairs folded (``variants``:
    馬 -> 马, 後 stays 後), then the radical alias table (``aliases.canonical_component``):
    ``"亻"``, ``"人字旁"`` and ``"人"`` all give ``"人"``; ``"⻌"`` and ``"辶"`` give ``"辵"``.
    Returns ``""`` for empty input.
    """
    if not name:
        return ""
    key = _WS.sub("", unicodedata.normalize("NFKC", str(name)).translate(_PUNCT))
    # Aliases are looked up before and after folding: the table holds both simplified names
    # (三点水) and traditional canonical forms (頁), and folding would turn 頁 into 页.
    if key in ALIAS_TO_CANONICAL:
        return ALIAS_TO_CANONICAL[key]
    return canonical_component(fold_one_to_one(key))


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


# An explicit refusal ("I don't know") is not an answer: BERTScore would still give it
# 50-60 against any reference, so ORIM and COMI treat it as unparseable (issue 13).
_REFUSAL = re.compile(
    r"不知道|不晓得|不清楚|不确定|不详|未知|无可奉告|无从(?:得知|判断|考证)"
    r"|(?:无法|不能|难以|没法)(?:准确|确切|可靠)?(?:地)?(?:判断|确定|回答|识别|辨认|辨识|得知|判定|给出|提供|解释|说明|考证)"
    r"|unknown|unsure|not sure|no idea|n/a|i (?:do not|don't|dont) know|(?:cannot|can't|can not|unable to) "
    r"(?:determine|tell|answer|identify|say)",
    re.I,
)
_REFUSAL_FILLER = re.compile(
    r"抱歉|对不起|很遗憾|sorry|本人|目前|暂时|实在|真的|这个字|此字|该字|它|其|本义|原义|意思|含义|意义|解释|答案"
    r"|信息|资料|根据|图片|图像|字形|[我这的是为了呢啊吧呀也还所以给出]|\b(?:i|am|the|it|its|this|that|of|character|"
    r"meaning|answer|original|is)\b|[\W_\d]",
    re.I,
)


def is_refusal(text: str | None) -> bool:
    """True when ``text`` is an explicit refusal and nothing more: 不知道, 无法判断, 不确定,
    "unknown", "I don't know", 抱歉，我无法确定这个字的本义。, or a lone 无 / none. A hedge
    that still says something (不确定，可能是水名) is not a refusal."""
    norm = normalize_text(text, keep_lines=False)
    if not norm:
        return False
    if norm.strip(" 。.!！").lower() in ("无", "none", "null", "?", "？"):
        return True
    if not _REFUSAL.search(norm):
        return False
    return len(_REFUSAL_FILLER.sub("", _REFUSAL.sub("", norm))) <= 1
