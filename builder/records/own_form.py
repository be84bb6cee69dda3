"""What is true of a record's own written form: rules :mod:`builder.records.align` applies
before it lets a source's analysis or gloss stand for the glyph (data reviews final-20261210
and final-20261211).

- :func:`seal_head_of_variant`: a seal drawing filed under a later form that Shuowen does
  not list shows the one Shuowen head among its Unihan variants (Commons' 麵-seal draws
  麪 「从麥丏聲」, Shuowen's head; 麵 itself is not in Shuowen).
- :func:`own_ids`: every IDS the sources give for the form itself (cjkvi-ids ids.txt and
  its analysis column, makemeahanzi's decomposition), never a linked code point's.
- :func:`chongwen_matches_ids`: the parts a Shuowen 重文 note names (「古文蚳从辰、土」)
  stand for the variant only where one of its own IDSs shows exactly them (𧏁
  ⿺辰⿱虫土 also draws 虫, which the note leaves to its head).
- :func:`mmh_operand_parts`: makemeahanzi's ``semantic`` / ``phonetic`` is a component only
  where it is a whole first-level operand of an own IDS (浸 ⿰氵𠬶: its 「彐」 is a fragment
  of the phonetic 𠬶).
- :func:`strictly_shown`: a part drawn in the form by its own code point or a radical
  alias / position shape, not merely by a Unihan variant (遴 ⿺辶粦 draws 粦, not the 㷠
  of the variant code point 䢯 ⿺辶㷠).
- :func:`choose_definition`: the English definition, where a fuller one (makemeahanzi's
  「circle; yen」 against Unihan's 「yen」 for 円) is kept and agreement means the same senses.
"""

from __future__ import annotations

import re

from builder.aliases import same_component
from builder.ids import PLACEHOLDERS, IDSError, first_level, leaves
from builder.records.gather import Candidate, Corpus, one_to_one, part_of, same_word

# the rules of makemeahanzi's etymology fields (a component taken from them)
MMH_FIELD_RULES = ("makemeahanzi.etymology.semantic", "makemeahanzi.etymology.phonetic")


def seal_head_of_variant(character: str, corpus: Corpus) -> str | None:
    """The Shuowen head a seal drawing of ``character`` shows when Shuowen lists neither
    ``character`` as a head nor as a 重文: the only Unihan variant of it (traditional,
    simplified, semantic or Z variant, :attr:`Corpus.variants`) that is a Shuowen head,
    read like it (:func:`builder.records.gather.same_word`), neither a part of it nor
    containing it (面 in 麵), and drawn with a part of it or its one-to-one traditional /
    simplified partner (麪 ⿰麥丏 shares 麥 with 麵; Unihan's looser semantic variants, 肆 /
    四 or 廌 / 豸, share none). None for no such head, several, or a simplification of
    several characters (复: 復 複 覆)."""
    if any(r.source == "shuowen" for r in corpus.readings.get(character, [])):
        return None
    if len([t for t in corpus.traditional.get(character, []) if t != character]) > 1:
        return None
    mine = set(_leaves_of(character, corpus))
    heads = sorted(v for v in corpus.variants.get(character, ())
                   if any(r.source == "shuowen" and r.head is None for r in corpus.readings.get(v, []))
                   and not part_of(v, character, corpus) and not part_of(character, v, corpus)
                   and same_word(character, v, corpus)
                   and (mine & set(_leaves_of(v, corpus)) or _one_to_one_pair(character, v, corpus)))
    return heads[0] if len(heads) == 1 else None


def _leaves_of(ch: str, corpus: Corpus) -> list[str]:
    """The leaves of every cjkvi-ids ids.txt IDS of ``ch`` (placeholders and ``ch`` left out)."""
    out = []
    for r in corpus.readings.get(ch, []):
        if r.source == "cjkvi-ids":
            out += [x for o in r.ids_options if o.regions != "analysis" for x in leaves(o.ids)
                    if x != ch and x not in PLACEHOLDERS]
    return out


