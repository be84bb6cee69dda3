"""Loading JieZi-Bench and the JieZi-Dataset gallery, and fingerprinting what was loaded.

Both are read with the ordinary ``datasets.load_dataset(path_or_id, config, split=...)``
(a folder in Hub layout or a Hub repo id; ARCHITECTURE.md). A fingerprint is the SHA-256
of the content of the Arrow files ``datasets`` materialised: it changes when any row
changes and stays the same when the same data is rebuilt or re-downloaded, so results,
resumed runs and embedding caches can be tied to exactly the data they came from.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from hub.imageio import open_image
from hub.read import content_fingerprint, load_hub_layout, local_data_files
from metrics.acce.labels import SPLIT_FLAG_COLUMNS, SPLITS

# The bench columns that asking and scoring read (jiezi eval and the leaderboard); images stay out.
META_COLUMNS = ("id", "image_id", "question", "answer_struct", "subtask", "metrics", "level", "character", "script",
                "unseen_character", "unseen_glyph", "kind")

BENCH_CONFIGS = ("L1", "L2", "L3", "L4", "all")
BENCH_SPLITS = SPLITS  # the one definition: metrics/acce/labels.py
# Columns a bench must have for the harness to run and score it (ARCHITECTURE.md).
BENCH_COLUMNS = ("id", "image", "image_id", "question", "answer_struct", "subtask", "metrics", "script",
                 "unseen_character", "unseen_glyph")
GALLERY_CONFIG = "records"
GALLERY_COLUMNS = ("image", "character", "script", "record")


class BenchError(ValueError):
    """The bench or gallery cannot be loaded or lacks a needed column (message says which)."""


_COMMIT = re.compile(r"^[0-9a-f]{40}$")
# A Hub repo id: NAME or ORG/NAME, letters, digits, '-', '_', '.' (huggingface_hub's rule).
_REPO_ID = re.compile(r"^(?:[A-Za-z0-9][\w.-]*/)?[A-Za-z0-9][\w.-]*$")


def check_bench_path(bench: str | Path) -> None:
    """Raise :class:`BenchError` ("no such bench folder") at once when ``bench`` names a
    local path that does not exist, instead of trying it as a Hub id (tens of seconds of
    retries offline before the Hub's own error).

    Path-like: a ``Path``; a string starting with ``/``, ``./``, ``../`` or ``~``, ending
    with ``/``, holding a backslash or more than one ``/``, or not of the Hub id form; or
    ``ORG/NAME`` whose ``ORG`` is a folder here (``out/jiezi-bnch`` beside ``out/``). The
    message lists the folder's near names."""
    text = str(bench)
    if Path(text).expanduser().exists():
        return
    first = text.split("/", 1)[0]
    path_like = (isinstance(bench, Path) or text.startswith(("/", "./", "../", "~")) or text.endswith("/")
                 or "\\" in text or text.count("/") > 1 or not _REPO_ID.match(text)
                 or ("/" in text and Path(first).is_dir()))
    if not path_like:
        return
    folder = Path(text).expanduser()
    parent = folder.parent
    hint = ""
    if parent.is_dir():
        import difflib

        near = difflib.get_close_matches(folder.name, [p.name for p in parent.iterdir() if p.is_dir()], n=3)
        hint = f"; did you mean {', '.join(str(parent / n) for n in near)}?" if near else ""
    raise BenchError(f"no such bench folder: {text!r} (a local path that does not exist; a Hub repo id is "
                     f"ORG/NAME){hint}")


def resolve_revision(bench: str | Path, revision: str | None) -> str | None:
    """The commit a bench is read at: None for a local folder (its content fingerprint
    identifies it), else the 40-hex commit of ``revision`` (a branch, tag or commit of the
    Hub dataset repo ``bench``; None = the default branch) asked of the Hub once, so every
    later read gets the same files. A full commit hash is taken as is (no Hub call); with no
    ``revision`` and no Hub (offline), None (the bench is read unpinned, as datasets finds it).
    Raises :class:`BenchError` when a revision is given for a local folder or cannot be
    resolved (offline, unknown repo or revision)."""
    check_bench_path(bench)
    if Path(str(bench)).is_dir():
        if revision:
            raise BenchError(f"--revision {revision!r} applies to a Hub repo id; {str(bench)!r} is a local folder "
                             "(its content fingerprint identifies it)")
        return None
    if revision and _COMMIT.match(revision):
        return revision
    try:
        from huggingface_hub import HfApi

        return HfApi().dataset_info(str(bench), revision=revision).sha
    except Exception as exc:  # offline, unknown repo or revision, gated: the user needs the cause
        if revision is None:
            return None  # nothing asked for: read what datasets finds (its cache offline), unpinned
        raise BenchError(f"cannot resolve revision {revision or 'main'!r} of bench {str(bench)!r} on the Hub "
                         f"({type(exc).__name__}: {exc}); pass --revision COMMIT (40 hex digits) to read a "
                         "cached copy offline") from exc


def _empty_split(bench: str | Path, config: str, split: str) -> bool:
    """True when a local bench folder has data files for config/split and they hold 0 rows."""
    folder = Path(str(bench))
    if not folder.is_dir():
        return False
    import pyarrow.parquet as pq

    try:
        files = local_data_files(folder, config, split)
        return all(pq.ParquetFile(f).metadata.num_rows == 0 for f in files)
    except Exception:  # no files, unreadable files: the loader's own error says more
        return False


def _empty_message(bench: str | Path, config: str, split: str) -> str:
    return (f"bench {str(bench)!r} config {config!r} split {split!r} is empty (0 rows): nothing to evaluate; "
            f"choose another split ({', '.join(BENCH_SPLITS)}) or config")


def load_bench(bench: str | Path, config: str = "all", split: str = "test", *, revision: str | None = None):
    """Load one config/split of JieZi-Bench as a ``datasets.Dataset``.

    ``bench``: a folder in Hub layout (``README.md`` with YAML ``configs:`` and
    ``<config>/<split>-*.parquet``) or a Hub repo id; ``revision``: the commit of a repo id
    to read (see :func:`resolve_revision`; pass the resolved commit so reads are pinned).
    Raises :class:`BenchError` naming the bench, config and split when loading fails, the
    split is empty (0 rows; datasets itself fails with "corresponds to no data" or a
    DatasetGenerationError) or a needed column is missing.
    """
    if config not in BENCH_CONFIGS:
        raise BenchError(f"config {config!r}: expected one of {list(BENCH_CONFIGS)}")
    check_bench_path(bench)
    if _empty_split(bench, config, split):
        raise BenchError(_empty_message(bench, config, split))
    try:
        ds = load_hub_layout(bench, config, split, revision=revision)
    except Exception as exc:  # datasets raises many kinds; the user needs the cause
        if "corresponds to no data" in str(exc) or (type(exc).__name__ == "DatasetGenerationError"
                                                    and "no data" in str(exc.__cause__ or "")):
            raise BenchError(_empty_message(bench, config, split)) from exc
        raise BenchError(f"cannot load bench {str(bench)!r} config {config!r} split {split!r}: "
                         f"{type(exc).__name__}: {exc}") from exc
    if len(ds) == 0:
        raise BenchError(_empty_message(bench, config, split))
    missing = [c for c in BENCH_COLUMNS if c not in ds.column_names]
    if missing:
        raise BenchError(f"bench {str(bench)!r} {config}/{split} lacks column(s) {missing}; "
                         f"it has {ds.column_names}")
    return ds


def undecoded(ds, column: str = "image"):
    """``ds`` with ``column`` read as ``{"bytes", "path"}`` (``datasets.Image(decode=False)``),
    so every bench image is opened through :func:`hub.imageio.open_image` (pixel cap,
    truncated and undecodable files refused with one line) instead of datasets' own decode."""
    import datasets

    if column not in ds.column_names or not isinstance(ds.features[column], datasets.Image):
        return ds
    return ds.cast_column(column, datasets.Image(decode=False))


def row_image(ds_undecoded, i: int, name: str, column: str = "image"):
    """The guarded, decoded image of row ``i`` of an :func:`undecoded` dataset (``L`` or
    ``RGB``). Raises :class:`hub.imageio.ImageRejected` (``"<name>: <reason>"``)."""
    value = ds_undecoded[i][column]
    if not isinstance(value, (dict, str, bytes)):
        return value  # already an image (a dataset built in memory)
    return open_image(value, name=name)


def image_sizes(ds) -> list[str]:
    """The distinct pixel sizes (``"WxH"``) of a bench split's glyph images, read from the
    image headers only (no decoding), one look per distinct ``image_id``; sorted."""
    import io

    from PIL import Image

    # Arrow columns directly: a row-by-row walk through datasets' formatter costs ~1 s per 8K rows.
    table = ds.select_columns(["image_id", "image"]).with_format("arrow")[:]
    images = table.column("image").combine_chunks()
    data = images.field("bytes") if len(images) else []
    seen, sizes = set(), set()
    for k, image_id in enumerate(table.column("image_id").to_pylist()):
        if image_id in seen or not images[k].is_valid:
            continue
        raw = data[k].as_py()
        if not raw:
            continue
        seen.add(image_id)
        try:
            with Image.open(io.BytesIO(raw)) as im:
                sizes.add(f"{im.width}x{im.height}")
        except Exception:  # noqa: BLE001 - a bad image is refused, with its reason, where it is read
            continue
    return sorted(sizes)


def bench_identity(bench: str | Path, revision: str | None) -> dict:
    """What pins a bench for results and board rows: ``source``, ``revision`` (the commit of
    a repo id, None for a folder) and ``content_fingerprint`` (of a local folder's data files,
    :func:`hub.read.content_fingerprint`, the value its card states; None for a
    repo id, whose commit pins it)."""
    folder = Path(str(bench))
    return {"source": str(bench), "revision": revision,
            "content_fingerprint": content_fingerprint(folder) if folder.is_dir() else None}


def default_gallery(bench: str | Path) -> str:
    """The JieZi-Dataset next to ``bench``: the sibling folder ``jiezi-dataset`` of a
    local bench folder, or the repo id with ``bench`` replaced by ``dataset`` in its name
    (``org/jiezi-bench`` -> ``org/jiezi-dataset``)."""
    path = Path(str(bench))
    if path.exists():
        return str(path.resolve().parent / "jiezi-dataset")
    text = str(bench)
    if "/" in text:
        org, name = text.rsplit("/", 1)
        for a, b in (("bench", "dataset"), ("Bench", "Dataset"), ("BENCH", "DATASET")):
            if a in name:
                return f"{org}/{name.replace(a, b)}"
    raise BenchError(f"cannot guess the JieZi-Dataset gallery next to {text!r}; pass --gallery PATH_OR_ID")


def load_gallery(gallery: str | Path, config: str = GALLERY_CONFIG, split: str = "train"):
    """Load JieZi-Dataset's ``records`` config (one row per glyph image: ``image``,
    ``character``, ``script``, ``record`` = GlyphRecord JSON; ``id`` when present).
    Raises :class:`BenchError` naming the gallery when it cannot be loaded."""
    try:
        ds = load_hub_layout(gallery, config, split)
    except Exception as exc:
        raise BenchError(f"cannot load the retrieval gallery {str(gallery)!r} config {config!r}: "
                         f"{type(exc).__name__}: {exc}. Build it with `jiezi build`, or name another JieZi-Dataset folder or Hub id "
                         f"(--gallery for `jiezi eval`, --dataset for `jiezi explain` and `jiezi space`)") from exc
    missing = [c for c in GALLERY_COLUMNS if c not in ds.column_names]
    if missing:
        raise BenchError(f"gallery {str(gallery)!r} lacks column(s) {missing}; it has {ds.column_names}")
    return ds


def load_training_turns(gallery: str | Path, config: str = "all", split: str = "train"):
    """JieZi-Dataset's QA rows (``id``, ``images``, ``messages``, ``subtasks``), the
    demonstrations of few-shot ICL and the QA records of RAG. Raises :class:`BenchError`."""
    try:
        return load_hub_layout(gallery, config, split)
    except Exception as exc:
        raise BenchError(f"cannot load JieZi-Dataset {str(gallery)!r} config {config!r}: "
                         f"{type(exc).__name__}: {exc}") from exc


def fingerprint(ds) -> str:
    """SHA-256 (hex) of the content of the Arrow files behind ``ds`` plus its row count.

    Falls back to hashing the rows' Arrow buffers when the dataset is in memory. Cost:
    one read of the files (about 1 s per GB).
    """
    h = hashlib.sha256()
    h.update(str(len(ds)).encode())
    files = [f["filename"] for f in getattr(ds, "cache_files", [])]
    if files:
        for name in files:
            with open(name, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 22), b""):
                    h.update(block)
    else:
        for batch in ds.data.to_batches():
            h.update(batch.serialize())
    return h.hexdigest()


def splits_of(row: dict) -> list[str]:
    """The generalisation splits a bench row belongs to besides ``test``."""
    return [split for split, column in SPLIT_FLAG_COLUMNS.items() if row.get(column)]


def question_kind(row: dict) -> str:
    """The template kind of a bench row: its ``kind`` column when present, else read
    from ``metrics`` (``COMP_FULL`` when the component question carries COME,
    ``COMP_ASPECT`` when it does not) or ``subtask``."""
    kind = row.get("kind")
    if kind:
        return str(kind)
    metrics = row.get("metrics") or [row.get("subtask")]
    if isinstance(metrics, str):
        metrics = json.loads(metrics) if metrics.startswith("[") else [metrics]
    codes = {str(m).split("_")[0].upper() for m in metrics}
    if codes & {"COMR", "COMF", "COMI", "COME"}:
        return "COMP_FULL" if "COME" in codes else "COMP_ASPECT"
    return str(row.get("subtask") or next(iter(codes)))
