"""Glyph normalisation shared by the embedders (:mod:`harness.baselines.embed`) and the recogniser
(:mod:`harness.baselines.ocr`): grey scale, dark ink on a light ground (inverted when the border is
dark, as in scans of rubbings), cropped to the ink's bounding box found with Otsu's
threshold, centred on a square with a margin, resized.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

MARGIN = 0.08  # fraction of the glyph's longer side added on each side


def ink_boxes(stack: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Polarity-fixed stack and the ink box of each image, for a ``(m, H, W)`` uint8 stack.

    Returns ``(stack, boxes)`` with ``boxes[i] = (top, bottom, left, right)`` (exclusive
    ends; the full image when there is no usable ink). See :func:`normalise_glyph`.
    """
    m, h, w = stack.shape
    border = np.concatenate([stack[:, 0], stack[:, -1], stack[:, :, 0], stack[:, :, -1]], axis=1)
    dark = np.median(border, axis=1) < 128  # light ink on a dark ground (rubbings, MNIST-style scans)
    stack = np.where(dark[:, None, None], 255 - stack, stack)
    # Otsu's threshold per image (N. Otsu, IEEE TSMC 1979), all images at once.
    hist = np.bincount((stack.reshape(m, -1) + (np.arange(m) * 256)[:, None]).ravel(),
                       minlength=m * 256).reshape(m, 256).astype(np.float64)
    p = hist / np.maximum(hist.sum(1, keepdims=True), 1.0)
    cw = np.cumsum(p, axis=1)
    mu = np.cumsum(p * np.arange(256), axis=1)
    between = (mu[:, -1:] * cw - mu) ** 2 / (cw * (1.0 - cw) + 1e-12)
    thresh = np.argmax(between, axis=1)
    ink = stack <= thresh[:, None, None]
    rows = ink.sum(2) >= max(1, 0.02 * w)
    cols = ink.sum(1) >= max(1, 0.02 * h)
    usable = rows.any(1) & cols.any(1) & (ink.mean((1, 2)) < 0.9)
    top = np.where(usable, rows.argmax(1), 0)
    bottom = np.where(usable, h - rows[:, ::-1].argmax(1), h)
    left = np.where(usable, cols.argmax(1), 0)
    right = np.where(usable, w - cols[:, ::-1].argmax(1), w)
    return stack, np.stack([top, bottom, left, right], axis=1)


def _place(gray: np.ndarray, size: int) -> Image.Image:
    h, w = gray.shape
    side = int(max(h, w) * (1 + 2 * MARGIN)) + 1
    canvas = np.full((side, side), 255, np.uint8)
    canvas[(side - h) // 2:(side - h) // 2 + h, (side - w) // 2:(side - w) // 2 + w] = gray
    return Image.fromarray(canvas).resize((size, size), Image.BILINEAR)


def normalise_glyphs(images: list[Image.Image], size: int) -> list[Image.Image]:
    """:func:`normalise_glyph` of many images; images of equal size are processed as one
    array (the gallery's glyphs all share one size), so the per-image cost is small."""
    arrays = [np.asarray(im.convert("L"), dtype=np.uint8) for im in images]
    out: list[Image.Image | None] = [None] * len(arrays)
    by_shape: dict[tuple[int, int], list[int]] = {}
    for i, a in enumerate(arrays):
        by_shape.setdefault(a.shape, []).append(i)
    for idx in by_shape.values():
        stack, boxes = ink_boxes(np.stack([arrays[i] for i in idx]))
        for j, i in enumerate(idx):
            t, b, l, r = boxes[j]
            out[i] = _place(stack[j, t:b, l:r], size)
    return out


def normalise_glyph(image: Image.Image, size: int) -> np.ndarray:
    """The glyph as a ``(size, size)`` uint8 array, dark ink on white, cropped to its ink
    and centred with a margin of :data:`MARGIN`.

    The image is inverted when its border is dark; the ink is the pixels at or below
    Otsu's threshold; rows/columns holding less than 2% ink are ignored when cropping, so
    speckle on a scan does not stretch the box. A blank image is returned resized,
    uncropped.
    """
    return np.asarray(normalise_glyphs([image], size)[0])


