"""ORIM: the original meaning a profile may state, and the gloss sentence proper.

The bench's reference is Shuowen's gloss confirmed by a second witness: another source
agreeing, or Duan's edition quoting the same words without correcting them
(:func:`duan_reading`). A Duan note that emends, deletes or reinterprets the gloss is no
confirmation (匊 「在手曰匊」: 「恐傳寫之誤」, 兩手曰匊; 礱 「䃺也」: 「其引伸之義」; 顱 「𩑒顱，
首骨也」: 「各本作…今…正」); where he gives his own reading (his edited text: 顱 「𩑒顱也」, 崇
「山大而高也」; his 「X當作Y」: 縣 「繫也」 -> 「系也」), that reading is the reference, attributed
to his edition.

The reference is the gloss sentence proper (:func:`gloss_proper`): not a usage clause or a
quotation after it (鐃 「小鉦也。軍法：卒長執鐃」 -> 小鉦也), not a 象…形 description of the
graph (曲 「象器曲受物之形」 is no meaning), not a clause Duan says explains a part (瀕
「頻蹙不前而止」: 「此以顰戚釋从頁之意也」), not a sound-gloss (:mod:`builder.qa.soundgloss`).
A class gloss keeps what it says (楊 「木也」 is a tree name: 「木名」, never the bare 「木」).
"""

from __future__ import annotations

import difflib
import re

from builder.qa import soundgloss
from builder.qa.component_names import same_component
from builder.qa.evidence import EvidenceIndex, parse_duan_raw, parse_shuowen_raw
from builder.qa.facts import Facts, _audit_provs
from builder.records.meaning import DIALECT_NOTE
from builder.schema import GlyphRecord, Provenance

_LATIN = re.compile(r"[A-Za-z]")

# How 段玉裁's note on a quoted gloss corrects it (no confirmation then). Only what the note
# says of the gloss itself counts: his notes go on to other texts (簋 「衞包作恭。非也」 is
# about the 尚書, 炎 「皆引申之義也」 about later senses), so
# - an edit of his edition, stated at the head of the note (顱 「各本作𩑒顱首骨也五字。今…正」,
#   崇 「各本作巍高也三字。今正」, 閹 「門字今依御覽補」), not one of the 篆 or the formula
#   (裘 「各本作从衣求聲」);
# - a sentence that quotes the gloss back (此云…) and calls it an error or an extended sense
#   (匊 「此云在手。恐傳寫之誤」, 礱 「此云䃺也者、其引伸之義」);
# - a character of the gloss's first clause to be written otherwise, at the head of the note
#   (縣 「繫當作系」, 組 「屬當作織」): his reading is the gloss so corrected.
DUAN_EDITS = re.compile(r"各本|今正|今依.{0,12}[正補刪訂]|今補|今刪|今訂|淺人|妄[改增刪]|衍文")
DUAN_QUOTED_BACK = re.compile(r"此云(.{1,8}?)(?:者)?[。、，].{0,12}(?:誤|譌|訛|引[伸申]之義|非)")
# a whole clause 「X當作Y」, X and Y up to four characters: 勿 「州里當作大夫士」 replaces 州里
# by 大夫士 (matching single characters made 「州大所建旗」, data review 12-04 round 5)
# 髟 「猋猋當依玉篇作髟髟」 names the book he follows (review of out-r8, seed 20261225 item 6)
DUAN_CHAR_EMENDS = re.compile(r"(?:^|(?<=[。，、；]))(\w{1,4}?)(?:當作|當爲|當依\w{1,8}?作)(\w{1,4})(?=[。，、；]|$)")
# a doubt he states without settling it: 近 「疑附近當作坿也」, 㡹 「疑許本無㡹」 (seed 20261225
# items 9, 118): no confirmation, and no reading of his to put in its place
DUAN_DOUBTS = re.compile(r"疑(\w{1,4}?)當[作爲]|疑許本無")
_FORM_EDIT = re.compile(r"篆各本|各本.{0,3}(?:篆|[从從]|.{0,6}聲)")


