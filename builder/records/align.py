"""Cross-source alignment: all readings of a character -> one merged, source-grounded record.

Which readings belong to a record ``(character, script)``:

- the *form* analysed is the character itself, except for 篆书 when Shuowen lists the
  character as a 古文 / 籒文 / 或體 ... of another head: the seal form is then the head
  (明 is the 古文 of 朙, so the 篆书 record of 明 describes 朙; ``record.form`` says so);
- per source, the readings of that form; else, for a cjkvi-ids ``→X`` link, X's
  analysis; else the readings of its traditional / simplified counterpart (Unihan
  ``kTraditionalVariant`` / ``kSimplifiedVariant``, OpenCC when Unihan is silent), so
  Shuowen's 馬 grounds 马 and makemeahanzi's 钥 grounds 鑰. Values reached that way keep
  their provenance with ``@<relation>:<character>`` appended to the rule; structure and
  IDS are never borrowed (they describe one written form), and borrowed components are
  kept only where the form's IDS shows them.

Per field the value is chosen by vote with a fixed priority for ties (shuowen, duan,
cjkvi-ids, makemeahanzi, unihan, jiezi-official); ``agree`` lists every source whose
own value matches (formation: the same label, or a 亦声 reading compatible with 形声 or
会意; structure: the same IDC; components: the same name and function set) and
``disagree`` maps the others to their value. The provenance of a merged value holds the
chosen source's span and every agreeing source's span.

Components are the etymological ones: the first of Shuowen's analysis (a 重文 keeps its
own components and those of its head that its IDS still shows), cjkvi-ids' analysis,
makemeahanzi's semantic/phonetic, a borrowed analysis (filtered by the IDS), and only
when no source analyses the character, the first-level IDS operands without functions.
Positions (左, 右, 上 ...) come from the first level of the chosen IDS.
"""

from __future__ import annotations

import re
import unicodedata

from builder.aliases import canonical, same_component
from builder.ids import PLACEHOLDERS, IDSError, first_level, leaves, stroke_split, structure_label
from builder.records.fidelity import record_provenance
from builder.records.gather import Candidate, Corpus, _rank, _via, gather
from builder.records.meaning import align_meaning
from builder.records.reading_evidence import _UNIHAN_PINYIN, same_fanqie, unknown_if_read_alike, unstated_modern_phonetic
from builder.records.own_form import (
    chongwen_matches_ids,
    mmh_operand_parts,
    own_ids,
    seal_head_of_variant,
    seal_layout_unconfirmed,
    strictly_shown,
)
from builder.records.structurize import IdsOption
from builder.schema import Component, FidelityFlag, Formation, GlyphRecord, Grounded, Provenance, Reading, Variant
from metrics.acce.labels import EARLY_FORM_SCRIPTS, FUNCTIONS, REGULAR_SCRIPTS

# Sources that name only some components (段注 states an 亦聲 component): silence is no disagreement.
PARTIAL_COMPONENT_SOURCES = {"duan"}
# 重文 kinds older than the seal: a seal drawing of such a character shows its head's seal form
# (明-seal draws 朙). A 或體 / 俗字 is itself a seal form, drawn as the variant (蛇-seal is
# 虫 beside 它, not 它), so its record analyses the variant.
SEAL_IS_HEAD_KINDS = {"古文", "籒文", "奇字", "異體"}


def _first(cands: list[Candidate], attr: str) -> Candidate | None:
    for c in cands:
        v = getattr(c.reading, attr)
        if v:
            return c
    return None


def _choose_ids(cands: dict[str, list[Candidate]], script: str) -> dict[str, IdsOption]:
    """Per source (cjkvi-ids ids.txt, makemeahanzi), the IDS that describes this script's form.

    A record holds every font's rendering of its character, most of them mainland designs
    (Noto CJK SC, AR PL UKai CN, LXGW WenKai ...): the unmarked or mainland (G) alternative
    describes it, the Taiwan-only one (棊 ⿱其朩[T]) only where no G alternative exists
    (final-20261211 item 61: 棊 drawn 其 over 木 in Noto Serif CJK SC)."""
    out: dict[str, IdsOption] = {}
    for source in ("cjkvi-ids", "makemeahanzi"):
        opts = [o for c in cands.get(source, []) if c.via is None for o in c.reading.ids_options
                if o.regions != "analysis"]
        if not opts:
            continue
        if script == "简体":
            order = lambda o: (0 if "G" in o.regions else 1 if o.regions == "" else 2)  # noqa: E731
        else:
            order = lambda o: (0 if o.regions == "" else 1 if "G" in o.regions else 2 if "T" in o.regions else 3)  # noqa: E731
        out[source] = sorted(opts, key=order)[0]
    return out


