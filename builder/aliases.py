"""Component-name normalisation for the builder: radical aliases and form equivalences.

``RADICAL_ALIASES`` maps a variant form of a component to one canonical character. It is
derived from the scorer's table (``metrics/acce/aliases.py``, ACCE.md section 2: 亻 -> 人,
扌 -> 手, 氵 -> 水, 艹 -> 艸, 钅/釒 -> 金, 讠 -> 言 ...) so that records, references and scores
normalise components the same way. Only single written forms are taken (the sources never
write "三点水"), and the scoring-only folds (王 -> 玉, ⺈ -> 刀) are left out: there the
form is a character in its own right and renaming a component with it would be wrong.
The canonical form is the one Shuowen uses as its radical, so an etymological analysis
(从水) and an IDS operand (氵) meet.

``FORM_EQUIVALENTS`` is only for alignment, never for scoring: shapes that a modern
form writes for an old component although they are other characters in their own
right (肉 written 月 in 背, 玉 written 王 in 理). Matching an etymological component to
an IDS operand accepts them; renaming a component to them would be wrong.
"""

from __future__ import annotations

import unicodedata

from metrics.acce.aliases import ALIAS_TO_CANONICAL, SCORING_ONLY_ALIASES

RADICAL_ALIASES: dict[str, str] = {
    alias: canon for alias, canon in ALIAS_TO_CANONICAL.items()
    if len(alias) == 1 and alias != canon and alias not in SCORING_ONLY_ALIASES
}

# 阝 is 阜 on the left and 邑 on the right (ACCE.md section 2).
FU_YI = "阝"

FORM_EQUIVALENTS: dict[str, frozenset[str]] = {
    "肉": frozenset("月⺼"),
    "玉": frozenset("王⺩𤣩"),
    "阜": frozenset("阝"),
    "邑": frozenset("阝"),
    "仌": frozenset("冫"),
    "冰": frozenset("冫"),
    "亡": frozenset("亾"),
    "亾": frozenset("亡"),
    "舟": frozenset("月"),
    "丹": frozenset("月"),
    "火": frozenset("灬"),
    "艸": frozenset("艹䒑"),
    "㞷": frozenset("主"),   # 往: 从彳㞷聲, written 主 in the modern form
    "𡉚": frozenset("主"),
    "𧸇": frozenset("賣卖"),  # 贖/赎: 从貝𧸇聲; clerical script merged 𧸇 (yù) with 賣 (mài)
}

# Reduced forms a component takes as a part of another character (偏旁变体): 邑 and 阜 as 阝,
# 示 as 礻, 艸 as 艹, 人 as 亻, 水 as 氵, 火 as 灬, 玉 as 王 (the small-seal 玉 is itself
# 王-shaped: three strokes on a vertical; the dot of the free-standing 玉 was added later to
# tell it from 王). Together with :data:`RADICAL_ALIASES` (亻 -> 人, 氵 -> 水, 礻 -> 示 ...)
# these are *one* class for the evolution rules: the component is kept (保留), written in its
# position form. A shape that merged with another component (肉 / 舟 / 丹 as 月, 㞷 as 主,
# 𧸇 as 賣) is not a position form: that is 讹变.
POSITION_FORMS: dict[str, frozenset[str]] = {
    "邑": frozenset("阝"),
    "阜": frozenset("阝"),
    "玉": frozenset("王⺩𤣩"),
    "艸": frozenset("艹䒑"),
    "火": frozenset("灬"),
    "仌": frozenset("冫"),
    "冰": frozenset("冫"),
}


def canonical(name: str, position: str | None = None) -> str:
    """The canonical form of a component name.

    Whitespace removed, NFKC applied (which also folds the Kangxi Radicals block
    ⼈ U+2F08 -> 人), then :data:`RADICAL_ALIASES`; 阝 becomes 阜 at ``position`` 左 and
    邑 at 右 (unchanged otherwise). Never raises; unknown names come back normalised.
    """
    s = "".join(name.split())
    if s in RADICAL_ALIASES:
        return RADICAL_ALIASES[s]
    s = unicodedata.normalize("NFKC", s)
    if s == FU_YI:
        return {"左": "阜", "右": "邑"}.get(position or "", s)
    return RADICAL_ALIASES.get(s, s)


def is_position_form(old: str, new: str) -> bool:
    """Whether ``new`` is the position (偏旁) form of component ``old``: a radical alias of it
    (氵 for 水, 礻 for 示) or one of :data:`POSITION_FORMS` (阝 for 邑, 王 for 玉). False for
    equal names and for merged shapes (月 for 肉). Source of the table: the Kangxi radical
    variants (Unihan kRSUnicode simplified/position radicals) and the small-seal forms."""
    if old == new:
        return False
    co = canonical(old)
    return (canonical(new) == co and new != co) or new in POSITION_FORMS.get(co, ()) or (
        new == co and old in POSITION_FORMS.get(co, ()))


def same_component(a: str, b: str, *, equivalents: bool = True, variants: dict[str, set[str]] | None = None) -> bool:
    """Whether two component names denote the same component.

    True when their :func:`canonical` forms are equal, or (``equivalents``) one is a
    :data:`FORM_EQUIVALENTS` shape of the other, or ``variants`` (a character -> set of
    its traditional/simplified/semantic variants, e.g. from Unihan) links them.
    """
    ca, cb = canonical(a), canonical(b)
    if ca == cb:
        return True
    if equivalents and (cb in FORM_EQUIVALENTS.get(ca, ()) or ca in FORM_EQUIVALENTS.get(cb, ())
                        or b in FORM_EQUIVALENTS.get(ca, ()) or a in FORM_EQUIVALENTS.get(cb, ())):
        return True
    if variants:
        va = variants.get(ca, set()) | variants.get(a, set())
        vb = variants.get(cb, set()) | variants.get(b, set())
        if cb in va or b in va or ca in vb or a in vb:
            return True
    return False


_BY_CANONICAL: dict[str, set[str]] = {}
for _k, _v in RADICAL_ALIASES.items():
    if len(_k) == 1:
        _BY_CANONICAL.setdefault(_v, set()).add(_k)


def surface_forms(name: str) -> set[str]:
    """Every written form that may stand for ``name`` in a source text: the name, its
    canonical form, the aliases that map to it and its form equivalents (used by the
    fidelity check to find a component in its span)."""
    c = canonical(name)
    out = {name, c}
    out.update(_BY_CANONICAL.get(c, ()))
    out.update(FORM_EQUIVALENTS.get(c, ()))
    if c in ("阜", "邑"):
        out.add(FU_YI)
    return out
