"""Reduce a free-text answer (Chinese or English) to an ACCE label.

ACCE.md section 2: categorical answers are compared after normalisation, and a free-text
answer is reduced to a label by extraction; there is never a random fallback, and an answer
from which no label can be read is ``None`` (scored 0 and counted as unparseable).

Every extractor works on ``normalize.normalize_text`` output (NFKC, OpenCC t2s), so
traditional spellings (形聲, 會意, 篆書) need no patterns of their own. A label mention is
skipped when a negation governs it in the same clause (不是形声字, 并非象形, "not a
pictograph", "rather than a pictograph"), unless a contrast re-opens the clause
(不是形声字而是会意字 -> 会意). A mention inside a question the answer echoes (该字是形声字吗？)
asserts nothing: it counts as negated when the reply denies it (不，它是会意字 -> 会意) and
gives way to any asserted mention otherwise. When several labels are mentioned, the one the
answer asserts wins: a mention introduced by a cue (是 / 为 / 属于 / 造字法： / "is a") before a
bare one, the earliest before later ones.

The extractors are pure and cached (labels such as 表意 / 保留 recur in every reference).
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

from .labels import IDC_15_1_NEAREST, IDC_ARITY
from .normalize import HAN, IDC_CHARS, normalize_text
from .synonyms import (
    EVOLUTION_SYNONYMS,
    FORMATION_SYNONYMS,
    FUNCTION_BOTH,
    FUNCTION_SYNONYMS,
    IDC_CHARS_SET,
    SCRIPT_SHORT,
    SCRIPT_SYNONYMS,
    STRUCTURE_FAMILIES,
    STRUCTURE_SYNONYMS,
    YISHENG,
    _FAMILY,
    _IDC_RE,
)


# ----------------------------------------------------------------- negation and cues
_CLAUSE_END = re.compile(r"[,，。;；!！?？\n:：]|(?<=[a-z])\.\s")
_NEGATOR = re.compile(
    r"不(?!仅|只|但|单|少|久|断|过|同|论|管|然|错|失)|并非|绝非|而非|非(?!常|但|凡)|没有|无(?!疑|论)|未(?!来)|"
    r"排除|否定|谈不上|称不上|"
    r"\bnot\b(?!\s+(?:only|just|merely))|n't\b|\bnever\b|\bno\b|\bneither\b|\bnor\b|"
    r"\brather than\b|\binstead of\b|\bother than\b|\bexcept\b",
    re.I,
)
_RESET = re.compile(r"而是|而属|乃是|实为|实则|而为|应为|应是|当为|其实是|\bbut\b|\brather\b(?!\s+than)|"
                    r"\binstead\b(?!\s+of)|\bhowever\b", re.I)
_CUE = re.compile(
    r"(?:是|为|属于?|乃|系|即|应为|当为|判断为|判定为|归为|归入|定为|可视为|视为|看作|采用|使用|"
    r"书体|字体|字形|结构|结构类型|造字法|六书|类型|类别|答案|"
    r"\bis\b|\bare\b|\bas\b|\bwas\b|answer|script|structure|formation|type|category|[:=])"
    r"\s*(?:一个|一种|一类|典型的?|标准的?|所谓的?|an?\b|the\b)?\s*(?:的)?\s*[\"'「『《(]?\s*$",
    re.I,
)


@dataclass(frozen=True)
class Mention:
    """One label mention in a text: its labels, span, and whether it is negated or cued.

    ``question``: the mention sits in a question the answer asks or echoes (and the reply
    does not deny it; a denied one is ``negated``).
    """

    labels: tuple[str, ...]
    start: int
    end: int
    negated: bool
    cued: bool
    question: bool = False


def _compile(table: dict[str, tuple[str, ...]], extra: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ()):
    groups = [((label,), pats) for label, pats in table.items()] + list(extra)
    return [(re.compile("|".join(f"(?:{p})" for p in pats), re.I), labels) for labels, pats in groups]


_SCRIPT_RES = _compile(SCRIPT_SYNONYMS)
_STRUCTURE_RES = _compile(STRUCTURE_SYNONYMS, (((_FAMILY,), STRUCTURE_FAMILIES),))
_FORMATION_RES = _compile(FORMATION_SYNONYMS, (((("会意", "形声")), YISHENG),))
_FUNCTION_RES = _compile(FUNCTION_SYNONYMS, ((("表意", "表音"), FUNCTION_BOTH),))
_EVOLUTION_RES = _compile(EVOLUTION_SYNONYMS)


class _TextIndex:
    """Clause ends, sentence ends, negators and contrast resets of one text, found in one
    pass each, so that per-mention questions (which clause? negated? in a question?) cost a
    binary search instead of a rescan from the start: extraction stays linear in the answer
    length (a 100,000-character answer used to take minutes; issue 15)."""

    __slots__ = ("text", "clause_ends", "sent_starts", "sent_ends", "sent_q", "neg_starts", "neg_ends",
                 "reset_starts", "reset_ends")

    def __init__(self, text: str):
        self.text = text
        self.clause_ends = [m.end() for m in _CLAUSE_END.finditer(text)]
        sents = [(m.start(), m.end(), m.group() == "?") for m in _SENTENCE_END.finditer(text)]
        self.sent_starts = [a for a, _, _ in sents]
        self.sent_ends = [b for _, b, _ in sents]
        self.sent_q = [q for _, _, q in sents]
        negs = [(m.start(), m.end()) for m in _NEGATOR.finditer(text)]
        self.neg_starts = [a for a, _ in negs]
        self.neg_ends = [b for _, b in negs]
        resets = [(m.start(), m.end()) for m in _RESET.finditer(text)]
        self.reset_starts = [a for a, _ in resets]
        self.reset_ends = [b for _, b in resets]

    def clause_start(self, pos: int) -> int:
        """Start of the clause holding ``pos``: the end of the last clause break ending at or before it."""
        i = bisect.bisect_right(self.clause_ends, pos) - 1
        return self.clause_ends[i] if i >= 0 else 0

    def negated(self, lo: int, hi: int) -> bool:
        """True when the last negator inside ``text[lo:hi]`` is not followed by a contrast
        (而是, but ...) inside it."""
        j = bisect.bisect_right(self.neg_ends, hi) - 1
        if j < 0 or self.neg_starts[j] < lo:
            return False
        k = bisect.bisect_left(self.reset_starts, self.neg_ends[j])
        return not (k < len(self.reset_starts) and self.reset_ends[k] <= hi)

    def next_sentence_end(self, pos: int) -> int:
        """Index into the sentence-end lists of the first one starting at or after ``pos`` (may be past the end)."""
        return bisect.bisect_left(self.sent_starts, pos)


@functools.lru_cache(maxsize=16)
def _index(text: str) -> _TextIndex:
    return _TextIndex(text)


def _clause_start(text: str, pos: int) -> int:
    return _index(text).clause_start(pos)


_SENTENCE_END = re.compile(r"[。;!?\n]|(?<=[a-z])\.\s")
# A reply that denies the question before it: "不，…", "不是。", "否", "No, …" (不错 / 不仅
# are not denials).
_DENIAL = re.compile(r"\s*[\"'「『]?\s*(?:不(?!仅|只|但|单|少|久|断|过|同|论|管|然|错|失)|否|并非|非也|没有|"
                     r"no\b|nope\b|not\b)", re.I)


def _question_state(text: str, end: int) -> str | None:
    """``"denied"`` when the position ``end`` lies in a question (ending in ? or 吗) that the
    next sentence answers with a denial, ``"asked"`` for another question, else None.

    Answers often echo the question ("该字是形声字吗？不，它是会意字。"): the echoed label
    is not the answer's claim, and after a denial it is the opposite of it.
    """
    idx = _index(text)
    i = idx.next_sentence_end(end)
    found = i < len(idx.sent_starts)
    stop = idx.sent_starts[i] if found else len(text)
    j = stop
    while j > end and text[j - 1].isspace():  # only the trailing blanks, never the whole sentence
        j -= 1
    is_question = (found and idx.sent_q[i]) or (j > end and text[j - 1] in "吗么")
    if not is_question:
        return None
    return "denied" if found and _DENIAL.match(text, idx.sent_ends[i]) else "asked"


def _mention(text: str, labels: tuple[str, ...], start: int, end: int) -> Mention:
    idx = _index(text)
    # Cue: in the same clause, or a labelled line ("造字法：形声") just before it.
    cue_window = text[max(0, start - 12):start]
    question = _question_state(text, end)
    return Mention(labels, start, end, idx.negated(idx.clause_start(start), start) or question == "denied",
                   question is None and bool(_CUE.search(cue_window)), question == "asked")


def _asserted(mentions: list[Mention]) -> list[Mention]:
    """The mentions the answer asserts: not negated, and outside questions when any are."""
    live = [m for m in mentions if not m.negated]
    return [m for m in live if not m.question] or live


def find_mentions(text: str, compiled) -> list[Mention]:
    """All non-overlapping label mentions in ``text`` (longest match wins), by position."""
    raw: list[tuple[int, int, tuple[str, ...]]] = []
    for regex, labels in compiled:
        for m in regex.finditer(text):
            if m.end() > m.start():
                raw.append((m.start(), m.end(), labels))
    raw.sort(key=lambda r: (-(r[1] - r[0]), r[0]))
    taken: list[tuple[int, int, tuple[str, ...]]] = []
    used = bytearray(len(text))  # 1 where a taken mention lies: the overlap test costs the span, not the count
    for start, end, labels in raw:
        if used.find(1, start, end) < 0:
            taken.append((start, end, labels))
            used[start:end] = b"\x01" * (end - start)
    taken.sort()
    return [_mention(text, labels, start, end) for start, end, labels in taken]


# What joins two labels of a hedge: 或 / 或者 / 还是 / 抑或 / or / a list mark 、 or slash
# ("可能是甲骨文、金文或小篆", "金文或甲骨文", "oracle bone or bronze").
_DISJUNCTION = re.compile(r"\s*(?:或者?(?:是|为)?|还是|抑或|或许是|\bor\b(?:\s+(?:maybe|perhaps|possibly))?)\s*", re.I)
_LIST_JOIN = re.compile(r"\s*[、/]\s*")  # not a comma: "甲骨文，金文作…" goes on to another statement


def is_hedge(text: str, mentions: list[Mention], *, lists: bool = True) -> bool:
    """True when two different labels among ``mentions`` (asserted mentions of one field,
    by position) stand side by side joined by a disjunction (或, 还是, or) or, with
    ``lists``, by a list separator (、 /): the answer names several labels of a field that
    has one, so it is a hedge and earns no credit (issue 15: "可能是甲骨文、金文或小篆")."""
    ordered = sorted(mentions, key=lambda m: m.start)
    for a, b in zip(ordered, ordered[1:]):
        if a.labels == b.labels or b.start < a.end:
            continue
        gap = text[a.end:b.start]
        if _DISJUNCTION.fullmatch(gap) or (lists and _LIST_JOIN.fullmatch(gap)):
            return True
    return False


def _choose_single(mentions: list[Mention], text: str | None = None) -> str | None:
    live = _asserted(mentions)
    if not live:
        return None
    if text is not None and is_hedge(text, live):
        return None
    if len({m.labels for m in live}) == 1:
        return live[0].labels[0]
    cued = [m for m in live if m.cued]
    return (cued or live)[0].labels[0]


# Marks around or beside a bare answer: markdown, quotes, CJK brackets (〔〕〈〉〖〗〘〙〚〛),
# dashes (—— ─ –), reference and bullet marks (※ · • ・), ellipses.
_STRIP = re.compile(r"[\s*_`#>\"'「」『』《》【】〔〕〈〉〖〗〘〙〚〛{}()\[\]<>.。,，、:：;；!！?？~\-—–―·•※…⋯]+")


def _bare(text: str) -> str:
    return _STRIP.sub("", text)


# ------------------------------------------------------------- answer focus (echoes)
# Bench questions list the label options and answers often echo the question; these helpers
# cut an answer down to the part that answers.
# An explicit answer marker: only the text after the last one is the answer.
_ANSWER_MARKER = re.compile(r"(?:final\s+answer|answer)\s*(?:is\s*)?:|(?:the\s+)?final\s+answer\s+is\b|"
                            r"答案\s*(?:是|为)\s*:?|(?:答案|回答|答)\s*:", re.I)
# An option-list lead-in ("可选：", "选项有：", "Options:").
_OPTIONS_LEAD = re.compile(r"(?:可选(?:项|的?(?:答案|标签|类型|选项))?|选项|候选(?:项|答案|标签)?|"
                           r"\b(?:options?|choices?)\b(?:\s+(?:are|include))?)\s*(?:有|为|包括|如下)?\s*:?\s*", re.I)
_OPTION_SEP = re.compile(r"\s*(?:[、,/|]|或者?|和|与|及|还是|\bor\b|\band\b)\s*", re.I)
_OPTION_GLOSS = re.compile(r"\s*\([^()\n]{0,16}\)")
# A hedged attribution ("有人认为", "旧说", "some say") and the contrast that overrules it.
_HEDGE = re.compile(r"有人认为|有人以为|有学者认为|或说|或以为|旧说|一说|\bsome (?:say|argue|scholars?|believe)\b", re.I)
_CONTRAST = re.compile(r"(?P<keep>实为|实则|其实|实际上)|但是|但|而(?!且|后|来|成)|\bhowever\b|\bbut(?:\s+actually)?\b", re.I)


def answer_part(norm: str) -> str:
    """The text after the last explicit answer marker (答：, 答案是, Answer:), or ``norm``."""
    last = None
    for m in _ANSWER_MARKER.finditer(norm):
        last = m
    if last is not None and norm[last.end():].strip(" \n.。"):
        return norm[last.end():].strip()
    return norm


_SENTENCE_PIECE = re.compile(r"([^。;!?\n]*)([。;!?\n]|$)")
_FILLER = frozenset(" \n.。,;:")


def only_question(norm: str) -> bool:
    """True when ``norm`` is nothing but question sentences (an echoed question).

    A question sentence ends in ``?``, or in 吗 / 么 before a full stop, a line break or the
    end. Linear in ``len(norm)``: each sentence is looked at once (a regex that searched for
    a question from every position took minutes on a 100,000-character answer; issue 15).
    """
    if not norm or not norm.strip():
        return False
    for m in _SENTENCE_PIECE.finditer(norm):
        body, stop = m.group(1), m.group(2)
        if not body and not stop:
            continue
        tail = body.rstrip()
        if stop == "?" or (tail.endswith(("吗", "么")) and stop in ("。", "\n", "")):
            continue
        if not _FILLER.issuperset(body) or (stop and stop not in _FILLER):
            return False
    return True


def drop_options(norm: str, mentions_of) -> str:
    """``norm`` without option-list clauses ("可选：甲骨文、金文、篆书"): the lead-in and the
    run of labels after it (``mentions_of(text)`` lists label mentions); a lead-in followed by
    no label run drops its clause."""
    out, pos = [], 0
    starts: dict[int, Mention] | None = None  # label mentions by start, found once when a lead-in is seen
    for lead in _OPTIONS_LEAD.finditer(norm):
        if lead.start() < pos:
            continue
        if starts is None:
            starts = {m.start: m for m in mentions_of(norm)}
        p, end, n = lead.end(), lead.end(), 0
        while True:
            q = p
            while q < len(norm) and norm[q] in " \"'「『《":
                q += 1
            m = starts.get(q)
            if m is None:
                break
            n += 1
            p = end = m.end
            g = _OPTION_GLOSS.match(norm, p)
            if g:
                p = end = g.end()
            sep = _OPTION_SEP.match(norm, p)
            if not sep:
                break
            p = sep.end()
        if n == 0:
            stop = _CLAUSE_END.search(norm, lead.end())
            end = stop.start() if stop else len(norm)
        out.append(norm[pos:lead.start()])
        pos = end
    out.append(norm[pos:])
    return "".join(out)


def drop_hedged(norm: str) -> str:
    """Drop a hedged attribution overruled by a contrast: "有人认为是形声，但实为会意" ->
    "实为会意"; a hedge with no contrast after it is kept."""
    h = _HEDGE.search(norm)
    if h is None:
        return norm
    c = _CONTRAST.search(norm, h.end())
    if c is None:
        return norm
    return norm[:h.start()] + norm[c.start() if c.group("keep") else c.end():]


def focus(norm: str, mentions_of=None) -> str:
    """The answering part of a normalised answer: after the last answer marker, option lists
    and overruled hedges dropped; "" when it is only an echoed question."""
    text = answer_part(norm)
    if mentions_of is not None:
        text = drop_options(text, mentions_of)
    text = drop_hedged(text)
    return "" if only_question(text) else text


# ----------------------------------------------------------------------- extractors
@functools.lru_cache(maxsize=1 << 15)
def extract_script(text: str | None) -> str | None:
    """Script label (SCRC) asserted by ``text``, one of ``labels.SCRIPTS`` or 行书; else None.

    ``"篆"`` / ``"小篆"`` / ``"Small seal script"`` -> ``"篆书"``; ``"篆書"`` (traditional)
    -> ``"篆书"``; ``"不是金文，是甲骨文"`` -> ``"甲骨文"``. The 简体 -> 楷书 equivalence of
    ACCE.md is applied when scoring, not here.
    """
    norm = focus(normalize_text(text), lambda t: find_mentions(t, _SCRIPT_RES))
    if not norm:
        return None
    bare = _bare(norm)
    for suffix in ("", "书", "体", "文"):
        if bare and bare.endswith(suffix) and bare[: len(bare) - len(suffix)] in SCRIPT_SHORT:
            return SCRIPT_SHORT[bare[: len(bare) - len(suffix)]]
    return _choose_single(find_mentions(norm, _SCRIPT_RES), norm)


def _idc_mentions(text: str) -> list[Mention]:
    """IDC code points; an IDS sequence counts once, by its first (top-level) IDC."""
    out = []
    pos = 0
    for m in _IDC_RE.finditer(text):
        if m.start() < pos:
            continue
        end = _ids_end(text, m.start())
        pos = end if end else m.end()
        out.append(_mention(text, (m.group(),), m.start(), pos))
    return out


def _structure_mentions(norm: str) -> list[Mention]:
    return sorted(_idc_mentions(norm) + find_mentions(norm, _STRUCTURE_RES), key=lambda m: m.start)


@functools.lru_cache(maxsize=1 << 15)
def extract_structure(text: str | None) -> str | None:
    """Structure label (STRC): one IDC of ``labels.STRUCTURES`` or 独体.

    Unicode 15.1 IDCs (⿼⿽⿾⿿㇯) are parsed and given as their nearest classic IDC
    (``labels.IDC_15_1_NEAREST``: ⿼ -> ⿷, ⿽ -> ⿺, ⿾ / ⿿ -> 独体, ㇯ -> ⿴), as the builder
    labels them (ACCE.md: map them only where the label set needs it).

    ``"⿰"``, ``"左右结构"``, ``"left-right"``, ``"⿰氵工"`` (an IDS: its top-level IDC) ->
    ``"⿰"``; ``"独体字"`` -> ``"独体"``; ``"全包围"`` -> ``"⿴"``; negated mentions are
    skipped. A family name that fits several IDCs (``"半包围"``, a bare ``"包围结构"``) gives
    None unless the answer also names the IDC.
    """
    norm = focus(normalize_text(text), _structure_mentions)
    if not norm:
        return None
    mentions = _structure_mentions(norm)
    # An IDC and a name inside one parenthesised pair ("⿰（左右结构）") agree by construction.
    label = _choose_single([m for m in mentions if m.labels != (_FAMILY,)], norm)
    # The STRC label set has no Unicode 15.1 IDC: they read as their nearest classic IDC by
    # the one table the builder also uses (builder/ids.py structure_label), so an answer in
    # the source's own IDC (⿼) meets the reference the builder wrote (⿷).
    return IDC_15_1_NEAREST.get(label, label) if label else None


# The whole clause before a mention that adds it to the previous statement (又是形声字).
_JOINED = re.compile(r"(?:又|亦|也|同时也?|并且?|且|兼)(?:是|为|属于?|有|具有?)?(?:一个|一种)?")
_JOINED_MAX = 16  # characters: longer than any _JOINED match plus spaces


@functools.lru_cache(maxsize=1 << 15)
def extract_formation(text: str | None) -> tuple[frozenset[str], bool] | None:
    """Formation labels (FORC) asserted by ``text``: (set of Six-Writings labels, yisheng flag).

    The set comes from the answer's first formation statement: the clause (up to the next
    comma, colon or sentence end) of the first asserted mention, so ``"本字为象形，后来变为
    形声"`` -> {象形} and ``"象形、会意"`` -> {象形, 会意}. A 亦声 / 兼 qualifier later in the
    same sentence belongs to that statement (``"会意，工亦声"``, ``"属会意，兼形声"`` -> both).
    Within it, mentions with a cue or written as ``X字`` are preferred over bare ones (so
    ``"会意字，上部象形"`` -> {会意}). ``"形声兼会意"`` / ``"亦声"`` -> ({会意, 形声}, True).
    Returns None when no formation is asserted (only negated mentions, or none).
    """
    norm = focus(normalize_text(text), lambda t: find_mentions(t, _FORMATION_RES))
    if not norm:
        return None
    mentions = _asserted(find_mentions(norm, _FORMATION_RES))
    if not mentions:
        return None
    first = mentions[0].start
    lo = _clause_start(norm, first)
    end = _CLAUSE_END.search(norm, mentions[0].end)
    hi = end.start() if end else len(norm)
    sentence_end = _SENTENCE_END.search(norm, mentions[0].end)
    sentence_hi = sentence_end.start() if sentence_end else len(norm)

    def joined(m: Mention) -> bool:
        # "兼形声", "既是会意字，又是形声字": a second formation of the same statement. Only
        # a short prefix can be a joiner, so a long clause is never sliced whole (linear time).
        lo_m = _clause_start(norm, m.start)
        if norm[max(lo_m, m.start - _JOINED_MAX):m.start].rstrip().endswith("兼"):
            return True
        return m.start - lo_m <= _JOINED_MAX and _JOINED.fullmatch(norm[lo_m:m.start].strip()) is not None

    def qualifies(m: Mention) -> bool:
        # "工亦声" / "兼形声" qualify the stated formation rather than state a new one
        return m.start < sentence_hi and (len(m.labels) > 1 or joined(m))

    in_statement = [m for m in mentions if lo <= m.start < hi or qualifies(m)]

    def strong(m: Mention) -> bool:
        return m.cued or len(m.labels) > 1 or joined(m) or norm[m.end:m.end + 1] == "字"

    chosen = [m for m in in_statement if strong(m)] or in_statement
    if is_hedge(norm, in_statement, lists=False):  # "形声或会意": a guess between two, not a set of two
        return None
    labels = frozenset(label for m in chosen for label in m.labels)
    # 会意 joined by 形声 in one statement ("属会意，兼形声") is the 亦声 case too
    both = labels == {"会意", "形声"} and any(joined(m) for m in chosen)
    return labels, both or any(len(m.labels) > 1 for m in chosen)


@functools.lru_cache(maxsize=1 << 15)
def extract_functions(text: str | None) -> frozenset[str]:
    """Component-function labels (表意 / 表音 / 符号) stated in ``text`` (empty set if none).

    ``"表意"``, ``"义符"``, ``"semantic"`` -> {表意}; ``"声符"`` / ``"phonetic"`` -> {表音};
    ``"亦声"`` / ``"表意兼表音"`` -> {表意, 表音}; ``"不表音"`` contributes nothing.
    """
    norm = normalize_text(text)
    return frozenset(label for m in find_mentions(norm, _FUNCTION_RES) if not m.negated for label in m.labels)


def strip_attribute_labels(text: str) -> str:
    """``text`` without its component-function and evolution-type mentions (used to tell a
    bare attribute such as ``"表意构件"`` or ``"simplified"`` from an interpretation)."""
    norm = normalize_text(text)
    spans = sorted((m.start, m.end) for m in find_mentions(norm, _FUNCTION_RES) + find_mentions(norm, _EVOLUTION_RES))
    kept, pos = [], 0
    for start, end in spans:  # spans of the two tables may overlap
        if start > pos:
            kept.append(norm[pos:start])
        pos = max(pos, end)
    kept.append(norm[pos:])
    return "".join(kept)


@functools.lru_cache(maxsize=1 << 15)
def extract_evolution(text: str | None) -> str | None:
    """Component evolution type (COME): the first asserted one of 保留 / 讹变 / 简化 / 繁化 / 区别."""
    asserted = _asserted(find_mentions(normalize_text(text), _EVOLUTION_RES))
    return asserted[0].labels[0] if asserted else None


# ------------------------------------------------------------------------ characters
def _ids_end(text: str, pos: int) -> int:
    """End index of the IDS expression starting at ``pos`` (0 when it is incomplete)."""
    need = 1
    i = pos
    while need and i < len(text):
        ch = text[i]
        if ch in IDC_ARITY:
            need += IDC_ARITY[ch] - 1
        elif _IDS_OPERAND.match(ch):
            need -= 1
        else:
            return 0
        i += 1
    return i if need == 0 else 0


_EMPHASIS = re.compile(r"\*\*|__|`")
_IDS_OPERAND = re.compile(HAN + "|[\u2e80-\u2fdf\u31c0-\u31ee？?]")
_QUOTED = re.compile(rf"[「『\"'《【(〔〈〖]\s*({HAN}|[{IDC_CHARS}][^」』\"'》】)〕〉〗\s]{{2,12}})\s*[」』\"'》】)〕〉〗]")
_AFTER_CHAR = r"(?=[」』\"'》】)〕〉〗]|字(?=[,。;.!\n(（的」』\"'》)]|\s*$)|\s*[,。;.!\n(（]|\s*$)"
_EN_HEDGE = r"(?:(?:most\s+)?(?:likely|probably|possibly|perhaps)\s+)?"
_CHAR_CUE = re.compile(
    rf"(?:答案|答|结论|字头|楷书字头|现代字头|现代汉字|现代字形?|对应(?:的)?(?:现代)?(?:汉字|楷书|字头|字)?|释文|释为|释作|隶定为?|"
    rf"今字|今作|楷化为|写作|即|是|为|作)\s*(?:为|是|作|乃)?\s*[:：]?\s*[「『\"'《【(〔〈〖]?\s*({HAN}){_AFTER_CHAR}"
    rf"|(?:character|answer|glyph)\s*(?:is|:|=)\s*{_EN_HEDGE}(?:the\s+)?(?:character\s+)?[\"'「(]?\s*({HAN})"
    rf"|(?:it is|this is|it's)\s*{_EN_HEDGE}(?:the\s+character\s+)?[\"'「(]?\s*({HAN})",
    re.I,
)
_LEADING = re.compile(rf"^\s*(?:[*_`#>\-—–·•※]+\s*)?[「『\"'《【(〔〈〖]?\s*({HAN})\s*[」』\"'》】)〕〉〗]?\s*(?:字)?\s*(?:[,。;.!\n(（—–]|$)")


@functools.lru_cache(maxsize=1 << 15)
def extract_character(text: str | None) -> str | None:
    """The character (字头) an answer names for CHAR, in normalised form; None if none.

    Tried in order: the whole answer is one character (``"江"``, ``"江字"``, ``"**江**"``);
    a cue names it (``"字头：江"``, ``"该字为「江」"``, ``"是江字"``, ``"the character is 江"``);
    a quoted character (``「江」``); the answer opens with one character (``"江。从水…"``).
    Negated candidates (``"不是「河」"``) are skipped. An IDS string (``"⿰氵工"``) is
    accepted where a whole answer or a quotation gives one.
    """
    norm = focus(_EMPHASIS.sub("", normalize_text(text)))
    if not norm:
        return None
    bare = _bare(norm)
    if bare.endswith("字") and len(bare) == 2:
        bare = bare[0]
    if len(bare) == 1 and re.fullmatch(HAN, bare):
        return bare
    if bare and bare[0] in IDC_CHARS_SET and _ids_end(bare, 0) == len(bare):
        return bare

    idx = _index(norm)

    def live(start: int) -> bool:
        return not idx.negated(idx.clause_start(start), start)

    for m in _CHAR_CUE.finditer(norm):
        char = m.group(1) or m.group(2) or m.group(3)
        if live(m.start()):
            return char
    for m in _QUOTED.finditer(norm):
        cand = m.group(1)
        if len(cand) > 1 and _ids_end(cand, 0) != len(cand):
            continue
        if live(m.start()):
            return cand
    m = _LEADING.match(norm)
    if m:
        return m.group(1)
    return None
