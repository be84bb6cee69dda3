"""QA pairs from glyph records (the paper's stage 3), for JieZi-Dataset and JieZi-Bench.

A record's fields are first reduced to the *facts* one profile may use
(:func:`facts_for`):

- ``dataset`` (JieZi-Dataset): answers from makemeahanzi, cjkvi-ids and Unihan
  (ACCE.md section 4). Where these have no Chinese text, the Shuowen gloss (ORIM) and the
  Shuowen-based evolution rules (COME / EVOI) are used for characters that are *not* in
  JieZi-Bench; for bench characters the dataset falls back to the English gloss and to
  the evolution rules that need no Shuowen evidence, so the bench's reference texts never
  appear in training.
- ``bench`` (JieZi-Bench): references from Shuowen (with Duan's notes) and Unihan, and a
  fact is kept only where independent sources agree (the records' ``agree`` /
  ``disagree``; the Shuowen gloss confirmed by Duan's edition).

Then ``builder.qa.questions.dataset_qa`` draws 5-10 QA pairs per glyph image (at least one
per level when the record allows, deterministic for a seed) and ``bench_qa`` makes the
bench's rows, worded by ``builder.qa.wording.make_qa`` (the fact and QA types:
``builder.qa.facts``; component interpretations: ``builder.qa.interpretation``).
Factual answers are filled from fields; reasoning answers (COMI, EVOI, the four-level
exegesis) are composed from grounded fields by rule. Every QA pair keeps the provenance of
the fields it used and, for categorical and component answers, a structured form.
A missing field yields no QA pair for that subtask; the reason is counted, never a blank.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from builder import aliases
from builder.aliases import is_position_form
from builder.ids import PLACEHOLDERS, IDSError
from builder.ids import first_level as ids_first_level
from builder.qa import script_neutral
from builder.qa.complete_list import (
    unlisted_drawn_part,
    unlisted_ids_part,
    unlisted_named_part,
    unlisted_pictograph,
    unlisted_sheng,
)
from builder.qa.component_facts import (
    _duan_yisheng,
    _formation_from_split_only,
    _hint_yisheng,
    _mmh_against_head,
    _name_simplified_as_drawn,
    _part_sources,
    _source_interpretation,
)
from builder.qa.component_names import (
    abbreviated_parts,
    ids_operands,
)
from builder.qa.evidence import MODERN_SOURCES, EvidenceIndex, _trad_simp
from builder.qa.seal_layout import SEAL_LAYOUT_REASON, layout_matches_shuowen, seal_layout_unsure
from builder.qa.evolution import derive
from builder.qa.facts import (
    BENCH_SOURCES,
    EARLY_FORM_REASON,
    L2_KINDS,
    SEAL_FORM_REASON,
    SEAL_FORM_SCRIPTS,
    CompFact,
    Facts,
    Profile,
    _audit_provs,
    _supporters,
)
from builder.qa.interpretation import _compose_interpretation
from builder.qa.narrative import Evolution
from builder.qa.orim import SOUND_GLOSS_REASON, orim_facts  # noqa: F401  (SOUND_GLOSS_REASON: tests read it here)
from builder.qa.wording import _ids_regions
from builder.schema import Component, Formation, GlyphRecord, Provenance
from metrics.acce import labels
from metrics.acce.variants import same_character

_LATIN = re.compile(r"[A-Za-z]")


# --- facts ------------------------------------------------------------------------------


def _component_confirmed(c: Component) -> bool:
    """Bench rule for one component: Shuowen names it, a modern analysis (cjkvi-ids or
    makemeahanzi) agrees on it, it has functions, and the agreeing sources outnumber those
    giving other functions (a source that merely does not list it is no contradiction)."""
    sources = {p.source for p in c.provenance} | set(c.agree)
    if "shuowen" not in sources or not (sources & MODERN_SOURCES) or not c.functions:
        return False
    return _majority(len(sources), {k: v for k, v in c.disagree.items() if v != "not listed"})


def _majority(n_agree: int, disagree: dict) -> bool:
    """Independent sources confirm a value: at least two agree and they outnumber the
    sources that say something else (makemeahanzi splitting a pictograph into strokes
    does not veto Shuowen and cjkvi-ids agreeing that it is 独体)."""
    return n_agree >= 2 and n_agree > len(disagree)


def _has_audit(record: GlyphRecord) -> bool:
    """Whether an audit correction set one of ``record``'s fields."""
    fields = [record.structure, record.formation, record.original_meaning, record.evolution]
    return (any(g is not None and _audit_provs(g.provenance) for g in fields)
            or any(_audit_provs(c.provenance) for c in record.components))




