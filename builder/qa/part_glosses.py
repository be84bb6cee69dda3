"""What the sources say a component is, or does in one character (COMI content).

A component interpretation must say what the part is or depicts and, where a source says
it, what it contributes to this character; 「X为形符，表示字义与X有关」 says neither (the
data review of issues 20/21 counted it a defect on every item). The content comes, in
this order, from:

1. the head's own Shuowen entry (許慎's text): a clause that Duan's note on it marks as
   explaining the part (段注 「此說从車之意」 on 斬 「斬法車裂也」, 「此以顰戚釋从頁之意也」 on
   瀕), or a clause outside the gloss and the formula that names the part together with
   another component (沙 「水少沙見」, 蠱 「皿蟲爲蠱」) or names it next to the formula
   (般 「象舟之旋」): :func:`host_clause`;
2. Duan's own words on the part in the head's entry: the sentence before his 「故从X」 (閹
   「此豎則奄人也。故从奄」) or his 「X者、…」 (斬 「斤者、鈇鉞之類也」): :func:`duan_part_note`;
3. the component character's own Shuowen gloss, attributed as such (頁 「頭也」, 欠
   「張口气悟也」), its sound-gloss sentences (馬 「怒也。武也」) dropped and, where no gloss
   is left, the sentence saying what the graph depicts (馬 「象馬頭髦尾四足之形」); a gloss Duan
   names a sound-gloss (田 「敶也」: 「故以㬪韵爲訓」) goes too:
   :func:`own_gloss`;

No Unihan definition either (the review of out-r5, 12-18/19, flagged them every round: 殍's
歹 「bad, vicious, depraved」 is a modern English sense, not what the part is); a JieZi-Dataset
component that is a bench character, whose Shuowen gloss the dataset may not state, gets none.
Never a makemeahanzi etymology hint: those are mnemonics (貝 "money", 幺 "one"). A part no
source speaks of gets nothing (the QA composer then asks no question that needs it).
Entries are read from :class:`builder.qa.evidence.EvidenceIndex` (``shuowen_entry``,
``heads``, ``duan_notes``, ``definitions``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from builder.qa import soundgloss
from builder.qa.component_names import same_component
from builder.qa.evidence import EvidenceIndex, parse_duan_raw
from builder.schema import GlyphRecord, Provenance

_HAN = r"[\u3400-\u4dbf\u4e00-\u9fff\U00020000-\U0003134f]"
_CLAUSE = re.compile(r"[。；：，、“”\"「」]")
_SENT = re.compile(r"(?<=[。；])")
# a formula clause: only 从X / X聲 / 象形 / 指事 / 會意 pieces (从水工聲, 从車从斤)
_FORMULA = re.compile(rf"^(?:[从從]{_HAN}+?|{_HAN}(?:亦|省)?[聲声]|{_HAN}省|象形|指事|會意|[，、\s])+$")
_NOT_EXPLANATION = ("一曰", "或曰", "或說", "讀若", "凡", "闕", "臣鉉", "徐鍇", "又曰", "亦曰")
# Duan's words marking a quoted clause as the explanation of one part (說从X之意) or of the
# whole compound (釋其會意之恉)
_DUAN_PART = re.compile(rf"[說釋]\s*[从從]\s*({_HAN})\s*之意|[說釋][从從]({_HAN})[、之]")
_DUAN_WHOLE = re.compile(r"釋其會意之恉|說會意之恉|此說會意")
_DUAN_GU = re.compile(rf"故(?:字)?(?:亦)?[从從]({_HAN})")
_DUAN_ZHE = re.compile(rf"^({_HAN})(?:者|謂)[、，]?(.{{2,30}}?也)$")
_BAD = re.compile(r"[？?<>{}\[\]]")
MAX_LEN = 40



@dataclass(frozen=True)
class PartNote:
    """One source statement about a component: ``zh`` / ``en`` the sentence (attributed),
    ``provenance`` its source span, ``kind`` which rule of the module found it (``host``,
    ``duan``, ``own``)."""

    zh: str
    en: str
    provenance: tuple[Provenance, ...]
    kind: str


def _names(name: str, text: str, host: set[str]) -> bool:
    """Whether ``text`` writes component ``name`` (as itself or a form of it), not as the host."""
    return any(ch not in host and (ch == name or same_component(ch, name)) for ch in set(text) if re.match(_HAN, ch))


def host_entries(record: GlyphRecord, index: EvidenceIndex, provs: list[Provenance] = ()) -> list[str]:
    """Shuowen entry ids of the record's own head (its character, traditional form or the
    seal form it writes), from the component provenance first, then the record's texts."""
    own = {record.character, record.traditional, record.form} - {None}
    ids = [p.entry_id for p in provs if p.source in ("shuowen", "duan")]
    ids += [k.partition(":")[2] for k in record.raw if k.startswith(("shuowen:", "duan:"))]
    return [i for i in dict.fromkeys(ids) if index.shuowen_entry(i).get("wordhead") in own]


