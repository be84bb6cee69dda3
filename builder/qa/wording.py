"""QA pairs worded from facts: the question and answer texts of every template kind.

:func:`make_qa` fills a template (``hub.templates``) of one kind from a record's
:class:`~builder.qa.facts.Facts`: the answer text, its English wording, the structured
answer (``answer_struct``), the metric keys and the provenance of the fields used;
:func:`_exegesis` writes the four-level analysis in the layout of the official JieZi
samples. :func:`image_missing` says when a font image cannot show what a structure
question asks (:data:`FONT_REGIONS`).
"""

from __future__ import annotations

import re
from typing import Iterable

from builder.qa.evidence import REAL_IMAGE_STYLES
from builder.qa.facts import CompFact, Facts, QA
from builder.qa.form_audit import verdict_of
from builder.schema import Formation, GlyphImage, GlyphRecord, Provenance
from hub import templates as T
from metrics.acce import answers, labels


IMAGE_SOURCES = frozenset({"oracle-mnist", "lxgw-seal", "font", "user", "jiezi-official"})


def _prov(field_name: str, provs: Iterable[Provenance]) -> list[dict]:
    out, seen = [], set()
    for p in provs:
        key = (field_name, p.source, p.entry_id, p.span, p.rule)
        if key not in seen:
            seen.add(key)
            out.append({"field": field_name, **p.model_dump()})
    return out


# Region whose standard glyph shapes a font design follows (the cjkvi-ids region tags:
# G mainland China, T Taiwan, J Japan, K Korea). A design not listed has no known region.
FONT_REGIONS: dict[str, str] = {
    "Noto Serif CJK SC": "G", "Noto Sans CJK SC": "G", "AR PL UKai CN": "G", "AR PL UMing CN": "G",
    "WenQuanYi Zen Hei": "G", "LXGW WenKai": "G",
    "TW-Kai": "T", "TW-Sung": "T", "AR PL UKai TW": "T", "AR PL UMing TW": "T",
    "Hanazono Mincho": "J",
}
STRUCTURE_KINDS = frozenset({"STRC", "COMR", "COMF", "COMI", "COME", "COMP_FULL", "COMP_ASPECT", "EXEGESIS"})
FONT_REGION_REASON = "font-draws-another-decomposition"


def _drawn_variants(facts: Facts, image: GlyphImage) -> list[str]:
    """The Shuowen 重文 forms of ``facts.variant_forms`` that the form audit says ``image``
    is drawn in (時 drawn as its 古文 旹): CHAR accepts them for that drawing only. Another
    drawing accepts none: a 重文 built otherwise than the drawing (赤's 古文 烾, 从炎、土, for
    a 大-over-火 drawing) is no reading of it (data review 12-04)."""
    if image.style not in REAL_IMAGE_STYLES or not facts.variant_forms:
        return []
    verdict = verdict_of(image) or ""
    return [v for v in facts.variant_forms if verdict.startswith("differs") and v in verdict]


def _ids_regions(record: GlyphRecord) -> frozenset[str] | None:
    """Regions whose glyph the record's IDS describes, when cjkvi-ids gives the character
    different IDS per region (舊: ⿱萑臼 [GJK], ⿱雈臼 [T]); None when it gives one."""
    if record.ids is None:
        return None
    line = next((t for k, t in record.raw.items() if k.startswith("cjkvi-ids:ids.txt:")), "")
    opts = re.findall(r"([^\t\[\]]+)\[([A-Z]+)\]", "\t".join(line.split("\t")[2:]))
    if len({ids for ids, _ in opts}) < 2:
        return None
    return frozenset(r for ids, regions in opts if ids.strip() == record.ids.value for r in regions)


def image_missing(facts: Facts, image: GlyphImage) -> dict[str, str]:
    """Kinds one image of a record cannot be asked though the record can: a font whose
    region draws another decomposition than the record's IDS (舊 in Hanazono Mincho shows
    萑, the record's IDS 雈) gets no structure or component question
    (:data:`FONT_REGION_REASON`); an image :mod:`builder.qa.script_neutral` finds shows no
    script gets no SCRC (``Facts.image_missing``). ``{}`` for scans, tracings and fonts that
    match."""
    own = dict(facts.image_missing.get(image.id, {}))
    if facts.ids_regions is None or not image.style.startswith("font"):
        return own
    if FONT_REGIONS.get(image.font or "") in facts.ids_regions:
        return own
    return own | {k: FONT_REGION_REASON for k in STRUCTURE_KINDS if k not in facts.missing}


# --- rendering --------------------------------------------------------------------------

def _struct_label(s: str) -> tuple[str, str]:
    return answers.structure_text(s, "zh"), answers.structure_text(s, "en")


def _formation_text(form: Formation) -> tuple[str, str]:
    return answers.formation_text(form.label_set(), "zh"), answers.formation_text(form.label_set(), "en")


