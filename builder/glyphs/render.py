"""Worker side of the glyph-image stage: draw or normalise one image and write its PNG.

Runs in the parent (``workers=1``) or in pool processes; it imports nothing heavier than
Pillow. Each :class:`Job` knows its image id before any pixel is drawn (a hash of
everything that determines the pixels), so a job whose PNG already exists is answered by
reading that file, which makes a rerun resume instead of redrawing. PNGs are written to
a temporary name and renamed, so a file under its final name is always complete.

Output images: ``size`` x ``size`` pixels, dark ink on a white background; mode ``L``
(8-bit grey) unless a user image has colour (then ``RGB``).
"""

from __future__ import annotations

import hashlib
import io
import re
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageOps

from builder.glyphs import tracing
from hub import imageio
from hub.fontdraw import EM_SHARE, MARGIN_SHARE, NOTDEF_PROBE, font_image, notdef_image  # noqa: F401  (shared renderer)
from hub.atomic import atomic_write

# Bump when the same input would produce different pixels (changes every image id).
RENDER_VERSION = "1"
# zlib level 1: at 128 px it encodes in about half the time of the default level 6 for
# files ~15 % larger (about 2 KiB a glyph); encoding is a third of the cost of an image.
PNG_COMPRESS_LEVEL = 1


@dataclass(frozen=True, slots=True)
class Job:
    """One image to produce.

    ``kind`` is ``"oracle"`` (``pixels``: grey bytes of a ``rows`` x ``cols`` scan, light
    strokes on dark), ``"font"`` (draw code point ``codepoint`` with face ``face`` of
    context design ``design``), ``"user"`` (normalise the image file ``path``; its id is
    ``slug`` plus a hash of the file bytes, so it is computed here), ``"svg"`` (rasterise
    the SVG tracing ``path``) or ``"svg-augment"`` (augmented copy ``variant`` of the SVG
    tracing ``path``, parameters seeded by ``slug``; see :mod:`builder.glyphs.tracing`), ``"png"`` /
    ``"png-augment"`` (the same for a PNG render of a tracing). ``image_id`` and
    ``script`` name the output ``images/<script>/<image_id>.png``.
    """

    kind: str
    character: str
    script: str
    image_id: str = ""
    pixels: bytes = b""
    rows: int = 0
    cols: int = 0
    design: int = -1
    face: int = -1
    codepoint: int = 0
    path: str = ""
    slug: str = ""
    variant: int = -1


@dataclass(frozen=True)
class RenderContext:
    """What every worker needs: the records directory, the canvas size in pixels, and per
    design the ``(font file, face index)`` of each face."""

    out_dir: str
    size: int
    designs: tuple[tuple[tuple[str, int], ...], ...]


# Result of one job: ("ok", relative path, image id, sha256, width, height)
#                 or ("skip", reason, kind).
Result = tuple

_CTX: RenderContext | None = None



def init_worker(ctx: RenderContext) -> None:
    """Set the process-wide context (pool initializer; also called for ``workers=1``)."""
    global _CTX
    _CTX = ctx


def make_id(slug: str, *parts: object) -> str:
    """``"<slug>-<first 16 hex of sha256>"`` over :data:`RENDER_VERSION` and ``parts``."""
    h = hashlib.sha256(RENDER_VERSION.encode())
    for part in parts:
        h.update(b"\0")
        h.update(part if isinstance(part, bytes) else str(part).encode("utf-8"))
    return f"{slug}-{h.hexdigest()[:16]}"


def rel_path(script: str, image_id: str) -> str:
    """The image's path relative to the records directory (POSIX separators)."""
    return f"images/{script}/{image_id}.png"


def run_chunk(jobs: list[Job]) -> list[Result]:
    """Produce every job of ``jobs`` in order; one failing job becomes a ``"skip"`` result."""
    return [run_job(job) for job in jobs]