def _leaf_key(ids: str) -> str:
    return "".join(canonical(ch) for ch in ids)


def _vote(values: dict[str, object], compatible, priority_key=_rank):
    """Pick the value with the most compatible sources (ties: source priority).

    Returns (chosen source, agreeing sources sorted by priority, disagreeing sources)."""
    best = None
    for src in sorted(values, key=priority_key):
        sup = [s for s in values if compatible(values[src], values[s])]
        if best is None or len(sup) > len(best[1]):
            best = (src, sup)
    src, sup = best
    agree = sorted(sup, key=priority_key)
    dis = [s for s in values if s not in sup]
    return src, agree, dis


def _formation_text(f: Formation) -> str:
    return f.label + ("+亦声" if f.yisheng else "")


def formation_compatible(a: Formation, b: Formation) -> bool:
    """Same label, or one is 形声+亦声 and the other 形声 or 会意 (亦声 is both)."""
    if a.label == b.label:
        return True
    return (a.yisheng and b.label in ("形声", "会意")) or (b.yisheng and a.label in ("形声", "会意"))


def analysis_true_of_form(c: Candidate, form_leaves: set[str], corpus: Corpus, ids_list: list[str] | None = None) -> bool:
    """Whether ``c``'s analysis (formation, components) may stand for this form: its own,
    or a same-word counterpart's (:func:`builder.records.gather.same_word_link`) whose
    every component the form's IDS shows (邓 does not draw 鄧's 登, 实 not 實's 貫: their
    「登聲」 / 會意 are not theirs); never 段注's class on a 重文's head (``head:X``). A
    cjkvi-ids ``→X`` link's analysis must name the parts the form draws by their own code
    points (遴 ⿺辶粦 is not 䢯 ⿺辶㷠: a Unihan variant of a part is another drawing). With
    the form's own IDSs (``ids_list``), a 重文 note's analysis stands only where they draw
    the parts it names (:func:`builder.records.own_form.chongwen_matches_ids`)."""
    if c.via is None:
        r = c.reading
        if ids_list is None or r.source != "shuowen" or not r.head or not r.components:
            return True
        names = [x.name for x in r.components] + [x.name for x in r.inherited_components if _shown(x.name, form_leaves, corpus)]
        return chongwen_matches_ids(names, ids_list, corpus)
    if c.via.startswith("head:"):
        return False
    comps = list(c.reading.components)
    if c.source == "duan":
        # Duan's class is of the parts Xu's analysis of the same entry names (實 从宀从貫)
        key = "shuowen:" + c.reading.entry_key.split(":", 1)[1]
        comps += [x for r in corpus.readings.get(c.reading.character, []) if r.entry_key == key and r.head is None
                  for x in r.components]
    if c.via.startswith("link:"):
        return all(strictly_shown(x.name, sorted(form_leaves)) for x in comps)
    return all(_shown(x.name, form_leaves, corpus) for x in comps)


def _component_sets(c: Candidate, form_ids_leaves: set[str], corpus: Corpus, ids_list: list[str]) -> list[Component]:
    """A candidate's etymological components for this form (a 重文's kept parts of its head
    filtered by the IDS; nothing from an analysis that is not true of the form). A 重文
    note's parts stand only where one of the form's own IDSs (``ids_list``) draws exactly
    them (:func:`builder.records.own_form.chongwen_matches_ids`); makemeahanzi's fields only
    where they are whole first-level operands (:func:`builder.records.own_form.mmh_operand_parts`)."""
    r = c.reading
    if not analysis_true_of_form(c, form_ids_leaves, corpus, ids_list):
        return []
    # a part Shuowen names after a position word is one only where the IDS shows it (看 从手下目
    # shows 目; 非 从飛下翄 shows no 翄: the lowered wings of 飛)
    out = [x.model_copy(deep=True) for x in r.components
           if not any(".located" in p.rule for p in x.provenance) or _shown(x.name, form_ids_leaves, corpus)]
    out += [x.model_copy(deep=True) for x in r.inherited_components if _shown(x.name, form_ids_leaves, corpus)]
    if r.source == "makemeahanzi":
        out = mmh_operand_parts(out, ids_list, corpus)
    for x in out:
        x.provenance = _via(x.provenance, c.via)
        x.interpretation_provenance = _via(x.interpretation_provenance, c.via)
    return out