def _head_sentences(note: str, n: int = 2) -> str:
    return "。".join(note.split("。")[:n])


SOUND_GLOSS_REASON = "sound-gloss:original_meaning"
# a one-character gloss that is also a modern simplified form of another character (㭕 「极也」)
SIMPLIFIED_WORD_REASON = "simplified-word-gloss:original_meaning"
DUAN_EMENDS_REASON = "duan-emends:original_meaning"
NOT_A_MEANING_REASON = "depiction-only:original_meaning"
COSMOLOGY_REASON = "cosmological-gloss:original_meaning"
DUAN_EXTENDED_REASON = "duan-extended-sense:original_meaning"
# Shuowen explains the ten stems, the twelve branches and the numerals by Han yin-yang and
# five-phases cosmology (丁 「夏時萬物皆丁實」, 二 「地之數也」, 亥 「荄也。十月，微陽起」): an
# account of the calendar sign, not the graph's original meaning (Qiu Xigui, 文字学概要 §9), so
# no ORIM question is asked of them (data review 12-04).
COSMOLOGICAL_HEADS = frozenset("甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥一二三四五六七八九十")
# Duan calls the gloss the extended use (初 「始也」: 「引伸爲凡始之偁」): the gloss is not the
# original meaning, which his note places in the specific sense (裁衣之始)
DUAN_EXTENDED = r"引[伸申](?:之)?爲凡{}|{}[者]?[，、]?引[伸申]之義"
NOT_A_GLOSS_REASON = "not-a-meaning-gloss:original_meaning"
# Glosses that name no meaning of the graph (data review 12-04): Xu's cosmology (大 「天大，地
# 大，人亦大」, 陰陽 accounts), a dialect note (稬 「沛國謂稻曰稬」), and a gloss that is only a
# word holding the head itself (詘 「詰詘也」, 絇 「纑繩絇也」)
_COSMOLOGY = re.compile(r"天.{0,2}地|[陰陽][气氣]|陰陽|五行|[太大][陰陽]之精|[東西南北中]方之行")
_DIALECT = re.compile(DIALECT_NOTE.pattern + r"|謂.{1,4}[曰爲]|謂之")
# Duan's notes that a gloss is a sound-gloss (馬 「怒也。武也」: 以曡韵爲訓) or a Han colloquial
# name (鋸 「槍唐也」: 槍唐葢漢人語), not a statement of the meaning
_DUAN_HAN_WORD = r"{}.{{0,3}}漢(?:人|時)語"


def _bare(text: str) -> str:
    return re.sub(r"[\W也]", "", text or "")


def duan_reading(record: GlyphRecord, gloss: str, index: EvidenceIndex
                 ) -> tuple[str, Provenance, str | None] | None:
    """What Duan's edition says of the gloss: ``("confirms", provenance, None)`` when he
    quotes its first clause and his note does not correct it; ``("emends", provenance,
    corrected)`` when it does (the rules of :data:`DUAN_EDITS`), ``corrected`` being his
    reading where he gives one (his edited quotation; the gloss with his 「X當作Y」 applied),
    else None; None when his notes on the entry do not quote the gloss. Reads Duan's notes
    of the record's entries (``index.duan_notes``: quotation and note)."""
    head = re.split(r"[。，；.]", gloss.strip())[0].rstrip("也")
    if not head:
        return None
    for key in record.raw:
        src, _, entry_id = key.partition(":")
        if src not in ("shuowen", "duan"):
            continue
        pairs = _duan_pairs(index, entry_id)  # only the quotations are known where no note was loaded
        hit = next(((q, n) for q, n in pairs if head in q), None)
        if hit is None and pairs and DUAN_EDITS.search(_head_sentences(pairs[0][1])):
            hit = pairs[0]  # 崇: he replaced 「嵬高也」 by 「山大而高也」 in the first quotation
        if hit is None:
            continue
        quote, note = hit
        prov = Provenance(source="duan", entry_id=entry_id, span=quote, rule="qa.orim.duan_confirms")
        verdict = _duan_verdict(quote, note, head, gloss)
        if verdict is None and _reads_otherwise(quote, gloss, record.character):
            verdict = quote.split("。")[0].removesuffix("也")  # 嘵: Xu 「懼也」, Duan's text 「懼聲也」 (seed 20261231 item 34)
        if verdict is None:
            return "confirms", prov, None
        return "emends", prov.model_copy(update={"rule": "qa.orim.duan_edition"}), verdict or None
    return None


