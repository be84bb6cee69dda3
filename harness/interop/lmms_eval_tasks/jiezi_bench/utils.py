"""lmms-eval hooks of the JieZi-Bench tasks; scoring goes through JieZi's ACCE metric core.

Needs the ``jiezi`` package importable in the lmms-eval environment
(``pip install -e /path/to/jiezi`` or the repo on ``PYTHONPATH``).

- ``jiezi_doc_to_visual`` / ``jiezi_doc_to_text`` / ``jiezi_doc_to_messages``: the glyph
  image and the question with the harness's format hint (``harness.prompts``, the same
  ``PROMPT_VERSION`` as ``jiezi eval``); the messages form adds the harness's system prompt.
- ``jiezi_process_results``: one payload per metric the row is scored on (the row's
  ``metrics`` column, restricted to the task's level): id, raw prediction, the reference
  ``answer_struct`` and the script.
- ``jiezi_paper_*``: the ``jiezi_bench_paper`` task (the paper's protocol, config ``images``):
  the eight-field JSON request and ``metrics.acce.paper.score_paper`` (reference mode).
- ``jiezi_aggregate_<METRIC>``: ``metrics.acce.core.score`` over the collected payloads for
  that one metric; returns its value on 0-100 (0.0 when the metric cannot be computed,
  with the reason logged: lmms-eval needs a number).

Scorer settings come from the environment: ``JIEZI_BERTSCORE_MODEL`` (default
``bert-base-chinese``; ``offline-minilm`` = the MiniLM shipped on PyPI, not comparable to
the paper) and, for EVOI, ``JIEZI_JUDGE_MODEL``: the judge is called through lmms-eval's own
``lmms_eval.llm_judge`` (``harness.interop.lmms_judge``: provider ``JIEZI_LMMS_JUDGE_SERVER``,
default ``openai``, with lmms-eval's ``OPENAI_API_URL`` / ``OPENAI_API_KEY`` or
``JIEZI_JUDGE_BASE_URL`` / ``JIEZI_JUDGE_API_KEY``), with this project's rubric prompts and
parser. Without a judge model EVOI is not computed (0.0, logged).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os

from harness import prompts
from harness.bench import question_kind
from harness.scoring import scorer_settings
from metrics.acce import labels
from metrics.acce.core import score
from harness.interop import lmms_judge
from metrics.acce.paper import PAPER_METRICS, score_paper

log = logging.getLogger("jiezi_bench")


def _level_metrics(doc: dict) -> list[str]:
    """The row's metric keys (its ``metrics`` column)."""
    metrics = doc.get("metrics") or [doc.get("subtask")]
    return [m for m in metrics if m]


def jiezi_doc_to_visual(doc):
    """The glyph image, RGB."""
    return [doc["image"].convert("RGB")]


def jiezi_doc_to_text(doc, lmms_eval_specific_kwargs=None):
    """The question followed by the harness's answer-format hint."""
    kw = lmms_eval_specific_kwargs or {}
    text = prompts.user_text(doc["question"], prompts.question_type(question_kind(doc)))
    return f"{kw.get('pre_prompt', '')}{text}{kw.get('post_prompt', '')}"


def jiezi_doc_to_messages(doc, lmms_eval_specific_kwargs=None):
    """Chat messages: the harness's system prompt, then the image and the question."""
    return [
        {"role": "system", "content": [{"type": "text", "text": prompts.SYSTEM_PROMPT}]},
        {"role": "user", "content": [{"type": "image", "url": jiezi_doc_to_visual(doc)[0]},
                                     {"type": "text", "text": jiezi_doc_to_text(doc, lmms_eval_specific_kwargs)}]},
    ]


def jiezi_process_results(doc, results):
    """``{metric: payload}`` for each metric of the row (lmms-eval groups payloads by key)."""
    prediction = results[0] if results else ""
    payload = {"id": doc["id"], "prediction": prediction if isinstance(prediction, str) else str(prediction),
               "reference": doc["answer_struct"], "script": doc.get("script")}
    return {metric: payload for metric in _level_metrics(doc)}


