"""Evolution rules for the later stages and the 省 parts (split from :mod:`builder.qa.evolution`).

Duan's statements of later written forms (隸變作X, 隸作X, 俗作X, 今作X) in his notes on the
character's entry; the traditional -> simplified step (Unihan one-to-one pairs, the
通用规范汉字表); the abbreviated (省) parts Shuowen's analysis names. Each step reads the
derivation context (:class:`builder.qa.evolution._Ctx`) and adds statements to it.
"""

from __future__ import annotations

import re
import typing

from builder.ids import IDSError, leaves
from builder.qa.component_names import abbreviated_parts, same_component
from builder.qa.evidence import _HAN, EvidenceIndex
from builder.qa.narrative import Statement
from builder.schema import GlyphRecord, Provenance
from metrics.acce import labels

if typing.TYPE_CHECKING:
    from builder.qa.evolution import _Ctx
    from builder.qa.narrative import Evolution


def _rule_sheng_statements(ctx: "_Ctx") -> None:
    """The abbreviated (省) parts the seal analysis names, with the part the glyph draws in
    its place where the IDS shows it (:func:`abbreviated_parts`): 「《说文》以字中的「萬」为
    「蠆」之省…；今字形仍作「萬」」. 省 is how Xu Shen reads the character's make-up: the seal already
    writes the part, so it is no change between stages (data review 08-7: 宮's 呂 is kept,
    not 简化). A 省 part the IDS does not locate gets no sentence: the seal analysis already
    quotes the 省 (data review 07-24: 「舍」为省形 repeated the first line)."""
    drawn, _ = abbreviated_parts(ctx.record, ctx.index)
    for lst in ctx.candidates.values():
        for ce in lst:
            d = drawn.get(ce.name) if ce.rule == "evolution.retention.sheng" else None
            if d is None:
                continue
            quote = ce.provenance[0].span
            # Xu's reading of the make-up, not an event: the early forms may already write the
            # drawn part (利 has 禾 in oracle bone: data review 12-04)
            zh = f"《说文》以字中的「{d.drawn}」为「{ce.name}」之省（{quote}）；今字形仍作「{d.drawn}」"
            en = (f"Shuowen reads the {d.drawn} in the character as an abbreviated {ce.name} ({quote}); "
                  f"the modern form still writes {d.drawn}")
            ctx.evo.statements.append(Statement(ce.rule, zh, en, ce.provenance))


_DUAN_FORM = re.compile(rf"(今[隸隷]變作|今[隸隷]作|[隸隷]變作|[隸隷]省作|[隸隷]書作|[隸隷]作|今俗作|俗作|今字作|今作)({_HAN})")


def _duan_stage(verb: str) -> tuple[str, str]:
    """(Chinese, English) name of the stage a Duan verb names: 隸 clerical, 俗 popular, 今 current."""
    if "隸" in verb or "隷" in verb:
        return "隶书", "clerical-script"
    if "俗" in verb:
        return "俗字", "popular"
    return "今字", "current"


def _rule_duan_later_forms(ctx: _Ctx) -> None:
    """Duan's statements of later written forms: 隸變作X, 隸作X, 俗作X, 今作X (clerical,
    popular and current forms), quoted from his notes on the character's entry."""
    if "duan" not in ctx.sources and "shuowen" not in ctx.sources:
        return
    seen: set[str] = set()
    for entry_id in _entry_ids(ctx):
        text = ctx.index.duan_notes.get(entry_id, "")
        for m in _DUAN_FORM.finditer(text):
            verb, form = m.group(1), m.group(2)
            if form == ctx.head or form in seen or len(seen) >= 2 or not _about_head(text[:m.start()], ctx):
                continue
            seen.add(form)
            stage = _duan_stage(verb)
            prov = Provenance(source="duan", entry_id=entry_id, span=m.group(0), rule="evolution.duan_later_form")
            # 隸變: the clerical change itself (隶变), as Duan names it
            verb_zh = "隶变作" if "變" in verb else f"{stage[0]}作"
            ctx.say("evolution.duan_later_form", f"{verb_zh}「{form}」（段注：{m.group(0)}）",
                    f"the {stage[1]} form is {form} (Duan: {m.group(0)})", [prov])


_RHYME_NOTE_END = re.compile(r"部。\s*$")


def _about_head(before: str, ctx: _Ctx) -> bool:
    """Whether a Duan 作 statement speaks of the entry's own character: it follows the
    character itself (凥俗作居) or opens the sentence after Duan's reading note (…切。五部。
    俗作霍), not a word his note quotes (坐: 凥俗作居 is about 凥; 瞽: 朕、俗作眹)."""
    if before[-1:] in (ctx.head, ctx.base, ctx.char):
        return True
    if before[-1:] in "(（":  # a note that opens with it (䑞: (今隸變作舜) is on the head
        return True
    return _RHYME_NOTE_END.search(before) is not None


def _entry_ids(ctx: _Ctx) -> list[str]:
    """Shuowen entry ids of the character's own head (seal analysis, pictograph, raw texts)."""
    ids = [p.entry_id for s in ctx.seal for p in s.provenance if p.source == "shuowen"]
    ids += [p.entry_id for p in ctx.pictograph]
    for rec in ctx.index.records(ctx.base):
        for key in rec.raw:
            src, _, entry_id = key.partition(":")
            if src in ("shuowen", "duan") and ctx.index.shuowen_entry(entry_id).get("wordhead") in (ctx.base, ctx.head):
                ids.append(entry_id)
    return list(dict.fromkeys(ids))


