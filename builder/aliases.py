"""Component-name normalisation: radical aliases and form equivalences.

``RADICAL_ALIASES`` maps a variant form or name of a component to one canonical
character (ACCE.md section 2: 亻 -> 人, 扌 -> 手, 忄 -> 心, 氵 -> 水, 灬 -> 火, 艹 -> 艸,
⺮ -> 竹, 钅/釒 -> 金, 讠 -> 言, 纟/糹 -> 糸, 礻 -> 示, 衤 -> 衣, 犭 -> 犬, 刂 -> 刀, ⺼ -> 肉,
罒 -> 网, 阝 by side -> 阜 (left) or 邑 (right), 贝 -> 貝, 页 -> 頁), extended with the other
combining forms that occur as IDS operands in cjkvi-ids and makemeahanzi (Unicode names
of the CJK Radicals Supplement forms). The canonical form is the one Shuowen uses as
its radical, so an etymological analysis (从水) and an IDS operand (氵) meet.

This table is the builder's copy; the metric's alias table lives in ``metrics/acce/``
(owned by the metric work) and should be the same list.

``FORM_EQUIVALENTS`` is only for alignment, never for scoring: shapes that a modern
form writes for an old component although they are other characters in their own
right (肉 written 月 in 背, 玉 written 王 in 理). Matching an etymological component to
an IDS operand accepts them; renaming a component to them would be wrong.
"""

from __future__ import annotations

import unicodedata

RADICAL_ALIASES: dict[str, str] = {
    # ACCE.md section 2
    "亻": "人", "人字旁": "人", "单人旁": "人",
    "扌": "手", "提手旁": "手",
    "忄": "心", "竖心旁": "心",
    "氵": "水", "三点水": "水",
    "灬": "火", "四点底": "火",
    "艹": "艸", "草字头": "艸",
    "⺮": "竹", "竹字头": "竹",
    "钅": "金", "釒": "金", "金字旁": "金",
    "讠": "言", "言字旁": "言",
    "纟": "糸", "糹": "糸", "绞丝旁": "糸",
    "礻": "示", "示字旁": "示",
    "衤": "衣", "衣字旁": "衣",
    "犭": "犬", "反犬旁": "犬",
    "刂": "刀", "立刀旁": "刀",
    "⺼": "肉", "肉月旁": "肉",
    "罒": "网", "四字头": "网",
    "贝": "貝",
    "页": "頁",
    # further combining forms seen as operands in the sources
    "𠆢": "人", "⺅": "人",
    "龵": "手", "⺘": "手",
    "㣺": "心", "⺗": "心", "⺖": "心",
    "氺": "水", "⺡": "水", "⺢": "水",
    "⺣": "火",
    "⺿": "艸", "⻀": "艸", "䒑": "艸",
    "𥫗": "竹",
    "⻐": "金", "⻒": "金",
    "訁": "言", "⻈": "言",
    "⺯": "糸", "⺰": "糸",
    "⺭": "示",
    "⻂": "衣",
    "⺨": "犬",
    "⺉": "刀",
    "⺲": "网", "⺳": "网", "罓": "网", "⺴": "网",
    "饣": "食", "飠": "食", "𩙿": "食", "⻞": "食", "⻟": "食",
    "辶": "辵", "⻌": "辵", "⻍": "辵", "⻎": "辵",
    "攵": "攴", "⺙": "攴",
    "爫": "爪", "⺥": "爪",
    "丬": "爿", "⺦": "爿",
    "牜": "牛", "⺧": "牛",
    "𧾷": "足", "⻊": "足",
    "耂": "老", "⺹": "老",
    "歺": "歹",
    "覀": "襾", "⻃": "襾",
    "𤣩": "玉", "⺩": "玉",
    "⺶": "羊", "⺷": "羊", "𦍌": "羊",
    "⺌": "小", "⺍": "小",
    "冫": "仌", "⺀": "仌",
    "⻖": "阜", "⻏": "邑",
    # simplified radical forms whose traditional form is the Shuowen radical
    "见": "見", "车": "車", "马": "馬", "鸟": "鳥", "鱼": "魚", "门": "門", "韦": "韋",
    "风": "風", "齿": "齒", "龙": "龍", "龟": "龜", "麦": "麥", "黾": "黽", "长": "長",
    "镸": "長", "卤": "鹵", "仑": "侖", "仓": "倉",
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
