"""lmms-eval hooks of the JieZi-Bench tasks; scoring goes through JieZi's ACCE metric core.

Needs the ``jiezi`` package importable in the lmms-eval environment
(``pip install -e /path/to/jiezi`` or the repo on ``PYTHONPATH``).

- ``jiezi_doc_to_visual`` / ``jiezi_doc_to_text`` / ``jiezi_doc_to_messages``: the glyph
  image and the question with the harness's format hint (``harness.prompts``, the same
  ``PROMPT_VERSION`` as ``jiezi eval``); the messages form adds the harness's system prompt.
- ``jiezi_process_results``: one payload per metric the row is scored on (the row's
  ``metrics`` column, restricted to the task's level): id, raw prediction, the reference
  ``answer_struct`` and the script.
- ``jiezi_aggregate_<METRIC>``: ``metrics.acce.core.score`` over the collected payloads for
  that one metric; returns its value on 0-100 (0.0 when the metric cannot be computed,
  with the reason logged: lmms-eval needs a number).

Scorer settings come from the environment: ``JIEZI_BERTSCORE_MODEL`` (default
``bert-base-chinese``; ``offline-minilm`` = the MiniLM shipped on PyPI, not comparable to
the paper) and, for EVOI, ``JIEZI_JUDGE_BASE_URL`` / ``JIEZI_JUDGE_MODEL``.
"""

from __future__ import annotations

import json
import logging
import os

from harness import prompts
from harness.bench import question_kind
from harness.scoring import scorer_settings
from metrics.acce import labels
from metrics.acce.core import score

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


def _aggregate(metric: str, items: list[dict]) -> float:
    if not items:
        return 0.0
    result = score([i["prediction"] for i in items], [i["reference"] for i in items], [[metric]] * len(items),
                   ids=[i["id"] for i in items], settings=_settings())
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
