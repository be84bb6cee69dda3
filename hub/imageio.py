"""The one guarded way this project opens an image file it did not make (issue 24).

Every reader of outside images goes through :func:`open_image`: user glyph folders and
manifests (``builder.glyphs``), bench images in ``jiezi eval`` and the official layouts
(``harness``), the Space upload and ``jiezi explain`` (``space``). It lives in ``hub``, the
shared base every stage may import (rank 0 in ARCHITECTURE.md), because the builder may not
import the harness or the Space and the consumers do not import the builder; it imports
nothing of the project.

What it guards against, each as :class:`ImageRejected` with one line naming the file and
the reason (callers skip that image and go on):

- **decompression bombs**: an image whose header declares more than the pixel cap
  (:data:`DEFAULT_MAX_PIXELS` = 64 million pixels, about 8000 x 8000, far above any glyph;
  set ``JIEZI_MAX_IMAGE_PIXELS`` or pass ``max_pixels``) is refused before any pixel is
  decoded. A 30,000 x 30,000 PNG is 0.9 MB on disk and 900 MB decoded.
- empty (0-byte), missing, unrecognised and undecodable files;
- truncated files (Pillow raises on the first missing byte; ``LOAD_TRUNCATED_IMAGES`` is
  never turned on, so no half-grey glyph is learned from or scored).

What it normalises (no error): an animated image (GIF, APNG, WebP) gives its first frame;
16-bit / 32-bit / float grey is stretched onto 0..255; palette, 1-bit, grey+alpha, RGBA,
CMYK and the rest become ``L`` or ``RGB`` with transparency composited on white
(:func:`flatten`); EXIF orientation is applied.
"""

from __future__ import annotations

import io
import os
import re
import warnings
from pathlib import Path

from PIL import Image, ImageChops, ImageOps

#: the default pixel cap (width x height); ``JIEZI_MAX_IMAGE_PIXELS`` overrides it.
DEFAULT_MAX_PIXELS = 64_000_000
MAX_PIXELS_ENV = "JIEZI_MAX_IMAGE_PIXELS"

# Pillow's own bomb check warns above Image.MAX_IMAGE_PIXELS (and raises above twice that)
# while opening the header; as an error it is one more refusal this module turns into a
# line, never a warning on stderr for an image that is then decoded anyway.
warnings.filterwarnings("error", category=Image.DecompressionBombWarning)


class ImageRejected(ValueError):
    """An image file cannot be used. ``str()`` is one line: ``"<name>: <reason>"``;
    ``name`` and ``reason`` are kept as attributes."""

    def __init__(self, name: str, reason: str):
        super().__init__(f"{name}: {reason}")
        self.name, self.reason = name, reason


def max_pixels(value: int | None = None) -> int:
    """The pixel cap in force: ``value`` when given, else ``$JIEZI_MAX_IMAGE_PIXELS``, else
    :data:`DEFAULT_MAX_PIXELS`. Raises ``ValueError`` naming the variable when it is not a
    positive integer."""
    if value is None:
        raw = os.environ.get(MAX_PIXELS_ENV, "").strip().replace("_", "")
        if not raw:
            return DEFAULT_MAX_PIXELS
        try:
            value = int(raw)
        except ValueError:
            raise ValueError(f"{MAX_PIXELS_ENV}={raw!r}: expected a positive whole number of pixels") from None
    if value < 1:
        raise ValueError(f"pixel cap {value}: expected a positive whole number of pixels")
    return value


def _to_8bit(image: Image.Image) -> Image.Image:
    # 16-bit / 32-bit / float grey: stretch the range the image uses onto 0..255.
    grey = image if image.mode == "F" else image.convert("F")
    lo, hi = grey.getextrema()
    if hi <= lo:
        return Image.new("L", image.size, 255)
    scale = 255.0 / (hi - lo)
    return grey.point(lambda v: v * scale - lo * scale).convert("L")


def flatten(image: Image.Image) -> Image.Image:
    """Any Pillow mode -> ``L`` or ``RGB``, transparency composited on white; RGB whose
    three channels are equal becomes ``L``."""
    if image.mode in ("I", "I;16", "I;16B", "I;16L", "I;16N", "F"):
        image = _to_8bit(image)
    if image.mode == "1":
        image = image.convert("L")
    if image.mode in ("P", "PA", "LA", "La") or "transparency" in image.info:
        image = image.convert("RGBA")
    if image.mode in ("RGBA", "RGBa"):
        white = Image.new("RGBA", image.size, (255, 255, 255, 255))
        image = Image.alpha_composite(white, image.convert("RGBA")).convert("RGB")
    if image.mode not in ("L", "RGB"):
        image = image.convert("RGB")  # CMYK, YCbCr, LAB, HSV
    if image.mode == "RGB":
        r, g, b = image.split()
        if ImageChops.difference(r, g).getbbox() is None and ImageChops.difference(g, b).getbbox() is None:
            image = r  # grey pixels stored as RGB: keep one channel
    return image