def _reads_otherwise(quote: str, gloss: str, head: str) -> bool:
    """Whether Duan's text of the gloss adds words Xu's lacks (嘵 「懼聲也」 against 「懼也」): his
    edition then reads otherwise, whatever his note says, and quoting it is no confirmation of
    Xu's words. Aligned character by character against the whole gloss (he often quotes two of
    Xu's sentences as one), so that neither a variant character (瀕 賔 / 賓) nor a sentence he
    leaves for a later quotation counts; nor does a repeated head (複舉字: 柞 「柞木也」 against
    「木也」) or a quotation with the data's editorial marks (「冢{冡}而前」)."""
    if re.search(r"[{}<>\[\]]", quote) or quote.startswith(("从", "從")):
        return False  # the marks, or the analysis 「從木。昜聲」 (楊, whose gloss Duan replaced)
    mine, his = _bare(gloss), _bare(quote.split("。")[0])
    if not mine or not his:
        return False
    ops = difflib.SequenceMatcher(None, mine, his, autojunk=False).get_opcodes()
    added = "".join(his[j1:j2] for op, i1, i2, j1, j2 in ops
                    if op == "insert" or (op == "replace" and j2 - j1 > i2 - i1))
    return bool(added) and added != head


_APPLIED = re.compile(r"今補|今正|今依.{0,12}[正補刪訂]|今刪|今訂")
_EDITED = re.compile(r"各本(?:譌|誤)?作(\w+?)(?:[。，、]|今|$)|(\w)各本(?:譌|誤)作")


def _edit_touches(start: str, quote: str) -> bool:
    """Whether the edit a note states concerns the quotation's first sentence: the text it
    says the other copies have (崇 「各本作巍高也三字」) shares a character with it; an edit of
    a later clause (涂 「繩各本譌作澠」, 縱 「各本作舍也」 on 「一曰捨也」) does not. An edit
    that names no text (閹 「門字今依御覽補」) counts."""
    m = _EDITED.search(start)
    if m is None:
        return True
    edited = re.sub(r"[一二三四五六七八九十]字$|字$", "", m.group(1) or m.group(2) or "")
    first = re.split(r"。", quote)[0]
    return bool(set(_bare(edited)) & set(_bare(first)))


def _duan_verdict(quote: str, note: str, head: str, gloss: str) -> str | None:
    """None when Duan's note leaves the gloss as it is; else his corrected reading, or ""
    when he corrects it without giving one (:data:`DUAN_EDITS`)."""
    start = _head_sentences(note)
    corrected = re.split(r"[。]", quote)[0].strip()
    fixes = [(m.group(1), m.group(2)) for m in DUAN_CHAR_EMENDS.finditer(_head_sentences(note, 4))
             if m.group(1) in head]
    for old, new in fixes:
        corrected = corrected.replace(old, new, 1)
    # the edited words may be the gloss's (卻 「各本作節欲也。誤」, his text 「卪卻也」 shares none)
    edits = DUAN_EDITS.search(start) and not _FORM_EDIT.search(start) and (
        _edit_touches(start, quote) or _edit_touches(start, gloss))
    same = _bare(corrected) == _bare(gloss.split("。")[0])
    if _bare(corrected) and not same and (fixes or edits):
        return corrected
    if edits and not (same and _APPLIED.search(_head_sentences(note, 4))):
        return ""  # 單 「淺人刪言字」, 棗 「羊葢衍文」: a fault he reports and his text keeps
    for m in DUAN_DOUBTS.finditer(_head_sentences(note, 6)):
        if m.group(1) is None or set(_bare(m.group(1))) & set(_bare(head)):
            return ""
    # an edit his text applies and that leaves the gloss as it was (來 「也字今補」) confirms it
    for m in DUAN_QUOTED_BACK.finditer(note):
        if _bare(m.group(1)) and _bare(m.group(1)) in _bare(quote):
            return ""
    return None