def _shown(name: str, leaves_: set[str], corpus: Corpus) -> bool:
    return any(same_component(name, l, variants=corpus.variants) for l in leaves_)


def _position(name: str, operands, corpus: Corpus) -> tuple[int, str | None]:
    """(operand index, position) of the first-level IDS operand showing ``name``; (99, None) if none."""
    for i, o in enumerate(operands):
        if o.is_character and same_component(name, o.text, variants=corpus.variants):
            return i, o.position
    for i, o in enumerate(operands):
        if not o.is_character and any(same_component(name, l, variants=corpus.variants) for l in leaves(o.text)):
            return i, o.position
    return 99, None


def align(character: str, script: str, corpus: Corpus) -> GlyphRecord:
    """The merged record of ``character`` as written in ``script`` (no images attached).

    One step per field group, in this order (each returns the candidates it used, whose
    raw texts and fidelity flags the record keeps): IDS and structure, formation,
    components (none of the three for an early-form script,
    :data:`metrics.acce.labels.EARLY_FORM_SCRIPTS`), original meaning / English definition /
    senses, readings, variants, radical-stroke and traditional / simplified forms. Never
    raises for missing data: fields no source supports stay empty.
    """
    form = _written_form(character, script, corpus)
    cands = gather(form, corpus)
    rec = GlyphRecord(id=f"{character}_{script}", character=character, script=script,
                      form=form if form != character else None)
    used: list[Candidate] = []
    if script not in EARLY_FORM_SCRIPTS:
        # an oracle-bone, bronze or Warring States form is analysed by none of the sources (the
        # IDS and dictionaries describe the modern character, Shuowen the seal): its record
        # states no layout, parts or class (眉's 甲骨文 is no ⿸; the 楷书 record has them)
        chosen_ids, used = _align_ids(rec, cands, script, form)
        operands, form_leaves = _shape(cands, chosen_ids, form)
        used += _align_formation(rec, cands, form_leaves, corpus)
        used += _align_components(rec, cands, chosen_ids, operands, form_leaves, corpus)
        unstated_modern_phonetic(rec, cands, _written_form(character, "篆书", corpus), corpus)
        if script == "篆书" and (why := seal_layout_unconfirmed(rec, corpus)):
            # the modern IDS layout stated of a seal drawing only where Shuowen confirms it
            rec.flags.append(FidelityFlag(field="structure", value=rec.structure.value, reason=why,
                                          source=rec.structure.provenance[0].source if rec.structure.provenance else None))
            rec.structure = None
    used += align_meaning(rec, cands)
    used += _align_readings(rec, cands, corpus)
    _flag_contradictions(rec, cands, corpus)
    used += _align_variants(rec, cands, form, corpus)
    used += _align_forms(rec, cands, character, corpus)
    # the entry a 重文 is listed in stays in raw even when no field takes a value from it:
    # the evolution narrative says whose 或體 / 古文 the character is (隼 under 鵻)
    used += [c for c in cands.get("shuowen", []) if c.via is None and c.reading.head]
    _attach_raw(rec, used, corpus)
    return rec


def _written_form(character: str, script: str, corpus: Corpus) -> str:
    """The form a record of ``script`` shows: for 篆书, the Shuowen head when ``character``
    is only a later form of it (and not a head of its own), or the one Shuowen head among
    its Unihan variants when Shuowen does not list it (麵 -> 麪,
    :func:`builder.records.own_form.seal_head_of_variant`); else ``character``."""
    if script == "篆书":
        for r in corpus.readings.get(character, []):
            if r.source == "shuowen" and r.head and r.form_kind in SEAL_IS_HEAD_KINDS \
                    and not any(x.source == "shuowen" and x.head is None for x in corpus.readings.get(character, [])):
                return r.head
        return seal_head_of_variant(character, corpus) or character
    return character