def _comp_lines(comps: list[CompFact], *, functions: bool, interpretation: bool,
                evolution: bool) -> tuple[str, str]:
    wanted = {"functions": functions, "evolution_type": evolution, "interpretation": interpretation}
    attrs = [a for a in answers.COMPONENT_ATTRIBUTES if wanted[a]]
    dicts = [{"name": c.name, "functions": c.functions, "evolution_type": c.evolution_type,
              "interpretation": c.interpretation, "interpretation_en": c.interpretation_en,
              "abbreviates": c.abbreviates} for c in comps]
    return answers.components_text(dicts, attrs, "zh"), answers.components_text(dicts, attrs, "en")


def _comp_prov(comps: list[CompFact], *, interpretation: bool, evolution: bool) -> list[dict]:
    out = []
    for c in comps:
        out += _prov("components", c.provenance)
        if interpretation:
            out += _prov("components.interpretation", c.interpretation_provenance)
        if evolution:
            out += _prov("components.evolution_type", c.evolution_provenance)
    return out


def _forc_answer(facts: Facts) -> tuple[str, str, dict, list[dict]]:
    """The FORC answer (zh, en, answer_struct, provenance) of ``facts``: the formation, and
    where Duan alone reads 亦声 the accepted plain class with his reading said."""
    form, provs = facts.formation
    zh, en = _formation_text(form)
    struct = {"formation": form.label_set(), "yisheng": form.yisheng}
    if "FORC" in facts.accepted:
        struct["accepted"] = facts.accepted["FORC"]
        sw = facts.accepted["FORC"][0][0]
        span = next((p.span for p in provs if p.source == "shuowen" and p.rule.startswith("shuowen.formation")), "")
        if sw == "会意":
            # 庫 「从車在广下」: the sources' own label leads, Duan's 亦声 qualifies it (data review 12-04)
            zh = "会意" + (f"（《说文》「{span}」）" if span else "") + "；段注以为亦声，会意兼形声"
            en = "Ideographic compound (会意) in Shuowen; Duan reads the part as also phonetic (亦声)"
        else:
            zh += f"；此亦声之说出自段注，《说文》作{sw}" + (f"（「{span}」）" if span else "")
            en += "; the 亦声 reading is Duan's, Shuowen's analysis is a plain phono-semantic compound"
    return zh, en, struct, _prov("formation", provs)


def make_qa(facts: Facts, kind: str, phrasing: int, image: GlyphImage) -> QA | None:
    """Compose the QA pair of ``kind`` (phrasing index ``phrasing``) for ``image``.

    Returns None when ``facts`` lack a field the kind needs (see ``Facts.missing``).
    """
    if kind in facts.missing or kind in image_missing(facts, image):
        return None
    subtask, level, metrics = T.KINDS[kind]
    attributed = True if kind != "ORIM" else ("duan" if facts.orim[3] == "duan" else facts.orim[3] == "shuowen")
    parts = tuple(p for p, v in (("structure", facts.structure), ("components", facts.components),
                                 ("formation", facts.formation)) if v)
    q_zh, q_en = T.question(kind, phrasing, script=facts.script, attributed=attributed, parts=parts)
    tid = T.template_id(kind, phrasing)
    image_prov = [{"field": "image", "source": _image_source(image), "entry_id": image.id,
                   "span": facts.character, "rule": "image.label"}]
    c = facts.character

    def qa(answer, answer_en, struct, provenance, fields):
        return QA(kind, subtask, level, q_zh, answer, q_en, answer_en, struct, list(metrics),
                  provenance, fields, tid)

    if kind == "CHAR":
        struct = {"character": c}
        accepted = _drawn_variants(facts, image)
        accepted += [form for form, _ in facts.char_forms if form not in accepted]
        if accepted:
            struct["accepted"] = accepted
        return qa(c, c, struct, image_prov + _prov("accepted", [p for _, ps in facts.char_forms for p in ps]),
                  ["character"])
    if kind == "SCRC":
        s = facts.script
        if s in ("楷书", "简体") and not facts.char_forms and facts.same_in_both:
            # 昌, 洸: a character of the 通用规范汉字表 with no other form in either standard, so
            # the regular-script rendering is 楷书 and 简体 alike (not said of 𪋻, a variant of 塵) (the scorer counts 简体 as 楷书): the reference says so (data review 12-04)
            return qa("楷书（此字繁简同形，亦即简体）", "Regular script (楷书); the character is the same in the "
                      "simplified standard (简体)", {"script": "楷书"},
                      [{**image_prov[0], "span": s, "rule": "image.script.same_in_both_standards"}], ["script"])
        return qa(s, f"{labels.SCRIPTS[s]} ({s})", {"script": s},
                  [{**image_prov[0], "span": s, "rule": "image.script"}], ["script"])
    if kind == "STRC":
        v, provs = facts.structure
        zh, en = _struct_label(v)
        struct = {"structure": v, **({"accepted": facts.accepted["STRC"]} if "STRC" in facts.accepted else {})}
        return qa(zh, en, struct, _prov("structure", provs), ["structure"])
    if kind == "FORC":
        zh, en, struct, provs = _forc_answer(facts)
        return qa(zh, en, struct, provs, ["formation"])
    if kind in ("COMR", "COMF", "COMI", "COME", "COMP_FULL", "COMP_ASPECT"):
        fn = kind in ("COMF", "COMP_FULL", "COMP_ASPECT")
        it = kind in ("COMI", "COMP_FULL", "COMP_ASPECT")
        ev = kind in ("COME", "COMP_FULL")
        zh, en = _comp_lines(facts.components, functions=fn, interpretation=it, evolution=ev)
        struct = {"components": [x.struct(functions=fn, interpretation=it, evolution=ev)
                                 for x in facts.components]}
        fields = ["components"] + (["components.interpretation"] if it else []) + (
            ["components.evolution_type"] if ev else [])
        return qa(zh, en, struct, _comp_prov(facts.components, interpretation=it, evolution=ev), fields)
    if kind == "ORIM":
        zh, en, provs, _ = facts.orim
        return qa(zh, en, {"original_meaning": zh}, _prov("original_meaning", provs), ["original_meaning"])
    if kind == "EVOI":
        evo = facts.evolution
        zh, en = evo.narrative("zh"), evo.narrative("en")
        return qa(zh, en, {"evolution": zh, "rules": evo.rules()}, _prov("evolution", evo.provenance()),
                  ["evolution"])
    if kind == "EXEGESIS":
        return _exegesis(facts, image, qa, image_prov)
    raise KeyError(f"unknown template kind {kind!r}")