def gloss_proper(value: str, record: GlyphRecord, index: EvidenceIndex, *, duan: bool) -> str:
    """The gloss sentence proper of a Shuowen gloss ``value`` ("" when none is left): no
    sentence that quotes (《…》, ：) or gives another sense (一曰, 或說), no 象…形
    description of the graph, no clause Duan marks as explaining a part (``duan``: he may
    be used for this profile's reading of the entry)."""
    out = []
    for k, sent in enumerate(s.strip() for s in value.split("。") if s.strip()):
        if k > 0 and (sent.startswith(("一曰", "或說", "或曰", "讀若")) or re.search(r"象|形|^\w，", sent)):
            break  # another sense, or a sentence on the graph or one part (爲 「爪，母猴象也」)
        clauses = []
        for clause in sent.split("，"):
            if re.search(r"《|：|“", clause):
                break  # a quotation or a usage (鐃 「軍法：卒長執鐃」) ends the gloss
            if clause.startswith("象") or re.search(r"象.{0,12}之?形", clause):
                continue  # what the graph draws (曲 「象器曲受物之形」) is no meaning
            if clause and not (duan and k > 0 and _explains_part(clause, record, index)):
                clauses.append(clause)
        else:
            if clauses:
                out.append("，".join(clauses))
            continue
        if clauses:
            out.append("，".join(clauses))
        break
    return "。".join(out)


def _explains_part(clause: str, record: GlyphRecord, index: EvidenceIndex) -> bool:
    """Whether Duan's note marks ``clause`` as explaining a component (瀕 「頻蹙不前而止」:
    「此以顰戚釋从頁之意也」), so it is no part of the meaning."""
    for key in record.raw:
        src, _, entry_id = key.partition(":")
        if src not in ("shuowen", "duan"):
            continue
        for quote, note in parse_duan_raw(index.duan_notes.get(entry_id, "")):
            if re.search(r"釋[从從].之意|說[从從].之意", note):
                words = set(re.sub(r"\W", "", quote))
                core = set(re.sub(r"\W", "", clause))
                if len(core & words) >= 2 and 2 * len(core & words) >= len(core):
                    return True
    return False


# Shuowen's class words: 「X也」 with one of these, X being the head's semantic part, names a
# kind of that thing (楊 「木也」, 鯀 「魚也」, 江 「水」); 耆 「老也」 or 飯 「食也」 are glosses
CLASS_WORDS = soundgloss.CLASS_WORDS


def class_gloss(value: str, record: GlyphRecord, index: EvidenceIndex | None = None) -> str:
    """楊 「木也」, 鯀 「魚也」: a one-character gloss naming a component of the head says the
    word is a kind of that thing, so the reference is 「木名」 with Shuowen's words, never the
    bare 「木」 (data review 09-97). An early form's record states no components: those of the
    character's other records in ``index`` count (柞's 金文 image: 「木」 alone read as
    'tree'; review of out-r10, seed 20261228 item 55)."""
    core = _bare(value)
    if len(core) != 1 or core not in CLASS_WORDS:
        return value
    comps = list(record.components)
    if not comps and index is not None:
        comps = [c for r in index.records(record.character) for c in r.components]
    if any(same_component(core, c.name) for c in comps):
        return f"{core}名（《说文》：「{core}也」）"
    return value


BARE_NAME_REASON = "bare-name:original_meaning"
# the class a head's meaning part puts it in, and the word Duan uses for a name of that class
_NAME_CLASSES = {"艸": "艸", "木": "木", "竹": "竹", "禾": "禾", "鳥": "鳥", "隹": "鳥", "魚": "魚",
                 "虫": "蟲", "蟲": "蟲", "䖵": "蟲", "黽": "蟲", "犬": "獸", "豸": "獸", "鹿": "獸", "馬": "獸"}