def _clauses(explanation: str) -> list[str]:
    return [c.strip() for c in _CLAUSE.split(explanation) if c.strip()]


def _is_formula(clause: str) -> bool:
    return _FORMULA.match(clause) is not None


def host_clause(index: EvidenceIndex, entry_id: str, name: str, others: list[str], host: set[str], *,
                duan: bool) -> PartNote | None:
    """Rule 1 of the module: the clause of the head's Shuowen text that explains part
    ``name`` (Duan's marker when ``duan``; else a clause naming it with another of
    ``others``, or next to the formula). None when the text has none."""
    e = index.shuowen_entry(entry_id)
    expl = e.get("explanation") or ""
    if duan:
        for quote, note in parse_duan_raw(index.duan_notes.get(entry_id, "")):
            m = _DUAN_PART.search(note)
            marked = m is not None and same_component(m.group(1) or m.group(2), name)
            if marked or (_DUAN_WHOLE.search(note) and _names(name, quote, host)):
                text = "，".join(c for c in _clauses(quote) if not _is_formula(c) and not _BAD.search(c))
                if text and len(text) <= MAX_LEN:
                    mark = (m.group(0) if marked else _DUAN_WHOLE.search(note).group(0))
                    return PartNote(f"《说文》释「{_head(index, entry_id, host)}」：「{text}」（段注：{mark}）", f"Shuowen: {text} (Duan: {mark})",
                                    (Provenance(source="duan", entry_id=entry_id, span=f"{quote}｜{mark}",
                                                rule="qa.comi.host_clause"),), "host")
    clauses = _clauses(expl)
    sents = [x for x in _SENT.split(expl) if x.strip()]
    gloss = set(_clauses(sents[0])) if sents else set()
    formula_at = [i for i, c in enumerate(clauses) if _is_formula(c) and not c.startswith("象")]
    for i, c in enumerate(clauses):
        if c in gloss or not _explains(c, name, host):
            continue
        with_other = any(_names(o, c, host) for o in others if not same_component(o, name))
        if with_other or any(abs(i - j) == 1 for j in formula_at):
            return PartNote(f"《说文》释「{_head(index, entry_id, host)}」：「{c}」", f"Shuowen: {c}",
                            (Provenance(source="shuowen", entry_id=entry_id, span=c, rule="qa.comi.host_clause"),),
                            "host")
    return _gloss_naming(index, entry_id, name, host, sents[0] if sents else "", duan=duan)


def _explains(clause: str, name: str, host: set[str]) -> bool:
    """A clause that may explain part ``name``: it names it, and it is no formula, no
    other-sense (一曰), reading (讀若) or radical (凡…之屬) clause, no phonetic statement, no
    depiction of another element (:func:`_other_subject`)."""
    return (not _is_formula(clause) and not clause.startswith(_NOT_EXPLANATION) and not _BAD.search(clause)
            and not _other_subject(clause, name)
            and len(re.sub(r"[\W也]", "", clause)) > 1 and len(clause) <= MAX_LEN and "聲" not in clause and "之屬" not in clause
            and _names(name, clause, host))