def _align_ids(rec: GlyphRecord, cands: dict[str, list[Candidate]], script: str,
               form: str) -> tuple[IdsOption | None, list[Candidate]]:
    """``rec.structure`` and ``rec.ids`` (never borrowed from a linked form): the majority
    structure label and IDS over the sources. Returns (the chosen IDS option or None, the
    candidates used)."""
    used: list[Candidate] = []
    ids_by_source = _choose_ids(cands, script)
    if not ids_by_source:
        return None, used
    # a split into strokes only (力 ⿻丿𠃌) is a single graph: 独体, not the split's layout
    labels_ = {s: "独体" if stroke_split(o.ids) else structure_label(o.ids, form) for s, o in ids_by_source.items()}
    labels_ = {s: v for s, v in labels_.items() if v}
    if labels_:
        src, agree, dis = _vote(labels_, lambda a, b: a == b)
        provs = [p for s in agree for p in _via(ids_by_source[s].provenance, None)]
        rule = ("ids.top_idc" if labels_[src] != "独体" else
                "ids.stroke_split" if stroke_split(ids_by_source[src].ids) else "ids.single_component")
        rec.structure = Grounded(value=labels_[src], provenance=[p.model_copy(update={"rule": rule}) for p in provs],
                                 agree=agree, disagree={s: labels_[s] for s in dis})
    keys = {s: _leaf_key(o.ids) for s, o in ids_by_source.items()}
    src, agree, dis = _vote(keys, lambda a, b: a == b)
    chosen_ids = ids_by_source[src]
    rec.ids = Grounded(value=chosen_ids.ids, provenance=[p for s in agree for p in ids_by_source[s].provenance],
                       agree=agree, disagree={s: ids_by_source[s].ids for s in dis})
    for s in ids_by_source:
        used += [c for c in cands.get(s, []) if c.via is None and c.reading.ids_options][:1]
    return chosen_ids, used


def _shape(cands: dict[str, list[Candidate]], chosen_ids: IdsOption | None, form: str) -> tuple[list, set[str]]:
    """(first-level IDS operands, leaf components other than the form itself) of the
    glyph, from the chosen IDS or else cjkvi-ids' analysis IDS (the etymological layout,
    used only to locate components)."""
    operands = []
    form_leaves: set[str] = set()
    ids_for_shape = chosen_ids.ids if chosen_ids else None
    if ids_for_shape is None:
        ana = [o for c in cands.get("cjkvi-ids", []) if c.via is None for o in c.reading.ids_options
               if o.regions == "analysis"]
        ids_for_shape = ana[0].ids if ana else None
    if ids_for_shape:
        try:
            operands = first_level(ids_for_shape)
        except IDSError:
            operands = []
        form_leaves = set(leaves(ids_for_shape)) | {o.text for o in operands if o.is_character}
    form_leaves.discard(form)
    return operands, form_leaves


