"""The paper's protocol: one eight-field JSON reply per bench image, scored field by field.

The JieZi paper's Table 10 was produced by the authors' runner (github.com/Ran00w/JieZi-test,
``JieZi-bench/runners/run_eval.py``; read for its behaviour, CC BY-NC-ND, no code copied). It
sends ONE request per glyph image and asks for one JSON object with the eight official fields
(``REFERENCE_FIELDS``), then scores each field after its own normalisation. ``score_paper``
scores such replies in two modes:

``mode="reference"`` reproduces the authors' scorer (ACCE.md section 2 and issue 13):

- a reply is a *failure* when no JSON object can be read from it (the whole reply, else the
  span from the first ``{`` to the last ``}``; a fenced reply is cut to that span first) or
  when what parses is not an object; failures are counted, never scored;
- every text value has its whitespace runs collapsed to one space (not removed); no
  traditional -> simplified folding anywhere;
- 字形: one of 甲骨文 金文 古文 篆书 隶书 楷书 草书 简体, or an alias (甲骨, 金, 古, 篆, 小篆, 大篆,
  隶, 楷, 草), else empty; SCRC compares with 简体 counted as 楷书;
- 造字法: a string or a list, each label completed to its ``...字`` form (象形 -> 象形字), other
  labels kept as written; FORC is exact set equality (two empty sets agree) and FORC_partial
  is |pred ∩ gold| / |gold| (1 when both are empty, 0 when only gold is);
- 结构: an IDC or 独体, or a structure name (左右结构 -> ⿰ ...), else empty; STRC exact;
- 构件: an object name -> {功能, 演变类型, 解释}; a function list keeps only 表意/表音/符号 and an
  empty result becomes [符号]; an evolution type outside the five becomes 保留; names are
  matched by NFKC plus the radical alias table (single characters and table entries only),
  exact pairs first, then one-to-one normalised Levenshtein similarity >= 0.8 choosing the
  most pairs, then the highest total similarity, then the smallest sorted (gold, pred) name
  pairs; COMR/COMF/COME/COMI are per-reply F1 with P = x / predicted, R = x / gold (0 when a
  side is empty, so a reference without components scores 0);
- 本义: BERTScore F1; a row where both texts are empty has no ORIM value; one empty side is 0;
- 历代字形演变: the judge's 0-4 on FAC and SCE x 25, only where the reference text is non-empty;
  a judge failure leaves the row without a value;
- ``success_mean``: the mean over the successful replies that have the metric;
  ``with_failures``: success_mean x successes / (successes + failures).

Accepted alternatives (this project's extension, issue 21). A reference built by
``official_reference`` may carry a ninth key, ``可接受``, holding the other answers its
sources allow: ``现代字典字头`` (a variant form the glyph is drawn in: 毓 for 育), ``结构``
(独体 beside a stroke-level IDS split of 不), ``造字法`` (label sets: ``[["形声字"]]`` beside
形声字+会意字 where only Duan's note says 亦声), ``构件`` (drawn name -> other names of a 省
part: ``{"萬": ["蠆"]}``) and ``构件功能`` (name -> other function sets: ``{"奄": [["表音"]]}``
where only Duan reads the phonetic as 亦声). ``mode="reference"`` then credits a reply that gives any of them:
CHAR / STRC match any accepted value, FORC and FORC_partial take the best accepted set, and a
reply naming a component by another accepted name is paired as if it used the reference's
name (the gold entry is renamed before the pairing, so counts and attributes are
unchanged), and COMF counts a component right whose functions are any accepted set. A reference without ``可接受`` is scored exactly as the authors' scorer does.

``mode="jiezi"`` scores the same replies with this project's free-text scorer
(``core.score``): each field (or, when a reply holds no JSON, the whole reply) is read by
the lenient extractors, one-to-one traditional/simplified equivalence applies, and unparseable
fields count 0; ``success_mean`` is then the mean over parsed fields and ``with_failures``
the strict mean.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from .bertscore import BertScoreStage, BertScoreUnavailable
from .core import coerce_settings, score
from .judge import JudgeRequest
from .labels import scoring_script
from .paper_match import f1, name_key, pair_components
from .paper_reply import (
    ACCEPTED_FIELD,
    FORMATION_SHORT,
    REFERENCE_FIELDS,
    SCRIPT_OFFICIAL,
    UnreadableReply,
    normalize_record,
    reference_object,
    reference_record,
    reply_object,
    text_list,
)

PAPER_METRICS = ("CHAR", "SCRC", "STRC", "FORC", "FORC_partial", "COMR", "COMF", "COMI", "COME", "ORIM",
                 "EVOI_FAC", "EVOI_SCE")
MODES = ("reference", "jiezi")
JUDGE_SCALE = 25.0  # judge 0-4 -> 0-100
JUDGE_AXES = {"EVOI_FAC": ("FAC", "fact_alignment"), "EVOI_SCE": ("SCE", "scholarly_expression")}
_NO_BERTSCORE = "no BERTScore scorer configured"
_NO_JUDGE = ("no judge configured: pass judge=OpenAIJudge(...) / TransformersJudge(...) (metrics.acce.judge) "
             "to score 历代字形演变 (EVOI_FAC, EVOI_SCE)")


# ------------------------------------------------------------------------- one reply
def score_fields(pred: dict, gold: dict) -> tuple[dict[str, float], list[tuple[str, str]], dict]:
    """Per-reply values (0-1) of the metrics that need no model, the (pred, gold) COMI text
    pairs, and the component counts ``{"pred", "gold"}`` COMI needs once BERTScore is in."""
    head = pred["现代字典字头"]
    script_p = scoring_script(pred["字形"].strip())
    script_g = scoring_script(gold["字形"].strip())
    acc = gold.get(ACCEPTED_FIELD) or {}
    forms_p = set(pred["造字法"])
    form_sets = [set(gold["造字法"])] + [set(x) for x in acc.get("造字法", [])]
    values = {
        "CHAR": float(bool(head) and head in [gold["现代字典字头"], *acc.get("现代字典字头", [])]),
        "SCRC": float(bool(script_p) and script_p == script_g),
        "STRC": float(bool(pred["结构"]) and pred["结构"] in [gold["结构"], *acc.get("结构", [])]),
        "FORC": max(float(forms_p == g) for g in form_sets),
        "FORC_partial": max((len(forms_p & g) / len(g)) if g else float(not forms_p) for g in form_sets),
    }
    comps_p = pred["构件"]
    comps_g = _accepted_names(gold["构件"], comps_p, acc.get("构件", {}))
    pairs = pair_components(list(comps_g), list(comps_p))
    fn_acc = acc.get("构件功能", {})
    right_fn = sum(float(set(comps_p[p]["功能"]) in [set(comps_g[g]["功能"]), *map(set, fn_acc.get(g, []))])
                   for g, p in pairs.items())
    right_evo = sum(float(comps_p[p]["演变类型"] == comps_g[g]["演变类型"]) for g, p in pairs.items())
    counts = {"pred": len(comps_p), "gold": len(comps_g)}
    values["COMR"] = f1(float(len(pairs)), counts["pred"], counts["gold"])
    values["COMF"] = f1(right_fn, counts["pred"], counts["gold"])
    values["COME"] = f1(right_evo, counts["pred"], counts["gold"])
    texts = [(comps_p[p]["解释"], comps_g[g]["解释"]) for g, p in pairs.items()]
    return values, texts, counts


def _accepted_names(gold: dict[str, dict], pred: dict[str, dict], names: dict[str, list[str]]) -> dict[str, dict]:
    """The gold component table with a component renamed to another of its accepted names
    (``可接受.构件``: a 省 part 萬 -> [蠆]) when the reply names it that way and not by its
    own name; order and attributes kept. Without accepted names: ``gold`` itself."""
    if not names:
        return gold
    keys_p = {name_key(n) for n in pred}
    out: dict[str, dict] = {}
    for name, attrs in gold.items():
        alt = next((a for a in names.get(name, []) if name_key(a) in keys_p), None)
        out[alt if name_key(name) not in keys_p and alt and alt not in gold else name] = attrs
    return out


# ------------------------------------------------------------------------ model stages
def _bertscore_fn(settings: object) -> tuple[Callable | None, dict]:
    """(pairs scorer or None, record). ``settings`` may carry ``scorer``: a callable
    ``(candidates, references) -> list[float]`` used instead of ``bert_score`` (any other
    keys are ``ScorerSettings`` fields)."""
    if isinstance(settings, dict) and "scorer" in settings:
        settings = dict(settings)
        fn = settings.pop("scorer")
        cfg = coerce_settings(settings)
        if fn is None or not cfg.bertscore:
            return None, {"unavailable": _NO_BERTSCORE}
        return fn, {"model": getattr(fn, "__name__", type(fn).__name__), "custom": True}
    cfg = coerce_settings(settings)
    if not cfg.bertscore:
        return None, {"unavailable": f"{_NO_BERTSCORE} (bertscore=False)"}
    stage = BertScoreStage(cfg.bertscore_model, cfg.bertscore_layers, cfg.batch_size, cfg.device)

    def run(cands: list[str], refs: list[str]) -> list[float]:
        return stage.score_pairs(cands, refs, progress=cfg.progress)

    run.describe = stage.describe  # type: ignore[attr-defined]
    return run, {}


def _bert_values(fn: Callable | None, pairs: list[tuple[str, str]], record: dict) -> list[float] | None:
    """BERTScore F1 of each (candidate, reference); 0 where a side is empty after trimming.
    None when no scorer is configured or it cannot load (the reason goes into ``record``)."""
    if fn is None:
        return None
    todo = [k for k, (c, r) in enumerate(pairs) if c.strip() and r.strip()]
    out = [0.0] * len(pairs)
    if todo:
        try:
            got = fn([pairs[k][0].strip() for k in todo], [pairs[k][1].strip() for k in todo])
        except BertScoreUnavailable as exc:
            record["unavailable"] = str(exc)
            return None
        for k, v in zip(todo, got):
            out[k] = float(v)
    if hasattr(fn, "describe"):
        record.update(fn.describe())
    return out


def reference_judge_score(raw: str | None, axis_name: str) -> float | None:
    """A judge reply read as the authors' judge step reads it: the reply's JSON object, then
    ``score`` (or ``{axis: {"score"}}``, or ``{axis: n}``), rounded half-to-even and clamped
    to 0..4; a value that is not a number reads 0, a missing score reads 0. None (a judge
    failure, left out of the means) when the reply holds no JSON object."""
    try:
        obj = reply_object(raw)
    except UnreadableReply:
        return None
    if "score" in obj:
        value = obj.get("score")
    elif isinstance(obj.get(axis_name), dict):
        value = obj[axis_name].get("score")
    else:
        value = obj.get(axis_name, 0)
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = 0.0
    try:
        return float(max(0, min(4, int(round(number)))))
    except (ValueError, OverflowError):  # NaN / infinity: the reference step fails on them
        return None


def _judge_values(judge: object, jobs: list[tuple[str, str, str]], record: dict) -> list[float | None] | None:
    """Judge 0-4 per (metric, reference text, prediction text); None per failed judgement;
    None overall when no judge is configured. ``judge``: an object with
    ``judge(requests, progress=)`` (``metrics.acce.judge.Judge``) or a callable
    ``(axis, reference, prediction) -> score | None``."""
    if judge is None or judge is False:
        return None
    if not jobs:
        return []
    if hasattr(judge, "judge"):
        results = judge.judge([JudgeRequest(JUDGE_AXES[m][0], ref, pred) for m, ref, pred in jobs], progress=False)
        if hasattr(judge, "describe"):
            record.update(judge.describe())
        out: list[float | None] = []
        for (metric, _, _), res in zip(jobs, results):
            # A JSON reply is read with the reference rules; other replies with the strict parser.
            score = reference_judge_score(res.raw, JUDGE_AXES[metric][1]) if res.raw else None
            out.append(score if score is not None else (None if res.score is None else float(res.score)))
        return out
    if callable(judge):
        vals = [judge(JUDGE_AXES[m][0], ref, pred) for m, ref, pred in jobs]
        return [None if v is None else float(v) for v in vals]
    raise TypeError(f"judge must be a Judge, a callable or None, not {type(judge).__name__}")


# ----------------------------------------------------------------------------- scoring
def score_paper(replies: list[str], references: list[dict], *, mode: str = "reference", settings: object = None,
                judge: object = None) -> dict:
    """Score one eight-field JSON reply per bench image (the paper's protocol).

    Args:
        replies: raw model replies, one per image (text; anything else is a failure).
        references: per image the reference in the eight official field names
            (``REFERENCE_FIELDS``), as a dict or its JSON text; 构件 is
            ``{name: {"功能": [...], "演变类型": str, "解释": str}}``.
        mode: ``"reference"`` (the authors' scorer, module doc) or ``"jiezi"`` (this
            project's free-text scorer on the same replies).
        settings: ``core.ScorerSettings`` or a dict of its fields (BERTScore model, layers,
            ``bertscore=False`` to skip ORIM/COMI); a dict may also hold ``scorer``, a callable
            ``(candidates, references) -> list[float]`` used in place of ``bert_score``.
        judge: a ``metrics.acce.judge.Judge`` (or any object with its ``judge`` method), or a
            callable ``(axis "FAC"/"SCE", reference, prediction) -> 0..4 | None``; None: EVOI
            is not computed.

    Returns:
        ``{metric: {"success_mean", "with_failures", "n"}}`` for each of ``PAPER_METRICS``
        on 0-100 (None when no reply has a value; a ``reason`` when not computed), plus
        ``counts`` ``{"samples", "failures", "successes", "skipped"}``, ``per_item`` (per reply
        a dict metric -> 0-100 value or None, or None for a failed reply), ``failures`` and
        ``skipped`` (index and reason), ``not_computed``, ``protocol`` ("paper"), ``scoring``
        (the mode) and ``settings``.

    Raises:
        ValueError: an unknown mode or lists of different lengths. A reference that cannot
            be read is skipped and listed under ``skipped``, not raised.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    if len(replies) != len(references):
        raise ValueError(f"{len(replies)} replies but {len(references)} references")
    if mode == "jiezi":
        return _score_jiezi(replies, references, settings, judge)
    rows, golds, failures, skipped = _read_rows(replies, references)
    not_computed: dict[str, str] = {}
    record = {"bertscore": {}, "judge": {}}
    _add_bertscore(rows, golds, settings, record["bertscore"], not_computed)
    _add_judge(rows, golds, judge, record["judge"], not_computed)
    result = summarize(rows, len(failures), not_computed)
    result.update(counts={"samples": len(replies) - len(skipped), "failures": len(failures),
                          "successes": sum(r is not None for r in rows), "skipped": len(skipped)},
                  per_item=[None if r is None else {m: r.get(m) for m in PAPER_METRICS} for r in rows],
                  failures=failures, skipped=skipped, not_computed=not_computed, protocol="paper",
                  scoring="reference", settings=record)
    return result


def _read_rows(replies, references):
    """Parse and score every reply without models: (rows, normalised references, failures,
    skipped); a row is None for a failed or skipped reply, else a dict of 0-100 values plus
    the private ``_texts`` / ``_counts`` / ``_pred`` the model stages need."""
    rows: list[dict | None] = []
    golds: list[dict | None] = []
    failures: list[dict] = []
    skipped: list[dict] = []
    for i, (reply, reference) in enumerate(zip(replies, references)):
        try:
            gold = reference_record(reference)
        except ValueError as exc:
            skipped.append({"index": i, "field": "references", "reason": str(exc)})
            rows.append(None)
            golds.append(None)
            continue
        golds.append(gold)
        try:
            pred = normalize_record(reply_object(reply))
        except UnreadableReply as exc:
            failures.append({"index": i, "reason": str(exc)})
            rows.append(None)
            continue
        values, texts, counts = score_fields(pred, gold)
        row = {m: 100.0 * v for m, v in values.items()}
        row.update(_texts=texts, _counts=counts, _pred=pred)
        rows.append(row)
    return rows, golds, failures, skipped


def _add_bertscore(rows, golds, settings, record: dict, not_computed: dict) -> None:
    """COMI (pair-weighted F1) and ORIM (left out where both texts are empty) per row."""
    fn, info = _bertscore_fn(settings)
    record.update(info)
    pairs: list[tuple[str, str]] = []
    plan = []
    for row, gold in zip(rows, golds):
        if row is None:
            continue
        start = len(pairs)
        pairs.extend(row["_texts"])
        orim = None
        if row["_pred"]["本义"].strip() or gold["本义"].strip():
            orim = len(pairs)
            pairs.append((row["_pred"]["本义"], gold["本义"]))
        plan.append((row, start, len(row["_texts"]), orim))
    values = _bert_values(fn, pairs, record)
    if values is None:
        not_computed["COMI"] = not_computed["ORIM"] = record.get("unavailable", _NO_BERTSCORE)
        return
    for row, start, n_pairs, orim in plan:
        weight = sum(values[start:start + n_pairs])
        row["COMI"] = 100.0 * f1(weight, row["_counts"]["pred"], row["_counts"]["gold"])
        if orim is not None:
            row["ORIM"] = 100.0 * values[orim]


def _add_judge(rows, golds, judge, record: dict, not_computed: dict) -> None:
    """EVOI_FAC / EVOI_SCE per row whose reference evolution text is non-empty."""
    jobs, targets = [], []
    for row, gold in zip(rows, golds):
        if row is None or not gold["历代字形演变"].strip():
            continue
        for metric in JUDGE_AXES:
            jobs.append((metric, gold["历代字形演变"].strip(), row["_pred"]["历代字形演变"].strip()))
            targets.append((row, metric))
    values = _judge_values(judge, jobs, record)
    if values is None:
        not_computed["EVOI_FAC"] = not_computed["EVOI_SCE"] = _NO_JUDGE
        return
    failed = 0
    for (row, metric), value in zip(targets, values):
        if value is None:
            failed += 1
        else:
            row[metric] = JUDGE_SCALE * value
    record["failures"] = failed


def summarize(rows: Sequence[dict | None], n_failures: int, not_computed: dict[str, str]) -> dict:
    """Per metric: ``success_mean`` over the rows holding it, ``with_failures`` = that mean x
    successes / (successes + failures) (the authors' aggregate), ``n`` rows used."""
    successes = sum(r is not None for r in rows)
    scale = successes / (successes + n_failures) if successes + n_failures else 0.0
    out: dict[str, dict] = {}
    for metric in PAPER_METRICS:
        values = [r[metric] for r in rows if r is not None and r.get(metric) is not None]
        if metric in not_computed:
            out[metric] = {"success_mean": None, "with_failures": None, "n": 0, "reason": not_computed[metric]}
            continue
        mean = sum(values) / len(values) if values else None
        out[metric] = {"success_mean": mean, "with_failures": None if mean is None else mean * scale,
                       "n": len(values)}
    return out


# --------------------------------------------------------------------------- jiezi mode
_JIEZI_FIELDS = (("CHAR", "现代字典字头"), ("SCRC", "字形"), ("STRC", "结构"), ("FORC", "造字法"),
                 (["COMR", "COMF", "COMI", "COME"], "构件"), ("ORIM", "本义"), ("EVOI", "历代字形演变"))


def _field_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)) and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "、".join(value)
    return str(value)