def _gloss_naming(index: EvidenceIndex, entry_id: str, name: str, host: set[str], first: str, *,
                  duan: bool) -> PartNote | None:
    """The head's gloss sentence when it names the part (崇 「山大而高也」 in Duan's edition,
    魝 「楚人謂治魚也」): what the character means, in words that show what the part is for.
    Duan's edition first where he may be quoted (he emends 崇 「嵬高也」 to 「山大而高也」)."""
    bare = lambda t: re.sub(r"[\W也]", "", t)  # noqa: E731
    if duan:
        pairs = parse_duan_raw(index.duan_notes.get(entry_id, ""))
        quote = pairs[0][0] if pairs else ""
        text = _naming_part(quote, name, host)
        if text and bare(quote) != bare(first):
            return PartNote(f"段注本《说文》释「{_head(index, entry_id, host)}」：「{text}」", f"Shuowen (Duan's edition): {text}",
                            (Provenance(source="duan", entry_id=entry_id, span=quote, rule="qa.comi.host_gloss"),), "host")
    text = _naming_part(first, name, host)
    if text:
        return PartNote(f"《说文》释「{_head(index, entry_id, host)}」：「{text}」", f"Shuowen: {text}",
                        (Provenance(source="shuowen", entry_id=entry_id, span=text, rule="qa.comi.host_gloss"),), "host")
    return None


def _naming_part(sentence: str, name: str, host: set[str]) -> str | None:
    """The clauses of a gloss sentence up to the first one naming the part, when that
    says more than the part's name (江 「水」, 楊 「木也」 only class the word: no content)."""
    out = []
    for c in _clauses(sentence):
        if _is_formula(c) or c.startswith(("象", *_NOT_EXPLANATION)):
            break
        out.append(c)
        if _explains(c, name, host):
            text = "，".join(out)
            return text if len(re.sub(r"[\W也]", "", text)) > 1 else None
    return None


def relation_clause(index: EvidenceIndex, entry_id: str, name: str, parts: list[str], host: set[str]
                    ) -> PartNote | None:
    """The head's Shuowen formula when it says how the parts are put together, not only
    which they are (縣 「从系持𥄉」, 「从人在土上」): a 从 clause naming ``name`` with a word that
    is none of the ``parts`` (持, 在, 上). None for a bare list (从車从斤, 从水工聲)."""
    expl = index.shuowen_entry(entry_id).get("explanation") or ""
    for c in _clauses(expl):
        if not c.startswith(("从", "從")) or not _names(name, c, host) or "聲" in c or _BAD.search(c):
            continue
        rest = [ch for ch in c if ch not in "从從省亦二三四" and ch not in host
                and not any(same_component(ch, p) for p in parts)]
        if rest and len(c) <= 12:
            return PartNote(f"《说文》释「{_head(index, entry_id, host)}」：「{c}」", f"Shuowen: {c}",
                            (Provenance(source="shuowen", entry_id=entry_id, span=c, rule="qa.comi.relation"),), "host")
    return None