_CLASS_NAME = re.compile(r"(艸|草|木|竹|禾|鳥|魚|蟲|虫|獸)名")


def bare_name(text: str, record: GlyphRecord, index: EvidenceIndex) -> tuple[str, list[Provenance]] | None:
    """A gloss that is only another name of a plant or animal (蘜 「治牆也」, a 2-3 character
    name with no class word), where Duan says he cannot tell what it is (「未詳何物」) or calls
    it a name of its class: read bare it is a phrase ('repairing walls'), so the reference is
    「艸名（治牆）」 where his note names the class (「菭蘠、艸名」, not where he doubts it: 鯛
    「篇、韵皆曰魚名、何也」), with his sentence as provenance, and ``("", [])`` (no question)
    where it does not. None: not such a gloss (data review 12-04, round 4)."""
    core = _bare(text)
    if "。" in text or not 2 <= len(core) <= 3 or set(core) & (set(_NAME_CLASSES) | set("艸草獸屬類名者之皃")):
        return None
    if not any(k in _NAME_CLASSES and "表意" in x.functions for x in record.components for k in (x.name,)):
        return None
    for key in record.raw:
        src, _, entry_id = key.partition(":")
        if src not in ("shuowen", "duan"):
            continue
        note = next((n for q, n in _duan_pairs(index, entry_id) if core[:2] in _bare(q)), None)
        if note is None:
            continue
        said = [(m.group(1), x) for x in note.split("。") if not re.search(r"何也|非|誤", x)
                for m in [_CLASS_NAME.search(x)] if m]
        if said:
            word, sentence = said[0]
            prov = Provenance(source="duan", entry_id=entry_id, span=sentence, rule="qa.orim.duan_class_name")
            return f"{word.replace('草', '艸').replace('虫', '蟲')}名（{text}）", [prov]
        if "未詳" in note:
            return "", []
    return None


def orim_facts(c, f: Facts) -> None:
    """ORIM for the :class:`builder.qa.compose._FactsCtx` ``c``: a Chinese gloss; the bench
    needs the Shuowen gloss confirmed by a second witness (another source's agreement, or
    Duan quoting it uncorrected: :func:`duan_reading`); Duan's corrected text replaces a
    gloss he emends. The text is then cut to the gloss proper and stripped of sound-glosses."""
    record, strict = c.record, c.strict
    om = record.original_meaning
    if om is not None and _self_gloss(om.value, record):
        f.missing["ORIM"] = "self-gloss:original_meaning"  # Shuowen 巳: "巳也" says nothing
        om = None
    if om is not None and _audit_provs(om.provenance):
        f.orim = (om.value, om.value, _audit_provs(om.provenance), "audit")
    elif om is not None and strict:
        _bench_orim(c, f, om)
    elif om is not None:
        srcs = {p.source for p in om.provenance}
        if not _LATIN.search(om.value) and srcs & (c.allowed | c.gap):
            provs = [p for p in om.provenance if p.source in c.allowed | c.gap]
            value = _xu_words(om.value, provs) if "duan" not in c.allowed else om.value
            f.orim = (value, f"Shuowen gloss: {value}" if "shuowen" in srcs else value,
                      provs, "shuowen" if "shuowen" in srcs else "gloss")
    _proper(c, f)
    _not_original(c, f)
    _orim_sound_gloss(c, f)
    _orim_simplified_word(c, f)
    # No Chinese gloss, no ORIM question: a modern (English) dictionary definition is not
    # the original meaning, and an answer saying "no source has it" would teach a model to
    # decline. The record's English definition still appears in the record and the Space.
    if f.orim is None:
        f.missing.setdefault("ORIM", "no-original-meaning")


def _xu_words(value: str, provs) -> str:
    """The gloss in Xu's own words where the record took out a head Duan calls a 複舉字 (悔
    「悔恨也」 -> 「恨」): a profile that may not cite Duan (the dataset) quotes Xu's text (review
    of out-r12, seed 20261230 item 66: 「恨」 matched no source it showed)."""
    span = next((p.span for p in provs if p.rule == "shuowen.gloss.duan_repeated_head"), None)
    return span.split("。")[0].removesuffix("也") if span else value