def _align_formation(rec: GlyphRecord, cands: dict[str, list[Candidate]], form_leaves: set[str],
                     corpus: Corpus) -> list[Candidate]:
    """``rec.formation``: the majority formation (亦声 compatible with 形声 and 会意, and
    kept when an agreeing source states it) over the analyses true of this form
    (:func:`analysis_true_of_form`). Returns the candidates used."""
    fvals: dict[str, tuple[Formation, Candidate]] = {}
    ids_list = own_ids(cands)
    for s, cl in cands.items():
        c = _first([x for x in cl if analysis_true_of_form(x, form_leaves, corpus, ids_list)], "formation")
        if c:
            fvals[s] = (c.reading.formation.value, c)
    _drop_contradicted_mmh_type(rec, fvals)
    held = _shuowen_governs(rec, cands, fvals)
    if not fvals:
        return []
    src, agree, dis = _vote({s: v[0] for s, v in fvals.items()}, formation_compatible)
    if agree == ["makemeahanzi"] and rec.script == "篆书":
        return []  # the modern form's class, not the seal's (as for the components)
    value = fvals[src][0].model_copy()
    if agree == ["makemeahanzi"] and value.label != "形声":
        # makemeahanzi's "ideographic" / "pictographic" type alone is a learner's mnemonic, not
        # a Six-Writings analysis (亵 会意 against 說文 褻 「从衣埶聲」: review of out-r9, seed
        # 20261227 item 113); its "pictophonetic" names the phonetic and stays
        rec.flags.append(FidelityFlag(field="formation", value=_formation_text(value), source="makemeahanzi",
                                      span=fvals[src][1].reading.formation.provenance[0].span,
                                      reason="only makemeahanzi's etymology type gives this class: not presented"))
        return [fvals[s][1] for s in fvals]
    if value.label in ("形声", "会意") and not value.yisheng and [s for s in agree if fvals[s][0].yisheng]:
        # 庫 「从車在广下」 (会意) with Duan's 「車亦聲」: 亦声 is 形声 and 会意 at once, and the
        # QA stage accepts Shuowen's plain class beside it (data review 12-04)
        value = Formation(label="形声", yisheng=True)
    provs = [p for s in agree for p in _via(fvals[s][1].reading.formation.provenance, fvals[s][1].via)]
    rec.formation = Grounded(value=value, provenance=provs, agree=agree,
                             disagree={**{s: _formation_text(fvals[s][0]) for s in dis}, **held})
    return [fvals[s][1] for s in fvals]


def _shuowen_governs(rec: GlyphRecord, cands: dict[str, list[Candidate]],
                     fvals: dict[str, tuple[Formation, Candidate]]) -> dict[str, str]:
    """Where the character's own 說文 entry gives a formula (a class, or parts 「从X」 /
    「X聲」), the class is the Shuowen tradition's (說文, 段注): makemeahanzi's
    etymology type and cjkvi-ids' 聲 / 六書 labels are a learner's and a modern
    editor's reading, used only where Shuowen has no entry or formula (再 「从冓省」 is
    not 象形, 佼 「从人从交」 is not 形声: data review 12-18/12-19). A source that
    disagrees is flagged and taken out of the vote; with a formula but no class (再)
    none is presented. Returns the held-out sources with their class (``disagree``)."""
    tradition = [s for s in ("shuowen", "duan") if s in fvals]
    own = [c for c in cands.get("shuowen", []) if c.via is None and not c.reading.head
           and (c.reading.formation or c.reading.components)]
    if not tradition and not own:
        return {}
    held: dict[str, str] = {}
    for s in [s for s in fvals if s not in ("shuowen", "duan")]:
        f, c = fvals[s]
        if any(formation_compatible(fvals[t][0], f) for t in tradition):
            continue
        sw = _formation_text(fvals[tradition[0]][0]) if tradition else "no class"
        tp = fvals[tradition[0]][1].reading.formation.provenance if tradition else own[0].reading.components[0].provenance
        span = tp[0].span if tp else ""
        rec.flags.append(FidelityFlag(field="formation", value=_formation_text(f), source=s,
                                      span=c.reading.formation.provenance[0].span,
                                      reason=f"Shuowen's own formula governs the class ({sw} {span}); "
                                             f"{s}'s {_formation_text(f)} is not presented"))
        held[s] = _formation_text(f)
        del fvals[s]
    return held


def _drop_contradicted_mmh_type(rec: GlyphRecord, fvals: dict[str, tuple[Formation, Candidate]]) -> None:
    """makemeahanzi's etymology type is a learner's label: where cjkvi-ids' 六書 analysis
    (which follows Shuowen) gives another class (偬: 「ideographic」 against 怱聲), it is
    flagged and left out of the vote and of the agreement claims (issue 20 review)."""
    m, c = fvals.get("makemeahanzi"), fvals.get("cjkvi-ids")
    if m is None or c is None or formation_compatible(m[0], c[0]):
        return
    p = m[1].reading.formation.provenance[0]
    cp = c[1].reading.formation.provenance[0]
    rec.flags.append(FidelityFlag(field="formation", value=_formation_text(m[0]), source="makemeahanzi", span=p.span,
                                  reason=f"makemeahanzi's type disagrees with cjkvi-ids' analysis "
                                         f"{_formation_text(c[0])} ({cp.span})"))
    del fvals["makemeahanzi"]


