"""Ideographic Description Sequences: parse, read the structure and first-level components.

An IDS is a prefix expression: an Ideographic Description Character (IDC, arity 1-3,
``metrics.acce.labels.IDC_ARITY``) followed by its operands, each a character or a
nested IDS. ``⿰氵工`` is 氵 left of 工. Sources also use placeholders: ``？`` (U+FF1F)
and the circled numbers ①..⑳ of cjkvi-ids for unencoded components (their stroke
count). Unicode 15.1's ⿼⿽⿾⿿㇯ are parsed; :func:`structure_label` maps them to the
nearest classic IDC (``labels.IDC_15_1_NEAREST``) because the STRC label set has no
place for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from metrics.acce import labels

IDC_ARITY = labels.IDC_ARITY

# Position of each operand, by IDC (左 left, 右 right, 上 top, 下 bottom, 中 middle,
# 外 enclosing, 内 enclosed; corner names for the partial surrounds).
POSITIONS: dict[str, tuple[str, ...]] = {
    "⿰": ("左", "右"), "⿱": ("上", "下"), "⿲": ("左", "中", "右"), "⿳": ("上", "中", "下"),
    "⿴": ("外", "内"), "⿵": ("外", "内"), "⿶": ("外", "内"), "⿷": ("外", "内"), "⿼": ("外", "内"),
    "⿸": ("左上", "右下"), "⿹": ("右上", "左下"), "⿺": ("左下", "右上"), "⿽": ("右下", "左上"),
    "⿻": ("交叠", "交叠"), "㇯": ("外", "内"), "⿾": ("变形",), "⿿": ("变形",),
}

PLACEHOLDERS = frozenset("？?") | frozenset(chr(c) for c in range(0x2460, 0x2474))


class IDSError(ValueError):
    """An IDS string that does not parse (unbalanced operands, trailing characters)."""


@dataclass(frozen=True)
class Node:
    """A parsed IDS: ``idc`` is None for a leaf (one character in ``leaf``)."""

    idc: str | None
    children: tuple["Node", ...] = ()
    leaf: str | None = None

    def text(self) -> str:
        """The IDS string of this node."""
        if self.idc is None:
            return self.leaf or ""
        return self.idc + "".join(c.text() for c in self.children)


def parse(ids: str) -> Node:
    """Parse an IDS string. Raises :class:`IDSError` naming the string when it is malformed."""
    s = ids.strip()
    if not s:
        raise IDSError("empty IDS")
    pos = 0

    def node() -> Node:
        nonlocal pos
        if pos >= len(s):
            raise IDSError(f"IDS {ids!r} ends before all operands are given")
        ch = s[pos]
        pos += 1
        if ch in IDC_ARITY:
            return Node(ch, tuple(node() for _ in range(IDC_ARITY[ch])))
        return Node(None, leaf=ch)

    root = node()
    if pos != len(s):
        raise IDSError(f"IDS {ids!r} has trailing text {s[pos:]!r}")
    return root


def is_idc(ch: str) -> bool:
    """Whether ``ch`` is an Ideographic Description Character (classic or Unicode 15.1)."""
    return ch in IDC_ARITY


def structure_label(ids: str, character: str | None = None) -> str | None:
    """The STRC label of an IDS: its top IDC, or 独体.

    独体 when the IDS is the character itself or a single component; ``None`` when it is
    a bare placeholder (``？``: the source does not know). 15.1 IDCs map to their nearest
    classic IDC (``labels.IDC_15_1_NEAREST``).
    """
    s = ids.strip()
    if not s or s in PLACEHOLDERS:
        return None
    top = s[0]
    if top in IDC_ARITY:
        return labels.IDC_15_1_NEAREST.get(top, top)
    if len(s) == 1 or s == character:
        return "独体"
    return None


# Single strokes (the CJK Strokes block, and cjkvi-ids' unencoded one- and two-stroke parts
# ① ②): an IDS whose every operand is one of these splits a single graph into strokes (力
# ⿻丿𠃌), not into components. ③ and up are unencoded components (亙 ⿳一④一: ④ is 囘).
STROKES = (frozenset("一丨丿丶乙亅乚乛𠃌㇀㇏乀①②") | frozenset(chr(c) for c in range(0x31C0, 0x31F0)))


def stroke_split(ids: str) -> bool:
    """Whether ``ids`` splits a graph into strokes only: every first-level operand is a
    stroke (:data:`STROKES`) or an unknown part (``？``) beside one. Such a character is
    独体 (a single graph), whatever layout the split draws. False for a malformed IDS or
    one without an IDC."""
    try:
        ops = first_level(ids)
    except IDSError:
        return False
    strokes = [o for o in ops if o.text in STROKES]
    return bool(strokes) and all(o.text in STROKES or o.text in "？?" for o in ops)


@dataclass(frozen=True)
class Operand:
    """A first-level operand: its IDS text (one character, or a nested IDS) and position."""

    text: str
    position: str | None

    @property
    def is_character(self) -> bool:
        return len(self.text) == 1 and self.text not in PLACEHOLDERS


@lru_cache(maxsize=131072)
def _first_level(ids: str) -> tuple[Operand, ...]:
    root = parse(ids)
    if root.idc is None:
        return ()
    names = POSITIONS.get(root.idc, ())
    return tuple(Operand(c.text(), names[i] if i < len(names) else None) for i, c in enumerate(root.children))


def first_level(ids: str) -> list[Operand]:
    """The operands of the top IDC with their positions (empty for a 独体 IDS).

    Raises :class:`IDSError` for a malformed IDS.
    """
    return list(_first_level(ids))


def leaves(ids: str) -> list[str]:
    """All leaf characters of an IDS, left to right (placeholders included)."""
    return [ch for ch in ids if ch not in IDC_ARITY]


def split_regions(field: str) -> list[tuple[str, str]]:
    """Split one cjkvi-ids alternative like ``⿱北月[GJK]`` into ``(ids, regions)``.

    Regions are the letters in brackets (G mainland China, T Taiwan, J Japan, K Korea,
    V Vietnam, plus H, M, U, X, O, S ...); an untagged IDS gets ``""``.
    """
    f = field.strip()
    if f.endswith("]") and "[" in f:
        i = f.rindex("[")
        return [(f[:i], f[i + 1:-1])]
    return [(f, "")]
