"""Publication: write JieZi-Dataset and JieZi-Bench as Hub-layout folders (parquet + card),
push them, and read published folders back for every consumer.

In: ``OUT/qa/`` and ``OUT/records/``.
Out: ``OUT/jiezi-dataset/``, ``OUT/jiezi-bench/`` (Hub layout), ``OUT/report.json``.
"""