def _align_components(rec: GlyphRecord, cands: dict[str, list[Candidate]], chosen_ids: IdsOption | None,
                      operands: list, form_leaves: set[str], corpus: Corpus) -> list[Candidate]:
    """``rec.components``: the best-ranked full analysis (direct before borrowed; 段注, a
    partial source, never gives the list), each component checked against the other
    analyses and placed in reading order; with no analysis, the IDS operands (each a character) without
    functions (not for 象形 / 指事: a pictograph's strokes are no components). A seal
    record takes no list from makemeahanzi (whether or not Shuowen lists its form), which analyses the
    modern form (麵-seal drew 麪 「从麥丏聲」; makemeahanzi's 麵 has 麥 as its phonetic).
    Returns the candidates used."""
    ids_list = own_ids(cands)
    comp_sets: list[tuple[str, Candidate, list[Component]]] = []
    for s in sorted(cands, key=_rank):
        for c in cands[s]:
            if c.reading.components or c.reading.inherited_components:
                comps = _component_sets(c, form_leaves, corpus, ids_list)
                if comps:
                    comp_sets.append((s, c, comps))
                    break
    comp_sets.sort(key=lambda t: (t[0] in PARTIAL_COMPONENT_SOURCES, t[1].via is not None, _rank(t[0])))
    # makemeahanzi analyses the modern form: a seal drawing Shuowen does not list under this
    # code point gets nothing from it either (苄-seal draws 芐 「地黃」 艸 + 下, makemeahanzi's
    # 苄 biàn has 卞: review of out-r12, seed 20261231 item 115)
    if rec.script == "篆书" and comp_sets and comp_sets[0][0] == "makemeahanzi":
        return []
    if comp_sets and comp_sets[0][0] not in PARTIAL_COMPONENT_SOURCES:
        drawn = ids_list if rec.script in REGULAR_SCRIPTS else []
        rec.components = _merge_components(comp_sets, operands, corpus, drawn)
        unknown_if_read_alike(rec, corpus)
        return [t[1] for t in comp_sets]
    # an operand drawn as a sub-structure (𩕎 ⿰⿱舟足頁) names no component: no list rather than a
    # fragment 「⿱舟足」 (review of out-r8, seed 20261224 item 109)
    if chosen_ids and operands and all(o.is_character for o in operands) and not stroke_split(chosen_ids.ids) \
            and not (rec.formation and rec.formation.value.label in ("象形", "指事")):
        for o in operands:
            if o.text in PLACEHOLDERS or any(ch in PLACEHOLDERS for ch in o.text):
                continue
            rec.components.append(Component(
                name=canonical(o.text, o.position) if o.is_character else o.text, position=o.position,
                provenance=[p.model_copy(update={"rule": "ids.first_level"}) for p in chosen_ids.provenance],
                agree=list(rec.ids.agree) if rec.ids else []))
    return []


def _merge_components(comp_sets: list[tuple[str, Candidate, list[Component]]], operands: list,
                      corpus: Corpus, drawn: list[str]) -> list[Component]:
    """The first set's components, each with the sources that agree on its functions (or
    disagree, or do not list it), an interpretation borrowed from another source when it
    has none, and its position; sorted in the glyph's reading order (left to right, top
    to bottom, outside in), then as the source lists them. On a modern glyph (``drawn``:
    its own IDSs) a part named by a semantic variant the glyph does not draw takes the
    name another source gives as drawn (遴: Shuowen's 㷠, makemeahanzi's 粦)."""
    base_src, _base_cand, base = comp_sets[0]
    order: dict[int, int] = {}
    for comp in base:
        comp.agree = [base_src]
        for s, _c, other in comp_sets[1:]:
            match = next((o for o in other if same_component(comp.name, o.name, variants=corpus.variants)), None)
            if match is None:
                if s not in PARTIAL_COMPONENT_SOURCES:
                    comp.disagree[s] = "not listed"
                continue
            if drawn and not strictly_shown(comp.name, drawn) and strictly_shown(match.name, drawn) \
                    and not _counterparts(comp.name, match.name, corpus):
                comp.name = match.name
            if sorted(match.functions) == sorted(comp.functions):
                comp.agree.append(s)
                comp.provenance += match.provenance
            else:
                comp.disagree[s] = "、".join(match.functions) or "no function"
            if not comp.interpretation and match.interpretation:
                comp.interpretation = match.interpretation
                comp.interpretation_provenance = match.interpretation_provenance
        order[id(comp)], comp.position = _position(comp.name, operands, corpus) if operands else (99, None)
        if comp.name in ("阝",) and comp.position in ("左", "右"):
            comp.name = canonical(comp.name, comp.position)
    return sorted(base, key=lambda c: order[id(c)])