def glyph_form(script: str) -> str:
    """``"early"``, ``"seal"`` or ``"modern"``: the form the L2 answers of a ``script`` image
    describe (see ``labels.EARLY_FORM_SCRIPTS``; 隶书, 楷书, 草书 and 简体 follow the IDS)."""
    if script in labels.EARLY_FORM_SCRIPTS:
        return "early"
    return "seal" if script in SEAL_FORM_SCRIPTS else "modern"


@dataclass
class _FactsCtx:
    """What the per-subtask fact functions share for one (record, profile)."""

    record: GlyphRecord
    profile: Profile
    index: EvidenceIndex
    gap: frozenset[str]
    form: str

    @property
    def allowed(self) -> frozenset[str]:
        return self.profile.sources

    @property
    def strict(self) -> bool:
        return self.profile.strict

    def may_use_shuowen(self) -> bool:
        return "shuowen" in self.allowed | self.gap


def _strc_facts(c: _FactsCtx, f: Facts) -> None:
    """STRC: the IDS sources give the layout; the bench needs a majority of at least two
    (two IDS sources, or one and a matching Shuowen analysis): no bench source describes
    layout (documented in the card). A seal image: the IDS layout only where Shuowen's seal
    components are exactly the IDS operands (or a pictograph Shuowen gives no parts)."""
    record = c.record
    if record.structure is not None and _audit_provs(record.structure.provenance):
        f.structure = (record.structure.value, _audit_provs(record.structure.provenance))
        return
    if c.form == "early":
        f.missing["STRC"] = EARLY_FORM_REASON
        return
    s = record.structure
    if s is None:
        f.missing["STRC"] = "no-structure"
        return
    if c.form == "seal" and not (c.may_use_shuowen() and layout_matches_shuowen(record)):
        f.missing["STRC"] = SEAL_FORM_REASON
        return
    if c.form == "seal" and seal_layout_unsure(record, s.value, c.index):
        f.missing["STRC"] = SEAL_LAYOUT_REASON
        return
    sup = _supporters(s) & (MODERN_SOURCES | c.allowed)
    if not c.strict:
        provs = [p for p in s.provenance if p.source in c.allowed | MODERN_SOURCES]
        if provs:
            f.structure = (s.value, provs)
        else:
            f.missing["STRC"] = "no-structure"
    elif _majority(len(sup) + layout_matches_shuowen(record), s.disagree):
        f.structure = (s.value, list(s.provenance))
    else:
        f.missing["STRC"] = "disagree:structure" if s.disagree else "single-source:structure"


# Single strokes: an IDS whose operands are these (or placeholders such as ③) splits a
# single-component character into strokes (不 ⿱一③), not into components.
STROKE_OPERANDS = frozenset("一丨丿丶乙亅乚乛𠃌㇀㇏") | frozenset(chr(c) for c in range(0x31C0, 0x31F0))


def _stroke_split(record: GlyphRecord) -> bool:
    """Whether the record's IDS is a stroke-level split (an operand is a placeholder or a
    CJK stroke, or every operand is a single stroke) of a character Shuowen analyses as
    象形 / 指事: such a character is 独体 (不), whatever layout the split draws."""
    form = record.formation
    if record.ids is None or form is None or form.value.label not in ("象形", "指事"):
        return False
    if not any(p.source == "shuowen" for p in form.provenance):
        return False
    try:
        ops = [o.text for o in ids_first_level(record.ids.value)]
    except IDSError:
        return False
    return bool(ops) and (any(len(o) == 1 and (o in PLACEHOLDERS or 0x31C0 <= ord(o) < 0x31F0) for o in ops)
                          or all(o in STROKE_OPERANDS for o in ops))


