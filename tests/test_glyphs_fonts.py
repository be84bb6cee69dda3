"""Font and seal-style renderings: real installed fonts, real cmaps, no missing-glyph boxes."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from builder.glyphs.collect import collect_images, default_fonts
from builder.glyphs.oracle_mnist import simplified_only
from builder.glyphs.fonts import face_coverage, resolve_design, seal_glyphs
from builder.glyphs.render import font_image, notdef_image
from hub.skips import SkipLog

# 㲳 (U+3CB3, a Shuowen head in CJK Extension A): BabelStone Han has it, LXGW WenKai not.
RARE = "㲳"
SAMPLE = "江背射往舞明一乙龜鬱" + RARE


@pytest.fixture(scope="module")
def rendered(sources_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("fonts")
    skipped = SkipLog()
    images = collect_images(SAMPLE + "马馬云春國", sources_dir, out, skipped=skipped, progress=False)
    fonts = [(ch, g) for ch, g in images if g.source not in ("oracle-mnist", "commons-ancient", "commons-acc-png")]
    return out, fonts, skipped


def test_default_fonts_are_distinct_designs():
    names = default_fonts()
    assert len(names) >= 8
    designs = [resolve_design(n) for n in names]
    assert {d.style for d in designs} == {"font-kai", "font-song", "font-hei"}
    faces = [(f.path, f.index) for d in designs for f in d.faces]
    assert len(faces) == len(set(faces))
    assert all(d.licence and d.licence != "unknown" for d in designs)


def test_font_without_the_character_is_skipped_and_logged(sources_dir, tmp_path):
    wenkai, babelstone = resolve_design("LXGW WenKai"), resolve_design("BabelStone Han")
    assert ord(RARE) not in face_coverage(wenkai.faces[0].path, wenkai.faces[0].index)
    assert ord(RARE) in face_coverage(babelstone.faces[0].path, babelstone.faces[0].index)
    skipped = SkipLog()
    images = collect_images([RARE], sources_dir, tmp_path, fonts=["LXGW WenKai", "BabelStone Han"],
                            skipped=skipped, progress=False)
    fonts = [g for ch, g in images if g.source.startswith("font:")]
    assert [(g.font, g.script) for g in fonts] == [("BabelStone Han", "楷书")]
    missing = [s for s in skipped.items if s.source == "font:LXGW WenKai"]
    assert len(missing) == 1 and "U+3CB3" in missing[0].item and "cmap" in missing[0].reason
    assert skipped.counts()["font-missing-glyph"] == 1


def test_no_tofu_and_no_fallback(rendered):
    out, fonts, skipped = rendered
    by_font: dict[str, list] = {}
    for ch, g in fonts:
        by_font.setdefault(g.font, []).append((ch, g))
    for name, items in by_font.items():
        design = resolve_design(name) if name != "LXGW Seal" else None
        for ch, g in items:
            pixels = Image.open(out / g.path).tobytes()
            if design is None:
                continue
            face = design.faces[design.face_for(ord(ch))]
            notdef = notdef_image(face.path, face.index, g.width)
            assert notdef is None or pixels != notdef.tobytes(), (name, ch)
        # Every requested character either has an image from this font or is logged.
        if design is not None:
            drawn = {ch for ch, _ in items}
            logged = {s.item.split()[-1] for s in skipped.items if s.source == f"font:{name}"}
            assert drawn | logged == set(SAMPLE + "马馬云春國"), name
    # The guard under the cmap check: a code point missing from a face draws as .notdef,
    # and font_image refuses it.
    wenkai = resolve_design("LXGW WenKai").faces[0]
    assert font_image(wenkai.path, wenkai.index, ord(RARE), 128) is None
    assert font_image(wenkai.path, wenkai.index, ord("江"), 128) is not None


def test_centred_black_on_white(rendered):
    out, fonts, _ = rendered
    for ch, g in fonts:
        if ch not in "江明舞":
            continue
        a = np.asarray(Image.open(out / g.path))
        assert a.shape == (128, 128)
        assert a[0, 0] == a[-1, -1] == 255
        assert a.min() < 40
        ys, xs = np.nonzero(a < 128)
        cx, cy = (xs.min() + xs.max()) / 2, (ys.min() + ys.max()) / 2
        assert abs(cx - 63.5) <= 1.5 and abs(cy - 63.5) <= 1.5, (g.font, ch, cx, cy)
        assert xs.min() >= 8 and ys.min() >= 8 and xs.max() <= 119 and ys.max() <= 119


def test_simplified_forms_are_labelled_jianti(rendered, sources_dir):
    simplified = simplified_only(sources_dir)
    assert "马" in simplified and "馬" not in simplified
    assert "云" not in simplified  # kTraditionalVariant U+4E91 U+96F2 includes 云 itself
    _, fonts, _ = rendered
    scripts = {(ch, g.script) for ch, g in fonts if g.style.startswith("font-")}
    assert scripts >= {("马", "简体"), ("馬", "楷书"), ("云", "楷书"), ("江", "楷书")}
    assert ("马", "楷书") not in scripts
    assert all(g.path.startswith("images/简体/") for ch, g in fonts if ch == "马")


def test_seal_block_mapping(sources_dir):
    glyphs, unmapped = seal_glyphs(sources_dir / "lxgw-seal" / "LXGWSeal-Regular.ttf")
    assert unmapped == []
    seal_cps = {g.seal for g in glyphs}
    assert len(seal_cps) == 105  # every Small Seal block code point of the font
    spring = {g.character for g in glyphs if g.seal == 0x3D307}
    assert spring == {"春", "萅"}
    assert all(g.how == "cmap" for g in glyphs)


def test_seal_renderings(rendered):
    out, fonts, skipped = rendered
    seal = [(ch, g) for ch, g in fonts if g.source == "lxgw-seal"]
    assert {ch for ch, _ in seal} == {"春", "國", "明", "一", "乙"}
    for ch, g in seal:
        assert (g.script, g.style, g.licence, g.font) == ("篆书", "seal-style-font", "OFL-1.1", "LXGW Seal")
        assert g.path.startswith("images/篆书/")
    # The seal style differs from every regular-script rendering of the same character.
    spring = {g.source: Image.open(out / g.path).tobytes() for ch, g in fonts if ch == "春"}
    assert all(spring["lxgw-seal"] != v for k, v in spring.items() if k != "lxgw-seal")
    assert skipped.counts().get("seal-not-covered") == 1


def test_unknown_font_is_an_error(sources_dir, tmp_path):
    with pytest.raises(ValueError, match="'No Such Font' is not installed"):
        collect_images(["江"], sources_dir, tmp_path, fonts=["No Such Font"], skipped=SkipLog(), progress=False)


def test_font_file_path_with_face_index():
    design = resolve_design("/usr/share/fonts/truetype/arphic/uming.ttc#2")
    assert design.style == "font-song" and design.faces[0].index == 2


def test_non_ideographs_are_logged(sources_dir, tmp_path):
    skipped = SkipLog()
    images = collect_images(["A", "江河"], sources_dir, tmp_path, fonts=["Noto Sans CJK SC"],
                            skipped=skipped, progress=False)
    assert not [g for _, g in images if g.source.startswith("font:")]
    assert skipped.counts()["glyph-bad-character"] == 2
