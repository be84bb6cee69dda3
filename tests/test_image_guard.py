"""One image-open guard for every reader (issue 24, ``hub/imageio.py``): real files on
disk (a decompression bomb, a truncated PNG, empty and undecodable files; 16-bit, palette
and animated images), through the guard itself, a user glyph folder of a records build,
and a paper-protocol run against a loopback server."""

from __future__ import annotations

import json

import numpy as np
import pytest
from image_files import glyph_image, png_bytes, write_bomb_png, write_truncated_png
from PIL import Image

from builder.glyphs.collect import collect_images
from hub.imageio import DEFAULT_MAX_PIXELS, ImageRejected, open_image
from hub.skips import SkipLog


def _reject(source, **kw) -> str:
    with pytest.raises(ImageRejected) as info:
        open_image(source, **kw)
    text = str(info.value)
    assert "\n" not in text  # one line
    return text


def test_bad_files_are_one_line_each(tmp_path):
    bomb = write_bomb_png(tmp_path / "bomb.png", 9000, 8000)  # 72 million pixels, valid PNG
    assert bomb.stat().st_size < 200_000
    text = _reject(bomb)
    assert text.startswith(f"{bomb}: 9000 x 8000 = 72 million pixels exceeds the cap of 64 million")
    assert "JIEZI_MAX_IMAGE_PIXELS" in text and DEFAULT_MAX_PIXELS == 64_000_000
    assert "truncated" in _reject(write_truncated_png(tmp_path / "cut.png"))
    (tmp_path / "empty.png").write_bytes(b"")
    assert _reject(tmp_path / "empty.png") == f"{tmp_path / 'empty.png'}: empty file (0 bytes)"
    (tmp_path / "text.png").write_text("not an image")
    assert "not an image format Pillow can read" in _reject(tmp_path / "text.png")
    assert _reject(tmp_path / "nowhere.png").endswith("no such file")
    assert _reject(b"", name="row 7") == "row 7: empty image (0 bytes)"
    assert _reject({"bytes": None, "path": str(tmp_path / "cut.png")}, name="row 8").startswith("row 8: truncated")


def test_the_cap_is_configurable(tmp_path, monkeypatch):
    path = tmp_path / "g.png"
    glyph_image(64).save(path)
    assert open_image(path).size == (64, 64)
    monkeypatch.setenv("JIEZI_MAX_IMAGE_PIXELS", "1000")
    assert "64 x 64 = 0 million pixels exceeds the cap of 0.001 million" in _reject(path)
    assert open_image(path, max_pixels=5000).size == (64, 64)
    monkeypatch.setenv("JIEZI_MAX_IMAGE_PIXELS", "lots")
    with pytest.raises(ValueError, match="JIEZI_MAX_IMAGE_PIXELS='lots'"):
        open_image(path)


def test_modes_and_animations_are_normalised(tmp_path):
    # 16-bit grey using a narrow range: stretched onto 0..255, the strokes stay dark
    grey = (np.asarray(glyph_image(64), dtype=np.uint16) * 40 + 1000).astype(np.uint16)
    Image.fromarray(grey).save(tmp_path / "g16.png")  # mode I;16
    with Image.open(tmp_path / "g16.png") as raw:
        assert raw.mode.startswith("I")
    im = open_image(tmp_path / "g16.png")
    assert im.mode == "L" and im.getextrema() == (0, 255)
    # palette with a transparent index: the ground becomes white, not the palette's black
    pal = glyph_image(64).convert("P")
    pal.putpalette([0, 0, 0] + [255, 0, 255] * 255)
    Image.eval(pal, lambda v: 0 if v < 128 else 1).save(tmp_path / "p.png", transparency=1)
    im = open_image(tmp_path / "p.png")
    assert im.getpixel((0, 0)) in (255, (255, 255, 255)) and min(im.convert("L").getextrema()) == 0
    # an animation: the first frame (the glyph), not the blank second one
    frames = [glyph_image(64, "RGB"), Image.new("RGB", (64, 64), "white")]
    frames[0].save(tmp_path / "a.gif", save_all=True, append_images=frames[1:], duration=100, loop=0)
    im = open_image(tmp_path / "a.gif")
    assert im.size == (64, 64) and min(im.convert("L").getextrema()) < 50


def test_a_user_folder_skips_each_bad_image_and_keeps_the_rest(sources_dir, tmp_path):
    folder = tmp_path / "mine" / "甲骨文" / "人"
    folder.mkdir(parents=True)
    (folder / "good.png").write_bytes(png_bytes(glyph_image(64)))
    write_bomb_png(folder / "bomb.png", 9000, 8000)
    write_truncated_png(folder / "cut.png")
    (folder / "empty.png").write_bytes(b"")
    skipped = SkipLog()
    images = collect_images([], sources_dir, tmp_path / "out", user_sources=[tmp_path / "mine"], skipped=skipped,
                            progress=False)
    users = [g for _, g in images if g.source.startswith("user:")]
    assert len(users) == 1
    reasons = {s.item.rsplit("/", 1)[-1]: s.reason for s in skipped.items if "not a usable image" in s.reason}
    assert set(reasons) == {"bomb.png", "cut.png", "empty.png"}
    assert "exceeds the cap of 64 million" in reasons["bomb.png"] and "truncated" in reasons["cut.png"]
    assert "empty image (0 bytes)" in reasons["empty.png"]
    assert all("\n" not in r for r in reasons.values())


@pytest.mark.server
def test_a_paper_run_records_the_bad_image_and_answers_the_rest(tmp_path):
    from harness_fixtures import build_hub_folders
    from test_harness_paper import PaperServer, _official_fixture, _opts

    from harness.eval.protocol_paper import evaluate_paper

    bench, data = build_hub_folders(tmp_path / "hub")
    hub = {"bench": bench, "dataset": data}
    root = _official_fixture(hub, tmp_path / "official")
    victim = sorted(root.glob("*/images/*.png"))[0]
    write_truncated_png(victim)
    server = PaperServer()
    try:
        res = evaluate_paper(_opts(hub, tmp_path / "run", f"openai:m@{server.url}", bench=str(root)))
    finally:
        server.close()
    preds = [json.loads(x) for x in (tmp_path / "run" / "predictions.jsonl").read_text("utf-8").splitlines()]
    failed = [p for p in preds if p["error"]]
    assert len(failed) == 1 and len(server.requests) == len(preds) - 1
    assert failed[0]["error"].startswith("ImageRejected: image ") and "truncated image file" in failed[0]["error"]
    assert res["bench"]["images"] == len(preds)
