"""Traced glyph outlines (SVG, or a PNG render of one) as images, and their augmented copies.

:func:`tracing_image` rasterises an SVG tracing with cairosvg (libcairo) onto white,
:func:`drawing_image` composites a PNG render of one (grey + alpha, as Commons' thumbnail
service writes them) onto white; both crop to the ink and centre it on the canvas with
the margin the font renderings use, so a tracing and a font rendering of one character
have the same framing.

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
    hi = _frame(_svg_to_grey(data, RASTER * OVERSAMPLE * size), OVERSAMPLE * size)
    return _augment(hi, size, image_id, variant)


class ComponentDiagram(ValueError):
    """A two-tone drawing: one component in black inside another character drawn in grey
    (a Commons component diagram), whose whole picture reads as that other character."""


# A drawing is two-tone when between these shares of its inked pixels (alpha > 128) are
# grey (grey level > 60) rather than black: measured on the 6,404 commons-acc-png renders,
# the 46 component diagrams lie between 0.26 and 0.78, plain black drawings below 0.06
# (anti-aliased edges), and drawings inked wholly in grey above 0.85.
TWO_TONE_SHARE = (0.15, 0.85)


def two_tone_share(grey_ink: Image.Image, alpha: Image.Image) -> float:
    """Share (0..1) of a render's inked pixels (``alpha`` > 128) whose ``grey_ink`` level
    is above 60 (grey, not black)."""
    a = np.asarray(alpha) > 128
    g = a & (np.asarray(grey_ink) > 60)
    return float(g.sum()) / max(1, int(a.sum()))


def _png_to_grey(data: bytes) -> Image.Image:
    """A PNG render (any mode; transparency composited on white) as grey, dark ink on white.
    Raises :class:`ComponentDiagram` for a two-tone render (:data:`TWO_TONE_SHARE`)."""
    with Image.open(io.BytesIO(data)) as im:
        im.load()
        if im.mode in ("LA", "RGBA", "PA", "P"):  # Commons' renders: ink whose coverage is the alpha
            la = im if im.mode == "LA" else im.convert("RGBA").convert("LA")
            grey, alpha = la.split()
            share = two_tone_share(grey, alpha)
            if TWO_TONE_SHARE[0] < share < TWO_TONE_SHARE[1]:
                raise ComponentDiagram(f"{share:.0%} of the ink is grey: a component diagram (one part "
                                       f"in black inside another character in grey)")
            return Image.composite(grey, Image.new("L", im.size, 255), alpha)
        return im.convert("L")


def drawing_image(data: bytes, size: int) -> Image.Image:
    """A PNG render of a tracing (file bytes) as a ``size`` x ``size`` grey image, dark
    ink on white, framed like :func:`tracing_image`. Raises ``ValueError`` for a render
    without ink and Pillow's errors (``OSError``, ``SyntaxError``) for an undecodable file."""
    return _frame(_png_to_grey(data), size)


def augmented_drawing(data: bytes, size: int, image_id: str, variant: int) -> Image.Image:
    """Copy ``variant`` of the PNG render ``data`` (see :func:`augmented_image`); same
    errors as :func:`drawing_image`."""
    return _augment(_frame(_png_to_grey(data), OVERSAMPLE * size), size, image_id, variant)


def _augment(hi: Image.Image, size: int, image_id: str, variant: int) -> Image.Image:
    """:func:`augment_params` applied to a framed grey image at :data:`OVERSAMPLE` x ``size``."""
    p = augment_params(image_id, variant)
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