def _settings():
    settings, _ = scorer_settings(os.environ.get("JIEZI_BERTSCORE_MODEL") or None, progress=False)
    return settings


_JUDGE: list = []


def _judge():
    """The EVOI judge through ``lmms_eval.llm_judge`` (one per process), or False (none named)."""
    if not _JUDGE:
        _JUDGE.append(lmms_judge.judge_from_env() or False)
    return _JUDGE[0]


def _aggregate(metric: str, items: list[dict]) -> float:
    if not items:
        return 0.0
    result = score([i["prediction"] for i in items], [i["reference"] for i in items], [[metric]] * len(items),
                   ids=[i["id"] for i in items], settings=_settings(),
                   judge=_judge() if metric.startswith("EVOI") else False)
    value = result.get(metric)
    if value is None:
        log.warning("JieZi-Bench %s not computed: %s", metric, json.dumps(result.get("not_computed", {}),
                                                                           ensure_ascii=False))
        return 0.0
    return float(value)


def _make(metric: str):
    def aggregate(items):
        return _aggregate(metric, items)

    aggregate.__name__ = f"jiezi_aggregate_{metric}"
    aggregate.__doc__ = f"ACCE {metric} (0-100) of the collected answers, by metrics.acce.core.score."
    return aggregate


for _metric in labels.METRICS:
    globals()[f"jiezi_aggregate_{_metric}"] = _make(_metric)


# ------------------------------------------------------------- the paper's protocol
# Task jiezi_bench_paper (config ``images``): one request per image for the eight-field JSON
# (``harness.prompts.PAPER_PROMPT``), scored by ``metrics.acce.paper.score_paper`` in the
# authors' mode. One scoring per set of collected replies serves all twelve metrics.
_PAPER_CACHE: dict[str, dict] = {}


def jiezi_paper_doc_to_text(doc, lmms_eval_specific_kwargs=None):
    """The paper-protocol request text (this project's wording of the eight-field JSON ask)."""
    kw = lmms_eval_specific_kwargs or {}
    return f"{kw.get('pre_prompt', '')}{prompts.PAPER_PROMPT}{kw.get('post_prompt', '')}"


def jiezi_paper_doc_to_messages(doc, lmms_eval_specific_kwargs=None):
    """Chat messages: the harness's system prompt, then the image and the paper request."""
    return [
        {"role": "system", "content": [{"type": "text", "text": prompts.SYSTEM_PROMPT}]},
        {"role": "user", "content": [{"type": "image", "url": jiezi_doc_to_visual(doc)[0]},
                                     {"type": "text", "text": jiezi_paper_doc_to_text(doc, lmms_eval_specific_kwargs)}]},
    ]


def jiezi_paper_process_results(doc, results):
    """One payload (image id, raw reply, eight-field reference) under every paper metric."""
    reply = results[0] if results else ""
    payload = {"id": doc["image_id"], "prediction": reply if isinstance(reply, str) else str(reply),
               "reference": doc["reference"]}
    return {metric: payload for metric in PAPER_METRICS}


def _paper_scores(items: list[dict]) -> dict:
    key = hashlib.sha256(json.dumps([[i["id"], i["prediction"]] for i in items], ensure_ascii=False).encode()).hexdigest()
    if key not in _PAPER_CACHE:
        _PAPER_CACHE[key] = score_paper([i["prediction"] for i in items], [i["reference"] for i in items],
                                        mode="reference", settings=_settings(), judge=_judge())
    return _PAPER_CACHE[key]


def _make_paper(metric: str):
    def aggregate(items):
        if not items:
            return 0.0
        cell = _paper_scores(items)[metric]
        if cell["with_failures"] is None:
            log.warning("JieZi-Bench (paper protocol) %s not computed: %s", metric, cell.get("reason", "no value"))
            return 0.0
        return float(cell["with_failures"])

    aggregate.__name__ = f"jiezi_paper_aggregate_{metric}"
    aggregate.__doc__ = f"Paper-protocol {metric} (0-100, failures counted) by metrics.acce.paper.score_paper."
    return aggregate


for _metric in PAPER_METRICS:
    globals()[f"jiezi_paper_aggregate_{_metric}"] = _make_paper(_metric)
