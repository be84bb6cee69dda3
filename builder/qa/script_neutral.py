"""Glyphs whose drawing does not show their script (SCRC cannot be answered from them).

二 is two bars in oracle-bone, bronze, Warring States and seal drawings alike (data review
07-2): a script question on such an image has no answer in the image. The rule needs both
the sources and the pixels, so that it says only what it can check:

- the character is made of horizontal bars only: it is 一, or its IDS (cjkvi-ids /
  makemeahanzi, recursively through the records) has only such characters as operands
  (二 ⿱一一, 三 ⿱一二);
- the image shows only horizontal bars: every connected blob of ink is at least
  :data:`MIN_ASPECT` times as wide as it is tall (a seal 二 drawn with curled ends, or any
  other shape, fails and keeps its question).

Such an image is asked no SCRC question (reason :data:`REASON`, counted in the stage
report). Read by :mod:`builder.qa.stage`.
"""

from __future__ import annotations

from pathlib import Path

from builder.ids import IDSError, first_level
from builder.schema import GlyphRecord

REASON = "scrc:script-not-visible"
MIN_ASPECT = 3.0
BAR = "一"
ANCIENT = frozenset({"甲骨文", "金文", "战国文字", "篆书"})


def bar_characters(records: list[GlyphRecord]) -> set[str]:
    """Characters made only of horizontal bars by their IDS (一, 二, 三, 亖 ...)."""
    ids: dict[str, str] = {}
    for r in records:
        if r.ids is not None and r.character not in ids:
            ids[r.character] = r.ids.value
    bars = {BAR}
    changed = True
    while changed:
        changed = False
        for ch, value in ids.items():
            if ch in bars:
                continue
            try:
                ops = first_level(value)
            except IDSError:
                continue
            if ops and all(o.is_character and o.text in bars for o in ops):
                bars.add(ch)
                changed = True
    return bars


def only_bars(path: Path) -> bool:
    """Whether the image's ink is horizontal bars only (each 8-connected blob at least
    :data:`MIN_ASPECT` times as wide as tall; specks under 0.5% of the image ignored)."""
    import numpy as np
    from PIL import Image
    from scipy import ndimage

    with Image.open(path) as im:
        a = np.asarray(im.convert("L"), dtype=np.uint8)
    ink = a < 128 if a.mean() > 127 else a >= 128
    labels, n = ndimage.label(ink, structure=np.ones((3, 3)))
    if n == 0:
        return False
    boxes = ndimage.find_objects(labels)
    sizes = ndimage.sum(ink, labels, range(1, n + 1))
    kept = [b for b, size in zip(boxes, sizes) if size >= 0.005 * ink.size]
    if not kept:
        return False
    return all((b[1].stop - b[1].start) >= MIN_ASPECT * (b[0].stop - b[0].start) for b in kept)


def script_neutral_images(records: list[GlyphRecord], records_dir: Path) -> set[str]:
    """Ids of the ancient-script images (甲骨文, 金文, 战国文字, 篆书) of bar-only characters
    whose pixels show bars only; a font rendering keeps its question (the brush or serif
    shapes of a 楷书 font show the script)."""
    bars = bar_characters(records)
    out = set()
    for r in records:
        if r.character not in bars or r.script not in ANCIENT:
            continue
        for im in r.images:
            path = Path(records_dir) / im.path
            try:
                if path.is_file() and only_bars(path):
                    out.add(im.id)
            except (OSError, ValueError):
                continue
    return out