def _one_to_one_pair(a: str, b: str, corpus: Corpus) -> bool:
    """A traditional / simplified pair, one to one, neither a character that is also its own
    traditional form (姜 for 薑: the surname's character took over the ginger's)."""
    linked = b in corpus.traditional.get(a, []) + corpus.simplified.get(a, []) \
        or a in corpus.traditional.get(b, []) + corpus.simplified.get(b, [])
    merged = any(x in corpus.traditional.get(x, []) for x in (a, b))
    return linked and not merged and one_to_one(a, b, corpus)


def own_ids(cands: dict[str, list[Candidate]]) -> list[str]:
    """Every IDS the sources give for the form itself (cjkvi-ids ids.txt alternatives and
    analysis column, makemeahanzi's decomposition), in source order, each once."""
    out: list[str] = []
    for s in ("cjkvi-ids", "makemeahanzi"):
        for c in cands.get(s, []):
            if c.via is None:
                out += [o.ids for o in c.reading.ids_options if o.ids not in out]
    return out


def strictly_shown(name: str, ids_list: list[str]) -> bool:
    """Whether one of ``ids_list`` draws ``name`` (as a leaf or a first-level operand) by
    its own code point, a radical alias or a position shape (:func:`same_component`
    without Unihan variants)."""
    for ids in ids_list:
        parts = set(leaves(ids)) | {ids}
        try:
            parts |= {o.text for o in first_level(ids) if o.is_character}
        except IDSError:
            pass
        if any(same_component(name, p) for p in parts):
            return True
    return False


def _covered(text: str, is_char: bool, names: list[str], corpus: Corpus) -> bool:
    """Whether the operand ``text`` is one of ``names``, or an IDS all of whose operands are."""
    if any(same_component(n, text, variants=corpus.variants) for n in names):
        return True
    if is_char or any(ch in PLACEHOLDERS for ch in text):
        return False
    try:
        ops = first_level(text)
    except IDSError:
        return False
    return bool(ops) and all(_covered(o.text, o.is_character, names, corpus) for o in ops)


def chongwen_matches_ids(names: list[str], ids_list: list[str], corpus: Corpus) -> bool:
    """Whether the parts ``names`` of a 重文 note are what one of the variant's own IDSs
    draws: each name a part of it, and each first-level operand one of the names or made
    of them (𧏁 「从辰、土」 against ⿺辰⿱虫土: 虫 is drawn but not named, so no)."""
    for ids in ids_list:
        try:
            ops = first_level(ids)
        except IDSError:
            continue
        drawn = set(leaves(ids)) | {o.text for o in ops if o.is_character}
        if ops and all(any(same_component(n, d, variants=corpus.variants) for d in drawn) for n in names) \
                and all(_covered(o.text, o.is_character, names, corpus) for o in ops):
            return True
    return False


def mmh_operand_parts(comps: list, ids_list: list[str], corpus: Corpus) -> list:
    """``comps`` without a makemeahanzi ``semantic`` / ``phonetic`` part that is no whole
    first-level operand of any of ``ids_list`` (浸's 「彐」 in ⿰氵𠬶 / ⿰氵⿳彐冖又): a
    fragment of an operand is no component, and the list is left short rather than
    completed with it."""
    ops: list[str] = []
    for ids in ids_list:
        try:
            ops += [o.text for o in first_level(ids) if o.is_character]
        except IDSError:
            continue
    out = []
    for x in comps:
        from_field = any(p.rule.split("@")[0] in MMH_FIELD_RULES for p in x.provenance)
        if from_field and not any(same_component(x.name, o, variants=corpus.variants) for o in ops):
            continue
        out.append(x)
    return out


_SENSE_SPLIT = re.compile(r"\s*[;,]\s*")
_PAREN = re.compile(r"\([^()]*\)")
_LEAD = re.compile(r"^(?:to|a|an|the)\s+")


def senses_en(text: str) -> frozenset[str]:
    """The senses of an English definition: its ``;`` / ``,`` separated items, lower case,
    without parenthesised notes (「(same as 廩)」) or a leading article or infinitive ``to``
    (makemeahanzi's 「to select, to choose」 is Unihan's 「select, choose」)."""
    out = set()
    for s in _SENSE_SPLIT.split(_PAREN.sub(" ", text.lower())):
        s = _LEAD.sub("", s.strip(" .")).strip()
        if s:
            out.add(s)
    return frozenset(out)