def jiezi_reference(reference: object) -> dict:
    """An eight-field reference in this project's ``answer_struct`` keys (one dict serving
    every subtask): character, script, structure, formation, components, original_meaning,
    evolution. Raises ``ValueError`` like ``reference_record``."""
    reference = reference_object(reference)
    comps = reference.get("构件") if isinstance(reference.get("构件"), dict) else {}
    acc = reference.get(ACCEPTED_FIELD) if isinstance(reference.get(ACCEPTED_FIELD), dict) else {}
    names = acc.get("构件") if isinstance(acc.get("构件"), dict) else {}
    fn_acc = acc.get("构件功能") if isinstance(acc.get("构件功能"), dict) else {}
    out = {
        "character": _field_text(reference.get("现代字典字头")), "script": _field_text(reference.get("字形")),
        "structure": _field_text(reference.get("结构")),
        "formation": text_list(reference.get("造字法")) or _field_text(reference.get("造字法")),
        "components": [{"name": name, "functions": text_list((a or {}).get("功能")),
                        "interpretation": _field_text((a or {}).get("解释")),
                        "evolution_type": _field_text((a or {}).get("演变类型")) or None,
                        **({"names": [name, *text_list(names[name])]} if names.get(name) else {}),
                        **({"functions_accepted": fn_acc[name]} if isinstance(fn_acc.get(name), list) else {})}
                       for name, a in comps.items() if isinstance(a, dict) or a is None],
        "original_meaning": _field_text(reference.get("本义")), "evolution": _field_text(reference.get("历代字形演变")),
    }
    mapped = {key: acc[name] for key, name in (("character", "现代字典字头"), ("structure", "结构"),
                                                ("formation", "造字法")) if isinstance(acc.get(name), list)}
    if mapped:
        out["accepted"] = mapped  # per field: one reference serves every field (core._accepted)
    return out


