"""Traced glyph outlines (SVG) as images, and their augmented copies.

:func:`tracing_image` rasterises an SVG tracing with cairosvg (libcairo) onto white,
crops it to its ink and centres it on the canvas with the margin the font renderings
use, so a tracing and a font rendering of one character have the same framing.

:func:`augmented_image` makes one augmented copy of a tracing for JieZi-Dataset only:
stroke weight (thicker or thinner ink), a small rotation and shift, and an ink texture
(uneven ink density and a faint paper grain). The parameters come from a seeded
generator, so a copy is byte-deterministic for its (tracing, variant); the values are
stated in :func:`augment_params`.
"""

from __future__ import annotations

import hashlib
import io
import random

import numpy as np
from PIL import Image, ImageFilter, ImageOps

# Bump when the same tracing (TRACING_VERSION) or tracing and variant (AUGMENT_VERSION)
# would give different pixels: both are part of the image ids.
TRACING_VERSION = "2"
AUGMENT_VERSION = "2"
# Share of the canvas left free on each side (the font renderings' MARGIN_SHARE).
MARGIN_SHARE = 1 / 16
# Rasterise at RASTER x the output size before cropping to the ink (a tracing's ink box
# is often half its canvas), and work on augmented copies at OVERSAMPLE x: smoother
# edges and room for sub-pixel stroke-weight changes.
RASTER = 2
OVERSAMPLE = 2
MAX_ROTATION_DEG = 6.0
MAX_SHIFT_SHARE = 0.04


class SvgRendererMissing(RuntimeError):
    """cairosvg or the libcairo library it loads is not installed."""


def _svg_to_grey(data: bytes, side: int) -> Image.Image:
    try:
        import cairosvg  # optional heavy dependency: loads the libcairo system library
    except (ImportError, OSError) as exc:
        raise SvgRendererMissing(
            f"rasterising SVG tracings needs cairosvg with libcairo: `pip install cairosvg` and "
            f"`apt-get install libcairo2` ({type(exc).__name__}: {exc})") from exc
    png = cairosvg.svg2png(bytestring=data, output_width=side, background_color="white", unsafe=False)
    with Image.open(io.BytesIO(png)) as im:
        return im.convert("L")


def _frame(ink: Image.Image, size: int) -> Image.Image:
    """``ink`` (dark on white) cropped to its ink box, scaled to fit inside the margins
    (aspect kept), centred on a white ``size`` x ``size`` canvas."""
    box = ImageOps.invert(ink).getbbox()
    if box is None:
        raise ValueError("the tracing draws no ink")
    glyph = ink.crop(box)
    avail = size - 2 * max(1, round(size * MARGIN_SHARE))
    scale = avail / max(glyph.width, glyph.height)
    glyph = glyph.resize((max(1, round(glyph.width * scale)), max(1, round(glyph.height * scale))),
                         Image.Resampling.LANCZOS)
    out = Image.new("L", (size, size), 255)
    out.paste(glyph, ((size - glyph.width) // 2, (size - glyph.height) // 2))
    return out


def tracing_image(data: bytes, size: int) -> Image.Image:
    """An SVG tracing (file bytes) as a ``size`` x ``size`` grey image, dark ink on white.

    Raises :class:`SvgRendererMissing` without cairosvg/libcairo, ``ValueError`` for an
    SVG without ink, and cairosvg's parse errors for a malformed file.
    """
    return _frame(_svg_to_grey(data, RASTER * size), size)


def augment_params(image_id: str, variant: int) -> dict:
    """The augmentation of copy ``variant`` of the tracing ``image_id``: ``weight`` in
    {-1, 0, 1} (thinner, as drawn, thicker: one pixel of min/max filter at the
    oversampled size), ``angle`` in degrees (uniform in +-:data:`MAX_ROTATION_DEG`),
    ``dx``/``dy`` as shares of the canvas (uniform in +-:data:`MAX_SHIFT_SHARE`),
    ``ink`` the lightest ink level (0..90: uneven ink) and ``grain`` the paper noise
    amplitude (0..12 grey levels)."""
    seed = hashlib.sha256(f"{AUGMENT_VERSION}|{image_id}|{variant}".encode()).digest()
    rng = random.Random(seed)
    return {
        "weight": rng.choice((-1, 0, 1)) if variant % 2 else (1 if variant % 4 == 0 else -1),
        "angle": rng.uniform(-MAX_ROTATION_DEG, MAX_ROTATION_DEG),
        "dx": rng.uniform(-MAX_SHIFT_SHARE, MAX_SHIFT_SHARE),
        "dy": rng.uniform(-MAX_SHIFT_SHARE, MAX_SHIFT_SHARE),
        "ink": rng.randint(0, 90),
        "grain": rng.randint(0, 12),
        "seed": int.from_bytes(seed[:8], "big"),
    }


def augmented_image(data: bytes, size: int, image_id: str, variant: int) -> Image.Image:
    """Copy ``variant`` (0..) of the SVG tracing ``data`` with :func:`augment_params`
    applied, as a ``size`` x ``size`` grey image. Same errors as :func:`tracing_image`."""
    p = augment_params(image_id, variant)
    hi = _frame(_svg_to_grey(data, RASTER * OVERSAMPLE * size), OVERSAMPLE * size)
    if p["weight"] > 0:
        hi = hi.filter(ImageFilter.MinFilter(3))  # dark ink spreads: thicker strokes
    elif p["weight"] < 0:
        hi = hi.filter(ImageFilter.MaxFilter(3))  # white eats the edges: thinner strokes
    side = hi.width
    hi = hi.rotate(p["angle"], resample=Image.Resampling.BICUBIC, fillcolor=255,
                   translate=(round(p["dx"] * side), round(p["dy"] * side)))
    arr = np.asarray(hi, dtype=np.float32) / 255.0  # 0 = ink, 1 = paper
    rng = np.random.default_rng(p["seed"])
    # ink texture: a smooth density field (coarse noise, upsampled) lightens the ink unevenly
    coarse = Image.fromarray((rng.random((8, 8)) * 255).astype(np.uint8)).resize((side, side), Image.Resampling.BICUBIC)
    density = np.asarray(coarse, dtype=np.float32) / 255.0 * (p["ink"] / 255.0)
    ink = 1.0 - arr
    out = 1.0 - ink * (1.0 - density)
    out += rng.normal(0.0, p["grain"] / 255.0, out.shape).astype(np.float32)
    img = Image.fromarray((np.clip(out, 0.0, 1.0) * 255).round().astype(np.uint8))
    return img.resize((size, size), Image.Resampling.LANCZOS)
