"""Reading published JieZi folders back: the inverse of :mod:`builder.publish.write`.

Every consumer of JieZi-Dataset and JieZi-Bench (the harness, training, the Space) reads
a Hub-layout folder or a Hub repo id through :func:`load_hub_layout`, so all of them get
the same rows for the same files.
"""

from __future__ import annotations

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
    return datasets.load_dataset(str(path_or_id), config, split=split, revision=revision)