def duan_part_note(index: EvidenceIndex, entry_id: str, name: str, host: set[str]) -> PartNote | None:
    """Rule 2: Duan's own sentence on part ``name`` in the head's entry: what he says before
    「故从X」 (閹 「此豎則奄人也。故从奄」), or a sentence 「X者、…也」 (斬 「斤者、鈇鉞之類也」)."""
    for _quote, note in parse_duan_raw(index.duan_notes.get(entry_id, "")):
        sents = [s.strip() for s in note.split("。") if s.strip()]
        for k, s in enumerate(sents):
            if any(x[-1] in "曰云" for x in sents[:k]):
                break  # 貨 「廣韵引蔡氏化淸經曰。貨者、化也。變化反易之物、故字从化」: another book's words
            m = _DUAN_GU.search(s)
            if m and same_component(m.group(1), name):
                before = s[:m.start()].rstrip("、，")
                why = before if len(before) >= 4 else (sents[k - 1] if k > 0 else "")
                if why and len(why) <= MAX_LEN and not _BAD.search(why) and why[-1] not in "曰云":
                    # a quotation is one stretch of his note: the sentence before and this one
                    # whole (則 「今俗云科則是也。介畫之、故從刀」), never the two spliced
                    # (「今俗云科則是也，故從刀」 dropped 介畫之: data review 12-04, round 4)
                    text = f"{why}。{s}" if why != before else f"{s}"
                    return PartNote(f"段注：「{text}」", f"Duan: {text}",
                                    (Provenance(source="duan", entry_id=entry_id, span=text, rule="qa.comi.duan_part"),),
                                    "duan")
            z = _DUAN_ZHE.match(s)
            if z and same_component(z.group(1), name) and z.group(1) not in host and not _BAD.search(s):
                return PartNote(f"段注：「{s}」", f"Duan: {s}",
                                (Provenance(source="duan", entry_id=entry_id, span=s, rule="qa.comi.duan_part"),),
                                "duan")
    return None


def _head_of(index: EvidenceIndex, name: str) -> str | None:
    """The Shuowen head a component name is: itself, else its radical alias (氵 -> 水)
    or its traditional form (门 -> 門) when that is a head."""
    from builder import aliases
    from builder.qa.component_names import canonical_component

    for cand in (name, aliases.canonical(name), canonical_component(name)):
        if cand and index.heads.get(cand):
            return cand
    return None


_FORMS_TALK = re.compile(r"古文|籒文|籀文|篆文|奇字|如此|之屬|[東西南北中]方之行|^.者|[說説]$"
                         r"|[陰陽][气氣]|[一二三四五六七八九十]+月|曰|“|[()（）]"
                         r"|《|數始|之[數𢿙]|[陰陽][數𢿙]|天.{0,2}地|萬物|五行|方色|[陰陽]用事")
# 子 「十一月，陽气動」 is the calendar sign, not a child; a quoted scholar (李陽冰曰), a quoted
# book (弓 「《周禮》六弓…」) or an editor's bracket is no gloss; nor is numerology or
# cosmology (士 「數始於一，終於十」, 二 「地之數也」, 人 「天地之性最貴者也」, 大 「天大，地大，
# 人亦大」, 山 「生萬物，有石而高」, 白 「西方色也」: review of out-r10, seed 20261228 item 36; seed
# 20261226 item 94; out-r12, seed 20261231 item 50)
# The ten stems and twelve branches: Shuowen glosses each by its place in the calendar and the
# 陰陽 cycle (辰 「房星，天時也」, 己 「中宮也」, 戌 「滅也」), never by what the graph is
STEMS_BRANCHES = frozenset("甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥")
_DEPICTS = re.compile(r"象")


