"""Reading published JieZi folders back: the inverse of :mod:`builder.publish.write`.

Every consumer of JieZi-Dataset and JieZi-Bench (the harness, training, the Space) reads
a Hub-layout folder or a Hub repo id through :func:`load_hub_layout`, so all of them get
the same rows for the same files.
"""

from __future__ import annotations

import hashlib
from pathlib import Path


def local_data_files(folder: Path, config: str, split: str) -> list[str]:
    """The parquet files of ``config``/``split`` in a Hub-layout folder, as its README's
    YAML ``configs:`` names them (else ``<config>/<split>-*.parquet``); absolute paths."""
    patterns = [f"{config}/{split}-*"]
    readme = folder / "README.md"
    if readme.exists():
        from datasets.utils.metadata import MetadataConfigs
        from huggingface_hub import DatasetCard

        configs = MetadataConfigs.from_dataset_card_data(DatasetCard.load(readme).data)
        if config in configs:
            files = configs[config].get("data_files") or []
            if isinstance(files, list):
                found = [f["path"] for f in files if isinstance(f, dict) and f.get("split") == split]
                patterns = [p for item in found for p in (item if isinstance(item, list) else [item])] or patterns
    out = sorted({str(p.resolve()) for pat in patterns for p in folder.glob(pat) if p.is_file()})
    if not out:
        raise FileNotFoundError(f"no data files for config {config!r} split {split!r} in {folder} "
                                f"(looked for {patterns})")
    return out


def load_hub_layout(path_or_id: str | Path, config: str, split: str, *, revision: str | None = None):
    """``datasets.load_dataset`` of one config/split of a Hub-layout folder or Hub repo id.

    A local folder is read through its README's ``configs:`` as explicit parquet data files.
    Why: datasets 5.2 keys the cache of a local folder by its name and file patterns only,
    so a rebuilt folder, or another folder of the same name (two builds, two test
    fixtures), is served the first one's rows from the cache (huggingface/datasets#2956);
    explicit data files make the cache key include each file's path and modification time.
    Repo ids load as usual (at ``revision``). Raises ``FileNotFoundError`` naming the
    config and split when the folder has no data files for them.
    """
    import datasets

    folder = Path(str(path_or_id))
    if folder.is_dir():
        files = local_data_files(folder, config, split)
        return datasets.load_dataset("parquet", data_files={split: files}, split=split)
    if folder.exists():
        raise FileNotFoundError(f"{path_or_id}: a file, not a Hub-layout folder")
    if looks_local(str(path_or_id)):
        raise FileNotFoundError(f"{path_or_id}: no such folder (a Hub repo id is owner/name)")
    return datasets.load_dataset(str(path_or_id), config, split=split, revision=revision)


def looks_local(path_or_id: str) -> bool:
    """Whether ``path_or_id`` can only be meant as a local path: absolute, ``./`` / ``../`` /
    ``~``, a backslash, more than one ``/`` (a Hub id is ``owner/name``), or a first part that
    is an existing local folder (``out/jiezi-bench`` beside an ``out/`` without that build).
    Asking the Hub for such a name only waits through its retries on an offline machine
    (fresh-user trial of 019cd92: 25 s before the error)."""
    p = path_or_id.replace("\\", "/")
    if "\\" in path_or_id or p.startswith(("/", "./", "../", "~")) or p.count("/") != 1:
        return True
    return Path(p.split("/")[0]).is_dir()


def content_fingerprint(folder: str | Path) -> str:
    """SHA-256 (hex) of a published folder's data: every ``<config>/<split>-*.parquet``
    file's relative path and bytes, in path order. The same files give the same value on
    any machine (a rebuild that writes the same bytes too); any changed, added or removed
    file changes it. ``jiezi publish`` states it in the card (YAML ``content_fingerprint``);
    the harness records it with results and board rows. Raises ``FileNotFoundError`` when
    the folder holds no parquet file."""
    folder = Path(folder)
    files = sorted(p for p in folder.glob("*/*.parquet") if p.is_file())
    if not files:
        raise FileNotFoundError(f"{folder}: no <config>/*.parquet data files to fingerprint")
    h = hashlib.sha256()
    for p in files:
        h.update(p.relative_to(folder).as_posix().encode("utf-8") + b"\0")
        with open(p, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 22), b""):
                h.update(block)
        h.update(b"\0")
    return h.hexdigest()
