"""HTML of an exegesis: four level panels, each fact with its sources, and for a bench
item the reference answer and the per-question score beside it.

Every text that came from data or a model is escaped with ``html.escape``; the page
never renders HTML it did not write itself.
"""

from __future__ import annotations

import json
from html import escape

from metrics.acce import labels
from space.exegesis import LEVEL_NAMES, LEVEL_ROWS, Exegesis, Fact

CSS = """
.jz-levels{display:grid;grid-template-columns:1fr;gap:12px}
.jz-level{border:1px solid var(--border-color-primary);border-radius:8px;padding:10px 14px;background:var(--block-background-fill)}
.jz-level h3{margin:0 0 6px 0;font-size:1.05em}
.jz-fact{display:grid;grid-template-columns:9em 1fr;gap:4px 12px;padding:6px 0;border-top:1px dashed var(--border-color-primary)}
.jz-fact:first-of-type{border-top:none}
.jz-fact.with-ref{grid-template-columns:9em 1fr 1fr}
.jz-name{font-weight:600}
.jz-name small{display:block;font-weight:400;opacity:.7}
.jz-answer{white-space:pre-wrap;word-break:break-word}
.jz-ref{white-space:pre-wrap;word-break:break-word;background:var(--background-fill-secondary);border-radius:6px;padding:4px 8px}
.jz-big{font-size:2em;line-height:1.1}
.jz-err{color:var(--error-text-color, #b91c1c)}
.jz-basis{font-size:.85em;opacity:.75;margin-top:2px}
.jz-src{font-size:.85em;margin:4px 0 0 0;padding-left:1.1em}
.jz-src li{margin:1px 0}
.jz-span{background:var(--background-fill-secondary);padding:0 3px;border-radius:3px}
.jz-comp{border-collapse:collapse;margin-top:2px}
.jz-comp td,.jz-comp th{border:1px solid var(--border-color-primary);padding:2px 6px;text-align:left;vertical-align:top}
.jz-score{font-size:.85em;margin-top:3px}
.jz-ok{color:#15803d}.jz-bad{color:#b91c1c}
.jz-verdict{border-radius:8px;padding:8px 14px;margin-bottom:10px;background:var(--background-fill-secondary)}
.jz-verdict.jz-abstain{border:2px solid #b45309;background:#fffbeb;color:#78350f}
.jz-cand{font-size:1.4em;margin:0 2px 0 8px}
/* IDCs (U+2FF0..) are drawn as thin dashed boxes by design: a serif CJK face that has them,
   larger, and their name beside them keep them legible */
.jz-idc{font-family:"Noto Serif CJK SC","Noto Sans Mono CJK SC",serif;font-size:1.6em;font-weight:700;vertical-align:middle}
.jz-idcl{font-size:.75em;color:#7c2d12;background:#ffedd5;border-radius:3px;padding:0 2px;margin:0 2px}
"""

FACT_NAMES = {
    "CHAR": ("字头", "character"), "SCRC": ("书体", "script"), "STRC": ("结构", "structure"),
    "COMR": ("构件", "components · function · interpretation"), "FORC": ("造字法", "formation (Six Writings)"),
    "ORIM": ("本义", "original meaning"), "COME": ("构件演变", "component evolution"),
    "EVOI": ("字形演变", "evolution"),
}


def idc_html(escaped: str) -> str:
    """``escaped`` (already HTML-escaped) with each Ideographic Description Character
    drawn larger and followed by its name (⿰ -> ⿰ 左右): the IDC glyphs are thin dashed
    boxes in every font, unreadable at text size."""
    out = []
    for ch in escaped:
        if "\u2ff0" <= ch <= "\u2fff":
            name = labels.STRUCTURE_ZH.get(ch, "").removesuffix("结构") or "IDC"
            out.append(f"<span class='jz-idc' title='{name}'>{ch}</span><span class='jz-idcl'>{name}</span>")
        else:
            out.append(ch)
    return "".join(out)


def _sources(sources: list[dict]) -> str:
    if not sources:
        return ""
    items = []
    for s in sources:
        items.append(
            f"<li><b>{escape(str(s.get('source', '?')))}</b> {escape(str(s.get('entry_id', '')))} "
            f"<span class='jz-span'>「{idc_html(escape(str(s.get('span', ''))))}」</span> "
            f"<i>{escape(str(s.get('rule', '')))}</i>"
            + (f" · {escape(str(s['via']))}" if s.get("via") else "") + "</li>")
    return "<ul class='jz-src'>" + "".join(items) + "</ul>"


