"""JieZi's ACCE metric: the ``jiezi/acce`` evaluate module (``acce.py``) and its scoring core.

Plain functions, importable without evaluate: ``from metrics.acce.core import score,
parse_answer, ScorerSettings``. The names are also available here, loaded on first use so
that ``import metrics.acce.labels`` (the builder's vocabulary import) stays cheap.
"""

from __future__ import annotations

_LAZY = {"score": "core", "parse_answer": "core", "ScorerSettings": "core", "METRIC_VERSION": "core",
         "OpenAIJudge": "judge", "TransformersJudge": "judge", "JudgeCache": "judge"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