def _score_jiezi(replies, references, settings, judge) -> dict:
    """The same replies through ``core.score``: one item per (reply, field); a reply without
    a JSON object gives its whole text to every field's extractor."""
    preds, refs, subtasks, owner = [], [], [], []
    failures, skipped = [], []
    for i, (reply, reference) in enumerate(zip(replies, references)):
        try:
            ref = jiezi_reference(reference)
        except ValueError as exc:
            skipped.append({"index": i, "field": "references", "reason": str(exc)})
            continue
        try:
            obj = reply_object(reply)
        except UnreadableReply as exc:
            failures.append({"index": i, "reason": str(exc)})
            obj = None
        for subtask, field in _JIEZI_FIELDS:
            preds.append(_field_text(obj.get(field)) if obj is not None else ("" if reply is None else str(reply)))
            refs.append(ref)
            subtasks.append(subtask)
            owner.append(i)
    res = score(preds, refs, subtasks, settings=settings, judge=judge if judge is not None else False, details=True)
    bad = {s["index"] for s in skipped}
    per_item: list[dict | None] = [None if i in bad else {} for i in range(len(replies))]
    for cell in res["items"]:
        slot = per_item[owner[cell["index"]]]
        if slot is not None:
            slot[cell["metric"]] = cell["score"]
            if cell["metric"] == "FORC":
                slot["FORC_partial"] = cell["partial"] if cell["score"] is not None else None
    out = {}
    for metric in PAPER_METRICS:
        base = "FORC" if metric == "FORC_partial" else metric
        counts = res["counts"].get(base, {})
        out[metric] = {"success_mean": res["lenient"].get(metric), "with_failures": res.get(metric),
                       "n": counts.get("scored", 0)}
        if metric in res["not_computed"]:
            out[metric]["reason"] = res["not_computed"][metric]
    out.update(counts={"samples": len(replies) - len(skipped), "failures": len(failures),
                       "successes": len(replies) - len(skipped) - len(failures), "skipped": len(skipped)},
               per_item=per_item, failures=failures, skipped=skipped + res["skipped"],
               not_computed=res["not_computed"], protocol="paper", scoring="jiezi", settings=res["settings"],
               warnings=res["warnings"])
    return out