def _structure_accepted(c: _FactsCtx, f: Facts) -> None:
    """STRC of a stroke-level split (:func:`_stroke_split`): the reference is 独体 and the
    split's layout is accepted too (``Facts.accepted["STRC"]``)."""
    if f.structure is None or f.structure[0] == "独体" or not _stroke_split(c.record):
        return
    value, provs = f.structure
    form_provs = [p for p in c.record.formation.provenance if p.source == "shuowen"]
    f.structure = ("独体", [Provenance(source=p.source, entry_id=p.entry_id, span=p.span, rule="qa.strc.stroke_split")
                          for p in form_provs + provs])
    f.accepted["STRC"] = [value]


def _yisheng_from_duan_only(provs: list[Provenance]) -> bool:
    """Whether only Duan's note says 亦声 (販: Shuowen 「从貝反聲」, Duan 「形聲包會意」): no
    other source's span states it (X亦聲 / 亦声 / 兼)."""
    says = {p.source for p in provs if re.search(r"亦[聲声]|兼|[包苞]", p.span)}
    return says == {"duan"}


def _shuowen_class(provs: list[Provenance]) -> str | None:
    """The class Shuowen's own span gives (its rule: ``shuowen.formation.huiyi...`` 会意,
    ``...sheng...`` 形声), None when Shuowen is not among ``provs``."""
    for p in provs:
        if p.source == "shuowen" and p.rule.startswith("shuowen.formation"):
            return "会意" if "huiyi" in p.rule else "形声" if "sheng" in p.rule else None
    return None


def _formation_accepted(c: _FactsCtx, f: Facts) -> None:
    """FORC whose 亦声 rests on Duan alone: Shuowen's plain class (形声, or 会意 where it
    lists the parts without 聲) is accepted beside 形声+会意; a profile that may not use Duan
    (JieZi-Dataset) states the plain class its own sources give."""
    if f.formation is None or _audit_provs(f.formation[1]):
        return
    form, provs = f.formation
    if not (form.yisheng and c.record.formation and _yisheng_from_duan_only(c.record.formation.provenance)):
        return
    if "duan" in {p.source for p in provs}:
        # Shuowen's own class is the plain 形声 of 「从貝反聲」, or 会意 where it lists the
        # parts without 聲 (說 「从言、兌」, Duan 兑亦聲): both answers are Shuowen's or Duan's
        f.accepted["FORC"] = [["会意"]] if _shuowen_class(provs) == "会意" else [["形声"]]
    else:
        # the class the other sources give: 庫 is 會意 in cjkvi-ids and Shuowen alike
        phonetic = any(re.search(r"[聲声]|pictophonetic", p.span) for p in provs)
        f.formation = (Formation(label=form.label if phonetic else "会意", yisheng=False), provs)


def _variant_forms(record: GlyphRecord) -> list[str]:
    """The Shuowen 重文 forms recorded for the character (育: 或體 毓): a real glyph (scan,
    tracing) may be drawn in one of them, so CHAR accepts them too."""
    # the kind a merged variant carries may be another source's (育's 或體 毓 is Unihan's 異體
    # too): a Shuowen 重文 is one Shuowen's provenance cites, whatever kind is shown
    out = [v.form for v in record.variants
           if v.kind not in ("繁體", "簡体") and any(p.source == "shuowen" for p in v.provenance)]
    return [x for x in dict.fromkeys(out) if len(x) == 1 and x != record.character]


def _char_forms(record: GlyphRecord, index: EvidenceIndex) -> list[tuple[str, list[Provenance]]]:
    """CHAR answers the sources accept beside the character itself, for any image: its
    one-to-one traditional / simplified partner (庫 / 库, Unihan; 后 is no partner of 後),
    and, for a character outside the 通用规范汉字表, the table's form Unihan or cjkvi-ids
    links to it (譱 -> 善: the modern standard form of a Shuowen head)."""
    out: dict[str, list[Provenance]] = {}
    for kind in ("簡体", "繁體"):
        got = _trad_simp(record, kind, frozenset({"unihan", "cjkvi-ids"}), index)
        # one-to-one both ways, as the scorer folds them (後 / 后 is no pair: 后 is a word too)
        if got is not None and len(got[0]) == 1 and same_character(got[0], record.character):
            out.setdefault(got[0], list(got[1]))
    if index.modern is not None:
        for form, prov in index.modern.standard_forms(record.character):
            out.setdefault(form, [prov])
    out.pop(record.character, None)
    return list(out.items())


