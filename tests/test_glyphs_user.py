"""User glyph folders and CSV manifests: labels, bad items, normalisation of real files."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image, ImageDraw

from builder.glyphs.collect import collect_images
from builder.glyphs.user import canonical_script
from hub.skips import SkipLog


def _glyph(mode: str, size: tuple[int, int], ink, ground) -> Image.Image:
    im = Image.new(mode, size, ground)
    d = ImageDraw.Draw(im)
    w, h = size
    d.rectangle((w // 4, h // 8, w // 4 + max(2, w // 10), h - h // 8), fill=ink)
    d.rectangle((w // 8, h // 2, w - w // 8, h // 2 + max(2, h // 20)), fill=ink)
    return im


@pytest.fixture(scope="module")
def user_run(sources_dir, tmp_path_factory):
    root = tmp_path_factory.mktemp("collection") / "my-obc"
    (root / "oracle" / "人").mkdir(parents=True)
    (root / "小篆" / "江").mkdir(parents=True)
    (root / "金文" / "U+738B").mkdir(parents=True)
    (root / "甲骨" / "大").mkdir(parents=True)
    (root / "甲骨" / "ab").mkdir(parents=True)
    (root / "行书" / "人").mkdir(parents=True)
    (root / "jiezi-source.json").write_text(json.dumps({"source": "HUST-OBC", "licence": "CC-BY-4.0", "style": "scan"}))
    # Grey PNG, tall.
    _glyph("L", (40, 80), 0, 255).save(root / "oracle" / "人" / "a.png")
    # Transparent PNG: black strokes, fully transparent *black* ground (dropping alpha would
    # give a black image).
    _glyph("RGBA", (64, 64), (0, 0, 0, 255), (0, 0, 0, 0)).save(root / "小篆" / "江" / "t.png")
    # Colour JPEG stored 60 x 30 (landscape) with EXIF orientation 6 (rotate 90° clockwise):
    # it must come out portrait. Dark strokes on a red ground (one flat colour would be blank).
    jpeg = _glyph("RGB", (60, 30), (0, 0, 0), (200, 30, 30))
    exif = Image.Exif()
    exif[0x0112] = 6
    jpeg.save(root / "金文" / "U+738B" / "j.jpg", quality=95, exif=exif)
    (root / "甲骨" / "大" / "notes.txt").write_text("not an image")
    (root / "甲骨" / "大" / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"garbage" * 20)
    _glyph("L", (32, 32), 0, 255).save(root / "甲骨" / "大" / "ok.bmp")
    _glyph("L", (32, 32), 0, 255).save(root / "甲骨" / "ab" / "x.png")
    _glyph("L", (32, 32), 0, 255).save(root / "行书" / "人" / "x.png")
    # Blank images: all white; fully transparent (black ground, alpha 0: white once
    # composited); a flat grey JPEG (lossy noise stays within the tolerance).
    Image.new("L", (40, 40), 255).save(root / "甲骨" / "大" / "white.png")
    Image.new("RGBA", (40, 40), (0, 0, 0, 0)).save(root / "oracle" / "人" / "clear.png")

    man_dir = tmp_path_factory.mktemp("manifest")
    gif = _glyph("P", (50, 50), 1, 0)
    gif.putpalette([255, 0, 255] + [0, 0, 0] + [0, 0, 0] * 254)
    gif.info["transparency"] = 0
    gif.save(man_dir / "g.gif", transparency=0)
    _glyph("L", (30, 30), 0, 255).save(man_dir / "w.webp")
    Image.new("RGB", (50, 50), (128, 128, 128)).save(man_dir / "grey.jpg", quality=70)
    (man_dir / "readme.txt").write_text("hello")
    manifest = man_dir / "extra.csv"
    manifest.write_text(
        "path,character,script,source,licence,style\n"
        "g.gif,江,seal script,commons,CC0-1.0,\n"      # line 2: English label, palette + transparency
        "w.webp,王,bronzeish,commons,CC0-1.0,\n"        # line 3: unknown label
        "readme.txt,王,金文,commons,CC0-1.0,\n"          # line 4: not an image
        "nowhere.png,王,金文,commons,CC0-1.0,\n"         # line 5: missing file
        "w.webp,U+738B,古文,commons,CC0-1.0,\n"          # line 6: 古文 -> 战国文字
        "w.webp,王,金文,commons,CC0-1.0,calligraphy\n"   # line 7: unknown style
        "grey.jpg,王,金文,commons,CC0-1.0,\n",           # line 8: blank (flat grey)
        encoding="utf-8")
    out = tmp_path_factory.mktemp("out")
    skipped = SkipLog()
    images = collect_images([], sources_dir, out, user_sources=[root, manifest], skipped=skipped, progress=False)
    users = [(ch, g) for ch, g in images if g.source.startswith("user:")]
    return out, users, skipped, manifest


def test_labels_and_metadata(user_run):
    _, users, _, _ = user_run
    got = [(ch, g.script, g.source, g.licence, g.style) for ch, g in users]
    assert got == [
        # folder order: script folder names by code point (oracle, 小篆, 甲骨, 金文)
        ("人", "甲骨文", "user:HUST-OBC", "CC-BY-4.0", "scan"),
        ("江", "篆书", "user:HUST-OBC", "CC-BY-4.0", "scan"),
        ("大", "甲骨文", "user:HUST-OBC", "CC-BY-4.0", "scan"),
        ("王", "金文", "user:HUST-OBC", "CC-BY-4.0", "scan"),
        ("江", "篆书", "user:commons", "CC0-1.0", "user"),
        ("王", "战国文字", "user:commons", "CC0-1.0", "user"),
    ]
    assert all(g.id.startswith(("user-hust-obc-", "user-commons-")) for _, g in users)
    assert all(g.path == f"images/{g.script}/{g.id}.png" for _, g in users)


def test_bad_items_are_skipped_and_logged(user_run):
    _, _, skipped, manifest = user_run
    counts = skipped.counts()
    assert counts["user-unknown-script"] == 2       # folder 行书, manifest 'bronzeish'
    assert counts["user-not-an-image"] == 1         # notes.txt in a character folder
    assert counts["glyph-not-an-image"] == 2        # broken.png, readme.txt via the manifest
    assert counts["user-missing-file"] == 1
    assert counts["user-bad-character"] == 1        # folder 'ab'
    assert counts["user-bad-style"] == 1
    assert counts["user-blank-image"] == 3          # white.png, clear.png, grey.jpg (manifest row 8)
    style = next(s for s in skipped.items if s.field == "style")
    assert style.item == f"{manifest}:7" and "'calligraphy'" in style.reason
    assert all(v in style.reason for v in ("scan", "font-kai", "seal-style-font", "user"))
    blank = {s.item: s.reason for s in skipped.items if "blank image" in s.reason}
    assert any(k.endswith("white.png") for k in blank) and any(k.endswith("clear.png") for k in blank)
    assert blank[f"{manifest}:8"].startswith("blank image grey.jpg")
    unknown = [s for s in skipped.items if s.field == "script"]
    assert any(s.item == f"{manifest}:3" and "'bronzeish'" in s.reason for s in unknown)
    assert any(s.item.endswith("行书") and "'行书'" in s.reason for s in unknown)
    assert any(s.item == f"{manifest}:4" and "not a usable image" in s.reason for s in skipped.items)


def test_normalisation(user_run):
    out, users, _, _ = user_run
    by = {(ch, g.script, g.source): g for ch, g in users}
    for g in by.values():
        with Image.open(out / g.path) as im:
            assert im.size == (128, 128)
    # Transparent PNG: ground composited on white, strokes black, stored grey.
    t = np.asarray(Image.open(out / by["江", "篆书", "user:HUST-OBC"].path))
    assert t.ndim == 2 and t[0, 0] == 255 and t.min() == 0
    # Palette GIF with a transparent index: white ground, dark strokes.
    gif = Image.open(out / by["江", "篆书", "user:commons"].path)
    a = np.asarray(gif.convert("L"))
    assert a[0, 0] == 255 and a.min() < 10
    # EXIF-rotated colour JPEG: kept in colour, portrait after rotation, aspect 1:2 kept.
    j = Image.open(out / by["王", "金文", "user:HUST-OBC"].path)
    assert j.mode == "RGB"
    ys, xs = np.nonzero(np.asarray(j.convert("L")) < 200)
    w, h = xs.max() - xs.min() + 1, ys.max() - ys.min() + 1
    assert h == 128 and abs(w - 64) <= 1
    # Tall grey PNG: aspect kept and centred.
    p = np.asarray(Image.open(out / by["人", "甲骨文", "user:HUST-OBC"].path))
    ys, xs = np.nonzero(p < 128)
    assert abs((xs.min() + xs.max()) / 2 - 63.5) <= 3


def test_canonical_script_synonyms():
    assert canonical_script("小篆") == "篆书"
    assert canonical_script("甲骨") == canonical_script("Oracle") == canonical_script("oracle_bone") == "甲骨文"
    assert canonical_script("战国") == canonical_script("古文") == canonical_script("Warring-States script") == "战国文字"
    assert canonical_script("隸書") == "隶书" and canonical_script("regular script") == "楷书"
    assert canonical_script("簡體") == "简体" and canonical_script("bronze") == "金文"
    assert canonical_script("行书") is None and canonical_script("") is None


def test_missing_user_source_is_an_error(sources_dir, tmp_path):
    with pytest.raises(FileNotFoundError, match="does-not-exist"):
        collect_images([], sources_dir, tmp_path, user_sources=[tmp_path / "does-not-exist"],
                       skipped=SkipLog(), progress=False)


def test_unknown_style_in_a_folder_skips_its_images(tmp_path):
    """A folder's jiezi-source.json with an unknown style: every image is skipped and
    recorded (as a manifest row with that style is), no fallback to 'user'."""
    from builder.glyphs.user import USER_STYLES, scan_user_sources

    root = tmp_path / "coll"
    (root / "篆书" / "江").mkdir(parents=True)
    for name in ("a.png", "b.png"):
        _glyph("L", (32, 32), 0, 255).save(root / "篆书" / "江" / name)
    (root / "jiezi-source.json").write_text(json.dumps({"source": "mine", "style": "calligraphy"}))
    skipped = SkipLog()
    assert scan_user_sources([root], skipped) == []
    assert skipped.counts() == {"user-bad-style": 2}
    for s in skipped.items:
        assert s.field == "style" and s.item.endswith(".png") and "'calligraphy'" in s.reason
        assert "jiezi-source.json" in s.reason and all(v in s.reason for v in USER_STYLES)
    # a known style in another case is the same style
    (root / "jiezi-source.json").write_text(json.dumps({"source": "mine", "style": "Scan"}))
    skipped = SkipLog()
    items = scan_user_sources([root], skipped)
    assert [i.style for i in items] == ["scan", "scan"] and not skipped.items

