"""The words an answer may use for each ACCE label, as regular expressions.

Canonical label -> regex alternatives, matched case-insensitively on normalised text
(``normalize.normalize_text``: NFKC, OpenCC t2s) by the extractors of :mod:`.extract`:
scripts (:data:`SCRIPT_SYNONYMS`, and whole-answer abbreviations :data:`SCRIPT_SHORT`),
structures (:data:`STRUCTURE_SYNONYMS`, the families that name no single IDC
:data:`STRUCTURE_FAMILIES`, the IDC code points), formations (:data:`FORMATION_SYNONYMS`,
亦声 :data:`YISHENG`), component functions and evolution types.
"""

from __future__ import annotations

import re


# --------------------------------------------------------------------------- synonyms
# canonical label -> regex alternatives (matched case-insensitively on normalised text).
# Labels outside the ACCE set (行书) are listed so that such an answer counts as answered
# (and wrong), not as unparseable.
SCRIPT_SYNONYMS: dict[str, tuple[str, ...]] = {
    "甲骨文": (r"甲骨文", r"甲骨", r"卜辞", r"契文", r"殷墟文字", r"龟甲兽骨文字?",
              r"oracle[- ]?bones?(?:[- ](?:scripts?|inscriptions?|characters?|writing))?",
              r"\bobi\b", r"jiaguwen"),
    "金文": (r"金文", r"钟鼎文", r"青铜器?铭文", r"彝铭", r"bronze(?:[- ]?ware)?(?:[- ](?:scripts?|inscriptions?|characters?))?",
            r"jinwen"),
    "战国文字": (r"战国(?:时期|时代)?(?:的)?文字", r"六国文字", r"简帛文字", r"楚简文字?", r"楚系文字",
             r"古文(?!字)", r"warring[- ]states?(?:[- ](?:scripts?|characters?|writing))?"),
    "篆书": (r"篆书", r"篆文", r"小篆", r"大篆", r"籀文", r"秦篆", r"篆体", r"篆字",
            r"(?:small|large|great|lesser)?[- ]?seal[- ](?:scripts?|characters?)", r"small[- ]seal", r"zhuanshu"),
    "隶书": (r"隶书", r"隶体", r"秦隶", r"汉隶", r"古隶", r"八分书?", r"隶字",
            r"clerical(?:[- ]scripts?)?", r"official[- ]scripts?", r"lishu"),
    "楷书": (r"楷书", r"楷体", r"正楷", r"真书", r"正书", r"今隶", r"楷字",
            r"regular[- ]scripts?", r"standard[- ]scripts?", r"kaishu"),
    "草书": (r"草书", r"章草", r"今草", r"狂草", r"草体", r"行草", r"cursive(?:[- ]scripts?)?",
            r"grass[- ]scripts?", r"caoshu"),
    "简体": (r"简体字?", r"简化字", r"simplified(?:[- ](?:chinese|scripts?|characters?|forms?))?"),
    "行书": (r"行书", r"行楷", r"running[- ]scripts?", r"semi[- ]cursive(?:[- ]scripts?)?", r"xingshu"),
}
# Whole-answer abbreviations: too ambiguous inside running text (金属, 篆刻 ...).
SCRIPT_SHORT: dict[str, str] = {"篆": "篆书", "隶": "隶书", "楷": "楷书", "草": "草书", "金": "金文",
                                "甲": "甲骨文", "古": "战国文字", "简": "简体", "行": "行书"}

