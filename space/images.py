"""Turning what a visitor gives the Space (an upload, a pasted image, a sketch) into one
glyph image the backends can read.

Gradio hands the app a PIL image for ``gr.Image(type="pil")`` and an ``EditorValue``
dict (``background``, ``layers``, ``composite``) for ``gr.Sketchpad(type="pil")``. Both
may carry an alpha channel: a transparent PNG, WebP or a sketch drawn on an empty
canvas. Every embedder and model expects dark ink on an opaque ground, so transparent
pixels are composited on white before anything else sees the image.
"""

from __future__ import annotations

from PIL import Image, ImageOps

# The largest side kept. Glyph embedders work at 48-96 px and VLM processors resize to a
# few hundred; a bigger image only costs memory and upload time.
MAX_SIDE = 1024
# The smallest side accepted: below this no glyph is legible.
MIN_SIDE = 8
# A sketch or upload whose pixels all lie within this many grey levels of each other is
# blank (nothing drawn, or a flat colour).
BLANK_RANGE = 8


class GlyphImageError(ValueError):
    """The input cannot be used as a glyph image; the message says why in plain words."""


def on_white(image: Image.Image) -> Image.Image:
    """``image`` as RGB with any transparency composited on a white ground.

    Palette images with a transparent index and LA / RGBA / PA images are handled; an
    opaque image is only converted to RGB. EXIF orientation is applied first (phone photos
    of rubbings are often stored rotated).
    """
    image = ImageOps.exif_transpose(image)
    if image.mode == "P" and "transparency" in image.info:
        image = image.convert("RGBA")
    if image.mode in ("RGBA", "LA", "PA", "RGBa", "La"):
        rgba = image.convert("RGBA")
        ground = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(ground, rgba).convert("RGB")
    return image.convert("RGB")


def sketch_image(value) -> Image.Image | None:
    """The drawn glyph of a ``gr.Sketchpad`` value (an ``EditorValue`` dict with
    ``composite``, or a PIL image), or None when nothing was drawn."""
    if value is None:
        return None
    if isinstance(value, dict):
        value = value.get("composite") or value.get("background")
    if value is None:
        return None
    if not isinstance(value, Image.Image):
        raise GlyphImageError(f"the sketch pad sent a {type(value).__name__}, expected an image")
    return value


def prepare(image: Image.Image | None) -> Image.Image:
    """Validate and normalise one glyph image: RGB on white, at most :data:`MAX_SIDE`
    pixels per side (aspect kept).

    Raises :class:`GlyphImageError` when there is no image, it is smaller than
    :data:`MIN_SIDE` pixels on a side, or it is blank.
    """
    if image is None:
        raise GlyphImageError("no glyph image: upload, paste or draw one, or pick a bench item")
    if not isinstance(image, Image.Image):
        raise GlyphImageError(f"expected an image, got {type(image).__name__}")
    if min(image.size) < MIN_SIDE:
        raise GlyphImageError(f"the image is {image.size[0]}x{image.size[1]} pixels; a glyph needs at least "
                              f"{MIN_SIDE} pixels on each side")
    rgb = on_white(image)
    if max(rgb.size) > MAX_SIDE:
        rgb.thumbnail((MAX_SIDE, MAX_SIDE), Image.LANCZOS)
    lo, hi = rgb.convert("L").getextrema()
    if hi - lo <= BLANK_RANGE:
        raise GlyphImageError("the image is blank (one flat colour): nothing to read")
    return rgb
