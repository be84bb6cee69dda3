"""Hub layout for JieZi-Dataset and JieZi-Bench, and pushing it with huggingface_hub.

:func:`write_hub_folder` writes every config and split of a resource in one pass over its
stage-3 rows: each row is read (and its image file opened) once, turned into the examples
of the configs it belongs to by the same functions the ``datasets`` builders use
(``jiezi_bench.examples``, ``jiezi_dataset.qa_examples`` / ``record_examples``), encoded with
the config's ``datasets.Features`` and written by ``datasets``' own ``ParquetWriter``
(images embedded as bytes, shards cut at ``MAX_SHARD``), so the files, their rows and the
card's ``dataset_info`` are what ``download_and_prepare`` of each config wrote, without
reading the inputs once per config. The layout is the one the Hub serves::

    <folder>/README.md                 dataset card: YAML `configs:` + `dataset_info` + text
    <folder>/<config>/<split>-00000-of-0000N.parquet
    <folder>/.jiezi-publish.json       marker: which resource, what it was built from

so ``load_dataset(folder_or_repo_id, "L4", split="test")`` works. The folder is built
under a temporary name and swapped in at the end; an existing non-empty folder without
this module's marker (or with the other resource's marker) is never overwritten.

A split with no rows (a small build's ``unseen_characters``) is left out of the folder
and of the card's ``configs:`` / ``dataset_info``, and so is a config with no rows at all:
``datasets`` 5.2 cannot load a split of 0 rows (``Instruction "..." corresponds to no
data!``, for that split and for the whole config), so declaring one would break
``load_dataset(folder, config)``. The card and the marker list what was left out.

:func:`push` uploads such a folder with ``HfApi.upload_folder`` (``--dry-run`` stops
after writing it, so the folder is exactly what would be uploaded).
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
import time
from collections import Counter
from functools import lru_cache
from pathlib import Path

import datasets
import pyarrow as pa
from datasets.arrow_writer import ParquetWriter, get_arrow_writer_batch_size_from_features
from datasets.splits import SplitDict, SplitInfo
from datasets.utils.py_utils import convert_file_size_to_int
from huggingface_hub import DatasetCard, DatasetCardData
from tqdm.auto import tqdm

import jiezi_bench
import jiezi_dataset
from builder.codekey import code_digest
from builder.publish.card_baselines import baselines_markdown
from builder.qa import narrative
from hub.layout import records_dir_of
from hub.read import content_fingerprint
from hub.rows import BENCH_FEATURES, BENCH_IMAGE_FEATURES, QA_FEATURES, RECORD_FEATURES
from metrics.acce import labels

log = logging.getLogger(__name__)

MARKER = ".jiezi-publish.json"
CARDS_DIR = Path(__file__).resolve().parents[2] / "cards"
MAX_SHARD = "500MB"

RESOURCES = {
    "dataset": {"folder": "jiezi-dataset", "configs": ("L1", "L2", "L3", "L4", "all", "records"),
                "template": "jiezi-dataset.md", "pretty": "JieZi-Dataset"},
    "bench": {"folder": "jiezi-bench", "configs": ("L1", "L2", "L3", "L4", "all", "images"),
              "template": "jiezi-bench.md", "pretty": "JieZi-Bench"},
}

# Licence of each source feeding a resource (SOURCES.md); Hub licence ids where one exists.
SOURCE_LICENCES = {
    "makemeahanzi": ("LGPL-3.0-or-later", "lgpl-3.0"),
    "cjkvi-ids": ("ids.txt: CHISE terms; ids-analysis.txt: GPL-2.0", "gpl-2.0"),
    "unihan": ("Unicode License v3", "other"),
    "shuowen": ("Apache-2.0 (the Shuowen Jiezi text is public domain)", "apache-2.0"),
    "oracle-mnist": ("Apache-2.0", "apache-2.0"),
    "lxgw-seal": ("SIL OFL 1.1", "ofl-1.1"),
}


# The publication's entry modules: this module and the ``datasets`` builders whose row
# functions it runs. What they import is found from the source (``builder.codekey``): the
# ``hub`` contract, and ``metrics/acce/paper.py`` whose ``official_reference`` fills the
# bench ``images`` config's ``reference`` column.
PUBLISH_ENTRIES = ("builder.publish.write", "jiezi_bench", "jiezi_dataset")


def code_hash() -> str:
    """Hash of what shapes a Hub folder besides the stage-3 outputs: every project module the
    publication imports, directly or not (``builder.codekey.code_digest`` of
    :data:`PUBLISH_ENTRIES`), and the card templates. Part of the marker, so a folder written
    by other code or from another card is rebuilt."""
    import hashlib

    h = hashlib.sha256(code_digest(*PUBLISH_ENTRIES).encode())
    for p in sorted(CARDS_DIR.glob("jiezi-*.md")):
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


class PublishError(RuntimeError):
    """The folder cannot be written or pushed (not ours, stage outputs missing, ...)."""


def check_target(folder: Path, kind: str) -> None:
    """Refuse a target that exists, is non-empty and is not this module's output for
    ``kind``. Raises :class:`PublishError` naming the folder and what was found."""
    folder = Path(folder)
    if not folder.exists():
        return
    if not folder.is_dir():
        raise PublishError(f"{folder}: exists and is not a folder")
    entries = list(folder.iterdir())
    if not entries:
        return
    marker = folder / MARKER
    if not marker.exists():
        raise PublishError(f"{folder}: not empty and not written by `jiezi publish` (no {MARKER}); "
                           "refusing to overwrite it; choose another --folder or empty it yourself")
    try:
        owner = json.loads(marker.read_text("utf-8"))
    except ValueError as exc:
        raise PublishError(f"{marker}: unreadable marker ({exc}); refusing to overwrite {folder}") from exc
    if owner.get("resource") != kind:
        raise PublishError(f"{folder}: holds {owner.get('resource')!r}, not {kind!r}; refusing to overwrite it")


# The Hub's size_categories bins (datasets/utils/resources/size_categories.json) and the
# row count each ends below.
SIZE_BINS = ((10 ** 3, "n<1K"), (10 ** 4, "1K<n<10K"), (10 ** 5, "10K<n<100K"), (10 ** 6, "100K<n<1M"),
             (10 ** 7, "1M<n<10M"), (10 ** 8, "10M<n<100M"), (10 ** 9, "100M<n<1B"), (10 ** 10, "1B<n<10B"),
             (10 ** 11, "10B<n<100B"), (10 ** 12, "100B<n<1T"))


def size_category(n: int) -> str:
    """The Hub ``size_categories`` bin of ``n`` rows (``7996`` -> ``"1K<n<10K"``)."""
    for hi, label in SIZE_BINS:
        if n < hi:
            return label
    return "n>1T"


def distinct_rows(infos: dict[str, datasets.DatasetInfo]) -> int:
    """Rows of the resource: the largest split of any config. Why not a sum: every config
    is a subset of ``all`` and every bench split a subset of ``test``, so summing would
    count the same question up to three times (7,996 bench rows were labelled 10K<n<100K)."""
    return max((s.num_examples for info in infos.values() for s in info.splits.values()), default=0)


class _SplitWriter:
    """The parquet shards of one (config, split), written as ``download_and_prepare`` does
    (``datasets.arrow_writer.ParquetWriter``: its schema, row groups of its batch size,
    content-defined chunking; a new shard once ``MAX_SHARD`` bytes are written): shard files
    are opened on the first row, so an empty split writes nothing.

    Rows are buffered and handed over as one Arrow table per row group
    (``pyarrow.Table.from_pylist`` with the features' schema, then
    ``ParquetWriter.write_table``, which casts it to the features): the same table the
    writer builds from single examples, without its per-column Python type inference, the
    largest cost of publication. Images already carry their bytes (the builders read
    them), so nothing is embedded again."""

    def __init__(self, features: datasets.Features, folder: Path, config: str, split: str):
        self.features, self.folder, self.config, self.split = features, folder, config, split
        self.schema = features.arrow_schema
        self.max_bytes = convert_file_size_to_int(MAX_SHARD)
        # the batch ArrowWriter.write collects before writing (one parquet row group)
        self.batch_size = get_arrow_writer_batch_size_from_features(features) or datasets.config.DEFAULT_MAX_BATCH_SIZE
        self.writer = None
        self.buffer: list[dict] = []
        self.files: list[Path] = []
        self.num_examples = self.num_bytes = 0

    def write(self, example: dict) -> None:
        """Append ``example``, already in the features' storage form (strings, lists,
        images as ``{"bytes", "path"}``: what ``Features.encode_example`` returns for it,
        checked on the first row of the split rather than recomputed for every row).
        Raises ``ValueError`` naming the config and split when the first example is not in
        storage form."""
        if not self.files and not self.buffer and self.features.encode_example(example) != example:
            raise ValueError(f"{self.config}/{self.split}: example {example.get('id')!r} is not in the "
                             "storage form of its features; build it as the datasets builders do")
        self.buffer.append(example)
        if len(self.buffer) >= self.batch_size:
            self._flush()

    def _flush(self) -> None:
        if not self.buffer:
            return
        if self.writer is not None and self.writer._num_bytes > self.max_bytes:
            self._close()
        if self.writer is None:
            path = self.folder / self.config / f".{self.split}-{len(self.files):05d}.parquet.tmp"
            path.parent.mkdir(parents=True, exist_ok=True)
            self.files.append(path)
            self.writer = ParquetWriter(features=self.features, path=str(path), embed_local_files=False)
        self.writer.write_table(pa.Table.from_pylist(self.buffer, schema=self.schema))
        self.buffer = []

    def _close(self) -> None:
        n, b = self.writer.finalize()
        self.writer.close()
        self.writer = None
        self.num_examples += n
        self.num_bytes += b

    def finish(self) -> SplitInfo | None:
        """Close the last shard, name the shards ``<split>-<i>-of-<n>.parquet``; the split's
        info, or None when it has no rows."""
        self._flush()
        if self.writer is not None:
            self._close()
        n = len(self.files)
        for i, f in enumerate(self.files):
            f.rename(self.folder / self.config / f"{self.split}-{i:05d}-of-{n:05d}.parquet")
        if not self.num_examples:
            return None
        return SplitInfo(name=self.split, num_bytes=self.num_bytes, num_examples=self.num_examples)


def _placed_examples(kind: str, qa_dir: Path, images: Path, image_ids: set[str] | None = None):
    """Yield ``(config, split, example)`` for every example of resource ``kind``, in one
    pass over its stage-3 files (``bench.jsonl``; ``dataset.jsonl`` then
    ``records_gallery.jsonl``), in file order. ``image_ids``, when given, receives the
    image id of every ``bench.jsonl`` / ``dataset.jsonl`` line (what the card counts)."""
    seen = image_ids if image_ids is not None else set()
    if kind == "bench":
        for row, example in jiezi_bench.examples(qa_dir / "bench.jsonl", images):
            seen.add(row["image_id"])
            for config, split in jiezi_bench.placements(row):
                yield config, split, example
        # the per-image ``images`` config folds the rows of each image: a short second
        # pass per split (one row per image, so a few thousand rows at most)
        for split in labels.SPLITS:
            for _key, example in jiezi_bench.image_examples(qa_dir / "bench.jsonl", images, split):
                yield "images", split, example
        return
    for key, by_config in jiezi_dataset.qa_examples(qa_dir / "dataset.jsonl", images):
        seen.add(key)
        for config, example in by_config.items():
            yield config, "train", example
    for _key, example in jiezi_dataset.record_examples(qa_dir / "records_gallery.jsonl", images):
        yield "records", "train", example


def _features(kind: str, config: str) -> datasets.Features:
    if kind == "bench":
        return BENCH_IMAGE_FEATURES if config == "images" else BENCH_FEATURES
    return RECORD_FEATURES if config == "records" else QA_FEATURES


def _write_configs(kind: str, out_dir: Path, folder: Path, records_dir: str | None, progress: bool = True,
                   image_ids: set[str] | None = None) -> tuple[dict[str, datasets.DatasetInfo], dict[str, list[str]]]:
    """Write every config and split of ``kind`` under ``folder/<config>/`` in one pass.

    Returns the info of each config with rows (``features``, ``splits`` with their row and
    byte counts, ``dataset_size``: what the card's ``dataset_info`` lists) and, per config,
    the declared splits that got no rows and were not written (see the module docstring).
    ``image_ids`` receives the image ids written (see :func:`_placed_examples`)."""
    spec = RESOURCES[kind]
    splits = ("train",) if kind == "dataset" else tuple(labels.SPLITS)
    writers = {(c, s): _SplitWriter(_features(kind, c), folder, c, s) for c in spec["configs"] for s in splits}
    images = records_dir_of(out_dir, records_dir)
    rows = tqdm(desc=f"{spec['pretty']} rows", unit="row", disable=not progress)
    with rows:
        for config, split, example in _placed_examples(kind, out_dir / "qa", images, image_ids):
            writers[(config, split)].write(example)
            rows.update(1)
    infos, left_out = {}, {}
    for config in spec["configs"]:
        done = {s: writers[(config, s)].finish() for s in splits}
        empty = [s for s, info in done.items() if info is None]
        if empty:
            left_out[config] = empty
        if len(empty) < len(splits):
            split_dict = SplitDict()
            for info in done.values():
                if info is not None:
                    split_dict.add(info)
            infos[config] = datasets.DatasetInfo(
                features=_features(kind, config), config_name=config, splits=split_dict, download_size=0,
                dataset_size=sum(i.num_bytes for i in split_dict.values()))
    return infos, left_out


def write_hub_folder(out_dir: Path, kind: str, folder: Path | None = None, *, records_dir: str | None = None,
                     report: dict | None = None, progress: bool = True, num_proc: int | None = None) -> Path:
    """Write the Hub folder of ``kind`` (``"dataset"`` or ``"bench"``) from ``out_dir/qa``.

    ``folder`` defaults to ``out_dir/jiezi-dataset`` or ``out_dir/jiezi-bench``;
    ``report``: the stage report (``qa/report.json`` when None) whose counts fill the card;
    ``num_proc``: accepted for compatibility and ignored: the single pass over the rows
    is faster than the former per-config ``datasets`` runs were with several processes.
    Returns the folder. Raises :class:`PublishError` when the target is not ours or the
    stage outputs are missing.
    """
    out_dir = Path(out_dir)
    spec = RESOURCES.get(kind)
    if spec is None:
        raise PublishError(f"unknown resource {kind!r}; expected one of {sorted(RESOURCES)}")
    folder = Path(folder) if folder else out_dir / spec["folder"]
    check_target(folder, kind)
    qa_dir = out_dir / "qa"
    if not (qa_dir / "report.json").exists():
        raise PublishError(f"{qa_dir}: no stage-3 outputs; run `jiezi build --output {out_dir}` first")
    report = report or json.loads((qa_dir / "report.json").read_text("utf-8"))
    fingerprint = json.loads((qa_dir / "fingerprint.json").read_text("utf-8")) if (qa_dir / "fingerprint.json").exists() else {}
    datasets.disable_progress_bars() if not progress else datasets.enable_progress_bars()

    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.tmp-", dir=folder.parent))
    try:
        image_ids: set[str] = set()
        infos, left_out = _write_configs(kind, out_dir, tmp, records_dir, progress, image_ids)
        if left_out:
            log.warning("%s: empty splits left out of %s (datasets cannot load a split of 0 rows): %s",
                        spec["pretty"], folder, "; ".join(f"{c} {', '.join(v)}" for c, v in left_out.items()))
        if not infos:
            raise PublishError(f"{spec['pretty']} has no rows in this build (see {qa_dir / 'report.json'}); "
                               "nothing loadable to publish")
        card = render_card(kind, infos, report, out_dir, image_ids, left_out=left_out)
        # what users compare: the harness records the same value with results and board rows
        card.data["content_fingerprint"] = content_fingerprint(tmp)
        card.save(tmp / "README.md")
        (tmp / MARKER).write_text(json.dumps({
            "resource": kind, "written_by": "jiezi publish", "written_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "built_from": {k: fingerprint.get(k) for k in ("records_sha256", "seed", "bench_size", "code", "decisions")},
            "publish_code": code_hash(),
            "empty_splits_left_out": left_out,
            "content_fingerprint": card.data["content_fingerprint"],
        }, indent=1), "utf-8")
        if folder.exists():
            old = folder.with_name(folder.name + ".old")
            shutil.rmtree(old, ignore_errors=True)
            folder.rename(old)
            tmp.rename(folder)
            shutil.rmtree(old, ignore_errors=True)
        else:
            tmp.rename(folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return folder


def _image_sources(out_dir: Path, wanted: set[str]) -> dict[str, tuple[int, str]]:
    """Image source -> (images, licence) of the image ids ``wanted`` (those the
    publication pass wrote), from the records' image entries."""
    counts: Counter = Counter()
    licences: dict[str, str] = {}
    rec_path = records_dir_of(out_dir) / "records.jsonl"
    if rec_path.exists():
        st = rec_path.stat()
        for image_id, (source, licence) in _record_images(str(rec_path), st.st_size, st.st_mtime_ns).items():
            if image_id in wanted:
                counts[source] += 1
                licences[source] = licence
    return {s: (n, licences[s]) for s, n in sorted(counts.items())}


@lru_cache(maxsize=2)
def _record_images(path: str, size: int, mtime_ns: int) -> dict[str, tuple[str, str]]:
    """Image id -> (source, licence) of every image in the records file ``path``; parsed
    once for both resources' cards (``size`` and ``mtime_ns`` key the cache to the file's
    content). Unreadable lines are skipped (the records stage validated them)."""
    out: dict[str, tuple[str, str]] = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            for im in rec.get("images", []):
                out[im["id"]] = (im["source"], im["licence"])
    return out


def label_skew(out_dir: Path) -> list[dict]:
    """The majority label of each categorical bench subtask and its share, from
    ``out_dir/qa/bench.jsonl``: ``[{"subtask", "label", "share" (0..1), "n", "unit"}]``
    for SCRC (简体 counted as 楷书, as the scorer does), STRC, FORC (the label set) and
    COME (per component label of the shared component question). A subtask without rows
    is left out. The share is what always answering that label scores."""
    counts: dict[str, Counter] = {k: Counter() for k in ("SCRC", "STRC", "FORC", "COME")}
    with open(Path(out_dir) / "qa" / "bench.jsonl", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            st = row["answer_struct"] or {}
            if row["subtask"] == "SCRC":
                counts["SCRC"][labels.scoring_script(st["script"])] += 1
            elif row["subtask"] == "STRC":
                counts["STRC"][st["structure"]] += 1
            elif row["subtask"] == "FORC":
                counts["FORC"]["+".join(st["formation"])] += 1
            elif "COME" in row["metrics"]:
                counts["COME"].update(c["evolution_type"] for c in st.get("components", []) if c.get("evolution_type"))
    units = {"SCRC": "questions", "STRC": "references", "FORC": "references", "COME": "component labels"}
    out = []
    for subtask, c in counts.items():
        if c:
            label, k = c.most_common(1)[0]
            out.append({"subtask": subtask, "label": label, "share": k / sum(c.values()),
                        "n": sum(c.values()), "unit": units[subtask]})
    return out


def render_card(kind: str, infos: dict[str, datasets.DatasetInfo], report: dict, out_dir: Path,
                image_ids: set[str], left_out: dict[str, list[str]] | None = None) -> DatasetCard:
    """The dataset card of ``kind`` from ``cards/<template>`` with YAML metadata
    (licences, task category, languages, size, ``configs``, ``dataset_info``) and every
    count taken from ``report``, the builders' split infos and (bench) the label
    distribution of ``qa/bench.jsonl``. ``image_ids``: the images written (their sources
    and licences are listed); ``left_out``: config -> empty splits not written."""
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs

    spec = RESOURCES[kind]
    split_names = {c: list(info.splits) for c, info in infos.items()}
    rows = distinct_rows(infos)
    image_sources = _image_sources(out_dir, image_ids)
    text_sources = ["makemeahanzi", "cjkvi-ids", "unihan", "shuowen"]
    img_src_names = {s.split(":", 1)[0] for s in image_sources}
    licence_ids = sorted({SOURCE_LICENCES[s][1] for s in text_sources + sorted(img_src_names) if s in SOURCE_LICENCES}
                         | {"other"})
    card_data = DatasetCardData(
        pretty_name=spec["pretty"],
        license=licence_ids,
        language=["zh", "en"],
        task_categories=["visual-question-answering"],
        size_categories=[size_category(rows)],
        tags=["chinese", "paleography", "ancient-chinese-characters", "acce", "jiezi"],
    )
    MetadataConfigs({
        c: {"data_files": [{"split": s, "path": f"{c}/{s}-*"} for s in split_names[c]],
            **({"default": True} if c == "all" else {})}
        for c in spec["configs"] if c in infos
    }).to_dataset_card_data(card_data)
    DatasetInfosDict({c: info for c, info in infos.items()}).to_dataset_card_data(card_data)
    config_rows = {c: {s: info.splits[s].num_examples for s in info.splits} for c, info in infos.items()}
    return DatasetCard.from_template(
        card_data, template_path=str(CARDS_DIR / spec["template"]),
        report=report, config_rows=config_rows, image_sources=image_sources,
        source_licences=SOURCE_LICENCES, rules_table=narrative.rules_table_markdown(),
        scripts_all=list(labels.SCRIPTS), left_out=left_out or {}, rows=rows,
        label_skew=label_skew(out_dir) if kind == "bench" else [],
        # the baseline runs' per-script scores; `jiezi publish card` renders this section again
        baselines_section=baselines_markdown(report["bench"].get("baselines") or {}) if kind == "bench" else "",
        # readable JSON in the card (jinja's tojson escapes every CJK character)
        as_json=lambda value: json.dumps(value, ensure_ascii=False),
    )


def push(folder: Path, repo_id: str, *, token: str | None = None, private: bool = False,
         commit_message: str | None = None) -> str:
    """Upload a folder written by :func:`write_hub_folder` to the dataset repo ``repo_id``
    (created if missing). Returns the commit URL. Raises :class:`PublishError` when the
    folder is not a finished ``jiezi publish`` folder."""
    from huggingface_hub import HfApi

    folder = Path(folder)
    if not (folder / MARKER).exists() or not (folder / "README.md").exists():
        raise PublishError(f"{folder}: not a finished `jiezi publish` folder (no {MARKER} / README.md)")
    api = HfApi(token=token)
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    info = api.upload_folder(folder_path=str(folder), repo_id=repo_id, repo_type="dataset",
                             commit_message=commit_message or f"jiezi publish: {folder.name}")
    return str(getattr(info, "commit_url", info))