_LR = r"(?:结构|结合|组合|组成|排列|布局|分布|型|式|两部分|两个部分|并列|构成)"
STRUCTURE_SYNONYMS: dict[str, tuple[str, ...]] = {
    "⿰": (r"左右" + _LR, r"左右(?=[,。;.!]|$)", r"left[- ]?(?:to[- ])?right", r"side[- ]by[- ]side",
          r"horizontal(?:ly)?[- ](?:structure|composition|arrangement|layout|compound)"),
    "⿱": (r"上下" + _LR, r"上下(?=[,。;.!]|$)", r"品字形?" + _LR + "?", r"top[- ]?(?:to[- ])?(?:bottom|down)",
          r"up[- ]?(?:to[- ])?down", r"upper[- ]lower",
          r"vertical(?:ly)?[- ](?:structure|composition|arrangement|layout|stack(?:ed|ing)?|compound)"),
    "⿲": (r"左中右" + _LR + "?", r"left[- ]middle[- ]right", r"left[- ]center[- ]right"),
    "⿳": (r"上中下" + _LR + "?", r"top[- ]middle[- ]bottom", r"upper[- ]middle[- ]lower"),
    "⿴": (r"全包围?" + _LR + "?", r"四面包围" + _LR + "?", r"全封闭" + _LR + "?",
          r"full(?:y)?[- ]?(?:surround(?:ed|ing)?|enclos(?:ed|ure|ing))", r"(?:completely|fully) enclosed"),
    "⿵": (r"上三包围?" + _LR + "?", r"上包下" + _LR + "?", r"上方包围" + _LR + "?", r"(?<!左|右)上包围" + _LR + "?",
          r"surround(?:ed|ing)? from (?:the )?(?:above|top)", r"three[- ]sided surround(?:ing)? from (?:the )?(?:above|top)"),
    "⿶": (r"下三包围?" + _LR + "?", r"下包上" + _LR + "?", r"下方包围" + _LR + "?", r"(?<!左|右)下包围" + _LR + "?",
          r"surround(?:ed|ing)? from (?:the )?(?:below|bottom)"),
    "⿷": (r"左三包围?" + _LR + "?", r"左包右" + _LR + "?", r"左方包围" + _LR + "?", r"左包围" + _LR + "?",
          r"surround(?:ed|ing)? from (?:the )?left"),
    "⿸": (r"左上包围?" + _LR + "?", r"左上包右下" + _LR + "?", r"surround(?:ed|ing)? from (?:the )?upper[- ]left"),
    "⿹": (r"右上包围?" + _LR + "?", r"右上包左下" + _LR + "?", r"surround(?:ed|ing)? from (?:the )?upper[- ]right"),
    "⿺": (r"左下包围?" + _LR + "?", r"左下包右上" + _LR + "?", r"surround(?:ed|ing)? from (?:the )?lower[- ]left"),
    "⿻": (r"镶嵌" + _LR + "?", r"穿插" + _LR, r"交叉" + _LR, r"重叠" + _LR, r"叠置" + _LR + "?",
          r"overlaid", r"overlapp?(?:ed|ing)(?:[- ](?:structure|components?))?", r"interlock(?:ed|ing)"),
    "独体": (r"独体(?:字|结构|字结构)?", r"单体(?:字|结构)", r"单一结构", r"不可(?:再)?(?:拆|分)(?:分|解)",
           r"single[- ](?:component|element|unit)s?", r"non[- ]?compound", r"indivisible", r"simple character"),
}
# Names of a structure family that fits several IDCs (半包围 is any of ⿵..⿺; a bare 包围结构
# may be that or ⿴). They name no ACCE label, so an answer that says only this is
# unparseable (None), never a made-up label; they are still matched so that their text is not
# read as something else, and an answer that goes on to name the IDC ("半包围结构中的左上包围")
# gets that IDC.
STRUCTURE_FAMILIES: tuple[str, ...] = (
    r"半包围" + _LR + "?", r"(?<![上下左右])三面包围" + _LR + "?", r"(?<![全半三四面上下左右内外])包围" + _LR,
    r"partial(?:ly)?[- ](?:surround|enclos)\w*", r"semi[- ]?enclos\w*",
)
_FAMILY = "?"  # label of a family mention in find_mentions output (never returned)
# The IDC code points themselves (Unicode 15.1 ones included: parsed, never remapped).
_IDC_SET = "⿰⿱⿲⿳⿴⿵⿶⿷⿸⿹⿺⿻⿼⿽⿾⿿㇯"
IDC_CHARS_SET = frozenset(_IDC_SET)
_IDC_RE = re.compile(f"[{_IDC_SET}]")

