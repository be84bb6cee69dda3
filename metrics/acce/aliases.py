"""Radical alias table: variant forms and names of a component -> one canonical form.

Component matching (COMR/COMF/COMI/COME) compares component names after mapping every
variant of a radical to the same canonical character, so that a prediction writing 亻,
人字旁 or 单人旁 matches a reference writing 人. The table follows ACCE.md section 2
(亻/人字旁 -> 人, 扌 -> 手, 忄 -> 心, 氵 -> 水, 灬 -> 火, 艹 -> 艸, ⺮ -> 竹, 钅/釒 -> 金,
讠 -> 言, 纟/糹 -> 糸, 礻 -> 示, 衤 -> 衣, 犭 -> 犬, 刂 -> 刀, ⺼ -> 肉, 罒 -> 网,
阝 by side -> 阜 or 邑, 贝 -> 貝, 页 -> 頁) and the entries of the reference evaluation code
(github.com/Ran00w/JieZi-test, read for facts: 龵, 㣺, 饣, 氺, 王 -> 玉, the common
Chinese radical names). ⻌/辶 (the 走之 radical) -> 辵 is added on the same principle.

Radical code points (CJK Radicals Supplement U+2E80..U+2EFF, Kangxi Radicals U+2F00..U+2FDF,
CJK Strokes U+31C0..U+31EF) are not listed by hand: Unicode's own data
``EquivalentUnifiedIdeograph.txt`` (UAX #44, property Equivalent_Unified_Ideograph) maps each
to the unified ideograph it looks like (⻘ U+2ED8 -> 青, ⻌ U+2ECC -> 辶, ⺮ U+2EAE -> 𥫗), and
the alias table then takes that ideograph to its canonical form (辶 -> 辵, 𥫗 -> 竹). The file
is embedded (UCD 15.0.0, :mod:`metrics.acce.eui`: no maintained package exposes this
property), or read from ``$JIEZI_UCD_DIR/EquivalentUnifiedIdeograph.txt`` when set. Only the
radical forms whose side or grouping ACCE.md fixes differently are listed by hand
(:data:`RADICAL_OVERRIDES`).

The builder reuses this table (``canonical_component``) so references and scores agree.
Canonical targets are the full (traditional) forms named by ACCE.md; lookups happen after
the OpenCC traditional->simplified step of ``normalize.component_key`` so both 頁 and 页
reach 頁.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .eui import TEXT as EUI_TEXT, UCD_VERSION

# canonical form -> variant forms and names. Radical code points come from Unicode's
# EquivalentUnifiedIdeograph data (below), except the overrides in RADICAL_OVERRIDES.
RADICAL_ALIASES: dict[str, tuple[str, ...]] = {
    "人": ("亻", "𠆢", "人字旁", "单人旁", "单立人", "单人旁儿", "人字头"),
    "手": ("扌", "龵", "提手旁", "提手", "手字旁"),
    "心": ("忄", "㣺", "竖心旁", "竖心", "心字底", "心字旁"),
    "言": ("讠", "訁", "言字旁"),
    "食": ("饣", "飠", "食字旁", "𩙿"),
    "金": ("钅", "釒", "金字旁"),
    "示": ("礻", "示字旁", "示补旁", "示旁"),
    "糸": ("纟", "糹", "绞丝旁", "绞丝"),
    "水": ("氵", "氺", "三点水", "三点水旁"),
    "火": ("灬", "四点底", "火字旁"),
    "犬": ("犭", "反犬旁", "犬字旁"),
    "衣": ("衤", "衣字旁", "衣补旁"),
    "玉": ("王", "王字旁", "斜玉旁", "玉字旁", "𤣩"),
    "月": ("月字旁",),
    "肉": ("肉月旁", "肉字旁"),
    "邑": ("阝(右)", "右阝", "阝右", "右耳旁", "右耳刀", "右耳"),
    "阜": ("阝(左)", "左阝", "阝左", "左耳旁", "左耳刀", "左耳"),
    "艸": ("艹", "草字头", "草头", "䒑"),
    "竹": ("竹字头", "𥫗"),
    "网": ("罒", "四字头", "罓"),
    "刀": ("刂", "立刀旁", "立刀"),
    "力": ("力字旁",),
    "口": ("口字旁",),
    "木": ("木字旁",),
    "土": ("土字旁",),
    "女": ("女字旁",),
    "子": ("子字旁",),
    "目": ("目字旁",),
    "頁": ("页", "页字旁", "頁字旁"),
    "貝": ("贝", "贝字旁", "貝字旁"),
    "辵": ("辶", "走之", "走之旁", "走之底", "走之儿"),
    "攴": ("攵", "反文旁", "反文"),
    "宀": ("宝盖头", "宝盖"),
    "冖": ("秃宝盖",),
    "疒": ("病字旁", "病字头"),
    "彳": ("双人旁", "双立人"),
    "廴": ("建之旁", "建字旁"),
    "尸": ("尸字头",),
    "足": ("足字旁", "𧾷"),
    "車": ("车", "车字旁", "車字旁"),
    "馬": ("马", "马字旁"),
    "魚": ("鱼", "鱼字旁"),
    "鳥": ("鸟", "鸟字旁"),
    "門": ("门", "门字框"),
    "見": ("见", "见字旁"),
    "長": ("长", "镸"),
    "牛": ("牜", "牛字旁"),
    "爪": ("爫", "爪字头"),
    "老": ("耂", "老字头"),
    "歹": ("歺",),
    "羊": ("羊字旁", "𦍌"),
    "米": ("米字旁",),
    "石": ("石字旁",),
    "禾": ("禾木旁",),
    "田": ("田字旁",),
    "虫": ("虫字旁",),
    "舟": ("舟字旁",),
    "耳": ("耳字旁",),
    "日": ("日字旁",),
    "山": ("山字旁",),
    "弓": ("弓字旁",),
    "巾": ("巾字旁",),
    "雨": ("雨字头",),
    "虍": ("虎字头",),
    "仌": ("冫", "两点水"),
    "爿": ("丬",),
    "襾": ("覀",),
    "小": (),
    "齒": ("齿",),
    "龍": ("龙",),
    "龜": ("龟",),
    "麥": ("麦",),
    "黽": ("黾",),
    "鹵": ("卤",),
    "侖": ("仑",),
    "倉": ("仓",),
    "韋": ("韦",),
    # the radical form of 疋 (⺪ U+2EAA is Unicode-equivalent to it, 𤴔 U+24D14)
    "疋": ("𤴔",),
    "風": ("风",),
}

# Aliases that are characters in their own right, folded into a radical only for scoring
# (the reference code scores 王 as 玉 and ⺈ as 刀). The builder never renames a component
# with them: 王 in 皇 is not 玉, and ⺈ in 魚 / 角 is not 刀.
SCORING_ONLY_ALIASES: frozenset[str] = frozenset({"王", "⺈"})

# Radical code points whose canonical form ACCE.md fixes otherwise than their Unicode
# equivalent: ⻖ (MOUND TWO, the left-side 阝) is 阜 (ACCE.md: 阝 by side); the net forms
# ⺳ / ⺴ are grouped with 网 as ⺲ is; ⺀ has no Unicode equivalent.
RADICAL_OVERRIDES: dict[str, str] = {"⻖": "阜", "⺳": "网", "⺴": "网", "⺀": "仌"}

EUI_FILE = "EquivalentUnifiedIdeograph.txt"


def _eui_text() -> tuple[str, str]:
    """(where, text) of the EquivalentUnifiedIdeograph data: ``$JIEZI_UCD_DIR``'s copy when
    set, else the embedded UCD 15.0.0 copy (:mod:`metrics.acce.eui`)."""
    env = os.environ.get("JIEZI_UCD_DIR")
    if env and (Path(env) / EUI_FILE).is_file():
        return str(Path(env) / EUI_FILE), (Path(env) / EUI_FILE).read_text("utf-8")
    return f"embedded UCD {UCD_VERSION} {EUI_FILE}", EUI_TEXT


def load_equivalent_unified_ideographs(path: str | Path | None = None) -> dict[str, str]:
    """Unicode's Equivalent_Unified_Ideograph property: radical or stroke -> unified ideograph.

    ``path``: an ``EquivalentUnifiedIdeograph.txt`` (UAX #44 format: ``2E8C..2E8D ; 5C0F #``);
    default: see the module docstring. Returns about 350 single-character mappings
    (CJK Radicals Supplement, Kangxi Radicals, CJK Strokes). Raises ``OSError`` when
    ``path`` cannot be read, ``ValueError`` naming the line on a malformed one.
    """
    path, text = (str(path), Path(path).read_text("utf-8")) if path else _eui_text()
    out: dict[str, str] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            cps, target = (x.strip() for x in line.split(";"))
            lo, _, hi = cps.partition("..")
            for cp in range(int(lo, 16), int(hi or lo, 16) + 1):
                out[chr(cp)] = chr(int(target, 16))
        except ValueError as exc:
            raise ValueError(f"{path}:{n}: expected 'CODEPOINT[..CODEPOINT] ; CODEPOINT', got {raw!r}") from exc
    return out


EQUIVALENT_UNIFIED_IDEOGRAPH: dict[str, str] = load_equivalent_unified_ideographs()
_EUI_TABLE = str.maketrans(EQUIVALENT_UNIFIED_IDEOGRAPH)

# alias -> canonical (the canonical maps to itself); then every radical code point -> the
# canonical form of its Unicode-equivalent ideograph.
ALIAS_TO_CANONICAL: dict[str, str] = {
    alias: canonical for canonical, aliases in RADICAL_ALIASES.items() for alias in (canonical, *aliases)
}
for _radical, _ideograph in EQUIVALENT_UNIFIED_IDEOGRAPH.items():
    _canon = RADICAL_OVERRIDES.get(_radical) or ALIAS_TO_CANONICAL.get(_ideograph, _ideograph)
    ALIAS_TO_CANONICAL.setdefault(_radical, _canon)
    ALIAS_TO_CANONICAL.setdefault(_canon, _canon)
for _radical, _canon in RADICAL_OVERRIDES.items():
    ALIAS_TO_CANONICAL[_radical] = _canon

# 阝 written with its side: 阝(左) / 阝（左耳） / 左耳阝 ... The side decides 阜 (left) or 邑 (right);
# a bare 阝 stays 阝 because nothing in the name says which it is.
_FU_SIDE = re.compile(r"^(?:(左|右)(?:耳)?(?:刀|旁)?阝|阝[(（]?(左|右)(?:耳|边|侧|旁)?[)）]?)$")
# "X字旁 / X字头 / X字底 / X字框" names a radical by its character.
_RADICAL_NAME = re.compile(r"^(.)字(?:旁|头|底|框|边)$")


def canonical_component(name: str) -> str:
    """Return the canonical form of one component name (already NFKC'd, no whitespace).

    Only whole names are looked up: ``"氵"`` -> ``"水"``, ``"三点水"`` -> ``"水"``,
    ``"阝(左)"`` -> ``"阜"``, ``"木字旁"`` -> ``"木"``, ``"⻘"`` -> ``"青"`` (Unicode's
    Equivalent_Unified_Ideograph); a multi-character name that is not a
    known alias (``"木缶木"``) is returned unchanged, as the reference code does.
    """
    if name in ALIAS_TO_CANONICAL:
        return ALIAS_TO_CANONICAL[name]
    # radical code points inside a longer name ("⻘字旁", "⻌(左下)") read as their ideographs
    name = name.translate(_EUI_TABLE)
    if name in ALIAS_TO_CANONICAL:
        return ALIAS_TO_CANONICAL[name]
    side = _FU_SIDE.match(name)
    if side:
        return "阜" if (side.group(1) or side.group(2)) == "左" else "邑"
    named = _RADICAL_NAME.match(name)
    if named:
        char = named.group(1)
        return ALIAS_TO_CANONICAL.get(char, char)
    return name