def _source(source, name: str | None) -> tuple[object, str]:
    """``(what Pillow opens, the name errors use)``; empty and missing files refused here."""
    if isinstance(source, dict):  # a datasets Image value with decode=False: {"bytes", "path"}
        data, path = source.get("bytes"), source.get("path")
        if data is None and path:
            source = Path(path)
        else:
            source = bytes(data or b"")
            name = name or path or "image"
    if isinstance(source, (bytes, bytearray, memoryview)):
        name = name or "image bytes"
        if not len(source):
            raise ImageRejected(name, "empty image (0 bytes)")
        return io.BytesIO(bytes(source)), name
    path = Path(source)
    name = name or str(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise ImageRejected(name, "no such file") from None
    except OSError as exc:
        raise ImageRejected(name, f"cannot read the file ({exc.strerror or exc})") from None
    if path.is_dir():
        raise ImageRejected(name, "is a folder, not an image file")
    if size == 0:
        raise ImageRejected(name, "empty file (0 bytes)")
    return path, name


def _reason(exc: Exception) -> str:
    text = str(exc).replace("\n", " ")
    if isinstance(exc, Image.UnidentifiedImageError):
        return "not an image format Pillow can read (unrecognised or corrupt header)"
    if "truncated" in text.casefold() or isinstance(exc, EOFError):
        detail = text.replace("image file is truncated", "").strip(" ()")
        return "truncated image file" + (f" ({detail})" if detail else "")
    if isinstance(exc, OSError) and exc.errno is not None:
        return f"cannot read the file ({exc.strerror or text})"
    return f"undecodable image data ({type(exc).__name__}: {text})"


def open_image(source, *, name: str | None = None, max_pixels: int | None = None,
               draft: int | None = None) -> Image.Image:
    """Open, check and decode one image: a path, bytes, or a datasets ``{"bytes", "path"}``
    dict. Returns a loaded ``L`` or ``RGB`` image (first frame, EXIF orientation applied,
    :func:`flatten`), detached from the file.

    ``name``: how errors name the image (default: the path); ``max_pixels``: the cap (see
    :func:`max_pixels`), checked on the header's width x height before decoding;
    ``draft``: for a JPEG, decode at a reduced scale no smaller than ``draft`` pixels a side
    (``Image.draft``), which a caller that resizes down anyway can take.

    Raises :class:`ImageRejected` (``"<name>: <reason>"``): empty, missing, unrecognised,
    truncated or undecodable file, or more pixels than the cap.
    """
    cap = _max_pixels(max_pixels)
    opened, name = _source(source, name)
    try:
        with Image.open(opened) as src:
            width, height = src.size
            if width * height > cap:
                raise ImageRejected(name, _over_cap(width, height, cap))
            if getattr(src, "n_frames", 1) > 1:
                src.seek(0)  # an animation's first frame is the glyph
            if draft and src.format == "JPEG":
                src.draft(src.mode, (draft, draft))
            src.load()
            image = flatten(ImageOps.exif_transpose(src))
            image.load()
            return image
    except ImageRejected:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        # Pillow's own check fired while reading the header (above Image.MAX_IMAGE_PIXELS);
        # its message holds the pixel count, not the sides
        found = re.search(r"\((\d+) pixels\)", str(exc))
        size = f"{int(found.group(1)) / 1e6:.0f} million pixels" if found else "more pixels than Pillow's limit"
        raise ImageRejected(name, f"{size} exceeds the cap of {cap / 1e6:g} million ({MAX_PIXELS_ENV} raises it); "
                            "refused before decoding") from None
    except Exception as exc:  # noqa: BLE001 - Pillow raises OSError, SyntaxError, ValueError, struct.error ...
        raise ImageRejected(name, _reason(exc)) from None


def _max_pixels(value: int | None) -> int:
    cap = max_pixels(value)
    # Pillow refuses above its own limit before this module sees the size; a cap raised
    # above it (a user with huge scans) raises Pillow's with it, so the cap stated is the one applied.
    if Image.MAX_IMAGE_PIXELS is not None and cap > Image.MAX_IMAGE_PIXELS:
        Image.MAX_IMAGE_PIXELS = cap
    return cap


def _over_cap(width: int, height: int, cap: int) -> str:
    return (f"{width} x {height} = {width * height / 1e6:.0f} million pixels exceeds the cap of "
            f"{cap / 1e6:g} million ({MAX_PIXELS_ENV} raises it); refused before decoding")