def _forc_facts(c: _FactsCtx, f: Facts) -> None:
    """FORC: the formation class; the bench needs Shuowen and a majority; a seal image needs
    Shuowen's class (it analyses that form); an early form gets none."""
    g = c.record.formation
    if g is not None and _audit_provs(g.provenance):
        f.formation = (g.value, _audit_provs(g.provenance))
        return
    if c.form == "early":
        f.missing["FORC"] = EARLY_FORM_REASON
        return
    if g is None:
        f.missing["FORC"] = "no-formation"
        return
    srcs = {p.source for p in g.provenance}
    if c.form == "seal" and not ("shuowen" in srcs and c.may_use_shuowen()):
        f.missing["FORC"] = SEAL_FORM_REASON
    elif not c.strict:
        usable = c.allowed | MODERN_SOURCES | (c.gap if c.form == "seal" else frozenset())
        provs = [p for p in g.provenance if p.source in usable]
        if provs:
            f.formation = (g.value, provs)
        else:
            f.missing["FORC"] = "other-source:formation"
    elif "shuowen" in srcs and _majority(len(_supporters(g)), g.disagree):
        f.formation = (g.value, list(g.provenance))
    elif "shuowen" not in srcs:
        f.missing["FORC"] = "no-shuowen:formation"
    else:
        f.missing["FORC"] = "disagree:formation" if g.disagree else "unconfirmed:formation"


def _seal_components(c: _FactsCtx) -> list[Component] | None:
    """The record's components that Shuowen's analysis of the head names (the seal form's
    parts); None when the profile may not use Shuowen."""
    if not c.may_use_shuowen():
        return None
    return [x for x in c.record.components if "shuowen" in {p.source for p in x.provenance} | set(x.agree)]


def _component_list(c: _FactsCtx, f: Facts) -> list[CompFact]:
    """The components the profile may state, in record order; sets ``f.missing["COMP"]``."""
    record = c.record
    audited = bool(record.components) and all(_audit_provs(x.provenance) for x in record.components)
    if c.form == "early" and not audited:
        f.missing["COMP"] = EARLY_FORM_REASON
        return []
    source_comps = record.components
    usable = c.allowed | MODERN_SOURCES
    if c.form == "seal" and not audited:
        source_comps = _seal_components(c)
        if source_comps is None:
            f.missing["COMP"] = SEAL_FORM_REASON
            return []
        usable = usable | c.gap
    n_ops = len(ids_operands(record))
    if (not record.components and f.structure and f.structure[0] == "独体" and f.formation
            and f.formation[0].label in ("象形", "指事")):
        # a single pictograph (月, 牛): its one component is the character itself
        # (the official layout's "构件整体"), grounded by the layout and the formation
        return [CompFact(record.character, ["表意"], [
            Provenance(source=p.source, entry_id=p.entry_id, span=p.span, rule="qa.single_component")
            for p in f.structure[1] + f.formation[1]])]
    if audited:
        # the reviewer's component list replaces the sources' (complete by their word)
        return [CompFact(x.name, list(x.functions), _audit_provs(x.provenance)) for x in record.components]
    if not source_comps:
        f.missing["COMP"] = "no-components" if c.form == "modern" else SEAL_FORM_REASON
        return []
    if any(re.search(r"[\u2ff0-\u2fff]", x.name) for x in source_comps):
        f.missing["COMP"] = "ids-fragment-component"  # 两's 「⿻冂从」 names no part (data review 12-04)
        return []
    if c.form == "modern" and 0 < len(record.components) < n_ops:
        # fewer components than the IDS shows (雲 = ⿱雨云 listed with 雨 only): a partial
        # list would be a wrong answer
        f.missing["COMP"] = "incomplete-components"
        return []
    if c.strict:
        if all(_component_confirmed(x) for x in source_comps):
            return [CompFact(x.name, list(x.functions), list(x.provenance)) for x in source_comps]
        f.missing["COMP"] = "disagree:components"
        return []
    comps = []
    for x in source_comps:
        provs = [p for p in x.provenance if p.source in usable]
        if provs:
            comps.append(CompFact(x.name, list(x.functions), provs))
    if len(comps) < len(source_comps):
        # a component only Shuowen names (往's 㞷): a partial list would be a wrong answer
        f.missing["COMP"] = "partial-components"
        return []
    return comps