def _image_source(image: GlyphImage) -> str:
    src = image.source.split(":", 1)[0]
    return src if src in IMAGE_SOURCES else "font" if image.style.startswith("font") else "user"


def _exegesis(facts: Facts, image: GlyphImage, qa, image_prov) -> QA:
    S, E = T.EXEGESIS_SECTIONS_ZH, T.EXEGESIS_SECTIONS_EN
    c, s = facts.character, facts.script
    zh = [f"【{S[0]}】图中为「{c}」字的{s}字形。"]
    en = [f"[{E[0]}] The image shows the character {c} in {labels.SCRIPTS[s]} ({s})."]
    prov = list(image_prov)
    struct: dict = {"character": c, "script": s}
    part_zh, part_en = [], []
    if facts.structure:
        v, p = facts.structure
        a, b = _struct_label(v)
        part_zh.append(f"结构为{a}")
        part_en.append(f"structure {b}")
        prov += _prov("structure", p)
        struct["structure"] = v
    if facts.components:
        part_zh.append("由" + "、".join(f"「{x.name}」" for x in facts.components) + "构成")
        part_en.append("components " + ", ".join(x.name for x in facts.components))
        lines_zh, lines_en = _comp_lines(facts.components, functions=all(x.functions for x in facts.components),
                                         interpretation=all(x.interpretation for x in facts.components),
                                         evolution=all(x.evolution_type for x in facts.components))
        prov += _comp_prov(facts.components, interpretation=True, evolution=True)
        struct["components"] = [x.struct() for x in facts.components]
    zh.append(f"【{S[1]}】" + "，".join(part_zh) + "。" + ("\n" + lines_zh if facts.components else ""))
    en.append(f"[{E[1]}] " + "; ".join(part_en) + "." + ("\n" + lines_en if facts.components else ""))
    if facts.formation:
        form, p = facts.formation
        a, b = _formation_text(form)
        zh.append(f"【{S[2]}】{a}。")
        en.append(f"[{E[2]}] {b}.")
        prov += _prov("formation", p)
        struct["formation"] = form.label_set()
    o_zh, o_en, p, o_kind = facts.orim
    zh.append(f"【{S[3]}】" + {"shuowen": "《说文》：", "duan": "段注本《说文》："}.get(o_kind, "") + o_zh)
    en.append(f"[{E[3]}] {o_en}")
    prov += _prov("original_meaning", p)
    struct["original_meaning"] = o_zh
    evo = facts.evolution
    zh.append(f"【{S[4]}】\n{evo.narrative('zh')}")
    en.append(f"[{E[4]}]\n{evo.narrative('en')}")
    prov += _prov("evolution", evo.provenance())
    struct["evolution"] = evo.narrative("zh")
    fields = ["character", "script", "structure", "components", "formation", "original_meaning", "evolution"]
    return qa("\n\n".join(zh), "\n\n".join(en), struct, prov, fields)
