"""The columns of every published config: ``datasets.Features`` of JieZi-Bench and
JieZi-Dataset (ARCHITECTURE.md "JieZi-Bench rows" and "JieZi-Dataset rows").

The ``datasets`` builders (``jiezi_bench.py``, ``jiezi_dataset.py``) encode their rows with
these, publication writes them to the card's ``dataset_info``, and the harness writes the
official layouts' rows with the same features.
"""

from __future__ import annotations

import datasets

# JieZi-Bench, configs L1..L4 and all: one question per row
BENCH_FEATURES = datasets.Features({
    "id": datasets.Value("string"),
    "image": datasets.Image(),
    "image_id": datasets.Value("string"),
    "question": datasets.Value("string"),
    "answer": datasets.Value("string"),
    "answer_struct": datasets.Value("string"),
    "subtask": datasets.Value("string"),
    "metrics": datasets.List(datasets.Value("string")),
    "level": datasets.Value("string"),
    "character": datasets.Value("string"),
    "script": datasets.Value("string"),
    "unseen_character": datasets.Value("bool"),
    "unseen_glyph": datasets.Value("bool"),
    "unseen_components": datasets.List(datasets.Value("string")),
    "provenance": datasets.Value("string"),
    "question_en": datasets.Value("string"),
    "answer_en": datasets.Value("string"),
    "kind": datasets.Value("string"),
})

# The ``images`` config (the paper's protocol, issue 13): one row per bench image with its
# reference in the eight official field names (``metrics.acce.paper_reply.REFERENCE_FIELDS``), as
# JSON text; ``question_ids`` are the per-question rows of the same image.
BENCH_IMAGE_FEATURES = datasets.Features({
    "image_id": datasets.Value("string"),
    "image": datasets.Image(),
    "character": datasets.Value("string"),
    "script": datasets.Value("string"),
    "reference": datasets.Value("string"),
    "unseen_character": datasets.Value("bool"),
    "unseen_glyph": datasets.Value("bool"),
    "question_ids": datasets.List(datasets.Value("string")),
})

_CONTENT = datasets.List({"type": datasets.Value("string"), "text": datasets.Value("string")})
_MESSAGES = datasets.List({"role": datasets.Value("string"), "content": _CONTENT})

# JieZi-Dataset, configs L1..L4 and all: one glyph image per row with its QA turns (TRL-ready)
QA_FEATURES = datasets.Features({
    "id": datasets.Value("string"),
    "images": datasets.List(datasets.Image()),
    "messages": _MESSAGES,
    "messages_en": _MESSAGES,
    "character": datasets.Value("string"),
    "script": datasets.Value("string"),
    "subtasks": datasets.List(datasets.Value("string")),
    "provenance": datasets.Value("string"),
    "answer_struct": datasets.Value("string"),
})
# JieZi-Dataset, config records: the retrieval gallery, one row per glyph image with its record
RECORD_FEATURES = datasets.Features({
    "id": datasets.Value("string"),
    "image": datasets.Image(),
    "character": datasets.Value("string"),
    "script": datasets.Value("string"),
    "record": datasets.Value("string"),
})