def own_gloss(index: EvidenceIndex, name: str, host: set[str]) -> PartNote | None:
    """Rule 3: the component character's own Shuowen gloss, attributed (頁 「頭也」, 欠
    「張口气悟也」). Sound-gloss sentences go (:mod:`builder.qa.soundgloss`), and so do the
    sentences explaining the pun (山 「宣也。宣气散，生萬物…」), the 五行, numerology and
    cosmology ones (木 「東方之行」, 士 「數始於一，終於十」: :data:`_FORMS_TALK`), those about
    other written forms (古文…如此), quotations (弓 「《周禮》六弓…」) and, after the analysis,
    every sentence that does not restate the head (:func:`_after_analysis`); a stem or branch
    (:data:`STEMS_BRANCHES`) has none. The gloss comes first; where it is one character and
    Shuowen also says what the graph depicts, the depiction comes first (馬 「象馬頭髦尾四足之形」: Shuowen's one-character
    glosses of such heads, 「怒也。武也」, are sound-glosses the readings do not always show,
    while 頁 「頭也」 has no depiction and stays). A sentence that is only a formula (門
    「从二戶」, …聲, 象形) says no meaning and is skipped (data review 12-04, round 4), and
    so is a depiction whose subject is another element (禾 「𠂹象其穗」 describes the 𠂹
    part: :func:`_other_subject`). None when the component is no head, the text names the
    host (系 「縣也」 in 縣: circular), or nothing is left (門 「聞也」 is a sound-gloss).
    A depiction is quoted whole (木 「从屮，下象其根」: cut to 「下象其根」 it no longer says
    what 木 is, review of out-r6, 12-20), and a gloss that only names another graph (爪
    「丮也」: :func:`_cross_reference`) is no gloss (review of out-r5, 12-18)."""
    head = _head_of(index, name)
    if head is None or head in STEMS_BRANCHES:
        return None
    entry_id = index.heads[head][0]
    expl = index.shuowen_entry(entry_id).get("explanation") or ""
    notes = parse_duan_raw((index.duan_notes or {}).get(entry_id, ""))
    first_sent = expl.split("。")[0]
    # Duan's first note is on the first sentence even where he emends its word (田 陳 -> 敶)
    sents = [x for x in _gloss_sentences(expl, head, index.readings)
             if not any((x in q or (k == 0 and x == first_sent)) and soundgloss.duan_marks_sound_gloss(n, x, head)
                        for k, (q, n) in enumerate(notes))]
    depict = [x for x in sents if _DEPICTS.search(x) and not _other_subject(x, head)]
    after = _after_analysis(expl)
    glosses = [x for x in sents if not _DEPICTS.search(x) and not _is_formula(x)
               and not x.startswith(("从", "從")) and not _cross_reference(index, x, head)
               and not (x in after and not x.startswith(head)) and not _other_subject(x, head)]
    first = glosses[:1]
    if first and len(re.sub(r"[\W也]", "", first[0])) == 1:
        order = depict + first  # 馬 「怒也」: the depiction says more (彳 「小步也」 does not yield)
    else:
        order = first + depict
    for gloss in order:
        gloss = gloss.removeprefix(f"{head}，")  # 示 「示，神事也」: the repeated head is no gloss
        if len(gloss) <= MAX_LEN and not any(h in gloss for h in host):
            return PartNote(f"{head}，《说文》：「{gloss}」", f"{head}, Shuowen: {gloss}",
                            (Provenance(source="shuowen", entry_id=entry_id, span=gloss, rule="qa.comi.own_gloss"),),
                            "own")
    return None


def _after_analysis(expl: str) -> set[str]:
    """The sentences of a head's text from its first analysis sentence on (a 「从…」, a formula,
    「象形」 / 「指事」). One of them says what the head is only where it restates the head
    (示 「…觀乎天文，以察時變。示，神事也」 keeps 「示，神事也」, not the 《易》 words: review of
    out-r8, seed 20261224 items 24, 40); the others explain the analysis (走 「从夭、止。夭止者，
    屈也」: 屈 is what 夭 does, not what 走 means; review of out-r10, seed 20261228)."""
    sents = [s.strip() for s in re.split(r"[。；]", expl) if s.strip()]
    start = next((k for k, x in enumerate(sents) if _is_formula(x) or x.startswith(("从", "從"))), len(sents))
    return set(sents[start:])


def _cross_reference(index: EvidenceIndex, gloss: str, head: str) -> bool:
    """Whether a one-character gloss only names another graph (爪 「丮也」, 凍 「仌也」): the
    gloss character is a Shuowen head whose own text depicts a shape (象) and has no phonetic
    (聲), and neither it nor its simplified form is in the 通用规范汉字表 (Unihan kTGH): a
    graph-name, not a word a reader knows (頁 「頭也」, 之 「出也」 stay). Review of out-r5
    (12-18)."""
    core = re.sub(r"[\W也]", "", gloss)
    modern = index.modern
    if len(core) != 1 or core == head or not index.heads.get(core) or modern is None or not modern.standard:
        return False
    simp = modern.simplified(core)
    if modern.is_standard(core) or (simp is not None and modern.is_standard(simp[0])):
        return False
    text = index.shuowen_entry(index.heads[core][0]).get("explanation") or ""
    return bool(_DEPICTS.search(text)) and not re.search(r"[聲声]", text)


