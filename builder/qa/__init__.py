"""QA pairs (paper stage 3): per-subtask facts (the question templates are
``hub.templates``), answer composition, evolution evidence and rules, JieZi-Bench selection
and splits, audit sheets and corrections.

In: ``OUT/records/`` and Duan's notes from the source cache.
Out: ``OUT/qa/`` (``dataset.jsonl``, ``bench.jsonl``, galleries, ``report.json``).
"""