def _component_details(c: _FactsCtx, f: Facts, comps: list[CompFact], evo: Evolution) -> None:
    """Each component's interpretation (source text, else composed by rule) and evolution type."""
    record = c.record
    src_by_name = {x.name: x for x in record.components}
    src_by_name.update({x.name: Component(name=x.name, functions=x.functions, provenance=x.provenance)
                        for x in comps if x.name not in src_by_name})
    names = [x.name for x in comps]
    parts = _part_sources(c)
    for cf in comps:
        src: Component = src_by_name[cf.name]
        usable = c.allowed | (frozenset({"shuowen"}) if parts.host_text else frozenset())
        interp_ok = [p for p in src.interpretation_provenance if p.source in usable or _audit_provs([p])]
        if (src.interpretation and interp_ok and not _LATIN.search(src.interpretation)
                and len(re.sub(r"[\W也]", "", src.interpretation)) > 1):  # 「丿」 alone says nothing
            cf.interpretation, cf.interpretation_en = _source_interpretation(cf, src, interp_ok, record)
            cf.interpretation_provenance = interp_ok
        else:
            # a seal glyph does not write the modern position forms (亻 for 人): no "written as"
            comp = _compose_interpretation(cf, f, [n for n in names if n != cf.name], c.index,
                                           c.allowed | MODERN_SOURCES | (c.gap if c.form == "seal" else frozenset()),
                                           record if c.form == "modern" else None,
                                           host=record, parts=parts)
            if comp:
                cf.interpretation, cf.interpretation_en, cf.interpretation_provenance = comp
        ce = evo.components.get(cf.name)
        if src.evolution_type and _audit_provs(src.provenance):
            cf.evolution_type, cf.evolution_provenance = src.evolution_type, _audit_provs(src.provenance)
        elif ce is not None:
            cf.evolution_type, cf.evolution_provenance = ce.type, ce.provenance


SHENG_UNLOCATED = "sheng:drawn-part-not-located"
SHENG_RESERVED = "sheng:source-reserved"


POSITION_FORM_REASON = "position-form:no-formation-of-its-own"


def _position_form(record: GlyphRecord, f: Facts) -> None:
    """A record of a component's position form (氵, 亻, 扌: ``builder.aliases.is_position_form``,
    no traditional partner, unlike 门 of 門) asks only CHAR and SCRC: its analysis, meaning and
    history are the full character's, borrowed through a link (氵 got 水's 象形: data review
    12-04)."""
    ch = record.character
    if record.traditional is None and is_position_form(aliases.canonical(ch), ch):
        for k in (*L2_KINDS, "ORIM", "EVOI", "EXEGESIS"):
            f.missing[k] = POSITION_FORM_REASON