def _rule_trad_simp(ctx: _Ctx) -> None:
    """Traditional / simplified links (one-to-one Unihan pairs; a simplified form outside the
    通用规范汉字表 gives way to the table's form of the character's variant: 鎌 -> 镰)."""
    if ctx.trad:
        zh = f"繁体作「{ctx.trad[0]}」，今简化作「{ctx.char}」"
        en = f"the traditional form is {ctx.trad[0]}, simplified as {ctx.char}"
        if ctx.simp_changes:
            zh += "，其中" + "、".join(f"「{t}」简化为「{s}」" for t, s in ctx.simp_changes)
            en += "; " + ", ".join(f"{t} simplified to {s}" for t, s in ctx.simp_changes)
        ctx.say("evolution.simplification.character", zh, en, ctx.trad[1])
        return
    found = _standard_simplified(ctx)
    if found is None:
        return
    form, via, provs = found
    if via is None and _rearranged(ctx, form):
        ctx.say("evolution.traditional_to_simplified", f"今规范字作「{form}」，构件相同而位置不同",
                f"the standard modern form is {form}, with the same components placed differently", provs)
    elif via is None:
        ctx.say("evolution.traditional_to_simplified", f"今简化字作「{form}」", f"the simplified form is {form}", provs)
    else:
        ctx.say("evolution.traditional_to_simplified",
                f"「{ctx.char}」与「{via}」为异体，今规范字作「{form}」",
                f"{ctx.char} is a variant of {via}; the standard modern form is {form}", provs)


def _rearranged(ctx: _Ctx, form: str) -> bool:
    """Whether the standard form ``form`` draws the same components as the character, only
    placed otherwise (眥 ⿱此目 -> 眦 ⿰目此): the 通用规范汉字表 chose one of two variants,
    which no 简化字 table simplified (review of out-r10, seed 20261229 item 46). Compares
    the leaves of the records' IDS (``record.ids``); False where either has none."""

    def parts(ch: str) -> list[str] | None:
        for rec in ctx.index.records(ch):
            if rec.ids is not None:
                try:
                    return sorted(leaves(rec.ids.value))
                except IDSError:
                    return None
        return None

    mine, theirs = parts(ctx.char), parts(form)
    return bool(mine) and len(mine) > 1 and mine == theirs


def _standard_simplified(ctx: _Ctx) -> tuple[str, str | None, list[Provenance]] | None:
    """(simplified form, the variant it was reached through or None, provenance); None for
    a character that is itself in the 通用规范汉字表 (Unihan kTGH): 幺 is a standard
    character, and Unihan's 幺 -> 么 pairs it with the form that simplifies 麼, so 「今简化字作
    「么」」 would be false (data review 12-04, round 4)."""
    modern = ctx.index.modern
    if modern is not None and modern.standard and ctx.char in modern.standard:
        return None
    if ctx.simp and (modern is None or modern.is_standard(ctx.simp[0])):
        return ctx.simp[0], None, ctx.simp[1]
    if modern is None or not ctx.simp:
        return None
    for v in ctx.record.variants:  # 鎌: 𰾮 is not in the table; its variant 鐮 simplifies to 镰
        if v.kind != "異體" or not [p for p in v.provenance if p.source == "unihan"]:
            continue
        link = modern.simplified(v.form)
        if link is not None and modern.is_standard(link[0]):
            return link[0], v.form, list(v.provenance) + link[1]
    return None


def _modern_record(record: GlyphRecord, index: EvidenceIndex) -> GlyphRecord:
    """The record whose components the narrative compares the seal against: ``record``
    itself, unless it is an early form (甲骨文, 金文, 战国文字) without components of its own
    (no source analyses the drawing), then the character's 楷书 record, else its 篆书 one
    (whose Shuowen analysis and modern IDS the early record does not carry).
    Without it an early image's narrative lost every 「今字形…沿用了…」 statement (1,042 of
    1,451 characters with both forms, data review 12-04)."""
    if record.script not in labels.EARLY_FORM_SCRIPTS or record.components:
        return record
    for script in ("楷书", "篆书"):
        for rec in index.records(record.character):
            if rec.script == script:
                return rec
    return record


def _said_rewritten(evo: "Evolution", seal_name: str) -> bool:
    """Whether a statement already says the seal part became another (舊: 「篆文之「雈」，今字形
    写作「萑」」): the retention line must not then say it was kept (data review 12-04)."""
    return any(st.rule == "evolution.rewritten_part" and f"「{seal_name}」" in st.zh for st in evo.statements)


def _accounted(ctx: "_Ctx", retained: list[tuple[str, str]]) -> bool:
    """Whether every seal part is either kept (``retained``) or named by another statement:
    「今字形沿用了…」 reads as the whole account, so a part it silently leaves out (寶's 王, 黃's
    炗) would misdescribe the modern form (data review 12-04)."""
    said = "".join(st.zh for st in ctx.evo.statements if st.rule != "evolution.seal_analysis")
    return all(any(same_component(s.name, a) for a, _ in retained) or f"「{s.name}」" in said for s in ctx.seal)
