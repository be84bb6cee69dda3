"""Alignment of the meaning fields: the original meaning (說文 / 段注 glosses, with the sources
that agree), the English definition (Unihan, makemeahanzi) and Shuowen's 一曰 senses. Called
by :func:`builder.records.align.align`."""

from __future__ import annotations

import re

from builder.records.fidelity import norm_text
from builder.records.gather import Candidate, _rank, _via
from builder.records.own_form import choose_definition
from builder.schema import GlyphRecord, Grounded
from metrics.acce.labels import MODERN_SCRIPTS


def _first(cands: list[Candidate], attr: str) -> Candidate | None:
    return next((c for c in cands if getattr(c.reading, attr)), None)


def glosses_agree(a: str, b: str) -> bool:
    """Two glosses agree when the first clause of one occurs in the other (punctuation,
    whitespace and traditional/simplified differences ignored): Duan's 江水。出蜀… agrees
    with Xu's 水。出蜀…; 脊 does not agree with 𦟝."""

    def first(x: str) -> str:
        return norm_text(_CLAUSE_END.split(x.strip())[0].removesuffix("也"))

    fa, fb = first(a), first(b)
    return bool(fa and fb) and (fa in norm_text(b) or fb in norm_text(a))


_CLAUSE_END = re.compile(r"[。，；,;.]")

# A dialect / naming note (data review 12-18 item 106, 12-19 item 115): a place or people word
# then 「曰」 / 「謂之」 / 「謂X曰」 / 「名X曰」 in one clause (甾 「東楚名缶曰甾」, 譎 「益、梁曰謬欺，
# 天下曰譎」, 稬 「沛國謂稻曰稬」): it says what a region calls the thing, not what the graph
# means. The QA stage's ORIM rule (builder.qa.orim) extends this pattern.
DIALECT_PLACES = r"[楚齊秦晉燕宋衛陳吳越梁東西南北關淮汝潁趙魏韓鄭魯蜀沛周夏殷]|江(?!水)|益(?=[州、梁])|方言|天下|[^。，；《]國"
DIALECT_NOTE = re.compile(rf"(?:{DIALECT_PLACES})[^。，；《》]{{0,6}}?(?:謂之|謂[^。，；]{{1,4}}[曰爲]|名[^。，；]{{1,3}}曰|曰(?![：:“「]))")


def without_dialect_notes(gloss: str) -> str:
    """``gloss`` without its dialect notes (:data:`DIALECT_NOTE`): in each sentence (split at
    。) the clause that is one and the clauses after it (桱 「桯也，東方謂之蕩」 keeps 「桯也」;
    䏁's note runs on over three clauses); empty when the whole gloss is one (甾 「東楚名缶曰甾」:
    the note names the thing 缶, but a value not quoted from the source is not recorded).
    A quotation (「楚莊王曰：」, 「《國語》曰」) is no note."""
    kept = []
    for sent in gloss.split("。"):
        clauses = sent.split("，")
        hit = next((i for i, x in enumerate(clauses) if DIALECT_NOTE.search(x)), None)
        sent = "，".join(clauses[:hit]) if hit is not None else sent
        if sent.strip():
            kept.append(sent)
    return "。".join(kept)


# Class nouns that follow a proper name in 說文 (河，河水; 峱，峱山; 泑，泑澤): the transmitted
# text drops the repeated head, so Xu's gloss alone would name the class, not the place.
PROPER_NAME_CLASSES = frozenset("水山澤")


def _restore_repeated_head(gl: list[tuple[str, Candidate]]) -> list[tuple[str, Candidate]]:
    """Put 段玉裁's gloss first where the digitised 說文 lost the head repeated before a
    place-name gloss (複舉字): 河 reads 「水。出焞煌塞外…」, and Duan restores 「河水」
    (his note on 河: 各本水上無河字 … 許君原本當作河水也三字). Only for Xu's bare class noun
    of :data:`PROPER_NAME_CLASSES` whose Duan gloss is the head plus that noun; elsewhere
    (紾，轉也) the head is not part of the meaning and the order stays the sources' rank."""
    if len(gl) < 2 or gl[0][0] != "shuowen":
        return gl
    c0 = gl[0][1]
    first = _CLAUSE_END.split(c0.reading.original_meaning.value.strip())[0]
    if first not in PROPER_NAME_CLASSES:
        return gl
    head = c0.reading.head or c0.reading.character
    for i, (s, c) in enumerate(gl):
        if s == "duan" and _CLAUSE_END.split(c.reading.original_meaning.value)[0] == head + first:
            return [gl[i], *gl[:i], *gl[i + 1:]]
    return gl


def align_meaning(rec: GlyphRecord, cands: dict[str, list[Candidate]]) -> list[Candidate]:
    """``rec.original_meaning`` (the best-ranked gloss, with the sources whose gloss
    agrees), ``rec.definition_en`` (a record of a modern script only: Unihan's, or makemeahanzi's where it states more senses:
    :func:`builder.records.own_form.choose_definition`) and ``rec.senses``
    (Shuowen). Returns the candidates used."""
    used: list[Candidate] = []
    gl = _restore_repeated_head([(s, c) for s in sorted(cands, key=_rank) if (c := _first(cands[s], "original_meaning"))])
    clean = {s: without_dialect_notes(c.reading.original_meaning.value) for s, c in gl}
    used += [c for s, c in gl if not clean[s]]
    gl = [(s, c) for s, c in gl if clean[s]]
    if gl:
        s0, c0 = gl[0]
        agree = [s for s, c in gl if glosses_agree(clean[s], clean[s0])]
        rec.original_meaning = Grounded(
            value=clean[s0],
            provenance=[p for s, c in gl if s in agree for p in _via(c.reading.original_meaning.provenance, c.via)],
            agree=agree, disagree={s: clean[s] for s, c in gl if s not in agree})
        used += [c for _, c in gl]
    de = []
    # a modern dictionary's English senses are the modern word's: none on an ancient form's
    # record (苄-seal is 說文's 「地黃也」, not Unihan's "benzyl"; 無-oracle writes 舞: review of
    # out-r12, seeds 20261230 item 105 and 20261231 item 115)
    for s in ("unihan", "makemeahanzi") if rec.script in MODERN_SCRIPTS else ():
        c = _first([x for x in cands.get(s, []) if x.via is None], "definition_en") or _first(cands.get(s, []), "definition_en")
        if c:
            de.append((s, c))
    if de:
        # the fuller definition, agreement only on the same senses (円: 「circle; yen」, not 「yen」)
        best, same = choose_definition([(s, c.reading.definition_en.value) for s, c in de])
        agree = [de[i][0] for i in same]
        rec.definition_en = Grounded(
            value=de[best][1].reading.definition_en.value,
            provenance=[p for s, c in de if s in agree for p in _via(c.reading.definition_en.provenance, c.via)],
            agree=agree, disagree={s: c.reading.definition_en.value for s, c in de if s not in agree})
        used += [c for _, c in de]
    sc = _first(cands.get("shuowen", []), "senses")
    if sc:
        rec.senses = [x.model_copy(update={"provenance": _via(x.provenance, sc.via)}) for x in sc.reading.senses]
        used.append(sc)
    return used
