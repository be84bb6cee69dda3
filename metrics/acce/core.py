"""The ACCE scorer as plain functions: ``score``, ``parse_answer``, ``ScorerSettings``.

``acce.py`` wraps this as the ``jiezi/acce`` evaluate metric; the harness and other
toolkits call it directly. Every definition follows ACCE.md section 2 (the JieZi paper and
its reference evaluation code):

- each metric is computed per question and a metric's score is the mean over its questions
  (not pooled counts), on 0-100;
- the headline is strict: an unparseable answer (no label, no component, empty text) and a
  judge failure count 0; ``lenient`` gives the means over parsed / judged answers only,
  and ``counts`` says how many of each there were;
- CHAR, SCRC (简体 counts as 楷书), STRC: exact match of the extracted label;
  FORC: exact match of the set of formation labels, with recall-style partial credit
  (|pred ∩ gold| / |gold|) reported beside it as ``FORC_partial``; where the sources allow
  two answers the reference lists the others under ``answer_struct["accepted"]`` (CHAR: a
  variant form the glyph is drawn in, 毓 for 育; STRC: 独体 beside a stroke-level IDS split;
  FORC: 形声 beside 形声+会意 when only Duan says 亦声) and the best of them counts;
- a reference component may carry other accepted ``names`` (a 省 part: 萬 or 蠆 in 癘);
- COMR / COMF / COME / COMI: per-question F1 after one-to-one component matching
  (``components.py``); COMI weights each pair by the BERTScore F1 of its interpretations;
- ORIM: BERTScore F1 (``bertscore.py``); EVOI_FAC / EVOI_SCE: LLM judge 0-4 x 25 (``judge.py``).

Level scores L1..L4 and ``macro`` average the metrics that were computed (a metric that is
None is left out, and ``aggregation`` lists what went in).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field

from .aggregate import METRIC_VERSION, Cell, Item, aggregate
from .bertscore import BertScoreStage, BertScoreUnavailable
from .component_match import f1_from_counts, match_components
from .component_record import Component
from .components import components_from_json, dedupe, parse_components
from .extract import answer_part, extract_character, extract_formation, extract_script, extract_structure, only_question
from .inputs import _field, _reference, metrics_of, split_flags
from .judge import SCALE, Judge, JudgeRequest, judge_from_env
from .labels import COMPONENT_SUBTASKS, FORMATIONS, scoring_script
from .normalize import is_refusal, normalize_char, normalize_text, original_form


class ScorerSettings(BaseModel):
    """Scorer settings recorded with every result (scores from different settings differ).

    - ``bertscore_model``: Hub name or local folder of the BERT used for ORIM/COMI
      (default ``bert-base-chinese``, ACCE.md section 2), or ``offline-minilm``: the English
      MiniLM shipped on PyPI (``bertscore.OFFLINE_MODELS``), which checks the plumbing
      offline but does not measure answer quality (results say so in ``warnings``);
    - ``bertscore_layers``: hidden states averaged (8 = embeddings + layers 1..7);
    - ``batch_size``: BERTScore batch size; ``device``: torch device or None (auto);
    - ``bertscore``: False skips ORIM/COMI (reported as not computed);
    - ``reference_defaults``: fill a missing component function with 符号 and a missing
      evolution type with 保留 before comparing, as the reference code does (off by default:
      an answer that does not state a function is not credited with one);
    - ``progress``: show progress bars for BERTScore and the judge.
    """

    model_config = ConfigDict(from_attributes=True, extra="forbid")

    bertscore_model: str = "bert-base-chinese"
    bertscore_layers: int = Field(8, ge=1)
    batch_size: int = Field(64, ge=1)
    device: str | None = None
    bertscore: bool = True
    reference_defaults: bool = False
    progress: bool = True


def coerce_settings(settings: object) -> ScorerSettings:
    """``ScorerSettings`` from None, an instance (also one from another copy of this module),
    a mapping, or an object with ``model_dump``. Raises ``TypeError`` / pydantic errors."""
    if settings is None:
        return ScorerSettings()
    if isinstance(settings, ScorerSettings):
        return settings
    if isinstance(settings, dict):
        return ScorerSettings.model_validate(settings)
    if hasattr(settings, "model_dump"):
        return ScorerSettings.model_validate(settings.model_dump())
    raise TypeError(f"settings must be ScorerSettings, a dict or None, not {type(settings).__name__}")


# ------------------------------------------------------------------ answer parsing
_MEANING_LABEL = re.compile(r"^\s*(?:[*#>\-\s]*)?(?:\*\*)?(?:本义|原义|字源本义|造字本义|original meaning|meaning)(?:\*\*)?"
                            r"\s*(?:是|为|[:：=])\s*", re.I)


def _meaning_text(text: str | None) -> str:
    norm = answer_part(normalize_text(text, keep_lines=False))
    if only_question(norm):  # an echoed question answers nothing
        return ""
    return _MEANING_LABEL.sub("", norm).strip(" *")


def _formation_set(value: object) -> tuple[frozenset[str], bool] | None:
    if isinstance(value, (list, tuple)):
        labels: set[str] = set()
        flag = False
        for item in value:
            got = extract_formation(str(item))
            if got:
                labels |= got[0]
                flag = flag or got[1]
        return (frozenset(labels), flag) if labels else None
    return extract_formation(str(value))


def _ordered_formations(labels) -> list[str]:
    order = list(FORMATIONS)
    return sorted(labels, key=lambda x: order.index(x) if x in order else len(order))


def parse_answer(prediction: str, subtask: str | list[str]) -> dict | None:
    """The structured reading of one raw answer, in the bench's ``answer_struct`` shape.

    ``subtask``: a code (CHAR, SCRC, STRC, FORC, ORIM, EVOI, COMR/COMF/COMI/COME) or a metric
    key / list of them (the first decides). Returns e.g. ``{"character": "江"}``,
    ``{"script": "篆书"}``, ``{"structure": "⿰"}``, ``{"formation": ["形声"], "yisheng": False}``,
    ``{"components": [{"name", "functions", "interpretation", "evolution_type"}]}``,
    ``{"original_meaning": "..."}``, ``{"evolution": "..."}``; None when unparseable.
    Raises ``ValueError`` on an unknown subtask.
    """
    metric = metrics_of(subtask)[0]
    if metric == "CHAR":
        char = extract_character(prediction)
        return {"character": char} if char else None
    if metric == "SCRC":
        script = extract_script(prediction)
        return {"script": script} if script else None
    if metric == "STRC":
        structure = extract_structure(prediction)
        return {"structure": structure} if structure else None
    if metric == "FORC":
        got = extract_formation(prediction)
        return {"formation": _ordered_formations(got[0]), "yisheng": got[1]} if got else None
    if metric in COMPONENT_SUBTASKS:
        comps = parse_components(prediction)
        return {"components": [c.to_dict() for c in comps]} if comps else None
    if metric == "ORIM":
        text = _meaning_text(prediction)
        return {"original_meaning": text} if text else None
    text = normalize_text(prediction)
    return {"evolution": text} if text else None


# -------------------------------------------------------------------------- scoring
def _score_categorical(item: Item, metric: str) -> Cell:
    pred, ref, i = item.prediction, item.reference, item.index
    try:
        if metric == "CHAR":
            gold = normalize_char(_answer_character(str(_field(ref, "character"))) or "")
            if not gold:
                raise ValueError("reference names no character")
            golds = {gold} | {normalize_char(_answer_character(str(x)) or "") for x in _accepted(ref, "character")} - {""}
            got = _answer_character(pred)
            parsed = normalize_char(got) if got else None
            return _cell(i, metric, parsed, float(parsed in golds))
        if metric == "SCRC":
            gold = extract_script(str(_field(ref, "script")))
            if not gold:
                raise ValueError("reference names no script label")
            parsed = extract_script(pred)
            same = parsed is not None and scoring_script(parsed) == scoring_script(gold)
            return _cell(i, metric, parsed, float(same))
        if metric == "STRC":
            gold = extract_structure(str(_field(ref, "structure")))
            if not gold:
                raise ValueError("reference names no structure label")
            golds = {gold} | {extract_structure(str(x)) for x in _accepted(ref, "structure")} - {None}
            parsed = extract_structure(pred)
            return _cell(i, metric, parsed, float(parsed in golds))
        # FORC
        gold_value = _field(ref, "formation", "creation_method")
        gold = _formation_set(gold_value)
        if not gold:
            raise ValueError("reference names no formation label")
        gold_set = set(gold[0])
        if isinstance(ref, dict) and ref.get("yisheng"):
            gold_set |= {"会意", "形声"}
        gold_sets = [gold_set] + [set(x[0]) for x in (_formation_set(a) for a in _accepted(ref, "formation")) if x]
        got = extract_formation(pred)
        if got is None:
            return Cell(i, metric, "unparseable", 0.0, partial=0.0, reason="no formation label found")
        pred_set = set(got[0])
        # several accepted sets (亦声 from Duan alone: 形声 or 形声+会意): the best one counts
        value = max(float(pred_set == g) for g in gold_sets)
        partial = max(len(pred_set & g) / len(g) for g in gold_sets)
        return Cell(i, metric, "ok", value, partial=partial, parsed=_ordered_formations(pred_set))
    except ValueError as exc:
        return Cell(i, metric, "invalid_reference", reason=str(exc))


def _accepted(ref: dict | str, key: str) -> list:
    """The reference's other accepted answers for field ``key`` (character, structure or
    formation): ``answer_struct["accepted"]`` as a list (one subtask's struct), or its
    ``key`` entry when it is a mapping (one reference serving every field, the paper
    protocol's ``jiezi`` mode); ``[]`` when it gives none or is text. The reference's own
    value is always accepted besides these."""
    if not isinstance(ref, dict):
        return []
    value = ref.get("accepted")
    if isinstance(value, dict):
        value = value.get(key)
    return list(value) if isinstance(value, (list, tuple)) else []


def _answer_character(text: str) -> str | None:
    # The extractor reads OpenCC-t2s text; the character compared is the one the text wrote
    # (後 stays 後), so that only one-to-one pairs count as the same (normalize_char).
    return original_form(text, extract_character(text))


def _cell(index: int, metric: str, parsed: object, value: float) -> Cell:
    if parsed is None:
        return Cell(index, metric, "unparseable", 0.0, reason="no answer label found")
    return Cell(index, metric, "ok", value, parsed=parsed)


def _gold_components(ref: dict | str) -> list[Component]:
    if isinstance(ref, dict):
        if "components" not in ref:
            raise ValueError(f"reference has no 'components' field (keys present: {sorted(ref)})")
        # A bench repeats a character's components in several questions and every
        # submission is scored against the same references: parse each distinct one once.
        key = json.dumps(ref["components"], ensure_ascii=False)  # key order kept: it is the components' order
        return list(_gold_from_json(key))
    comps = parse_components(ref) or []
    if not comps:
        raise ValueError("reference lists no component")
    return dedupe(comps)


@lru_cache(maxsize=65536)
def _gold_from_json(components_json: str) -> tuple[Component, ...]:
    value = json.loads(components_json)
    comps = components_from_json(value, gold=True) if value else []
    if not comps:
        raise ValueError("reference lists no component")
    return tuple(dedupe(comps))


def score(predictions: list[str], references: list, subtasks: list, *, ids: list[str] | None = None,
          scripts: list[str] | None = None, splits: list[list[str]] | None = None,
          settings: ScorerSettings | dict | None = None, judge: Judge | None | bool = None,
          details: bool = False) -> dict:
    """Score model answers on the eleven ACCE metrics (ACCE.md section 2).

    Args:
        predictions: raw model answers (str; None counts as empty).
        references: per item the bench's reference answer text or its ``answer_struct``
            (a dict or its JSON string; shapes in ARCHITECTURE.md).
        subtasks: per item a subtask code (``"CHAR"``, ``"EVOI"`` = both judge axes ...) or a
            list of metric keys (the bench's ``metrics`` column, e.g.
            ``["COMR", "COMF", "COMI", "COME"]`` for the shared component question).
        ids: optional item ids (used in ``skipped`` and ``items``).
        scripts: optional script label per item -> ``breakdown["script"]``.
        splits: optional split names per item, from ``labels.SPLITS`` (``test``,
            ``unseen_characters``, ``unseen_glyphs``): a list (``["unseen_characters"]``),
            one name as a string, or None / ``[]`` -> ``breakdown["split"]`` (plus
            ``"all"``) and ``breakdown["script_split"]``.
        settings: ``ScorerSettings`` (or a dict of its fields).
        judge: a ``judge.Judge`` for EVOI; None uses ``$JIEZI_JUDGE_BASE_URL`` /
            ``$JIEZI_JUDGE_MODEL`` when set; False disables the judge.
        details: also return ``items``, one record per (item, metric) with the parsed answer,
            status, score and, for EVOI, the judge's raw reply.

    Returns:
        dict with the eleven metric keys (0-100 floats; None when not computed, with the
        reason in ``not_computed``, or when no item asked for the metric), ``L1``..``L4``,
        ``macro``, ``lenient``, ``FORC_partial``, ``counts``, ``breakdown`` (when scripts or
        splits are given), ``skipped``, ``warnings``, ``not_computed``, ``aggregation``,
        ``settings`` (and ``items`` with ``details``).

    Raises:
        ValueError: when the per-item lists differ in length, or a ``splits`` entry names
            an unknown split (the message names the item index and the allowed names). A
            bad single item (unknown subtask code, unreadable reference) is skipped and
            listed under ``skipped``.
    """
    cfg = coerce_settings(settings)
    n = len(predictions)
    for name, values in (("references", references), ("subtasks", subtasks), ("ids", ids),
                         ("scripts", scripts)):
        if values is not None and len(values) != n:
            raise ValueError(f"{name} has {len(values)} entries but predictions has {n}")
    # Checked before any scoring: a caller's mistake must not cost a BERTScore or judge run.
    splits = split_flags(splits, n)
    id_of = (lambda i: str(ids[i])) if ids is not None else (lambda i: str(i))
    skipped: list[dict] = []
    items: list[Item] = []
    for i in range(n):
        try:
            metrics = metrics_of(subtasks[i])
        except ValueError as exc:
            skipped.append({"index": i, "id": id_of(i), "field": "subtasks", "reason": str(exc)})
            continue
        try:
            ref = _reference(references[i])
        except ValueError as exc:
            skipped.append({"index": i, "id": id_of(i), "field": "references", "reason": str(exc)})
            continue
        pred = "" if predictions[i] is None else str(predictions[i])
        items.append(Item(i, metrics, pred, ref))

    not_computed: dict[str, str] = {}
    warnings: list[str] = []
    for item in items:
        for metric in item.metrics:
            if metric in ("CHAR", "SCRC", "STRC", "FORC"):
                item.cells[metric] = _score_categorical(item, metric)
    queue = _BertQueue()
    for item in items:
        _score_components(item, cfg, queue)
        _prepare_orim(item, queue)
    bert_info = _run_bertscore(items, cfg, queue, not_computed, warnings)
    judge_info = _score_evoi(items, cfg, judge, not_computed)
    return aggregate(items, n, skipped, not_computed, warnings, cfg, bert_info, judge_info,
                      scripts, splits, id_of, details)


@dataclass
class _BertQueue:
    """(candidate, reference) pairs waiting for one batched BERTScore call, and their users."""

    pairs: list[tuple[str, str]] = field(default_factory=list)
    orim: list[tuple[Item, int]] = field(default_factory=list)  # item, slot
    comi: list[tuple[Item, list[int | None], int, int]] = field(default_factory=list)  # item, slots, n_pred, n_gold

    def add(self, candidate: str, reference: str) -> int:
        self.pairs.append((candidate, reference))
        return len(self.pairs) - 1


# the reference component field each attribute metric needs
_NEEDS = {"COMF": "functions", "COME": "evolution_type", "COMI": "interpretation"}


def _score_components(item: Item, cfg: ScorerSettings, queue: _BertQueue) -> None:
    """COMR / COMF / COME of one item (COMI is queued for BERTScore): parse once, match once."""
    wanted = [m for m in item.metrics if m in COMPONENT_SUBTASKS]
    if not wanted:
        return
    try:
        gold = _gold_components(item.reference)
    except ValueError as exc:
        for metric in wanted:
            item.cells[metric] = Cell(item.index, metric, "invalid_reference", reason=str(exc))
        return
    pred = parse_components(item.prediction)
    for metric in wanted:
        attr = _NEEDS.get(metric)
        missing = [c.name for c in gold if attr and not getattr(c, attr)]
        if missing and not (cfg.reference_defaults and metric != "COMI"):
            item.cells[metric] = Cell(item.index, metric, "invalid_reference",
                                       reason=f"reference component(s) {missing} have no {attr}")
        elif pred is None:
            item.cells[metric] = Cell(item.index, metric, "unparseable", 0.0, reason="no component found")
        else:
            item.cells[metric] = Cell(item.index, metric, "ok", parsed=[c.to_dict() for c in pred])
    if pred is None:
        return
    pairs = match_components(gold, pred)
    n_pred, n_gold = len(pred), len(gold)
    for metric in wanted:
        cell = item.cells[metric]
        if cell.status != "ok":
            continue
        if metric == "COMR":
            cell.value = f1_from_counts(len(pairs), n_pred, n_gold)
        elif metric == "COMF":
            right = sum(_functions(pred[j], cfg) == _functions(gold[g], cfg) for g, j, _ in pairs)
            cell.value = f1_from_counts(right, n_pred, n_gold)
        elif metric == "COME":
            right = sum(_evolution(pred[j], cfg) is not None and _evolution(pred[j], cfg) == _evolution(gold[g], cfg)
                        for g, j, _ in pairs)
            cell.value = f1_from_counts(right, n_pred, n_gold)
        else:  # COMI: each pair weighted by the BERTScore F1 of the two interpretations
            # a refused interpretation earns no BERTScore credit: its pair weighs 0 (no slot)
            slots = [None if is_refusal(pred[j].interpretation) else queue.add(pred[j].interpretation,
                                                                               gold[g].interpretation)
                     for g, j, _ in pairs]
            queue.comi.append((item, slots, n_pred, n_gold))


def _prepare_orim(item: Item, queue: _BertQueue) -> None:
    if "ORIM" not in item.metrics:
        return
    try:
        gold_text = _meaning_text(str(_field(item.reference, "original_meaning")))
        if not gold_text:
            raise ValueError("reference original meaning is empty")
    except ValueError as exc:
        item.cells["ORIM"] = Cell(item.index, "ORIM", "invalid_reference", reason=str(exc))
        return
    text = _meaning_text(item.prediction)
    if not text or is_refusal(text):
        reason = "explicit refusal" if text else "empty answer"
        item.cells["ORIM"] = Cell(item.index, "ORIM", "unparseable", 0.0, reason=reason)
        return
    item.cells["ORIM"] = Cell(item.index, "ORIM", "ok", parsed=text)
    queue.orim.append((item, queue.add(text, gold_text)))


def _run_bertscore(items: list[Item], cfg: ScorerSettings, queue: _BertQueue,
                   not_computed: dict[str, str], warnings: list[str]) -> dict | None:
    """One batched BERTScore call for every queued pair; fills ORIM and COMI cells, and adds
    to ``warnings`` what the values mean when the model cannot judge Chinese text."""
    if not any(m in ("ORIM", "COMI") for item in items for m in item.metrics):
        return None
    stage = BertScoreStage(cfg.bertscore_model, cfg.bertscore_layers, cfg.batch_size, cfg.device)
    reason = None
    values: list[float] = []
    if not cfg.bertscore:
        reason = "BERTScore disabled by settings (bertscore=False)"
    else:
        try:
            cands = [normalize_text(c, keep_lines=False) for c, _ in queue.pairs]
            refs = [normalize_text(r, keep_lines=False) for _, r in queue.pairs]
            values = stage.score_pairs(cands, refs, progress=cfg.progress)
        except BertScoreUnavailable as exc:
            reason = str(exc)
    # a disabled stage names no model: the result must not claim one, nor comparability
    info = stage.describe() if cfg.bertscore else {"model": None, "comparable_to_paper": False}
    if reason:
        info["unavailable"] = reason
        not_computed["ORIM"] = not_computed["COMI"] = reason
        return info
    warnings.extend(stage.warnings())
    for item, slot in queue.orim:
        item.cells["ORIM"].value = values[slot]
        item.cells["ORIM"].bertscore = stage.pair_stats[slot]
    for item, slots, n_pred, n_gold in queue.comi:
        item.cells["COMI"].value = f1_from_counts(sum(values[s] for s in slots if s is not None), n_pred, n_gold)
        item.cells["COMI"].bertscore = _summed_stats([stage.pair_stats[s] for s in slots if s is not None])
    return info


def _summed_stats(stats: list[dict | None]) -> dict:
    """[UNK] counts and truncation of a COMI item's pairs, summed (issue 15: per-item [UNK] counts)."""
    stats = [st for st in stats if st]
    return {"pairs": len(stats), "unk_candidate": sum(st["unk_candidate"] for st in stats),
            "unk_reference": sum(st["unk_reference"] for st in stats),
            "unk_exact_pairs": sum(st["unk_exact"] for st in stats), "truncated_pairs": sum(st["truncated"] for st in stats)}


_NO_JUDGE = ("no judge configured: pass judge=OpenAIJudge(...) or TransformersJudge(...), or set "
             "JIEZI_JUDGE_BASE_URL and JIEZI_JUDGE_MODEL")


def _active_judge(judge: object):
    # Any object with ``judge`` and ``describe`` is accepted: under evaluate.load the Judge
    # class lives in a second copy of this package, so isinstance would reject it.
    if judge is None or judge is True:
        return judge_from_env()
    if judge is False:
        return None
    if hasattr(judge, "judge") and hasattr(judge, "describe"):
        return judge
    raise TypeError(f"judge must be a Judge, None or False, not {type(judge).__name__}")


def _score_evoi(items: list[Item], cfg: ScorerSettings, judge: object, not_computed: dict[str, str]) -> dict | None:
    """EVOI_FAC / EVOI_SCE: one judge call per answer and axis; returns the judge settings."""
    evoi = [(item, m) for item in items for m in ("EVOI_FAC", "EVOI_SCE") if m in item.metrics]
    if not evoi:
        return None
    active = _active_judge(judge)
    requests: list[JudgeRequest] = []
    plan: list[tuple[Item, str]] = []
    for item, metric in evoi:
        try:
            gold_text = normalize_text(str(_field(item.reference, "evolution")))
            if not gold_text:
                raise ValueError("reference evolution text is empty")
        except ValueError as exc:
            item.cells[metric] = Cell(item.index, metric, "invalid_reference", reason=str(exc))
            continue
        pred_text = normalize_text(item.prediction)
        if not pred_text:  # nothing to judge: 0 without a call
            item.cells[metric] = Cell(item.index, metric, "unparseable", 0.0, reason="empty answer")
            continue
        item.cells[metric] = Cell(item.index, metric, "ok", parsed=pred_text)
        requests.append(JudgeRequest(metric.split("_")[1], gold_text, pred_text))
        plan.append((item, metric))
    if active is None:
        not_computed["EVOI_FAC"] = not_computed["EVOI_SCE"] = _NO_JUDGE
        return None
    results = active.judge(requests, progress=cfg.progress) if requests else []
    for (item, metric), result in zip(plan, results):
        cell = item.cells[metric]
        cell.raw = result.raw
        if result.score is None:
            cell.status, cell.value, cell.reason = "judge_failure", 0.0, result.error
        else:
            cell.value = result.score * SCALE / 100
    for metric in ("EVOI_FAC", "EVOI_SCE"):
        mine = [r for (_, m), r in zip(plan, results) if m == metric]
        if mine and all(r.transport for r in mine):
            not_computed[metric] = f"every judge call failed to get a reply (first error: {mine[0].error})"
    return active.describe()


def _functions(comp: Component, cfg: ScorerSettings) -> frozenset[str]:
    if cfg.reference_defaults and not comp.functions:
        return frozenset({"符号"})
    return comp.functions


def _evolution(comp: Component, cfg: ScorerSettings) -> str | None:
    if cfg.reference_defaults and comp.evolution_type is None:
        return "保留"
    return comp.evolution_type


__all__ = ["METRIC_VERSION", "ScorerSettings", "coerce_settings", "metrics_of", "parse_answer", "score", "split_flags"]
