"""Real image files that break naive readers, written byte by byte (issue 24): a
decompression bomb (a valid PNG of huge declared size, tiny on disk), a truncated PNG,
an empty file, and the modes a reader must normalise (16-bit, palette, animation)."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

from PIL import Image, ImageDraw


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def write_bomb_png(path: Path, width: int = 30_000, height: int = 30_000) -> Path:
    """A complete, valid 8-bit grey PNG of ``width`` x ``height`` white pixels (900 MB
    decoded at the default size), written row by row through zlib: under 1 MB on disk."""
    comp = zlib.compressobj(9)
    row = b"\x00" + b"\xff" * width  # filter byte "none", then the row
    parts = [comp.compress(row * 256) for _ in range(height // 256)]
    parts.append(comp.compress(row * (height % 256)))
    parts.append(comp.flush())
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", b"".join(parts))
                     + _chunk(b"IEND", b""))
    return path


def glyph_image(size: int = 64, mode: str = "L") -> Image.Image:
    """A cross of dark strokes on a white ground."""
    im = Image.new("L", (size, size), 255)
    d = ImageDraw.Draw(im)
    d.rectangle((size // 4, size // 8, size // 4 + size // 8, size - size // 8), fill=0)
    d.rectangle((size // 8, size // 2, size - size // 8, size // 2 + size // 10), fill=0)
    return im.convert(mode)


def png_bytes(image: Image.Image, **kwargs) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="PNG", **kwargs)
    return buf.getvalue()


def write_truncated_png(path: Path, size: int = 256) -> Path:
    """A PNG cut at half its bytes: the header reads, the pixel data ends early."""
    data = png_bytes(glyph_image(size))
    path.write_bytes(data[: len(data) // 2])
    return path
