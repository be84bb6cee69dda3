"""The rule-based reading of 說文解字 text: gloss, components, functions, formation.

許慎's entries follow a small formula. The gloss comes first (``照也。``: the original
meaning is what precedes 也); the analysis follows:

- ``从X`` / ``从X从Y`` / ``从X、Y`` / ``从XY``: X (and Y) are semantic components (表意);
  ``从二X`` / ``从三X`` / ``从重X`` / ``从反X`` / ``从到X`` / ``从X省`` are X doubled, tripled,
  doubled, reversed, inverted, abbreviated (one component X: 棗 从重朿 is 朿 twice, not 朿 and
  重); ``从古文X`` / ``从籒文X`` is X written in that form; ``从X有Y`` (骨 从冎有肉) is X with Y,
  ``从X在Y上`` X placed on Y: both parts; ``从X無Y`` (了 从子無臂), ``从X而…`` describe X (Y
  is no part); ``从X下Y`` / ``从X上Y`` names Y as a part only where the glyph's IDS shows it
  (非 从飛下翄: the lowered wings of 飛, no part 翄; 看 从手下目: 目 is a part), which
  alignment checks (rule ``….semantic.located``); ``X見而…`` after a 从-clause (小 从八，丨見而
  分之) names X as a part too.
- ``Y聲`` / ``Y省聲``: Y is the phonetic (表音), the character is 形声;
  ``Y亦聲``: Y is semantic and phonetic, 形声 with the 亦声 flag.
- ``象形`` / ``象…之形``: 象形; ``指事``: 指事; two or more semantic components and no
  phonetic: 会意.
- ``X，…也`` / ``X猶…也`` right after ``从X``, or a clause right before ``，从X``, explains X
  (the component interpretation, COMI).

Sentences that are not analysis are left alone: ``凡X之屬皆从X`` (the radical formula),
``讀若…`` (a reading), ``一曰…`` (another sense), ``《…》曰`` (a citation), editors' notes.
段玉裁's notes count only where they state a class outright (``會意``, ``形聲``, ``X亦聲``,
``象形``, ``指事``, ``舉會意包形聲``) in the note on an analysis sentence.

Every result carries the exact substring of the text it was read from (its span).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from builder.sources.adapters import cjk

# Sentence openings that end the gloss and are analysis (or other non-gloss) sentences.
NON_GLOSS_OPENINGS = ("从", "從", "象", "凡", "讀若", "讀與", "一曰", "《", "案", "臣鉉", "徐鍇", "指事",
                      "古文", "籒文", "或", "闕", "此", "亦", "今", "又", "一名", "故", "商書", "逸周書", "春秋傳")
# Sentences that are never analysis of this character.
NOT_ANALYSIS = ("凡", "讀若", "讀與", "一曰", "《", "案", "臣鉉", "徐鍇", "春秋傳", "逸周書", "商書", "周書",
                "周禮", "禮", "詩", "易", "書", "論語", "孟子", "司馬相如", "揚雄", "楊雄", "杜林", "賈侍中", "譚長",
                "孔子", "韓非", "博士", "官溥", "宋弘", "衞宏", "爾雅")
# Inside a 从-run: words that are not components (verbs, particles, locatives).
# (Only function words: most verbs of the descriptive runs, 手 足 見 行 立 至 ..., are also
# common components, so a run is cut at these and nothing else.)
RUN_BREAKS = set("之相象於以也者所爲為及即卽其形意省聲而無")
# Verbs that join two components in a run (从品在木上, 从又持巾, 从木戴孚): the
# character after them is the next component.
RUN_JOINS = set("在持戴依含覆挹貫推舉")
COUNT_PREFIX = set("二三四重")
# Words before a component that describe it, not other components: 反/倒 (turned), 殘 (the
# remains of: 昔 从殘肉 is the meat, not a component 殘)
MODIFIER_PREFIX = set("反到倒殘")
# A sentence that opens by naming another scholar's view (杜林說：… / 孔子曰：…): Shuowen
# quotes it after its own analysis, and the analysis sentences that follow it (耿: 从光，聖省)
# are that view, not Shuowen's, so the reading stops there.
QUOTED_VIEW = re.compile(r"^(?:杜林|賈侍中|譚長|司馬相如|揚雄|楊雄|孔子|韓非|博士|官溥|宋弘|衞宏|董仲舒|劉歆|張林|甯嚴|王育|莊都|京房|歐陽喬|黃顥|周成|桑欽|爰禮|徐巡|班固|傅毅|淮南王|尹彤|逯安|杜業|張徹|李斯)[^，。：]{0,3}(?:說|曰|以爲|以為)")
LOCATIVES = set("上下中內内外旁前後間")
# a component written in an older script form (从古文死): the component is the character after it
FORM_PREFIXES = ("古文", "籒文", "籀文", "篆文", "奇字")
# 有 joins a part the first one has (骨 从冎有肉); 見 after a part shows it (小 丨見而分之)
HAS = "有"
# 「未詳」: 徐鉉's mark for a part he could not explain (蕆, 蘸), not a part 未 and 詳
UNKNOWN = ("未詳", "未详")
# run breakers that are a part when they make up the whole run (耏 从而从彡)
LONE_PARTS = set("而無")
YISHENG = "亦"
_BRACKET = re.compile(r"\[[^\]]*\]|\{[^}]*\}")


@dataclass
class Found:
    """A value read from ``span`` (an exact substring of the parsed text) by ``rule``."""

    value: str
    span: str
    rule: str


@dataclass
class ComponentFound:
    """A component with its functions, the span naming it, and an optional interpretation."""

    name: str
    functions: list[str]
    span: str
    rule: str
    interpretation: Found | None = None


@dataclass
class Analysis:
    """What the rules read from one text."""

    gloss: Found | None = None
    senses: list[Found] = field(default_factory=list)
    components: list[ComponentFound] = field(default_factory=list)
    formation: Found | None = None       # value: 象形 / 指事 / 会意 / 形声
    yisheng: bool = False


def sentences(text: str) -> list[str]:
    """Split on 。 (the 。 is not part of the sentence); empty pieces dropped, and so is the
    closing quotation mark a quotation ending in 。 leaves at the next sentence's head (狗
    「孔子曰：“狗，叩也。叩气吠以守。”从犬句聲」: 「”从犬句聲」 named no 犬; review of out-r9,
    seed 20261226 item 100)."""
    return [s for s in (p.strip().lstrip("”’」』").strip() for p in text.split("。")) if s]


def _is_analysis(sent: str) -> bool:
    if sent.startswith(NOT_ANALYSIS):
        return False
    return bool(re.search(r"(^|[，；、])[从從象]", sent) or "聲" in sent or "象形" in sent or "指事" in sent)


def split_gloss(text: str) -> tuple[list[str], list[str]]:
    """(gloss sentences, remaining sentences). The first sentence is always gloss."""
    sents = sentences(text)
    if not sents:
        return [], []
    i = 1
    while i < len(sents):
        s = sents[i]
        # a later scholar's view (王: 董仲舒曰…, 孔子曰…) or an editor's bracketed note
        # (李陽冰曰 in [...]) is no part of 許慎's gloss
        if s.startswith(NON_GLOSS_OPENINGS) or _is_analysis(s) or QUOTED_VIEW.match(s) or s.startswith("["):
            break
        i += 1
    return sents[:i], sents[i:]


def read_gloss(text: str) -> tuple[Found | None, list[Found]]:
    """The gloss (original meaning) and the 一曰 senses of an explanation.

    The gloss span is the leading gloss sentences as they stand in ``text``; the value of
    a one-sentence gloss drops its final 也 (``照也`` -> ``照``), a gloss of several
    sentences is kept whole (``怒也。武也``). 一曰 sentences become senses (``一曰逐也`` -> ``逐``).
    """
    gl, rest = split_gloss(text)
    gloss = None
    if gl:
        span = "。".join(gl)
        if span in text:
            # One clause loses its final 也 (照也 -> 照); a gloss of several clauses
            # (馬: 怒也。武也) is kept whole, since cutting only the last 也 would leave a
            # broken quotation (怒也。武).
            value = span[:-1] if len(gl) == 1 and span.endswith("也") and len(span) > 1 else span
            # 「闕」 is Xu's mark for a gloss he did not know (䣸), not a meaning
            if value.strip("，。 ") != "闕":
                gloss = Found(value.strip("，"), span, "shuowen.gloss")
    senses = []
    for s in rest:
        if s.startswith("一曰") and len(s) > 2:
            v = s[2:]
            v = v[:-1] if v.endswith("也") and len(v) > 1 else v
            senses.append(Found(v, s, "shuowen.yiyue"))
    return gloss, senses


def _strip_brackets(s: str) -> str:
    return _BRACKET.sub("", s)


def _run_components(run: str) -> list[str]:
    """Component characters named in one 从-run (``水工`` -> [水, 工]); a part named after a
    position word (飛下翄) is marked by :func:`located_components`."""
    return [c for c, _ in _run_parts(run)]


def located_components(run: str) -> set[str]:
    """The parts of a 从-run named right after a position word (从飛下翄: 翄; 从手下目: 目):
    parts only where the glyph shows them, so alignment checks them against the IDS."""
    return {c for c, located in _run_parts(run) if located}


def _run_parts(run: str) -> list[tuple[str, bool]]:
    """(component, named after a position word) for each part of a 从-run, by the rules of
    the module docstring."""
    out: list[tuple[str, bool]] = []
    chars = [c for c in _strip_brackets(run) if not c.isspace()]
    i, located = 0, False
    while i < len(chars):
        c = chars[i]
        nxt = chars[i + 1] if i + 1 < len(chars) else None
        pair = "".join(chars[i:i + 2])
        if pair == "古字" and chars[i + 2:i + 3] == ["之"]:
            break  # 弟 「从古字之象」: the shape of the ancient graph, as 民 「从古文之象」; no 古, 字
        if pair in FORM_PREFIXES:
            if i + 2 < len(chars) and cjk(chars[i + 2]):
                i += 2
                continue
            break  # 厷 「从又，从古文」: the head's own 古文 form, no character named
        if pair in UNKNOWN:
            break  # 蕆 「从艸，未詳」: the rest is not known
        if (c in COUNT_PREFIX or c in MODIFIER_PREFIX) and nxt and cjk(nxt) and nxt not in RUN_BREAKS:
            i += 1
            continue
        if (c in RUN_JOINS or c == HAS) and out and nxt and cjk(nxt) and nxt not in RUN_BREAKS:
            i, located = i + 1, False  # 在 / 持 / 有 ...: the next character is a part as well
            continue
        if c == "見" and out and nxt == "而":
            break  # 丨見而分之: 丨 is shown, what follows describes
        if c in RUN_BREAKS:
            if c == "省" or c == "形" or c == "意":
                i += 1
                continue
            if not out and nxt is None and c in LONE_PARTS:
                out.append((c, False))  # the whole run is this one character (从而: 而 is the part)
            break  # a verb or particle: what follows describes, it does not list components
        if c in LOCATIVES and out:
            i, located = i + 1, True
            continue
        if cjk(c):
            out.append((c, located))
        i += 1
    return out


_VARIANT_OPENING = re.compile(r"(?:亦古文|古文|籒文|籀文|篆文|小篆|或|俗|奇字|今文)?")
# X聲 / X省聲 / X亦聲, allowing a bracketed alternative form or an editor's parenthesis
# between X and 聲 (从玉官[𡧺]聲, 从犬巳（段註改為㔾）聲).
_PHONETIC = re.compile(r"([^，；、。\[\]（）])(?:\[[^\]]*\]|（[^）]*）)?(亦)?(省)?聲")
_INTERP = re.compile(r"(?:^|[，。；])(([^，。；从從])(?:，|者，|猶|，猶)[^。；从從]{1,24}?也)")
_PURPOSE = re.compile(r"(?:^|[。；])([^，。；从從]{2,16})，[从從](.)")


def _opens_analysis(clause: str, selves: set[str]) -> bool:
    """A clause lists components when it opens with 从 (or 古文X从 / 或从 in a variant);
    a 从 inside a clause is the verb 'follow' (鳥飛从高下至地)."""
    rest = clause[_VARIANT_OPENING.match(clause).end():]
    if rest[:1] in selves:
        rest = rest[1:]
    if rest[:1] == "又":
        rest = rest[1:]
    return rest[:1] in ("从", "從")


@dataclass
class _Scan:
    """What :func:`analyse` gathers over the sentences of one text: components by name,
    whether each was named alone in its 从-run, the sentences naming it, whether a
    phonetic was seen and the first 亦聲 sentence."""

    rule_prefix: str
    selves: set[str]
    comps: dict[str, ComponentFound] = field(default_factory=dict)
    single: dict[str, bool] = field(default_factory=dict)
    where: dict[str, set[int]] = field(default_factory=dict)
    phonetic_seen: bool = False
    yisheng: bool = False
    yi_sent: int | None = None


def analyse(text: str, head: str | None = None, *, rule_prefix: str = "shuowen", skip_gloss: bool = True,
            also: tuple[str, ...] = ()) -> Analysis:
    """Read components, functions and formation from an explanation (or a variant's text).

    ``head`` is the entry's own character and ``also`` other names of it (a variant's
    head); neither is ever taken as a component. With
    ``skip_gloss`` the leading gloss sentences are not analysed (they may contain 从 as a
    verb: 鳥飛从高下至地也). Steps: phonetics and semantic components per sentence, the
    span of a component named in several sentences, interpretations, formation.
    """
    res = Analysis()
    if skip_gloss:
        res.gloss, res.senses = read_gloss(text)
        _, sents = split_gloss(text)
    else:
        sents = sentences(text)
    scan = _Scan(rule_prefix, {c for c in (head, *also) if c})
    for si, sent in enumerate(sents):
        if QUOTED_VIEW.match(sent) and scan.comps:
            break  # what follows is the quoted scholar's analysis (耿: 杜林說)
        if sent.startswith(NOT_ANALYSIS):
            continue
        _scan_phonetics(scan, sent, si)
        _scan_semantics(scan, sent, si)
    res.yisheng = res.yisheng or scan.yisheng
    # a component named in several sentences cites the run of sentences naming it
    for n, idx in scan.where.items():
        if len(idx) > 1:
            scan.comps[n].span = "。".join(sents[min(idx):max(idx) + 1])
    _interpretations(scan, sents)
    res.components = list(scan.comps.values())
    res.formation = _formation(res.components, scan, sents, text)
    return res


def _scan_phonetics(scan: _Scan, sent: str, si: int) -> None:
    """Phonetics of sentence ``si``: X聲, X省聲, X亦聲 (not in an onomatopoeic 象…聲
    clause); 亦聲 makes the component 表意 too and the entry 亦声."""
    for m in _PHONETIC.finditer(sent):
        ph = m.group(1)
        if ph in "从從" and (m.start() == 0 or sent[m.start() - 1] in "，；、"):
            continue
        clause_start = max(sent.rfind("，", 0, m.start()), sent.rfind("；", 0, m.start())) + 1
        if sent[clause_start:].startswith("象") or not cjk(ph) or ph in scan.selves:
            continue
        scan.phonetic_seen = True
        c = scan.comps.setdefault(ph, ComponentFound(ph, [], sent, f"{scan.rule_prefix}.phonetic"))
        scan.where.setdefault(ph, set()).add(si)
        if "表音" not in c.functions:
            c.functions.append("表音")
        if m.group(2):
            scan.yisheng = True
            scan.yi_sent = si if scan.yi_sent is None else scan.yi_sent
            if "表意" not in c.functions:
                c.functions.insert(0, "表意")
            c.rule = f"{scan.rule_prefix}.yisheng"


def _scan_semantics(scan: _Scan, sent: str, si: int) -> None:
    """Semantic components of sentence ``si``: the 从-runs of clauses that open with 从
    (or with a variant's 古文X从), phonetics inside a run left to :func:`_scan_phonetics`;
    then a clause ``X見而…`` after a 从-clause (小: 从八，丨見而分之) names X."""
    opened = False
    for clause in _CLAUSE_SPLIT.split(sent):
        if not _opens_analysis(clause, scan.selves):
            m = _SEEN.match(clause)
            if opened and m and cjk(m.group(1)) and m.group(1) not in scan.selves:
                _add_semantic(scan, m.group(1), sent, si, f"{scan.rule_prefix}.semantic.seen", single=False)
            continue
        opened = True
        for m in _CONG_RUN.finditer(clause):
            names, located = [], set()
            for part in m.group(1).split("、"):
                pm = _PHONETIC.search(part)
                run = part[:pm.start()] if pm else part
                names += _run_components(run)
                located |= located_components(run)
            for n in names:
                if n in scan.selves:
                    continue
                rule = f"{scan.rule_prefix}.semantic" + (".located" if n in located else "")
                _add_semantic(scan, n, sent, si, rule, single=len(names) == 1)


def _add_semantic(scan: _Scan, n: str, sent: str, si: int, rule: str, *, single: bool) -> None:
    c = scan.comps.setdefault(n, ComponentFound(n, [], sent, rule))
    scan.where.setdefault(n, set()).add(si)
    if "表意" not in c.functions:
        c.functions.insert(0, "表意")
    scan.single[n] = single


def _interpretations(scan: _Scan, sents: list[str]) -> None:
    """Interpretations of semantic components: an explicit gloss (X，…也 / X者，…也), else,
    for a component named alone, the purpose clause before its 从 (…，从X)."""
    joined = "。".join(sents)
    interp = {m.group(2): m.group(1) for m in reversed(list(_INTERP.finditer(joined)))}
    purpose = {m.group(2): m.group(1) for m in reversed(list(_PURPOSE.finditer(joined)))}
    for name, c in scan.comps.items():
        if "表意" not in c.functions:
            continue
        if name in interp:
            c.interpretation = Found(interp[name], interp[name], f"{scan.rule_prefix}.component_gloss")
        elif name in purpose and scan.single.get(name) and "聲" not in purpose[name] \
                and not purpose[name].startswith(NOT_ANALYSIS):
            c.interpretation = Found(purpose[name], purpose[name], f"{scan.rule_prefix}.component_purpose")


def _formation(components: list[ComponentFound], scan: _Scan, sents: list[str], text: str) -> Found | None:
    """The formation the text states: 形声 when a phonetic was read, else 指事 / 象形 /
    會意 named in a sentence, else 会意 from two semantic components (or one doubled, 从二X)
    cited by a span of the text; None when nothing says."""
    p = scan.rule_prefix
    span_of = lambda pred: next((s for s in sents if pred(s)), None)  # noqa: E731
    if scan.phonetic_seen:
        s = sents[scan.yi_sent] if scan.yi_sent is not None else span_of(
            lambda s: "聲" in s and not s.startswith(NOT_ANALYSIS))
        return Found("形声", s, f"{p}.formation.sheng")
    if (s := span_of(lambda s: "指事" in s)) is not None:
        return Found("指事", s, f"{p}.formation.zhishi")
    # a part named after a position word (非 从飛下翄) may be no part at all: it does not
    # make the text a compound
    sem = [c for c in components if "表意" in c.functions and not c.rule.endswith(".located")]
    if (s := span_of(lambda s: "象形" in s)) is not None:
        return Found("象形", s, f"{p}.formation.xiangxing")
    if (s := span_of(lambda s: _XIANG_X_XING.search(s) is not None)) is not None:
        # 「象…之形」 beside two or more parts the text lists (后: 象人之形…从一、口; 高: 从冂、口)
        # is a compound whose class the text does not state: no class rather than a
        # 象形 read off half of it
        return None if len(sem) >= 2 else Found("象形", s, f"{p}.formation.xiangxing")
    if (s := span_of(lambda s: "會意" in s)) is not None:
        return Found("会意", s, f"{p}.formation.huiyi")
    doubled = span_of(lambda s: _DOUBLED.search(s) is not None)
    if len(sem) >= 2 or (sem and doubled):
        idx = [i for i, s in enumerate(sents) if any(c.span == s for c in sem)]
        span = "。".join(sents[min(idx):max(idx) + 1]) if idx else None
        if span and span in text:
            return Found("会意", span, f"{p}.formation.huiyi_components")
    return None


_CLAUSE_SPLIT = re.compile(r"[，；]")
_SEEN = re.compile(r"^(.)見而")
_CONG_RUN = re.compile(r"[从從]([^从從]*)")
_XIANG_X_XING = re.compile(r"象.{1,20}形")
_DOUBLED = re.compile(r"[从從][二三四重]")


VARIANT_PREFIX = re.compile(r"^(亦古文|古文|籒文|籀文|篆文|小篆|或|俗|奇字|今文)")


def analyse_variant(text: str, head: str, form: str) -> Analysis:
    """Read a 重文's own analysis (``古文朙从日`` -> 日 表意; ``或从虫`` ...)."""
    return analyse(text, head=form, rule_prefix="shuowen.variant", skip_gloss=False, also=(head,))


# ---- 段注 -------------------------------------------------------------------------------

_DUAN_CUES: tuple[tuple[re.Pattern, str, bool], ...] = tuple((re.compile(p), l, y) for p, l, y in (
    # (regex on the note, label, yisheng)
    (r"會意[包苞]形聲|形聲[包苞]會意|會意而?兼形聲|形聲而?兼會意", "形声", True),
    (r"[^，。、\s]亦聲", "形声", True),
    (r"會意", "会意", False),
    (r"形聲", "形声", False),
    (r"象形", "象形", False),
    (r"指事", "指事", False),
))


_VARIANT_QUOTE = re.compile(r"^(?:{h})?(?:或[从從作省]|或體|古文|籒文|籀文|篆文|奇字|俗[{h}从從]|今文)")


def is_variant_quote(quote: str, head: str) -> bool:
    """Whether a quotation Duan annotates is the 重文 part of the entry (鐘 「鐘或从甬」,
    「古文X」, 「籒文X」, 「俗X从…」): his note on it is about that form, not the head (his
    「甬亦聲」 there makes 銿 亦聲, never 鐘 「从金童聲」; data review 12-04, round 4)."""
    return bool(re.match(_VARIANT_QUOTE.pattern.format(h=re.escape(head)), quote.strip()))


def duan_formation(pairs: list[tuple[str, str]], head: str) -> tuple[Found | None, list[ComponentFound]]:
    """The class 段玉裁 states in his note on an analysis sentence, if any.

    ``pairs`` are (quoted text, note). Returns the formation (value 会意/形声/象形/指事,
    span = the cue in the note, rule ``duan.formation.*``; 亦声 gives value ``形声+亦声``)
    and, for ``X亦聲``, the component X as 表意+表音.
    """
    analysed = [(q, n) for q, n in pairs if any(c in q for c in "从從聲象") and not is_variant_quote(q, head)]
    for pattern, label, yi in _DUAN_CUES:  # strongest statement first, over every note
        for _quote, note in analysed:
            m = pattern.search(note)
            if not m:
                continue
            comps = []
            if pattern.pattern.startswith("[^"):
                ch = m.group(0)[0]
                if cjk(ch) and ch != head:
                    comps.append(ComponentFound(ch, ["表意", "表音"], m.group(0), "duan.yisheng"))
            value = label + ("+亦声" if yi else "")
            return Found(value, m.group(0), "duan.formation"), comps
    return None, []


# ---- garbled characters of the digitised text --------------------------------------------

@dataclass
class Repair:
    """What :func:`repair_garbled` did to an analysis: the parts read from Duan's quotation
    instead (their spans are in the quotation), and what was dropped, as (field, value, why)."""

    from_duan: list[ComponentFound] = field(default_factory=list)
    dropped: list[tuple[str, str, str]] = field(default_factory=list)


def repair_garbled(a: Analysis, garbled: frozenset[str], quotes: list[str], head: str) -> Repair:
    """Keep ``a`` free of the characters the digitised 許慎 text garbled (``garbled``: see
    :mod:`builder.sources.adapters.shuowen`; 今 「从亼从绁」 for 乀, 寑 「从宀钅聲」 for 㑴聲).
    A gloss or sense holding one is dropped (段玉裁's gloss then speaks); a garbled part is
    replaced by the part Duan's quotation names in its place when exactly as many new parts
    stand there (寑 -> 㑴 表音), else every part is dropped: a formula that cannot be read
    yields no components, not a wrong list. ``a`` is changed in place."""
    rep = Repair()
    if not garbled:
        return rep
    if a.gloss and set(a.gloss.value) & garbled:
        rep.dropped.append(("original_meaning", a.gloss.value, "garbled character in the digitised text"))
        a.gloss = None
    keep = [s for s in a.senses if not set(s.value) & garbled]
    rep.dropped += [("senses", s.value, "garbled character in the digitised text") for s in a.senses if s not in keep]
    a.senses = keep
    bad = [c for c in a.components if c.name in garbled]
    if not bad:
        return rep
    good = [c for c in a.components if c.name not in garbled]
    named = {c.name for c in good}
    duan = [c for q in quotes for c in analyse(q, head, skip_gloss=False).components
            if c.name not in named and c.name not in garbled and cjk(c.name)]
    duan = list({c.name: c for c in duan}.values())
    rep.dropped += [("components", c.name, "garbled character in the digitised text") for c in bad]
    if len(duan) == len(bad):
        rep.from_duan = duan
        a.components = good
    else:
        rep.dropped += [("components", c.name, "the passage cannot be read: its other parts are dropped too")
                        for c in good]
        a.components = []
    return rep
