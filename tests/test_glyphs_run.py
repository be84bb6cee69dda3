"""Byte-determinism, resume and the process pool of the glyph-image stage."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from builder.glyphs.collect import collect_images
from hub.skips import SkipLog

CHARS = ["江", "马", "春", "㲳", "舞"]
FONTS = ["Noto Serif CJK SC", "LXGW WenKai", "BabelStone Han", "TW-Kai"]


def _user_folder(root: Path) -> Path:
    (root / "甲骨文" / "人").mkdir(parents=True)
    img = Image.new("L", (20, 30), 255)
    ImageDraw.Draw(img).line([(4, 4), (10, 26), (16, 4)], fill=0, width=2)  # a stroke: blank images are skipped
    img.save(root / "甲骨文" / "人" / "a.png")
    return root


def _snapshot(out: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(out)): (p.stat().st_ino, p.stat().st_mtime_ns) for p in out.rglob("*") if p.is_file()}


def _collect(sources_dir, out, user, workers=1):
    skipped = SkipLog()
    images = collect_images(reversed(CHARS), sources_dir, out, fonts=FONTS, user_sources=[user],
                            skipped=skipped, workers=workers, progress=False)
    return images, skipped


@pytest.fixture(scope="module")
def first(sources_dir, tmp_path_factory):
    user = _user_folder(tmp_path_factory.mktemp("user"))
    out = tmp_path_factory.mktemp("run1")
    images, skipped = _collect(sources_dir, out, user)
    return out, user, images, skipped


def test_pool_gives_the_same_bytes_in_the_same_order(first, sources_dir, tmp_path):
    out1, user, images1, skipped1 = first
    images2, skipped2 = _collect(sources_dir, tmp_path, user, workers=2)
    assert [(c, g.model_dump()) for c, g in images1] == [(c, g.model_dump()) for c, g in images2]
    assert [s.model_dump() for s in skipped1.items] == [s.model_dump() for s in skipped2.items]
    for _, g in images1[2990:]:
        assert (out1 / g.path).read_bytes() == (tmp_path / g.path).read_bytes()


def test_order_is_by_character_then_font(first):
    _, _, images, _ = first
    fonts = [(c, g.font) for c, g in images if g.source.startswith("font:")]
    assert fonts == sorted(fonts, key=lambda cf: (ord(cf[0]), FONTS.index(cf[1])))
    kinds = [g.source.split(":")[0] for _, g in images]
    assert kinds == sorted(kinds, key=["oracle-mnist", "font", "lxgw-seal", "commons-ancient", "commons-acc-png", "user"].index)
    assert kinds[-1] == "user"  # the user glyph is in the run (a blank one would be skipped)


def test_rerun_reuses_every_file(first, sources_dir):
    out, user, images, _ = first
    before = _snapshot(out)
    again, _ = _collect(sources_dir, out, user)
    assert _snapshot(out) == before  # nothing rewritten, nothing added
    assert [(c, g.model_dump()) for c, g in again] == [(c, g.model_dump()) for c, g in images]


def test_interrupted_run_resumes_to_the_same_output(first, sources_dir, tmp_path):
    out, user, images, _ = first
    # Simulate a run killed mid-way: some PNGs never written, one temp file left behind.
    partial = tmp_path / "partial"
    for _, g in images[::3]:
        dest = partial / g.path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes((out / g.path).read_bytes())
    stray = partial / "images" / "楷书" / f".font-x.png.{os.getpid()}.tmp"
    stray.write_bytes(b"\x89PNG half")
    resumed, _ = _collect(sources_dir, partial, user)
    assert [(c, g.model_dump()) for c, g in resumed] == [(c, g.model_dump()) for c, g in images]
    for _, g in images:
        assert (partial / g.path).read_bytes() == (out / g.path).read_bytes()
