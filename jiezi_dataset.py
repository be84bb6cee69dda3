"""JieZi-Dataset as a ``datasets.GeneratorBasedBuilder`` (TRL-ready, one glyph image per row).

datasets >= 4 runs no loading scripts from the Hub, so this builder runs at build time:
``jiezi publish`` (``builder/publish/write.py``) prepares every config to parquet shards in the
Hub layout, and users load the published folder or repo with
``load_dataset("jiezi/dataset", "all", split="train")``. Direct use::

    from jiezi_dataset import JieZiDataset
    b = JieZiDataset(config_name="all", data_dir="out")   # the `jiezi build` folder
    b.download_and_prepare(); ds = b.as_dataset(split="train")

Input: ``<data_dir>/qa/dataset.jsonl``, ``qa/records_gallery.jsonl`` and
``qa/gallery_records.jsonl`` (written by ``builder/qa/stage.py``) and the images of the records folder named in
``qa/fingerprint.json`` (or ``records_dir=``).

Configs ``L1``..``L4`` keep, per image, the QA turns of that level only (rows with no
turn of the level are left out); ``all`` keeps every turn; ``records`` is the retrieval
gallery, one row per image with its GlyphRecord JSON. Split ``train``.

Rows (``hub.rows``; ARCHITECTURE.md "JieZi-Dataset rows"): ``id``, ``images`` (one image), ``messages``
(``{role, content: [{type, text}]}``; the first user turn carries the image), ``character``,
``script``, ``subtasks`` (per assistant turn), ``provenance`` (JSON, per turn); plus
``messages_en`` (the same turns in English) and ``answer_struct`` (JSON, per turn: the
structured form of each answer, as in JieZi-Bench's ``answer_struct``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import datasets

from hub.layout import records_dir_of
from hub.rows import QA_FEATURES, RECORD_FEATURES
from jiezi_bench import in_config as _row_in_config
from metrics.acce.labels import LEVELS
SHARDS = 16  # input shards; download_and_prepare(num_proc=N) hands them to N processes


def line_ranges(path: str | Path, n: int) -> list[tuple[int, int]]:
    """Split a JSON Lines file into at most ``n`` byte ranges that start and end on line
    boundaries (``[(start, end), ...]``, ``end`` exclusive)."""
    size = Path(path).stat().st_size
    cuts = [0]
    with open(path, "rb") as fh:
        for i in range(1, n):
            fh.seek(max(cuts[-1], size * i // n))
            fh.readline()
            pos = fh.tell()
            if cuts[-1] < pos < size:
                cuts.append(pos)
    cuts.append(size)
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


def read_ranges(path: str | Path, ranges: list[tuple[int, int]]):
    """Yield the lines (str) of ``path`` inside the byte ``ranges``."""
    with open(path, "rb") as fh:
        for start, end in ranges:
            fh.seek(start)
            while fh.tell() < end:
                line = fh.readline()
                if not line:
                    break
                if line.strip():
                    yield line.decode("utf-8")


def to_messages(qas: list[dict], lang: str = "zh") -> list[dict]:
    """TRL conversational turns from QA dicts: user question (the first one with the image
    placeholder ``{"type": "image"}``) then assistant answer, in order. Turns without an
    answer in ``lang`` (audit-corrected items have no English wording) are left out."""
    q_key, a_key = ("question", "answer") if lang == "zh" else ("question_en", "answer_en")
    qas = [q for q in qas if q.get(a_key)]  # an audit-corrected turn has no English wording
    msgs = []
    for i, q in enumerate(qas):
        content = ([{"type": "image", "text": None}] if i == 0 else []) + [{"type": "text", "text": q[q_key]}]
        msgs.append({"role": "user", "content": content})
        msgs.append({"role": "assistant", "content": [{"type": "text", "text": q[a_key]}]})
    return msgs


def in_config(qa: dict, config: str) -> bool:
    """Whether a QA turn belongs to ``config`` (``all`` or its level)."""
    return _row_in_config(qa["level"], qa["kind"], config)


@dataclass
class JieZiDatasetConfig(datasets.BuilderConfig):
    """A JieZi-Dataset config: ``L1``..``L4``, ``all`` or ``records``; ``records_dir``
    overrides where the glyph images are read from."""

    records_dir: str | None = None


class JieZiDataset(datasets.GeneratorBasedBuilder):
    """JieZi-Dataset: glyph images with ACCE QA turns for fine-tuning (see module docstring)."""

    BUILDER_CONFIG_CLASS = JieZiDatasetConfig
    BUILDER_CONFIGS = (
        [JieZiDatasetConfig(name=n, description=f"QA turns of level {n}") for n in LEVELS]
        + [JieZiDatasetConfig(name="all", description="every QA turn"),
           JieZiDatasetConfig(name="records", description="one row per glyph image with its record (retrieval gallery)")])
    DEFAULT_CONFIG_NAME = "all"

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description="JieZi-Dataset: ACCE QA pairs on glyph images, TRL conversational format.",
            features=RECORD_FEATURES if self.config.name == "records" else QA_FEATURES,
            homepage="https://arxiv.org/abs/2608.11741",
        )

    def _split_generators(self, dl_manager):
        if not self.config.data_dir:
            raise ValueError("JieZiDataset needs data_dir= the `jiezi build` output folder (with qa/)")
        name = "records_gallery.jsonl" if self.config.name == "records" else "dataset.jsonl"
        path = Path(self.config.data_dir) / "qa" / name
        if not path.exists():
            raise FileNotFoundError(f"{path}: run `jiezi build --output {self.config.data_dir}` first")
        images = records_dir_of(self.config.data_dir, self.config.records_dir)
        # byte ranges of the input, so `download_and_prepare(num_proc=N)` splits the work
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN,
                                        gen_kwargs={"path": str(path), "images": str(images),
                                                    "ranges": line_ranges(path, SHARDS)})]

    def _generate_examples(self, path: str, images: str, ranges: list[tuple[int, int]]):
        if self.config.name == "records":
            yield from record_examples(path, images, ranges)
            return
        for key, by_config in qa_examples(path, images, (self.config.name,), ranges):
            if self.config.name in by_config:
                yield key, by_config[self.config.name]


QA_CONFIGS: tuple[str, ...] = (*LEVELS, "all")


def _image(root: str, rel: str) -> dict:
    with open(root + rel, "rb") as img:
        return {"bytes": img.read(), "path": rel.rsplit("/", 1)[-1]}


def qa_examples(path: str | Path, images: str | Path, configs: tuple[str, ...] = QA_CONFIGS,
                ranges: list[tuple[int, int]] | None = None):
    """Yield ``(id, {config: example})`` for every line of ``dataset.jsonl`` at ``path``
    (within the byte ``ranges``, default the whole file), in file order: for each of
    ``configs`` that has a QA turn of this image, its example (the :data:`QA_FEATURES`
    columns of ``hub.rows``, turns of that config only). The image is read once per line, from
    ``images``/``row["image"]``; a line with no turn in any of ``configs`` yields nothing.
    Raises ``FileNotFoundError`` naming a missing image."""
    root = str(images) + "/"
    for line in read_ranges(path, ranges or [(0, Path(path).stat().st_size)]):
        row = json.loads(line)
        turns = {c: qas for c in configs if (qas := [q for q in row["qa"] if in_config(q, c)])}
        if not turns:
            continue
        image = _image(root, row["image"])
        yield row["id"], {c: {
            "id": row["id"],
            "images": [image],
            "messages": to_messages(qas, "zh"),
            "messages_en": to_messages(qas, "en"),
            "character": row["character"],
            "script": row["script"],
            "subtasks": [q["subtask"] for q in qas],
            "provenance": "[" + ",".join(q["provenance_json"] for q in qas) + "]",
            "answer_struct": "[" + ",".join(q["answer_struct_json"] for q in qas) + "]",
        } for c, qas in turns.items()}


def record_examples(path: str | Path, images: str | Path, ranges: list[tuple[int, int]] | None = None):
    """Yield ``(id, example)`` of the ``records`` config for every line of
    ``records_gallery.jsonl`` at ``path`` (within ``ranges``): the image and the
    GlyphRecord JSON named by its ``record_id`` in the sibling ``gallery_records.jsonl``."""
    root = str(images) + "/"
    records: dict[str, str] = {}
    with open(Path(path).with_name("gallery_records.jsonl"), encoding="utf-8") as fh:
        for line in fh:
            d = json.loads(line)
            records[d["record_id"]] = d["record"]
    for line in read_ranges(path, ranges or [(0, Path(path).stat().st_size)]):
        row = json.loads(line)
        yield row["id"], {"id": row["id"], "image": _image(root, row["image"]), "character": row["character"],
                          "script": row["script"], "record": records[row["record_id"]]}
