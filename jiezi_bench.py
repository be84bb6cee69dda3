"""JieZi-Bench as a ``datasets.GeneratorBasedBuilder`` (one question per row).

datasets >= 4 runs no loading scripts from the Hub, so this builder runs at build time:
``jiezi publish`` (``builder/publish/write.py``) prepares every config to parquet and writes the
Hub layout, and users load the published folder or repo with the ordinary
``load_dataset("jiezi/bench", "L4", split="test")``. It can also be used directly::

    from jiezi_bench import JieZiBench
    b = JieZiBench(config_name="L1", data_dir="out")   # the `jiezi build` folder
    b.download_and_prepare(); ds = b.as_dataset(split="unseen_characters")

Input: ``<data_dir>/qa/bench.jsonl`` (written by ``builder/qa/stage.py``) and the glyph
images under the records folder named in ``<data_dir>/qa/fingerprint.json`` (or
``records_dir=``). Configs ``L1``..``L4`` keep the rows of that level (the shared
component question, scored on COME too, is in L2 and L4) and ``all`` keeps every row.
Splits: ``test`` (every row of the config), ``unseen_characters`` and ``unseen_glyphs``
(the rows flagged so). A small build can leave a split empty; ``datasets`` cannot read a
split of 0 rows back (``as_dataset`` / ``load_dataset`` raise "corresponds to no data"),
so ``jiezi publish`` leaves empty splits out of the Hub folder and its card, and the
stage report warns about them. Columns (``hub.rows``): ARCHITECTURE.md "JieZi-Bench rows", plus ``question_en``
and ``answer_en`` (the English wording) and ``kind`` (the template kind).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import datasets

from hub.layout import records_dir_of
from hub.rows import BENCH_FEATURES, BENCH_IMAGE_FEATURES
from hub.templates import EXTRA_LEVELS  # template kinds whose rows also belong to another level's config
from metrics.acce.labels import LEVELS, SPLIT_FLAG_COLUMNS, SPLITS
from metrics.acce.paper import official_reference


def in_config(level: str, kind: str, config: str) -> bool:
    """Whether a row of ``level`` / template ``kind`` belongs to ``config``."""
    return config == "all" or level == config or config in EXTRA_LEVELS.get(kind, ())


@dataclass
class JieZiBenchConfig(datasets.BuilderConfig):
    """A JieZi-Bench config: ``name`` is ``L1``..``L4`` or ``all``; ``records_dir``
    overrides where the glyph images are read from."""

    records_dir: str | None = None


class JieZiBench(datasets.GeneratorBasedBuilder):
    """JieZi-Bench: ACCE evaluation questions on glyph images (see module docstring)."""

    BUILDER_CONFIG_CLASS = JieZiBenchConfig
    BUILDER_CONFIGS = [JieZiBenchConfig(name=n, description=f"JieZi-Bench questions of level {n}")
                       for n in LEVELS] + [JieZiBenchConfig(name="all", description="every JieZi-Bench question"),
                                           JieZiBenchConfig(name="images", description="one row per bench image with "
                                                            "its eight-field reference (the paper's protocol)")]
    DEFAULT_CONFIG_NAME = "all"

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description="JieZi-Bench: Ancient Chinese Character Exegesis (ACCE) questions, one per row.",
            features=BENCH_IMAGE_FEATURES if self.config.name == "images" else BENCH_FEATURES,
            homepage="https://arxiv.org/abs/2608.11741",
        )

    def _split_generators(self, dl_manager):
        if not self.config.data_dir:
            raise ValueError("JieZiBench needs data_dir= the `jiezi build` output folder (with qa/bench.jsonl)")
        path = Path(self.config.data_dir) / "qa" / "bench.jsonl"
        if not path.exists():
            raise FileNotFoundError(f"{path}: run `jiezi build --output {self.config.data_dir}` first")
        images = records_dir_of(self.config.data_dir, self.config.records_dir)
        return [datasets.SplitGenerator(name=datasets.NamedSplit(s),
                                        gen_kwargs={"path": str(path), "images": str(images), "split": s})
                for s in SPLITS]

    def _generate_examples(self, path: str, images: str, split: str):
        if self.config.name == "images":
            yield from image_examples(path, images, split)
            return
        for row, example in examples(path, images):
            if in_config(row["level"], row["kind"], self.config.name) and in_split(row, split):
                yield row["id"], example


CONFIGS: tuple[str, ...] = (*LEVELS, "all")


def in_split(row: dict, split: str) -> bool:
    """Whether a bench.jsonl ``row`` belongs to ``split`` (``test``: every row; the unseen
    splits: the rows whose flag column is set)."""
    flag = SPLIT_FLAG_COLUMNS.get(split)
    return not flag or bool(row[flag])


def examples(path: str | Path, images: str | Path):
    """Yield ``(row, example)`` for every line of ``bench.jsonl`` at ``path``, in file
    order: the stage-3 row (a dict) and its JieZi-Bench example (the ``hub.rows.BENCH_FEATURES``
    columns, the image as ``{"bytes", "path"}`` read from ``images``/``row["image"]``).
    One pass serves every config and split (:func:`in_config`, :func:`in_split`).
    Raises ``FileNotFoundError`` naming a missing image."""
    cache: dict[str, bytes] = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if row["image"] not in cache:
                # rows of one image are consecutive: keep only the current image
                cache = {row["image"]: (Path(images) / row["image"]).read_bytes()}
            yield row, {
                "id": row["id"],
                "image": {"bytes": cache[row["image"]], "path": Path(row["image"]).name},
                "image_id": row["image_id"],
                "question": row["question"],
                "answer": row["answer"],
                "answer_struct": json.dumps(row["answer_struct"], ensure_ascii=False),
                "subtask": row["subtask"],
                "metrics": row["metrics"],
                "level": row["level"],
                "character": row["character"],
                "script": row["script"],
                "unseen_character": row["unseen_character"],
                "unseen_glyph": row["unseen_glyph"],
                "unseen_components": row["unseen_components"],
                "provenance": json.dumps(row["provenance"], ensure_ascii=False),
                "question_en": row["question_en"],
                "answer_en": row["answer_en"],
                "kind": row["kind"],
            }


def placements(row: dict) -> list[tuple[str, str]]:
    """Every (config, split) a bench.jsonl ``row`` belongs to."""
    return [(c, s) for c in CONFIGS if in_config(row["level"], row["kind"], c) for s in SPLITS if in_split(row, s)]


def image_examples(path: str | Path, images: str | Path, split: str):
    """Yield ``(image_id, example)`` rows of the ``images`` config for ``split``: the bench
    rows of each image (in file order) folded into one (``hub.rows.BENCH_IMAGE_FEATURES``), its
    reference composed by ``metrics.acce.paper.official_reference``."""
    by_image: dict[str, list[dict]] = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if not in_split(row, split):
                continue
            by_image.setdefault(row["image_id"], []).append(row)
    for image_id, rows in by_image.items():
        first = rows[0]
        yield image_id, {
            "image_id": image_id,
            "image": {"bytes": (Path(images) / first["image"]).read_bytes(), "path": Path(first["image"]).name},
            "character": first["character"],
            "script": first["script"],
            "reference": json.dumps(official_reference([r["answer_struct"] for r in rows]), ensure_ascii=False),
            "unseen_character": first["unseen_character"],
            "unseen_glyph": first["unseen_glyph"],
            "question_ids": [r["id"] for r in rows],
        }