# ------------------------------------------------------------- bench rows -> reference
def official_reference(structs: Sequence[dict]) -> dict:
    """The eight-field reference of one bench image from its questions' ``answer_struct``
    dicts (this project's keys: character, script, structure, formation + yisheng,
    components, original_meaning, evolution; ARCHITECTURE.md).

    A field no question covers is empty (``""``, ``[]`` or ``{}``). Formation labels get
    their ``...字`` form and a 亦声 flag adds 会意字 beside 形声字 (the two-label set the paper's
    FORC compares). Components come from the question that states the most attributes
    (the full component question, with evolution types, over the aspect question).
    Raises ``ValueError`` when a struct is not a dict.
    """
    out = {name: "" for name in REFERENCE_FIELDS}
    out.update(造字法=[], 构件={})
    accepted: dict = {}
    best_components: tuple[int, list] = (-1, [])
    for struct in structs:
        if isinstance(struct, str):
            struct = json.loads(struct)
        if not isinstance(struct, dict):
            raise ValueError(f"answer_struct is {type(struct).__name__}, expected an object")
        for key, name in (("character", "现代字典字头"), ("script", "字形"), ("structure", "结构"),
                          ("original_meaning", "本义"), ("evolution", "历代字形演变")):
            if struct.get(key) and not out[name]:
                out[name] = SCRIPT_OFFICIAL.get(str(struct[key]), str(struct[key])) if key == "script" else str(struct[key])
        if struct.get("formation") and not out["造字法"]:
            labels = text_list(struct["formation"])
            if struct.get("yisheng"):
                labels += [x for x in ("形声", "会意") if x not in labels]
            out["造字法"] = [f"{x}字" if x in FORMATION_SHORT else x for x in labels]
        comps = struct.get("components")
        if isinstance(comps, list) and comps:
            richness = sum(len([k for k in ("functions", "interpretation", "evolution_type") if c.get(k)])
                           for c in comps if isinstance(c, dict))
            if richness > best_components[0]:
                best_components = (richness, comps)
        _collect_accepted(struct, accepted)
    for comp in best_components[1]:
        if isinstance(comp, dict) and comp.get("name"):
            attrs = {"功能": list(comp.get("functions") or []), "解释": str(comp.get("interpretation") or "")}
            if comp.get("evolution_type"):
                attrs["演变类型"] = str(comp["evolution_type"])
            out["构件"][str(comp["name"])] = attrs
            others = [str(n) for n in comp.get("names") or [] if str(n) != str(comp["name"])]
            if others:
                accepted.setdefault("构件", {})[str(comp["name"])] = others
            if comp.get("functions_accepted"):
                accepted.setdefault("构件功能", {})[str(comp["name"])] = [
                    list(x) for x in comp["functions_accepted"] if isinstance(x, list)]
    if accepted:
        out[ACCEPTED_FIELD] = accepted
    return out


def _collect_accepted(struct: dict, accepted: dict) -> None:
    """The other accepted answers of one ``answer_struct`` (its ``accepted`` list) under
    the official field name they belong to (``可接受``: 现代字典字头 / 结构 / 造字法)."""
    values = struct.get("accepted")
    if not isinstance(values, list) or not values:
        return
    for key, name in (("character", "现代字典字头"), ("structure", "结构"), ("formation", "造字法")):
        if struct.get(key) and name not in accepted:
            if key == "formation":
                values = [[f"{x}字" if x in FORMATION_SHORT else x for x in text_list(v)] for v in values]
            accepted[name] = values
            return