def _covers(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether every sense of ``b`` is (part of) a sense of ``a``."""
    return all(any(y in x for x in a) for y in b)


def choose_definition(values: list[tuple[str, str]]) -> tuple[int, list[int]]:
    """(index of the value kept, indices of the values that agree with it) among
    ``values`` = [(source, definition)] in priority order. The first value is kept unless
    another states all its senses and more (円: makemeahanzi's 「circle; yen」 over Unihan's
    「yen」); a value agrees when each states every sense of the other (a narrower or wider
    one is a disagreement: final-20261210 item 103)."""
    sens = [senses_en(v) for _s, v in values]
    best = 0
    for i, s in enumerate(sens):
        if _covers(s, sens[best]) and not _covers(sens[best], s):
            best = i
    return best, [i for i, s in enumerate(sens) if _covers(s, sens[best]) and _covers(sens[best], s)]


# Modern layouts the seal writes otherwise: 辵 / 是 / 走 are a left column in the seal (題
# ⿰ there, ⿺ today), ⿹ / ⿻ the clerical script's overlaps; no source here gives the seal's
# own layout for them (builder.qa.seal_layout applies the same rules to the questions)
SEAL_UNSURE_LAYOUTS = frozenset({"⿺", "⿹", "⿻"})
_WALK_WRAPS = frozenset("辶⻌⻍辵廴")


def walk_radical_in(part: str, part_ids: list[str]) -> bool:
    """Whether ``part`` (an IDS operand) is written with 辵 / 廴, itself or in one of its own
    IDSs ``part_ids`` (道 ⿺辶首): as the upper part of a ⿱, the seal's 辵 then encloses the
    lower part too (導: 寸 sits inside it)."""
    return any(ch in _WALK_WRAPS for ids in [part, *part_ids] for ch in ids)


def seal_layout_unconfirmed(rec, corpus: Corpus) -> str | None:
    """Why the modern layout in ``rec.structure`` of a 篆书 record is not the seal form's,
    or None when it is confirmed. No source describes the seal's layout: the IDS sources
    describe the modern character. Confirmed only where Shuowen agrees with what it arranges
    (独体 for a head Shuowen calls 象形 / 指事 with no parts; else first-level operands that
    are exactly the parts Shuowen or cjkvi-ids' Shuowen-based analysis name) and the layout is not one the seal writes otherwise (⿺ ⿹
    ⿻, or a ⿱ whose upper part holds 辵 / 廴: 導 ⿱道寸, whose seal sets 寸 inside 辵).
    弟 ⿱丷𢎨 splits the modern form; the seal is one winding graph 「从古字之象」 (review of
    out-r10, seed 20261228 item 116)."""
    s = rec.structure
    if s is None:
        return None
    # cjkvi-ids' analysis column follows Shuowen's 重文 notes too (蛇 「它或从虫」: ⿰虫它 它聲)
    sw = [c for c in rec.components if "shuowen" in c.agree
          or any(p.source == "shuowen" or (p.rule or "").startswith("cjkvi-ids.analysis") for p in c.provenance)]
    if s.value == "独体":
        f = rec.formation
        pictograph = f is not None and f.value.label in ("象形", "指事") and any(p.source == "shuowen" for p in f.provenance)
        return None if (pictograph and not rec.components) or (len(sw) == 1 == len(rec.components)) \
            else "no Shuowen analysis confirms the seal form is a single graph"
    if s.value in SEAL_UNSURE_LAYOUTS:
        return f"the seal does not write the modern layout {s.value}"
    try:
        ops = [o.text for o in first_level(rec.ids.value)] if rec.ids else []
    except IDSError:
        ops = []
    if not ops or len(ops) != len(sw) or len(sw) != len(rec.components) \
            or not all(any(same_component(o, c.name, variants=corpus.variants) for c in sw) for o in ops):
        return "Shuowen's parts are not the modern layout's operands"
    if s.value == "⿱" and walk_radical_in(ops[0], _leaves_of(ops[0], corpus)):
        return "the seal's 辵 / 廴 encloses the lower part"
    return None