def _counterparts(a: str, b: str, corpus: Corpus) -> bool:
    """Whether ``a`` and ``b`` are a traditional / simplified pair (named as drawn by the QA
    stage, not renamed here)."""
    return b in corpus.traditional.get(a, []) + corpus.simplified.get(a, []) \
        or a in corpus.traditional.get(b, []) + corpus.simplified.get(b, [])


def _align_readings(rec: GlyphRecord, cands: dict[str, list[Candidate]], corpus: Corpus) -> list[Candidate]:
    """``rec.readings``: pinyin and 反切 from every source, merged by value (their
    provenance pooled; two 反切 spelling the same syllable are one, :func:`same_fanqie`:
    蚤 子皓 / 子晧). Returns the candidates used."""
    used: list[Candidate] = []
    by_value: dict[tuple[str | None, str | None], Reading] = {}
    for s in sorted(cands, key=_rank):
        c = _first([x for x in cands[s] if x.via is None], "readings") or _first(cands[s], "readings")
        if not c:
            continue
        used.append(c)
        for rd in c.reading.readings:
            key = (rd.pinyin, rd.fanqie)
            have = by_value.get(key) or next((v for k, v in by_value.items() if rd.fanqie and k[0] == rd.pinyin
                                              and k[1] and same_fanqie(k[1], rd.fanqie, corpus)), None)
            if have is None:
                by_value[key] = rd.model_copy(update={"provenance": _via(rd.provenance, c.via)})
            else:
                have.provenance += _via(rd.provenance, c.via)
    rec.readings = list(by_value.values())
    return used


def _align_variants(rec: GlyphRecord, cands: dict[str, list[Candidate]], form: str,
                    corpus: Corpus) -> list[Candidate]:
    """``rec.variants``: the form's own (Shuowen 重文, Unihan, cjkvi-ids), merged by (form,
    kind), and the forms whose cjkvi-ids analysis links to it. Returns the candidates used."""
    used: list[Candidate] = []
    seen: dict[tuple[str, str], Variant] = {}
    for s in sorted(cands, key=_rank):
        for c in cands[s]:
            if c.via is not None:
                continue
            for v in c.reading.variants:
                key = (v.form, v.kind)
                if key in seen:
                    seen[key].provenance += v.provenance
                else:
                    seen[key] = v.model_copy(deep=True)
            if c.reading.variants:
                used.append(c)
    for other, kind, r in corpus.reverse_links.get(form, []):
        if other == form or kind == "異體" and not r.formation:
            continue
        line = next((l for l in corpus.texts.get(r.entry_key, "").split("\n")
                     if f"\t{other}\t" in l and any(f"{m}{form}" in l for m in ("→", "←", "<"))), None)
        if line is None:
            continue
        entry_id = r.entry_key.split(":", 1)[1]
        key = (other, kind)
        p = Provenance(source="cjkvi-ids", entry_id=entry_id, span=line, rule="cjkvi-ids.analysis.link")
        if key in seen:
            seen[key].provenance.append(p)
        else:
            seen[key] = Variant(form=other, kind=kind, provenance=[p])
        used.append(Candidate(r))
    rec.variants = list(seen.values())
    return used