def _components_table(components: list[dict], evolution: bool) -> str:
    if not components:
        return ""
    if evolution:
        head = "<tr><th>构件</th><th>演变类型 evolution</th></tr>"
        rows = "".join(f"<tr><td>「{escape(c.get('name') or '')}」</td><td>{escape(c.get('evolution_type') or '—')}</td></tr>"
                       for c in components)
    else:
        head = "<tr><th>构件</th><th>功能 function</th><th>解释 interpretation</th></tr>"
        rows = "".join(
            f"<tr><td>「{escape(c.get('name') or '')}」</td><td>{escape('、'.join(c.get('functions') or []) or '—')}</td>"
            f"<td>{escape(c.get('interpretation') or '—')}</td></tr>" for c in components)
    return f"<table class='jz-comp'>{head}{rows}</table>"


def _answer_html(fact: Fact | None, row: str) -> str:
    if fact is None:
        return "<span class='jz-err'>not asked</span>"
    if fact.error and not fact.answer:
        return f"<span class='jz-err'>no answer: {escape(fact.error)}</span>"
    parsed = fact.parsed or {}
    if row == "CHAR":
        body = f"<span class='jz-big'>{escape(fact.answer)}</span>"
    elif row == "COMR" and parsed.get("components"):
        body = _components_table(parsed["components"], evolution=False)
    elif row == "COME":
        comps = parsed.get("components") or []
        if not any(c.get("evolution_type") for c in comps):
            return "<span class='jz-err'>no evolution type in the component answer</span>"
        body = _components_table(comps, evolution=True)
    elif row == "STRC" and parsed.get("structure"):
        idc = parsed["structure"]
        body = f"<span class='jz-idc'>{escape(idc)}</span>（{escape(labels.STRUCTURE_ZH.get(idc, ''))} · {escape(labels.STRUCTURES.get(idc, ''))}）"
    elif row == "SCRC" and parsed.get("script"):
        body = f"{escape(parsed['script'])}（{escape(labels.SCRIPTS.get(parsed['script'], ''))}）"
    else:
        body = f"<div class='jz-answer'>{escape(fact.answer)}</div>"
    basis = f"<div class='jz-basis'>{escape(fact.basis)}</div>" if fact.basis and row != "COME" else ""
    return body + basis + (_sources(fact.sources) if row != "COME" else "")


def _reference_html(ref: dict | None, scores: dict[str, str], row: str) -> str:
    if ref is None:
        return "<div class='jz-ref'>no reference for this question in the bench</div>"
    struct = ref.get("struct") or {}
    if row == "COME":
        comps = struct.get("components") or []
        body = _components_table(comps, evolution=True) if any(c.get("evolution_type") for c in comps) \
            else "no evolution type in the reference"
    elif row == "COMR" and struct.get("components"):
        body = _components_table(struct["components"], evolution=False)
    else:
        body = escape(ref.get("answer") or "")
    metric_keys = {"COMR": ["COMR", "COMF", "COMI"], "COME": ["COME"], "EVOI": ["EVOI_FAC", "EVOI_SCE"]}.get(row, [row])
    marks = [f"{k} {scores[k]}" for k in metric_keys if k in scores]
    score = f"<div class='jz-score'>{' · '.join(marks)}</div>" if marks else ""
    sources = _sources(ref.get("sources") or []) if row != "COME" else ""
    return f"<div class='jz-ref'><b>参考 reference</b><br>{body}{score}{sources}</div>"


