"""JieZi-Dataset for SFT: loading, row checks and nested data-scaling subsets.

Rows follow ARCHITECTURE.md "JieZi-Dataset rows": ``images`` (one glyph image) and
``messages`` (``{role, content: [{type: "image"|"text", text}]}``, the first user turn
carries the image), plus ``id``, ``character``, ``script``, ``subtasks``, ``provenance``.
That is TRL's conversational vision format, so ``SFTTrainer`` reads the rows as they are.

Subsets (paper Table 12: nested 25 / 50 / 75 / 100 % subsets, same hyper-parameters):
a row belongs to the ``f`` subset when its rank, ordering rows by
``blake2b(f"{seed}:{id}")``, is below ``round(f * N)``. The unit is a row, i.e. one glyph
image with all its QA turns (the paper counts QA pairs; a row keeps an image's turns
together, and the QA-pair share of a subset is reported next to it). Properties:
deterministic, independent of row order, and nested (the 25 % rows are among the 50 %
rows, which are among the 75 % rows) for the same ``seed`` and dataset.
"""

from __future__ import annotations

import hashlib
import io
import os
from dataclasses import dataclass, field
from pathlib import Path

from hub.read import load_hub_layout

DEFAULT_DATASET = "out/jiezi-dataset"
DATASET_CONFIGS = ("L1", "L2", "L3", "L4", "all")
PAPER_SUBSETS = (0.25, 0.5, 0.75, 1.0)
ROLES = ("system", "user", "assistant")


@dataclass(frozen=True)
class DatasetSummary:
    """What a loaded (and subset) JieZi-Dataset split holds.

    ``rows``: glyph images used; ``qa_turns``: assistant turns among them; ``total_rows``:
    usable rows before subsetting; ``skipped``: rows dropped by :func:`check_row`;
    ``image_sizes``: ``(width, height)`` in pixels of each used row's image, in row order
    (read from the image headers; left out of :meth:`as_dict`).
    """

    source: str
    config: str
    split: str
    subset: float
    subset_seed: int
    rows: int
    qa_turns: int
    total_rows: int
    total_qa_turns: int
    skipped: int
    image_sizes: tuple[tuple[int, int], ...] = field(default=(), repr=False, compare=False)

    def as_dict(self) -> dict:
        """Plain-JSON view (for run records and model cards), without ``image_sizes``."""
        return {k: v for k, v in self.__dict__.items() if k != "image_sizes"}


def check_row(row: dict) -> tuple[str, str] | None:
    """Return ``(field, reason)`` when ``row`` cannot be trained on, else ``None``.

    Checks: exactly one image whose bytes (or file) open as an image (``PIL.Image.verify``,
    no full decode); ``messages`` a non-empty list of ``{role, content}`` with roles in
    ``ROLES``; the first non-system turn is a user turn holding exactly one image
    placeholder; no other image placeholder; at least one assistant turn; every assistant
    turn has non-empty text. ``row["images"]`` must be undecoded (``Image(decode=False)``
    items: ``{"bytes", "path"}``) or PIL images.
    """
    return _check(row)[0]


def _check(row: dict) -> tuple[tuple[str, str] | None, tuple[int, int] | None]:
    # (problem, image size): check_row, also returning the (width, height) it read from the header.
    from PIL import Image

    images = row.get("images")
    if not isinstance(images, list) or len(images) != 1:
        return ("images", f"expected exactly one glyph image, got {0 if not images else len(images)}"), None
    image = images[0]
    try:
        if isinstance(image, dict):
            data = image.get("bytes")
            if data is None and image.get("path"):
                data = Path(image["path"]).read_bytes()
            if not data:
                return ("images", "image has neither bytes nor a readable path"), None
            opened = Image.open(io.BytesIO(data))
            size = opened.size
            opened.verify()
        elif isinstance(image, Image.Image):
            size = image.size
        else:
            return ("images", f"unexpected image type {type(image).__name__}"), None
    except Exception as err:  # PIL raises many types for broken files
        return ("images", f"image does not open: {type(err).__name__}: {err}"), None

    messages = row.get("messages")
    if not isinstance(messages, list) or not messages:
        return ("messages", "expected a non-empty list of turns"), None
    placeholders = 0
    first = None
    assistant_turns = 0
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ROLES:
            return ("messages", f"turn {i}: role {role!r} is not one of {ROLES}"), None
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(parts, list):
            return ("messages", f"turn {i}: content must be a string or a list of parts"), None
        n_images = sum(1 for p in parts if isinstance(p, dict) and p.get("type") == "image")
        text = "".join(p.get("text") or "" for p in parts if isinstance(p, dict) and p.get("type") == "text")
        if role != "system" and first is None:
            first = (role, n_images)
        placeholders += n_images
        if role == "assistant":
            assistant_turns += 1
            if n_images:
                return ("messages", f"turn {i}: an assistant turn holds an image"), None
            if not text.strip():
                return ("messages", f"turn {i}: empty assistant answer"), None
    if first != ("user", 1):
        return ("messages", "the first user turn must come first and carry the one image placeholder"), None
    if placeholders != 1:
        return ("messages", f"expected 1 image placeholder in all turns, got {placeholders}"), None
    if not assistant_turns:
        return ("messages", "no assistant turn"), None
    return None, size