def _bench_orim(c, f: Facts, om) -> None:
    """The bench's ORIM: Shuowen's gloss with a second witness; Duan's corrected text where he
    emends it (kind ``duan``); none where he rejects it without a text of his own."""
    sw = [p for p in om.provenance if p.source == "shuowen"]
    if not sw or _LATIN.search(om.value):
        f.missing["ORIM"] = "unconfirmed:original_meaning" if sw else "no-shuowen-gloss"
        return
    others = set(om.agree) - {"shuowen", "duan"}
    duan = duan_reading(c.record, om.value, c.index)
    if duan is not None and duan[0] == "emends":
        if duan[2]:
            f.orim = (duan[2], f"Shuowen gloss in Duan's edition: {duan[2]}", sw + [duan[1]], "duan")
        else:
            f.missing["ORIM"] = DUAN_EMENDS_REASON
        return
    if duan is not None and om.provenance[0].source == "duan":
        # the record's gloss is Duan's text, not Xu's (湘: his 「湘水。出零陵縣陽海山」 restores the
        # head and adds 縣, 「縣字今補」): asked as Duan's edition (review of out-r8, seed 20261224 item 7)
        f.orim = (om.value, f"Shuowen gloss in Duan's edition: {om.value}", sw + [duan[1]], "duan")
    elif others or duan is not None:
        f.orim = (om.value, f"Shuowen gloss: {om.value}", sw + ([duan[1]] if duan else []), "shuowen")
    else:
        f.missing["ORIM"] = "unconfirmed:original_meaning"


def _proper(c, f: Facts) -> None:
    """Cut a Shuowen (or Duan-edition) reference to the gloss proper (:func:`gloss_proper`)
    and keep a class gloss's sense (:func:`class_gloss`); none left: no question
    (:data:`NOT_A_MEANING_REASON`)."""
    if f.orim is None or f.orim[3] not in ("shuowen", "duan"):
        return
    zh, en, provs, kind = f.orim
    text = gloss_proper(zh, c.record, c.index, duan="duan" in c.allowed)
    if not _bare(text):
        f.orim = None
        f.missing["ORIM"] = NOT_A_MEANING_REASON
        return
    text = class_gloss(text, c.record, c.index)
    named = bare_name(text, c.record, c.index)
    if named is not None and (not named[0] or not {p.source for p in named[1]} <= c.allowed | c.gap):
        # no class named, or named by Duan where he may not be cited (the dataset)
        f.orim, f.missing["ORIM"] = None, BARE_NAME_REASON
        return
    if named is not None:
        text, provs = named[0], provs + named[1]  # the class name is Duan's note's
    if text != zh:
        f.orim = (text, en.split(":")[0] + f": {text}", provs, kind)