def exegesis_html(ex: Exegesis, references: dict[str, dict] | None = None, scores: dict[str, str] | None = None) -> str:
    """The four level panels of ``ex``.

    ``references``: for a bench item, question type -> ``{"answer", "struct", "sources"}``
    (the bench row's answer, parsed ``answer_struct`` and provenance); ``scores``: metric
    key -> display text of this item's score (from :func:`score_item`).
    """
    parts = [verdict_html(ex.decision), "<div class='jz-levels'>"]
    for level, rows in LEVEL_ROWS.items():
        zh, en = LEVEL_NAMES[level]
        parts.append(f"<section class='jz-level' data-level='{level}'><h3>{level} {zh} · {en}</h3>")
        for row in rows:
            fact = ex.facts.get("COMR" if row == "COME" else row)
            zh_name, en_name = FACT_NAMES[row]
            cls = "jz-fact with-ref" if references is not None else "jz-fact"
            ref_html = ""
            if references is not None:
                ref = references.get("COMR" if row == "COME" else row)
                ref_html = _reference_html(ref, scores or {}, row)
            parts.append(f"<div class='{cls}' data-subtask='{row}'><div class='jz-name'>{zh_name} {row}"
                         f"<small>{escape(en_name)}</small></div><div>{_answer_html(fact, row)}</div>{ref_html}</div>")
        parts.append("</section>")
    parts.append("</div>")
    return "".join(parts)


def verdict_html(decision: dict | None) -> str:
    """The one-line reading above the levels: the decided character and script with what
    read it (``read_by``, the fused and OCR baselines) and the confidence, or, when the baseline abstains, "cannot read this glyph" with the
    nearest candidates (``decision``: :attr:`Exegesis.decision`; None gives "")."""
    if not decision:
        return ""
    conf = decision.get("confidence") or 0.0
    thr = decision.get("threshold")
    cands = "".join(f"<span class='jz-cand'>{escape(c)}</span>{w:.2f}" for c, w in decision.get("candidates") or [])
    if decision.get("abstained"):
        return ("<div class='jz-verdict jz-abstain' data-abstained='true'><b>无法释读 · cannot read this glyph</b>: "
                f"confidence {conf:.2f} is below {thr:.2f}, so no level is answered. It may be in a script or of a "
                "character the gallery does not hold (see the coverage line). "
                f"Nearest candidates ({'probability' if decision.get('read_by') else 'vote weight'}):{cands}</div>")
    read = decision.get("read_by")
    by = f"<span class='jz-readby' data-component='{escape(decision.get('component') or '')}'>read by " \
         f"{escape(read)}</span> · " if read else ""
    return (f"<div class='jz-verdict' data-abstained='false'>读作 read as <span class='jz-cand'>"
            f"{escape(decision.get('character') or '')}</span> · {escape(decision.get('script') or '—')} · {by}"
            f"confidence {conf:.2f}. Every level below comes from the records of this one character; a field "
            f"they lack stays unanswered. Other candidates:{cands}</div>")


def references_of(rows: list[dict]) -> dict[str, dict]:
    """Question type -> reference of the bench rows of one image (the first row of each
    type; the full component question is preferred over an aspect-only one)."""
    out: dict[str, dict] = {}
    for row in sorted(rows, key=lambda r: "COME" not in (r.get("metrics") or [])):
        qtype = row["subtask"]
        if qtype in out:
            continue
        try:
            struct = json.loads(row.get("answer_struct") or "{}")
        except ValueError:
            struct = {}
        try:
            sources = json.loads(row.get("provenance") or "[]")
        except ValueError:
            sources = []
        out[qtype] = {"answer": row.get("answer", ""), "struct": struct, "sources": sources[:6],
                      "question": row.get("question", ""), "metrics": list(row.get("metrics") or [qtype]),
                      "id": row.get("id")}
    return out


def score_item(ex: Exegesis, references: dict[str, dict]) -> dict[str, str]:
    """Score the answers of ``ex`` against one bench item's references with the acce
    scorer (categorical and component metrics; BERTScore and the EVOI judge are off here,
    so ORIM, COMI and EVOI show as not scored). Returns metric key -> display text."""
    from metrics.acce.core import score

    preds, refs, subtasks = [], [], []
    for qtype, ref in references.items():
        fact = ex.facts.get(qtype)
        preds.append(fact.answer if fact else "")
        refs.append(ref["struct"] or ref["answer"])
        subtasks.append(ref["metrics"])
    if not preds:
        return {}
    result = score(preds, refs, subtasks, settings={"bertscore": False, "progress": False}, judge=False,
                   details=True)
    out: dict[str, str] = {}
    for item in result.get("items") or []:
        metric, value = item["metric"], item.get("score")
        if value is None:
            out[metric] = "not scored here"
        else:
            mark = "jz-ok" if value >= 99.5 else ("jz-bad" if value <= 0.5 else "")
            out[metric] = f"<span class='{mark}'>{value:.0f}</span>" if mark else f"{value:.0f}"
    return out