def subset_keys(ids: list[str], seed: int) -> list[bytes]:
    """Sort keys of the nested-subset order: ``blake2b(f"{seed}:{id}")`` (16-byte digests)."""
    return [hashlib.blake2b(f"{seed}:{i}".encode(), digest_size=16).digest() for i in ids]


def nested_subset_indices(ids: list[str], fraction: float, seed: int = 0) -> list[int]:
    """Indices (ascending) of the rows in the ``fraction`` subset of ``ids``.

    ``fraction`` in (0, 1]; keeps ``round(fraction * len(ids))`` rows (at least 1 of a
    non-empty list). Raises ``ValueError`` for a fraction outside (0, 1] or duplicate ids
    (nesting needs one key per row).
    """
    if not 0 < fraction <= 1:
        raise ValueError(f"subset must be a fraction in (0, 1], e.g. 0.25; got {fraction}")
    if len(set(ids)) != len(ids):
        raise ValueError("JieZi-Dataset ids must be unique to draw nested subsets")
    if fraction == 1:
        return list(range(len(ids)))
    keep = max(1, round(fraction * len(ids))) if ids else 0
    keys = subset_keys(ids, seed)
    order = sorted(range(len(ids)), key=lambda i: (keys[i], ids[i]))
    return sorted(order[:keep])


def _resolve_source(path_or_repo_id: str) -> str:
    """A local folder path (expanded) when it exists; a Hub id when it looks like one."""
    local = os.path.expanduser(path_or_repo_id)
    if os.path.isdir(local):
        return local
    parts = path_or_repo_id.split("/")
    if path_or_repo_id == DEFAULT_DATASET or path_or_repo_id.startswith((".", "/", "~")) or len(parts) != 2:
        raise FileNotFoundError(
            f"JieZi-Dataset folder {path_or_repo_id!r} not found: build it with `jiezi build` "
            "or pass a Hub dataset id (owner/name)"
        )
    return path_or_repo_id


def load_jiezi_dataset(
    path_or_repo_id: str = DEFAULT_DATASET,
    config: str = "all",
    split: str = "train",
    *,
    subset: float = 1.0,
    subset_seed: int = 0,
    skips=None,
    revision: str | None = None,
    progress: bool = True,
):
    """Load a JieZi-Dataset split for training; return ``(dataset, DatasetSummary)``.

    ``path_or_repo_id``: a local folder in Hub layout (``<config>/train-*.parquet`` and a
    README.md whose YAML ``configs:`` names them) or a Hub dataset id (``owner/name``).
    Every row is checked with :func:`check_row` (images are opened, not decoded); failing
    rows are dropped and recorded in ``skips`` (a ``hub.skips.SkipLog``, kind
    ``"jiezi-dataset-row"``) when given. Then the nested ``subset`` is drawn (module
    docstring). The returned dataset keeps every column; images decode lazily.

    Raises ``FileNotFoundError`` for a missing local folder, ``ValueError`` when a
    required column is missing, no row is usable or ``subset`` is not in (0, 1].
    """
    import datasets
    from tqdm.auto import tqdm

    if not 0 < subset <= 1:
        raise ValueError(f"subset must be a fraction in (0, 1], e.g. 0.25; got {subset}")
    source = _resolve_source(path_or_repo_id)
    ds = load_hub_layout(source, config, split, revision=revision)
    for column in ("id", "images", "messages"):
        if column not in ds.column_names:
            raise ValueError(
                f"{path_or_repo_id} [{config}/{split}] has no {column!r} column; "
                f"columns: {ds.column_names} (see ARCHITECTURE.md, JieZi-Dataset rows)"
            )

    # Check rows with undecoded images: opening the bytes finds broken files without decoding.
    raw = ds.select_columns(["id", "images", "messages"]).cast_column(
        "images", datasets.List(datasets.Image(decode=False))
    )
    good: list[int] = []
    turns: list[int] = []
    sizes: list[tuple[int, int]] = []
    skipped = 0
    batches = raw.iter(batch_size=512)
    bar = tqdm(total=len(raw), desc=f"checking {config}/{split} rows", unit="row", disable=not progress)
    index = 0
    for batch in batches:
        for row_id, images, messages in zip(batch["id"], batch["images"], batch["messages"]):
            problem, size = _check({"images": images, "messages": messages})
            if problem:
                skipped += 1
                if skips is not None:
                    skips.add("jiezi-dataset", row_id, problem[1], field=problem[0], kind="jiezi-dataset-row")
            else:
                good.append(index)
                sizes.append(size)
                turns.append(sum(1 for m in messages if m["role"] == "assistant"))
            index += 1
        bar.update(len(batch["id"]))
    bar.close()
    if not good:
        raise ValueError(f"{path_or_repo_id} [{config}/{split}]: no usable row ({skipped} skipped)")
    if skipped:
        ds = ds.select(good)

    total_rows, total_turns = len(ds), sum(turns)
    used_turns = total_turns
    if subset < 1:
        keep = nested_subset_indices(ds["id"], subset, subset_seed)
        ds = ds.select(keep)
        used_turns = sum(turns[i] for i in keep)
        sizes = [sizes[i] for i in keep]
    summary = DatasetSummary(
        source=path_or_repo_id, config=config, split=split, subset=subset, subset_seed=subset_seed,
        rows=len(ds), qa_turns=used_turns, total_rows=total_rows, total_qa_turns=total_turns, skipped=skipped,
        image_sizes=tuple(sizes),
    )
    return ds, summary