def _not_original(c, f: Facts) -> None:
    """No ORIM question where the Shuowen gloss is known not to be the original meaning: a
    calendar sign or numeral's cosmological account (:data:`COSMOLOGICAL_HEADS`,
    :data:`COSMOLOGY_REASON`) or a gloss Duan calls an extended sense (:data:`DUAN_EXTENDED`,
    :data:`DUAN_EXTENDED_REASON`)."""
    if f.orim is None or f.orim[3] not in ("shuowen", "duan"):
        return
    rec = c.record
    heads = {rec.character, rec.traditional or "", rec.simplified or "", rec.form or ""} - {""}
    if any(re.search(r"(?:^|[。；])闕(?:[。；]|$)", parse_shuowen_raw(t)["explanation"]) for k, t in rec.raw.items() if k.startswith("shuowen:")):
        # 𠨖 「二卪也。巽从此。闕。」: Xu marks what he could not explain (data review 12-04)
        f.orim, f.missing["ORIM"] = None, NOT_A_GLOSS_REASON
        return
    text = "。".join(x for x in f.orim[0].split("。") if not x.endswith("从此"))  # 「巽从此」: a usage note
    if text != f.orim[0]:
        f.orim = (text, *f.orim[1:])
    if heads & COSMOLOGICAL_HEADS or _COSMOLOGY.search(text):
        f.orim, f.missing["ORIM"] = None, COSMOLOGY_REASON
        return
    clauses = [x.rstrip("也") for x in re.split(r"[。，；]", text.strip()) if x.strip()]
    if clauses and clauses[0] in heads:
        clauses = clauses[1:]  # 說 「說，釋也」: the head restated, then its gloss
    gloss = clauses[0] if clauses else ""
    # a short word holding the head says nothing more (「詰詘」); a river's 「河水。出…」 does
    # (and Duan's 「河水也」, 「X山也」 name the river or mountain the word is: a meaning)
    if _DIALECT.search(text) or (heads & set(gloss) and len(_bare(text)) <= 4 and not gloss.endswith(("水", "山"))):
        f.orim, f.missing["ORIM"] = None, NOT_A_GLOSS_REASON
        return
    if not gloss:
        return
    pattern = re.compile(DUAN_EXTENDED.format(re.escape(gloss), re.escape(gloss)))
    for key in rec.raw:
        src, _, entry_id = key.partition(":")
        if src not in ("shuowen", "duan"):
            continue
        pairs = _duan_pairs(c.index, entry_id)
        if any(pattern.search(n) for _, n in pairs):
            f.orim, f.missing["ORIM"] = None, DUAN_EXTENDED_REASON
            return
        han_word = re.compile(_DUAN_HAN_WORD.format(re.escape(gloss)))
        marked = [q for q, n in pairs
                  if gloss in q and (soundgloss.duan_marks_sound_gloss(n, gloss, rec.character) or han_word.search(n))]
        if marked:
            _keep_after_sound_gloss(f, text, marked[0])
            return
    if f.orim[3] == "shuowen" and not c.strict:
        duan = duan_reading(rec, text, c.index)  # the dataset states no Duan, but keeps none he rejects
        if duan is not None and duan[0] == "emends":
            f.orim, f.missing["ORIM"] = None, DUAN_EMENDS_REASON


def _orim_simplified_word(c, f: Facts) -> None:
    """No ORIM question on a one-character Shuowen gloss G that modern use reads as another
    word T (review of out-r5, 12-19: 㭕 「极也」, Xu's 极 「驢上負也」 read as 極 「extreme」):
    Unihan gives T as a traditional form of G with no variant link between them
    (:attr:`ModernForms.simplifies_other`), defines G by T's first sense (极 and 極: 「extreme,
    utmost…」), and G and T are two Shuowen heads (two words merged by the simplification).
    Counted as :data:`SIMPLIFIED_WORD_REASON`."""
    index = c.index
    if f.orim is None or f.orim[3] not in ("shuowen", "duan") or index.modern is None:
        return
    g = _bare(f.orim[0])
    if len(g) != 1 or g == c.record.character or not index.heads.get(g):
        return
    first = lambda ch: (index.definitions.get(ch) or "").split(";")[0].strip()  # noqa: E731
    if any(index.heads.get(t) and first(g) and first(g) == first(t) for t in index.modern.simplifies_other.get(g, ())):
        f.orim, f.missing["ORIM"] = None, SIMPLIFIED_WORD_REASON