# words that may stand before 象 without being another element (木 「下象其根」, 「其象…」)
_SUBJECT_OK = frozenset("上下中左右旁外内內其皆又亦并並兼故而各所以之此")


def _other_subject(text: str, name: str) -> bool:
    """Whether a depiction clause 「X象…」 is about another element X than ``name``
    (禾's text 「𠂹象其穗」 describes its 𠂹 part, not 禾; 木 「下象其根」, 般 「象舟之旋」 and
    雲 「云象雲回轉形」 for 云 are about the part itself). Rule of the data review 12-04,
    round 4: Shuowen names the element a 象 clause depicts before the 象."""
    clauses = _clauses(text)
    first = clauses[0] if clauses else ""
    if len(clauses) > 1 and len(first) == 1 and first not in _SUBJECT_OK \
            and not (first == name or same_component(first, name)):
        return True  # 石 「囗，象形」, 田 「十，阡陌之制也」: a sentence on the part it names first
    for clause in clauses:
        m = re.match(rf"^({_HAN}+?)象", clause)
        if m is None:
            continue
        subject = [ch for ch in m.group(1) if ch not in _SUBJECT_OK]
        if subject and not any(ch == name or same_component(ch, name) for ch in subject):
            return True
    return False


def _gloss_sentences(expl: str, head: str, readings) -> list[str]:
    """The sentences of a head's own text that may say what it is: no 凡…之屬 / 讀若 / 一曰
    sentence, no sound-gloss, no sentence about other forms; a sentence explaining a dropped
    sound-gloss keeps only its clauses without the pun word."""
    # a sentence quoting a book or a scholar goes whole (弓 「《周禮》六弓：…；夾弓、庾弓…」 is
    # one quotation cut by ；), and so does a scrap without a character (乏's closing 「”」)
    whole = [s for s in expl.split("。") if re.search(_HAN, s) and not re.search(r"[《“]|曰：", s)]
    sents = [s.rstrip("。；").strip() for s in re.split(r"[。；]", "。".join(whole)) if s.strip()]
    out, pun = [], None
    for k, s in enumerate(sents):
        if s.startswith(_NOT_EXPLANATION) or _BAD.search(s) or _FORMS_TALK.search(s) or s == "象形":
            continue
        if readings is not None and (soundgloss.sentence_is_sound_gloss(s, head, readings)
                                     or soundgloss._pun_explained(sents[k:], head, readings)):
            pun = re.sub(r"[也，、\s]", "", s)
            continue
        if pun and s.startswith(pun):
            rest = "，".join(c for c in _clauses(s) if pun not in c)
            if len(rest) >= 4:
                out.append(rest)
            continue
        out.append(s)
    return out


def load_definitions(sources_dir, skips) -> dict[str, str]:
    """Unihan ``kDefinition`` per character (``Unihan_Readings.txt`` of the source cache,
    ``sources_dir`` else the default cache); ``{}``, logged in ``skips`` (kind
    ``no-unihan-definitions``), when it cannot be read."""
    from builder.sources import registry

    out: dict[str, str] = {}
    try:
        path = registry.resolve_sources_dir(sources_dir) / "unihan" / "Unihan_Readings.txt"
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if "\tkDefinition\t" in line:
                    cp, _, value = line.rstrip("\n").split("\t", 2)
                    out[chr(int(cp[2:], 16))] = value.strip()
    except (OSError, ValueError, registry.SourceError) as exc:
        skips.add("unihan", str(sources_dir or "default cache"), f"Unihan definitions not loaded: {exc}",
                  kind="no-unihan-definitions")
    return out


def _head(index: EvidenceIndex, entry_id: str, host: set[str]) -> str:
    """The head a host entry explains (its 字頭, else a host form): a quotation of the host's
    gloss under a part says whose gloss it is (鑄 「銷金也」 under 金 is no gloss of 金)."""
    return index.shuowen_entry(entry_id).get("wordhead") or min(host)