FORMATION_SYNONYMS: dict[str, tuple[str, ...]] = {
    "象形": (r"象形", r"pictograph\w*", r"pictogram\w*", r"pictorial character"),
    "指事": (r"指事", r"象事", r"处事", r"indicatives?(?! of)(?:[- ](?:characters?|signs?|symbols?))?",
            r"simple ideographs?", r"deictic\w*", r"self[- ]explanatory"),
    "会意": (r"会意", r"象意", r"ideogrammic(?: compounds?)?", r"ideographic compounds?", r"compound ideographs?",
            r"associative (?:compounds?|ideographs?)", r"logical aggregates?", r"syssemantic\w*", r"compound indicatives?"),
    "形声": (r"形声", r"谐声", r"象声(?!词)", r"phono[- ]?semantic\w*", r"semantic[- ]phonetic\w*", r"phonetic[- ]semantic\w*",
            r"picto[- ]?phonetic\w*", r"phonetic compounds?", r"form[- ]sound", r"semantic[- ]plus[- ]phonetic"),
    "转注": (r"转注", r"derivative cognates?", r"mutually explanatory", r"transfer(?:red)? characters?"),
    "假借": (r"假借", r"phonetic loans?", r"loan characters?", r"phonetic borrowings?", r"borrowed characters?", r"rebus"),
}
# Both 会意 and 形声 (a phonetic that also carries meaning: 亦声, ACCE.md section 1).
YISHENG = (r"会意兼形声", r"形声兼会意", r"会意兼声", r"形声兼意", r"亦声", r"会意形声字", r"形声会意字")

FUNCTION_SYNONYMS: dict[str, tuple[str, ...]] = {
    "表意": (r"表意", r"表义", r"示意", r"意符", r"义符", r"形符", r"形旁", r"意旁", r"义旁", r"表形", r"象形符?",
            r"semantic\w*", r"signific\w*", r"meaning(?:[- ](?:component|element|part))?", r"ideographic"),
    "表音": (r"表音", r"表声", r"示音", r"声符", r"音符", r"声旁", r"注音", r"phonetic\w*", r"sound(?:[- ](?:component|element|part))?",
            r"phonophor\w*"),
    "符号": (r"符号", r"记号", r"标记", r"标识", r"区别符", r"指事符", r"饰笔", r"symbol\w*", r"markers?", r"diacritic\w*",
            r"indicators?"),
}
FUNCTION_BOTH = (r"亦声", r"兼表音", r"音义兼表", r"兼表音义", r"兼表意", r"表意兼表音", r"表音兼表意")

EVOLUTION_SYNONYMS: dict[str, tuple[str, ...]] = {
    "保留": (r"保留", r"保持", r"沿用", r"沿袭", r"承袭", r"传承", r"未变", r"不变", r"无变化", r"没有变化", r"一脉相承",
            r"retention", r"retain(?:ed|s)?", r"preserv(?:ed|ation)", r"unchanged", r"kept"),
    "讹变": (r"讹变", r"讹化", r"讹误", r"讹省", r"形讹", r"讹", r"误变", r"corrupt(?:ion|ed)?", r"distort(?:ion|ed)",
            r"misinterpret(?:ation|ed)"),
    "简化": (r"简化", r"省简", r"简省", r"省变", r"省略", r"省写", r"简写", r"减省", r"省形", r"simplif(?:ication|ied|y)"),
    "繁化": (r"繁化", r"增繁", r"加繁", r"繁复化?", r"增笔", r"增饰", r"增加(?:笔画|部件|构件)", r"elaborat(?:ion|ed)",
            r"embellish(?:ment|ed)", r"complicat(?:ion|ed)"),
    "区别": (r"区别", r"分化", r"区分", r"differentiat(?:ion|ed)", r"distinguish(?:ed|ing)"),
}
