"""Publication: write JieZi-Dataset and JieZi-Bench as Hub-layout folders (parquet + card),
and push them (consumers read them back with ``hub.read``).

In: ``OUT/qa/`` and ``OUT/records/``.
Out: ``OUT/jiezi-dataset/``, ``OUT/jiezi-bench/`` (Hub layout), ``OUT/report.json``.
"""