def run_job(job: Job) -> Result:
    """Produce one image (or reuse the existing file). Never raises for a bad input."""
    ctx = _CTX
    assert ctx is not None, "init_worker() was not called"
    try:
        if job.kind == "user":
            data = Path(job.path).read_bytes()
            image_id = make_id(job.slug, hashlib.sha256(data).hexdigest(), job.character, job.script, ctx.size)
        else:
            data, image_id = b"", job.image_id
        rel = rel_path(job.script, image_id)
        dest = Path(ctx.out_dir) / rel
        if dest.is_file():
            png = dest.read_bytes()
        else:
            image = _DRAW[job.kind](job, ctx, data)
            if image is None:
                path, index = ctx.designs[job.design][job.face]
                return ("skip", f"U+{job.codepoint:04X} draws no ink or the .notdef glyph in face {index} of {path}",
                        "font-empty-glyph")
            png = write_png(image, dest)
    except FileNotFoundError as exc:
        return ("skip", f"file not found: {exc.filename}", "glyph-missing-file")
    except imageio.ImageRejected as exc:
        # the skip record names the item (file) itself: the reason alone, one line
        return ("skip", f"not a usable image: {exc.reason}", "glyph-not-an-image")
    except tracing.SvgRendererMissing:
        raise  # a missing library is not a bad item: every tracing would fail the same way
    except tracing.ComponentDiagram as exc:
        return ("skip", str(exc), "glyph-component-diagram")
    except Exception as exc:  # noqa: BLE001 - one bad item must not stop the run
        # Pillow reports an undecodable, truncated or hostile file with many exception
        # types (OSError, SyntaxError, ValueError, DecompressionBombError, struct.error...).
        if job.kind == "user":
            # Pillow names the in-memory buffer ("<_io.BytesIO object at 0x...>"), which
            # tells the user nothing; the item (file) is named by the skip record itself.
            detail = re.sub(r"<_io\.BytesIO object at 0x[0-9a-f]+>", "the file", str(exc))
            return ("skip", f"not a decodable image: {type(exc).__name__}: {detail}", "glyph-not-an-image")
        return ("skip", f"rendering failed: {type(exc).__name__}: {exc}", "glyph-render-error")
    return ("ok", rel, image_id, hashlib.sha256(png).hexdigest(), ctx.size, ctx.size)


def _draw_font(job: Job, ctx: RenderContext, data: bytes) -> Image.Image | None:
    path, index = ctx.designs[job.design][job.face]
    return font_image(path, index, job.codepoint, ctx.size)


# job kind -> how its image is drawn (``data``: the file bytes a user job has read)
_DRAW = {
    "oracle": lambda job, ctx, data: oracle_image(job.pixels, job.cols, job.rows, ctx.size),
    "font": _draw_font,
    "user": lambda job, ctx, data: user_image(data, ctx.size, name=Path(job.path).name),
    "svg": lambda job, ctx, data: tracing.tracing_image(Path(job.path).read_bytes(), ctx.size),
    "svg-augment": lambda job, ctx, data: tracing.augmented_image(Path(job.path).read_bytes(), ctx.size,
                                                                  job.slug, job.variant),
    "png": lambda job, ctx, data: tracing.drawing_image(Path(job.path).read_bytes(), ctx.size),
    "png-augment": lambda job, ctx, data: tracing.augmented_drawing(Path(job.path).read_bytes(), ctx.size,
                                                                    job.slug, job.variant),
}


def write_png(image: Image.Image, dest: Path) -> bytes:
    """Encode ``image`` as PNG (no metadata, so the bytes depend on the pixels only) and
    write it to ``dest`` atomically (``hub.atomic``). Returns the bytes."""
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    png = buf.getvalue()
    atomic_write(dest, png)
    return png


def oracle_image(pixels: bytes, width: int, height: int, size: int) -> Image.Image:
    """An Oracle-MNIST scan as a ``size`` x ``size`` grey image, dark ink on light.

    Upstream stores rubbings as light strokes on a black ground (MNIST convention); they
    are inverted so every image of the dataset has dark ink on a light background, then
    upscaled with Lanczos resampling, which keeps the scan's texture and noise without
    the blockiness of nearest-neighbour.
    """
    scan = ImageOps.invert(Image.frombytes("L", (width, height), pixels))
    return scan.resize((size, size), Image.Resampling.LANCZOS)


def user_image(data: bytes, size: int, name: str | None = None) -> Image.Image:
    """A user's glyph image file (bytes of any format Pillow reads) as a ``size`` x
    ``size`` image: EXIF orientation applied, first frame of an animation, transparency
    composited on white, scaled with Lanczos so its longer side is ``size`` (aspect
    kept) and centred on white. Mode ``L`` when the image has no colour, else ``RGB``.

    Raises :class:`hub.imageio.ImageRejected` (``name``: the file, in its message) when
    the bytes are not a decodable image or exceed the pixel cap.
    """
    # decode big JPEGs at a reduced scale; the pixel cap and every bad-file case: hub/imageio.py
    image = imageio.open_image(data, name=name, draft=size)
    scale = size / max(image.width, image.height)
    new = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    if new != image.size:
        image = image.resize(new, Image.Resampling.LANCZOS)
    out = Image.new(image.mode, (size, size), 255 if image.mode == "L" else (255, 255, 255))
    out.paste(image, ((size - image.width) // 2, (size - image.height) // 2))
    return out