def _name_drawn_parts(c: _FactsCtx, f: Facts, comps: list[CompFact]) -> list[CompFact]:
    """Name each 省 component as the glyph draws it (issue 21): 癘 shows 萬 where Shuowen
    reads 「蠆省聲」, so the component is 萬 with ``abbreviates`` 蠆, and its interpretation
    says what the part is and what it stands for (「萬」为「蠆」之省 …，代「蠆」为声符).
    A 省 component whose drawn part the IDS does not show, or whose 省 statement comes
    from a source the profile may not use, leaves the record without component questions
    (``missing["COMP"]`` :data:`SHENG_UNLOCATED` / :data:`SHENG_RESERVED`): naming the
    full component would describe a part the glyph does not have. Returns the list."""
    if not comps:
        return comps
    located, unlocated = abbreviated_parts(c.record, c.index)
    names = {x.name for x in comps}
    if (names & set(unlocated) or unlisted_sheng(comps) or unlisted_pictograph(c.record, comps)
            or unlisted_drawn_part(c.record, comps) or unlisted_named_part(c.record, comps)
            or unlisted_ids_part(c.record, comps)):
        f.missing["COMP"] = SHENG_UNLOCATED
        return []
    usable = c.allowed | c.gap | {"user"}
    for cf in comps:
        d = located.get(cf.name)
        if d is None or cf.abbreviates:
            continue
        if d.provenance[0].source not in usable:
            f.missing["COMP"] = SHENG_RESERVED
            return []
        full = cf.name
        cf.abbreviates, cf.name = full, d.drawn
        cited = d.provenance[0].source == "shuowen"
        zh = f"「{d.drawn}」为「{full}」之省" + (f"（《说文》：{d.span}）" if cited else "")
        en = f"{d.drawn} is an abbreviated {full}" + (f" (Shuowen: {d.span})" if cited else "")
        role = "为声符" if cf.functions == ["表音"] else "表意"
        if cf.interpretation:
            zh += f"，在字中代「{full}」。{cf.interpretation}"
            en += f", standing for {full} in the character. {cf.interpretation_en or ''}".rstrip()
        else:
            zh += f"，在字中代「{full}」{role}"
            en += f", standing for {full}"
        cf.interpretation, cf.interpretation_en = zh, en
        rule = "qa.comi.sheng_drawn"
        cf.interpretation_provenance = cf.interpretation_provenance + [
            Provenance(source=p.source, entry_id=p.entry_id, span=p.span, rule=rule) for p in d.provenance]
        cf.provenance = cf.provenance + [d.provenance[1]]
    return comps


def _component_missing(f: Facts, comps: list[CompFact]) -> None:
    """The component kinds that cannot be asked, from what the list lacks."""
    if not comps:
        for k in ("COMR", "COMF", "COMI", "COME", "COMP_FULL", "COMP_ASPECT"):
            f.missing[k] = f.missing["COMP"]
    else:
        if not all(x.functions for x in comps):
            for k in ("COMF", "COMP_FULL", "COMP_ASPECT"):
                f.missing[k] = "no-function"
        if not all(x.interpretation for x in comps):
            for k in ("COMI", "COMP_FULL", "COMP_ASPECT"):
                f.missing.setdefault(k, "no-interpretation")
        if not all(x.evolution_type for x in comps):
            for k in ("COME", "COMP_FULL"):
                f.missing.setdefault(k, "no-evolution-type")
        if len(comps) < 2:
            f.missing.setdefault("COMP_ASPECT", "single-component")
    f.missing.pop("COMP", None)


# Statement rules that say no change: the seal's analysis, a stage attested, a part kept.
# A narrative of these alone ("小篆作X，《说文》析为…；今字形沿用了X") tells nothing of an
# evolution (the independent review of issue 20 counted it a defect): no EVOI is asked.
NO_CHANGE_RULES = ("evolution.seal_analysis", "evolution.retention", "evolution.attested")
NO_CHANGE_REASON = "evoi:no-change-stated"
NO_SEAL_FORM_REASON = "come:no-seal-form"


def _evoi_facts(c: _FactsCtx, f: Facts, evo: Evolution) -> None:
    """EVOI (two statements at least, one of them a change: :data:`NO_CHANGE_RULES`) and
    the dataset-only / bench-only kinds."""
    # a kept part the modern form writes in another shape (「水」写作「氵」) is a change
    changes = [s for s in evo.statements if not s.rule.startswith(NO_CHANGE_RULES) or "写作" in s.zh]
    if len(evo.statements) >= 2 and changes:
        f.evolution = evo
    else:
        f.missing["EVOI"] = NO_CHANGE_REASON if evo.statements else "no-evolution-evidence"
    if f.evolution is None or f.orim is None or not (f.structure or f.components):
        f.missing["EXEGESIS"] = "incomplete-levels"
    if not any(k.startswith("shuowen:") for k in c.record.raw):
        # COME / COMP_FULL ask for the change 「自小篆至今」: a character no Shuowen entry holds
        # (饨 and its 飩) has no seal form to compare (review of out-r8, seed 20261224 item 65)
        for k in ("COME", "COMP_FULL"):
            f.missing.setdefault(k, NO_SEAL_FORM_REASON)
    if c.strict:
        f.missing["EXEGESIS"] = "dataset-only"
        for k in ("COMR", "COMF", "COMI", "COME"):
            f.missing.setdefault(k, "dataset-only")
    else:
        f.missing.setdefault("COMP_ASPECT", "bench-only")


