"""Hub layout for JieZi-Dataset and JieZi-Bench, and pushing it with huggingface_hub.

:func:`write_hub_folder` runs the ``datasets`` builders (``jiezi_dataset.JieZiDataset``,
``jiezi_bench.JieZiBench``) for every config, straight to parquet shards with the images
embedded as bytes, and lays them out as the Hub serves them::

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
from pathlib import Path

import datasets
from huggingface_hub import DatasetCard, DatasetCardData

from builder.publish.read import content_fingerprint
from builder.qa import evolution
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


def code_hash() -> str:
    """Hash of what shapes a Hub folder besides the stage-3 outputs: the builders, this
    module and the card templates (part of the marker, so a changed card is rebuilt)."""
    import hashlib

    root = CARDS_DIR.parent
    h = hashlib.sha256()
    for p in [root / "jiezi_dataset.py", root / "jiezi_bench.py", Path(__file__), *sorted(CARDS_DIR.glob("jiezi-*.md"))]:
        if p.exists():
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


class PublishError(RuntimeError):
    """The folder cannot be written or pushed (not ours, stage outputs missing, ...)."""


def _builder_cls(kind: str):
    if kind == "dataset":
        from jiezi_dataset import JieZiDataset
        return JieZiDataset
    if kind == "bench":
        from jiezi_bench import JieZiBench
        return JieZiBench
    raise PublishError(f"unknown resource {kind!r}; expected 'dataset' or 'bench'")


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


def _prepare_config(cls, config: str, data_dir: Path, work: Path, folder: Path, records_dir: str | None,
                    num_proc: int | None = None) -> tuple[datasets.DatasetInfo, list[str]]:
    """Run one builder config to parquet and move its shards into ``folder/<config>/``.

    Returns the builder's info, its ``splits`` reduced to the splits with rows, and the
    names of the empty splits, which are not written (see the module docstring)."""
    prep = work / f"prep-{config}"
    builder = cls(config_name=config, data_dir=str(data_dir), cache_dir=str(work / "cache"),
                  records_dir=records_dir)
    builder.download_and_prepare(output_dir=str(prep), file_format="parquet", max_shard_size=MAX_SHARD,
                                 download_mode=datasets.DownloadMode.FORCE_REDOWNLOAD,
                                 num_proc=num_proc if num_proc and num_proc > 1 else None)
    info = builder.info
    empty = [split for split, si in info.splits.items() if not si.num_examples]
    for split in empty:
        del info.splits[split]
    if info.splits:
        (folder / config).mkdir(parents=True, exist_ok=True)
    for split in info.splits:
        files = sorted(prep.glob(f"*-{split}.parquet")) + sorted(prep.glob(f"*-{split}-*-of-*.parquet"))
        if not files:
            raise PublishError(f"builder {cls.__name__}/{config} wrote no parquet file for split {split!r}")
        n = len(files)
        for i, f in enumerate(files):
            f.rename(folder / config / f"{split}-{i:05d}-of-{n:05d}.parquet")
    return info, empty


def write_hub_folder(out_dir: Path, kind: str, folder: Path | None = None, *, records_dir: str | None = None,
                     report: dict | None = None, progress: bool = True, num_proc: int | None = None) -> Path:
    """Write the Hub folder of ``kind`` (``"dataset"`` or ``"bench"``) from ``out_dir/qa``.

    ``folder`` defaults to ``out_dir/jiezi-dataset`` or ``out_dir/jiezi-bench``;
    ``report``: the stage report (``qa/report.json`` when None) whose counts fill the card;
    ``num_proc``: processes per config (JieZi-Dataset's input is sharded for them).
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
    cls = _builder_cls(kind)
    datasets.disable_progress_bars() if not progress else datasets.enable_progress_bars()

    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.tmp-", dir=folder.parent))
    work = Path(tempfile.mkdtemp(prefix=".jiezi-publish-work-", dir=folder.parent))
    try:
        infos, left_out = {}, {}
        for config in spec["configs"]:
            info, empty = _prepare_config(cls, config, out_dir, work, tmp, records_dir,
                                          num_proc if kind == "dataset" else None)
            if empty:
                left_out[config] = empty
            if info.splits:
                infos[config] = info
        if left_out:
            log.warning("%s: empty splits left out of %s (datasets cannot load a split of 0 rows): %s",
                        spec["pretty"], folder, "; ".join(f"{c} {', '.join(v)}" for c, v in left_out.items()))
        if not infos:
            raise PublishError(f"{spec['pretty']} has no rows in this build (see {qa_dir / 'report.json'}); "
                               "nothing loadable to publish")
        card = render_card(kind, infos, report, out_dir, left_out=left_out)
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
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)
    return folder


def _image_sources(out_dir: Path, kind: str) -> dict[str, tuple[int, str]]:
    """Image source -> (images, licence) of the resource, read from its stage-3 file."""
    from jiezi_bench import records_dir_of

    counts: Counter = Counter()
    licences: dict[str, str] = {}
    wanted = set()
    path = out_dir / "qa" / ("dataset.jsonl" if kind == "dataset" else "bench.jsonl")
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            wanted.add(row.get("image_id") or row["id"])
    rec_path = records_dir_of(out_dir) / "records.jsonl"
    if rec_path.exists():
        with open(rec_path, encoding="utf-8") as fh:
            for line in fh:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                for im in rec.get("images", []):
                    if im["id"] in wanted:
                        counts[im["source"]] += 1
                        licences[im["source"]] = im["licence"]
    return {s: (n, licences[s]) for s, n in sorted(counts.items())}


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
                counts["SCRC"][labels.SCRIPT_SCORING_ALIAS.get(st["script"], st["script"])] += 1
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
                left_out: dict[str, list[str]] | None = None) -> DatasetCard:
    """The dataset card of ``kind`` from ``cards/<template>`` with YAML metadata
    (licences, task category, languages, size, ``configs``, ``dataset_info``) and every
    count taken from ``report``, the builders' split infos and (bench) the label
    distribution of ``qa/bench.jsonl``. ``left_out``: config -> empty splits not written."""
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs

    spec = RESOURCES[kind]
    split_names = {c: list(info.splits) for c, info in infos.items()}
    rows = distinct_rows(infos)
    image_sources = _image_sources(out_dir, kind)
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
        source_licences=SOURCE_LICENCES, rules_table=evolution.rules_table_markdown(),
        scripts_all=list(labels.SCRIPTS), left_out=left_out or {}, rows=rows,
        label_skew=label_skew(out_dir) if kind == "bench" else [],
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
