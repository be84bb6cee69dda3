"""Glyph source ``oracle-mnist`` (:func:`plan`), and the source files the glyph stage reads:
Oracle-MNIST and the Unihan simplified forms.

Both live in the source cache (``sources_dir``, see ``shared/sources/SOURCES.md``); a
missing or malformed file raises :class:`GlyphSourceError` naming the source, the file,
what was expected and the command that fetches it, because without them the build
would silently lose a whole script stage.
"""

from __future__ import annotations

import gzip
import struct
from pathlib import Path

from builder.glyphs import render
from builder.glyphs.base import Meta, Plan, Request
from hub.skips import SkipLog
from metrics.acce.variants import read_variants

# Oracle-MNIST class index -> character. Source: SOURCES.md (the upstream paper's class
# names big, sun, moon, cattle, next, field, not, arrow, time, wood, checked by eye).
ORACLE_MNIST_CLASSES: tuple[str, ...] = ("大", "日", "月", "牛", "翌", "田", "勿", "矢", "巳", "木")
ORACLE_MNIST_IMAGES = "oracle-mnist/t10k-images-idx3-ubyte.gz"
ORACLE_MNIST_LABELS = "oracle-mnist/t10k-labels-idx1-ubyte.gz"
UNIHAN_VARIANTS = "unihan/Unihan_Variants.txt"
LXGW_SEAL_FONT = "lxgw-seal/LXGWSeal-Regular.ttf"

FETCH_HINT = "run `jiezi sources fetch` (or point --sources / $JIEZI_SOURCES at a complete cache)"

# idx magic numbers: 0x00000803 = unsigned bytes, 3 dimensions; 0x00000801 = 1 dimension.
_IDX3_UBYTE = 0x0803
_IDX1_UBYTE = 0x0801


class GlyphSourceError(RuntimeError):
    """A source file the glyph stage needs is missing or not in the expected format."""


def source_file(sources_dir: Path, rel: str) -> Path:
    """``sources_dir / rel``, or :class:`GlyphSourceError` naming it when it does not exist."""
    path = Path(sources_dir) / rel
    if not path.is_file():
        source = rel.split("/", 1)[0]
        raise GlyphSourceError(f"source {source!r}: file {path} is missing; {FETCH_HINT}")
    return path


def read_oracle_mnist(sources_dir: Path) -> tuple[int, int, list[bytes], list[int]]:
    """Read the Oracle-MNIST test split (MNIST idx format, gzip).

    Returns ``(rows, cols, images, labels)``: ``images[i]`` is ``rows * cols`` grey bytes
    in row-major order as stored upstream (white strokes on black, 0..255) and
    ``labels[i]`` the class index 0..9 (see :data:`ORACLE_MNIST_CLASSES`). Upstream holds
    3,000 images of 28x28, 300 per class.

    Raises :class:`GlyphSourceError` when a file is missing, truncated, has the wrong
    idx magic number, or when image and label counts disagree.
    """
    img_path = source_file(sources_dir, ORACLE_MNIST_IMAGES)
    lab_path = source_file(sources_dir, ORACLE_MNIST_LABELS)
    try:
        raw = gzip.decompress(img_path.read_bytes())
        lab = gzip.decompress(lab_path.read_bytes())
    except (OSError, EOFError) as exc:
        raise GlyphSourceError(f"source 'oracle-mnist': cannot decompress {img_path} / {lab_path}: {exc}; {FETCH_HINT}") from exc
    if len(raw) < 16 or len(lab) < 8:
        raise GlyphSourceError(f"source 'oracle-mnist': {img_path} or {lab_path} is truncated (no idx header); {FETCH_HINT}")
    magic, count, rows, cols = struct.unpack(">IIII", raw[:16])
    lmagic, lcount = struct.unpack(">II", lab[:8])
    if magic != _IDX3_UBYTE or lmagic != _IDX1_UBYTE:
        raise GlyphSourceError(
            f"source 'oracle-mnist': idx magic numbers {magic:#x} / {lmagic:#x}, expected "
            f"{_IDX3_UBYTE:#x} (images) / {_IDX1_UBYTE:#x} (labels)")
    n = rows * cols
    if count != lcount or len(raw) != 16 + count * n or len(lab) != 8 + lcount:
        raise GlyphSourceError(
            f"source 'oracle-mnist': header says {count} images of {rows}x{cols} and {lcount} labels, "
            f"files hold {len(raw) - 16} image bytes and {len(lab) - 8} labels; {FETCH_HINT}")
    labels = list(lab[8:])
    bad = [i for i, y in enumerate(labels) if y >= len(ORACLE_MNIST_CLASSES)]
    if bad:
        raise GlyphSourceError(f"source 'oracle-mnist': label {labels[bad[0]]} at index {bad[0]} is not a class 0..9")
    images = [raw[16 + i * n: 16 + (i + 1) * n] for i in range(count)]
    return rows, cols, images, labels


def simplified_only(sources_dir: Path) -> frozenset[str]:
    """Characters that are simplified forms differing from their traditional form.

    Rule (Unihan ``kTraditionalVariant``, Unicode 17.0): a character is simplified-only
    when it has a ``kTraditionalVariant`` and that list does not contain the character
    itself. So 马 (-> 馬) and 发 (-> 發 髮) are simplified-only, while 云 (-> 云 雲) and
    后 (-> 后 後), which are also traditional characters in their own right, are not.
    A rendering of a simplified-only character is labelled 简体 rather than 楷书.

    Raises :class:`GlyphSourceError` when the Unihan variants file is missing.
    """
    path = source_file(sources_dir, UNIHAN_VARIANTS)
    out: set[str] = set()
    # Values look like "U+99AC" or "U+540E U+5F8C"; some carry "<source" tags.
    for ch, _field, trad, _line in read_variants(path, ("kTraditionalVariant",)):
        if trad and ch not in trad:
            out.add(ch)
    return frozenset(out)


# --- the glyph source -------------------------------------------------------------------

NAME = "oracle-mnist"


def plan(request: Request, plan: Plan, skipped: SkipLog) -> None:
    """Glyph source ``oracle-mnist`` (interface: :mod:`builder.glyphs.base`): all 3,000
    real oracle-bone scans of the test split, whatever ``request.characters`` holds;
    script 甲骨文, style ``scan``, Apache-2.0. Raises :class:`GlyphSourceError` when the
    files are missing or malformed."""
    rows, cols, scans, classes = read_oracle_mnist(request.sources_dir)
    for i, (pixels, label) in enumerate(zip(scans, classes)):
        image_id = render.make_id(NAME, "t10k", i, pixels, request.size)
        plan.add(render.Job("oracle", ORACLE_MNIST_CLASSES[label], "甲骨文", image_id,
                            pixels=pixels, rows=rows, cols=cols),
                 Meta(NAME, "Apache-2.0", "scan", item=f"t10k image {i}"))