SEAL_VARIANT_REASON = "seal-form:drawing-of-a-variant"


def _seal_variant(c: _FactsCtx, f: Facts) -> None:
    """A 篆书 record whose form is another head (雰 is Shuowen's 或體 of 氛, 㔳 its 古文 of
    簋): the drawing may show the variant while the analysis, layout and gloss are the
    head's, so no L2 or ORIM question is asked of it (the image is not bench-eligible)."""
    if c.form != "seal" or not c.record.form or c.record.form == c.record.character:
        return
    for k in L2_KINDS + ("ORIM", "EXEGESIS"):
        f.missing[k] = SEAL_VARIANT_REASON
    f.structure, f.formation, f.components, f.orim = None, None, [], None


def facts_for(record: GlyphRecord, profile: Profile, index: EvidenceIndex, *,
              reserved: bool = False) -> Facts:
    """Reduce ``record`` to the facts ``profile`` may state about the form its images show.

    ``reserved``: the character is in JieZi-Bench, so the dataset profile must not use its
    ``gap_sources`` (Shuowen). The L2 facts follow :func:`glyph_form` of the record's
    script: an early form (甲骨文, 金文) gets none (``missing`` reason
    :data:`EARLY_FORM_REASON`), a seal image only Shuowen's analysis of the seal. Returns
    :class:`Facts`; a kind that cannot be asked is in ``Facts.missing`` with a reason
    (``"no-structure"``, ``"disagree:formation"`` ...).
    """
    f = Facts(record.id, record.character, record.script, profile.name)
    c = _FactsCtx(record, profile, index, frozenset() if reserved else profile.gap_sources,
                  glyph_form(record.script))
    _strc_facts(c, f)
    _forc_facts(c, f)
    _structure_accepted(c, f)
    _formation_accepted(c, f)
    _formation_from_split_only(c, f)
    f.variant_forms = _variant_forms(record)
    f.char_forms = _char_forms(record, index)
    f.in_standard_table = index.modern is not None and bool(index.modern.standard) and index.modern.is_standard(
        record.character)
    # 繁简同形 also needs Unihan to give no simplified form but itself (徵 -> 征: data review 12-19)
    f.same_in_both = f.in_standard_table and record.character not in index.modern.simplifies_elsewhere
    f.image_missing = {im.id: {"SCRC": script_neutral.REASON} for im in record.images if im.id in index.script_neutral}
    comps = _component_list(c, f)
    evo_sources = (c.allowed | c.gap | MODERN_SOURCES) if not c.strict else (BENCH_SOURCES | MODERN_SOURCES)
    if _has_audit(record):
        evo_sources = evo_sources | {"user"}  # corrected components / formation feed the evolution
    evo = derive(record, index, evo_sources)
    f.evolution_sources = evo_sources
    _hint_yisheng(comps)
    _duan_yisheng(c, comps)
    _component_details(c, f, comps, evo)
    _mmh_against_head(c, f, comps)
    comps = _name_drawn_parts(c, f, comps)
    _name_simplified_as_drawn(c, comps)
    f.components = comps
    _component_missing(f, comps)
    orim_facts(c, f)
    _evoi_facts(c, f, evo)
    _seal_variant(c, f)
    f.ids_regions = _ids_regions(record)
    _position_form(record, f)
    sw_raw = sum(len(t) for k, t in record.raw.items() if k.startswith("shuowen:"))
    f.richness = (min(sw_raw, 2000) / 200 + 2 * len(record.variants) + 3 * len(evo.statements)
                  + len(comps) + (2 if f.orim else 0))
    return f
