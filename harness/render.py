"""Answers and context texts rendered from GlyphRecord values, in the bench's formats.

The retrieval baseline answers with these, so its answers read like the bench
references (``builder/qa/compose.py`` writes the same shapes) and ``metrics.acce`` parses them
exactly: ``⿰（左右结构）``, ``形声（亦声，形声兼会意）``, one line per component
``1. 构件「氵」：功能=表意；演变类型=保留；解释=…``. The RAG and dictionary-context
strategies render retrieved records with :func:`record_context` / :func:`dictionary_entry`.
Records are the JSON dicts of ``builder.schema.GlyphRecord`` (as the gallery's
``record`` column holds them).
"""

from __future__ import annotations

from metrics.acce import answers


# The renderers are the answer schema's (metrics/acce/answers.py), so the baseline's
# answers and the bench references are written by one piece of code.
structure_text = answers.structure_text
formation_text = answers.formation_text


def components_text(components: list[dict], *, functions: bool = True, evolution: bool = True,
                    interpretation: bool = True) -> str:
    """Numbered component lines (:func:`metrics.acce.answers.components_text`) with the
    attributes switched on here. Each component dict has ``name`` and optionally
    ``functions`` (list), ``evolution_type`` and ``interpretation``; a missing value is
    left out of its line rather than filled in."""
    wanted = {"functions": functions, "evolution_type": evolution, "interpretation": interpretation}
    return answers.components_text(components, [a for a in answers.COMPONENT_ATTRIBUTES if wanted[a]])


def _value(record: dict, field: str):
    g = record.get(field)
    return g.get("value") if isinstance(g, dict) else None


def record_facts(record: dict) -> dict:
    """The ACCE-relevant values of a GlyphRecord dict, in the bench's ``answer_struct``
    shapes: ``character``, ``script``, ``structure`` (IDC or 独体), ``formation`` (label
    set), ``components`` (list of dicts), ``original_meaning``, ``evolution``,
    ``definition_en``, ``pinyin``; a key is absent when the record has no value."""
    out: dict = {"character": record.get("character"), "script": record.get("script")}
    if _value(record, "structure"):
        out["structure"] = _value(record, "structure")
    form = _value(record, "formation")
    if isinstance(form, dict) and form.get("label"):
        out["formation"] = (["形声", "会意"] if form.get("yisheng") and form["label"] == "形声" else [form["label"]])
    comps = [
        {"name": c["name"], "functions": list(c.get("functions") or []),
         "interpretation": c.get("interpretation"), "evolution_type": c.get("evolution_type")}
        for c in record.get("components") or [] if c.get("name")
    ]
    if comps:
        out["components"] = comps
    for field in ("original_meaning", "evolution", "definition_en"):
        if _value(record, field):
            out[field] = _value(record, field)
    pinyin = [r["pinyin"] for r in record.get("readings") or [] if r.get("pinyin")]
    if pinyin:
        out["pinyin"] = pinyin
    return out


def dictionary_entry(record: dict) -> str:
    """A dictionary-style entry of one record (the dictionary-context strategy):
    headword with script and reading, structure, formation, components, original
    meaning, evolution; only the fields the record has."""
    f = record_facts(record)
    head = f"【{f.get('character', '?')}】"
    if f.get("pinyin"):
        head += " " + "、".join(f["pinyin"])
    if f.get("script"):
        head += f"（{f['script']}）"
    parts = [head]
    if f.get("structure"):
        parts.append(f"结构：{structure_text(f['structure'])}。")
    if f.get("formation"):
        parts.append(f"造字法：{formation_text(f['formation'])}。")
    if f.get("components"):
        parts.append("构件：" + "；".join(
            c["name"] + (f"（{'、'.join(c['functions'])}）" if c["functions"] else "")
            + (f"，{c['interpretation']}" if c.get("interpretation") else "")
            for c in f["components"]) + "。")
    if f.get("original_meaning"):
        parts.append(f"本义：{f['original_meaning']}")
    elif f.get("definition_en"):
        parts.append(f"释义（英）：{f['definition_en']}")
    if f.get("evolution"):
        parts.append(f"演变：{f['evolution']}")
    return "\n".join(parts)


def record_context(record: dict) -> str:
    """The structured metadata of one record as ``key: value`` lines (the RAG strategy's
    retrieved "training metadata")."""
    f = record_facts(record)
    lines = [f"字头: {f.get('character')}", f"书体: {f.get('script')}"]
    if f.get("structure"):
        lines.append(f"结构: {structure_text(f['structure'])}")
    if f.get("formation"):
        lines.append(f"造字法: {formation_text(f['formation'])}")
    if f.get("components"):
        lines.append("构件:\n" + components_text(f["components"]))
    if f.get("original_meaning"):
        lines.append(f"本义: {f['original_meaning']}")
    if f.get("definition_en"):
        lines.append(f"英文释义: {f['definition_en']}")
    if f.get("evolution"):
        lines.append(f"字形演变: {f['evolution']}")
    return "\n".join(lines)