def _keep_after_sound_gloss(f: Facts, text: str, quote: str = "") -> None:
    """The ORIM reference once Duan names its first sentence a sound-gloss (田 「敶也」:
    「故以㬪韵爲訓」, :func:`builder.qa.soundgloss.duan_marks_sound_gloss`): the further
    sentences where they define (as 穀 「續也。百穀之緫名」 keeps 百穀之緫名), else no ORIM
    question (:data:`SOUND_GLOSS_REASON`). A sentence inside the ``quote`` Duan's note is on
    is a sound-gloss too (馬 「怒也。武也」: 「以曡韵爲訓」 covers both; review of out-r7,
    seed 20261222)."""
    bare_quote = re.sub(r"\W", "", quote)
    sents = [x for x in text.split("。") if x.strip()]
    # the pun explained (木 「冒也。冒地而生。東方之行」, Duan: 「以疊韵爲訓」) leaves nothing
    rest = soundgloss.rest_after_sound_gloss(sents, [f.character])
    rest = [x for x in rest if not (bare_quote and re.sub(r"\W", "", x) and re.sub(r"\W", "", x) in bare_quote)]
    if rest and not _COSMOLOGY.search("。".join(rest)) and not soundgloss._NOT_A_DEFINITION.search(rest[0]) \
            and not rest[0].startswith(("象", "凡")):
        f.orim = ("。".join(rest), f"Shuowen gloss: {'。'.join(rest)}", *f.orim[2:])
        return
    f.orim, f.missing["ORIM"] = None, SOUND_GLOSS_REASON


def _duan_pairs(index: EvidenceIndex, entry_id: str) -> list[tuple[str, str]]:
    """(quotation, note) pairs of Duan's edition of Shuowen entry ``entry_id``."""
    pairs = parse_duan_raw(index.duan_notes.get(entry_id, ""))
    return pairs or [tuple((q.split("\t") + [""])[:2]) for q in index.shuowen_entry(entry_id).get("duan", [])]


def _orim_sound_gloss(c, f: Facts) -> None:
    """Drop Shuowen's sound-gloss (声训) sentences from the ORIM reference
    (:mod:`builder.qa.soundgloss`: 羊 「祥」, 母 「牧」, 古 「故」 are no original meanings):
    穀 「續也。百穀之緫名」 keeps 百穀之緫名 (續 is 疊韻 with 穀 in Duan's 三部:
    :func:`duan_rhyme_group`); a gloss that is only a sound-gloss, or whose rest is cosmology
    (日 「實也。太陽之精不虧」), leaves no ORIM question (``missing["ORIM"]`` =
    :data:`SOUND_GLOSS_REASON`)."""
    if f.orim is None or f.orim[3] not in ("shuowen", "duan"):
        return
    zh, _en, provs, kind = f.orim
    index = c.index
    if index.readings is None:
        index.readings = index.memo.setdefault(("readings",), soundgloss.readings_from_records(
            r for recs in index.by_char.values() for r in recs))
    rec = c.record
    heads = [rec.character, rec.traditional or "", rec.form or ""]
    first = re.split(r"[。]", zh)[0]
    groups = {ch: g for ch in {*heads, *first} if ch and (g := duan_rhyme_group(index, ch))}
    rest, dropped = soundgloss.strip_sound_gloss(zh, heads, index.readings, groups)
    if not dropped:
        return
    if not rest or _COSMOLOGY.search(rest):
        f.orim = None  # 日 「實也。太陽之精不虧」: what is left is cosmology
        f.missing["ORIM"] = SOUND_GLOSS_REASON
        return
    f.orim = (rest, f"Shuowen gloss: {rest}", provs, kind)


_DUAN_GROUP = re.compile(r"切。(?:古音(?:在)?)?([一二三四五六七八九十]+)部")


def duan_rhyme_group(index: EvidenceIndex, ch: str) -> str | None:
    """段玉裁's 古韻部 of ``ch`` (his 十七部): the 「N部」 after the 反切 in his note on the
    formula of ``ch``'s first Shuowen entry (穀 「古祿切。三部」 -> 「三」); None when his
    notes give none."""
    key = ("duan_group", ch)
    if key not in index.memo:
        found = None
        for entry_id in index.heads.get(ch, []):
            found = next((m.group(1) for _, n in _duan_pairs(index, entry_id) if (m := _DUAN_GROUP.search(n))), None)
            if found:
                break
        index.memo[key] = found
    return index.memo[key]


def _self_gloss(value: str, record: GlyphRecord) -> bool:
    """A gloss that is only the character itself (or its other form): no meaning stated."""
    core = re.sub(r"[也。，、；\s]", "", value)
    forms = {record.character, record.traditional or "", record.simplified or "", record.form or ""} - {""}
    return core in forms or core == ""