def _align_forms(rec: GlyphRecord, cands: dict[str, list[Candidate]], character: str,
                 corpus: Corpus) -> list[Candidate]:
    """``rec.radical_stroke`` (Unihan) and ``rec.traditional`` / ``rec.simplified`` (Unihan
    variant links; none when the character is its own traditional form). Returns the
    candidates used."""
    used: list[Candidate] = []
    uc = _first([x for x in cands.get("unihan", []) if x.via is None], "radical_stroke")
    if uc:
        rec.radical_stroke = Grounded(value=uc.reading.radical_stroke.value,
                                      provenance=list(uc.reading.radical_stroke.provenance), agree=["unihan"])
        used.append(uc)
    trad = corpus.traditional.get(character)
    simp = corpus.simplified.get(character)
    rec.traditional = next((t for t in trad or [] if t != character), None)
    rec.simplified = next((t for t in simp or [] if t != character), None)
    if trad and character in trad and character not in corpus.simplified_only:
        rec.traditional = None  # 云 is a traditional character too (实 only in a rare-character set)
    return used


def _unihan_pinyin(cands: dict[str, list[Candidate]], corpus: Corpus) -> set[str]:
    """Every Mandarin reading the character's own Unihan entry lists (kMandarin, and
    kHanyuPinyin / kXHC1983 as ``location:reading,reading``), NFC; empty when none."""
    out: set[str] = set()
    for c in cands.get("unihan", []):
        if c.via is not None:
            continue
        for m in _UNIHAN_PINYIN.finditer(corpus.texts.get(c.reading.entry_key, "")):
            for item in m.group(1).split():
                out.update(x for x in item.split(":")[-1].split(",") if x)
    return {unicodedata.normalize("NFC", x) for x in out}


def _flag_contradictions(rec: GlyphRecord, cands: dict[str, list[Candidate]], corpus: Corpus) -> None:
    """Flag, and keep out of the record's facts, what makemeahanzi says against Unihan or
    Shuowen (issue 21): a pinyin no Unihan reading field gives (髒 zàng; Unihan: zāng,
    zǎng), and a hint phrase read as the interpretation of a component whose function
    makemeahanzi gets wrong (柔: 「so soft it can be cut」 for 矛, which Shuowen and
    cjkvi-ids read as the phonetic). Each becomes a ``FidelityFlag`` in ``rec.flags``."""
    unihan = _unihan_pinyin(cands, corpus)
    if unihan:
        kept = []
        for rd in rec.readings:
            only_mmh = rd.pinyin and {p.source for p in rd.provenance} == {"makemeahanzi"}
            if only_mmh and unicodedata.normalize("NFC", rd.pinyin) not in unihan:
                rec.flags.append(FidelityFlag(field="readings", value=rd.pinyin, source="makemeahanzi",
                                              span=rd.provenance[0].span,
                                              reason=f"no Unihan reading field gives it (Unihan: {', '.join(sorted(unihan))})"))
                continue
            kept.append(rd)
        rec.readings = kept
    for comp in rec.components:
        srcs = {p.source for p in comp.interpretation_provenance}
        said = set(comp.disagree.get("makemeahanzi", "").split("、"))
        # a disagreement only when makemeahanzi shares none of the agreed functions (誥: its
        # 告 表意、表音 includes Shuowen's 表音)
        if comp.interpretation and srcs == {"makemeahanzi"} and said & set(FUNCTIONS) and not said & set(comp.functions):
            rec.flags.append(FidelityFlag(
                field="components.interpretation", value=comp.interpretation, source="makemeahanzi",
                span=comp.interpretation_provenance[0].span,
                reason=f"makemeahanzi's hint reads {comp.name} as {comp.disagree['makemeahanzi']}; "
                       f"the agreeing sources ({', '.join(comp.agree)}) read it as {'、'.join(comp.functions)}"))
            comp.interpretation, comp.interpretation_provenance = None, []


def _attach_raw(rec: GlyphRecord, used: list[Candidate], corpus: Corpus) -> None:
    """``rec.raw``: the raw text of every entry consulted or cited (sorted by key), and
    ``rec.flags``: the fidelity flags those readings raised, each once, in order."""
    keys: dict[str, None] = {}
    flags: list[FidelityFlag] = []
    for c in used:
        keys[c.reading.entry_key] = None
        flags += c.reading.flags
    for _path, p in record_provenance(rec):
        keys[f"{p.source}:{p.entry_id}"] = None
    rec.raw = {k: corpus.texts[k] for k in sorted(keys) if k in corpus.texts}
    seen_flags = set()
    for f in flags:
        k = (f.field, f.value, f.reason)
        if k not in seen_flags:
            seen_flags.add(k)
            rec.flags.append(f)
