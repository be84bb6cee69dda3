"""Glyph source ``commons-acc-png`` (issue 20): the 6,404 Commons drawings, on the real files.

The registry entry pins every render; the catalog's rows become drawings keyed by their
Commons file title (a title naming another character is used only where Unihan links the
two, a drawing commons-ancient already has is taken once, an audited-out title is left out
in either copy); two-tone component diagrams are skipped; the renders are framed like the
tracings; the bench takes reviewed drawings only; the tracing audit's sheets and verdicts.
"""

from __future__ import annotations

import io
import shutil
from collections import Counter
from urllib.parse import unquote

import numpy as np
import pytest
from PIL import Image

from builder.glyphs import collect, commons_acc_png as acc, tracing
from builder.glyphs.collect import collect_images
from builder.qa import bench_select
from builder.qa.tracing_audit import TracingAuditError, contact_sheets, read_verdicts
from builder.schema import GlyphImage
from builder.sources import registry as src_registry
from hub.skips import SkipLog
from test_glyphs_sources import fetch_via_mirror


def _of_kind(log: SkipLog, kind: str):
    return [item for k, item in zip(log._kinds, log.items) if k == kind]


def test_registry_entry_pins_every_render(sources_dir):
    src = src_registry.REGISTRY["commons-acc-png"]
    assert src.commit == "3dcf0fc68a38f810278b4c90e5a3002f594209f5" and src.required
    listed = src.manifest_files()
    assert len(listed) == 6404
    assert listed[0].upstream_path.startswith("macOS/Resources/Glyphs/")
    # the hashes are those of the copy's files.tsv, and the cached files match them
    rows = [r.split("\t") for r in (sources_dir / "commons-acc-png" / "files.tsv").read_text("utf-8").splitlines()[1:]]
    assert {f"glyphs/{r[0]}": r[7] for r in rows} == {f.path: f.sha256 for f in listed}
    assert src_registry.check(sources_dir, ["commons-acc-png"], hashes=False).ok


@pytest.mark.server
def test_fetchable_with_pooch_from_the_pinned_archive(sources_dir, tmp_path):
    """A user with internet gets the catalog (a raw file) and the renders (from the
    repository archive of the pinned commit); here a loopback mirror serves both."""
    result = fetch_via_mirror("commons-acc-png", sources_dir, tmp_path, "ancient-ocr-macos-x")
    assert result.ok and result.checked["commons-acc-png"] == 6405


def test_catalog_rows_become_drawings_keyed_by_title(sources_dir):
    skipped = SkipLog()
    drawings = acc.drawings(sources_dir, acc.unihan_links(sources_dir), skipped)
    # the seal catalog's two "-ancient" drawings are Shuowen 古文 (墉-ancient: 𩫖): Warring States forms
    assert Counter(d.script for d in drawings) == {"篆书": 3837, "金文": 1224, "战国文字": 722, "甲骨文": 592}
    assert {d.script for d in drawings if d.series == "ancient"} == {"战国文字"}
    by_title = {d.title: d for d in drawings}
    # 溫-seal is filed as 温: Unihan links them, so it is used, labelled by the character drawn
    wen = by_title["File:溫-seal.svg"]
    assert (wen.character, wen.catalog_character, wen.check) == ("溫", "温", "variant")
    # 杲-seal filed as 波, 豺-seal as 駁: no Unihan link, left out and logged
    assert "File:杲-seal.svg" not in by_title and "File:豺-seal.svg" not in by_title
    mismatch = _of_kind(skipped, "glyph-title-mismatch")
    assert len(mismatch) == 29 and any("杲" in s.reason and "波" in s.reason for s in mismatch)
    # numbered titles keep the catalog's reading, flagged (dataset only unless reviewed)
    assert sum(d.check == "numbered" for d in drawings) == 260
    slip = next(d for d in drawings if d.series == "slip")
    assert slip.script == "战国文字" and unquote(slip.page) == "https://commons.wikimedia.org/wiki/" + slip.title
    assert acc.title_character("File:ACC-s05838.svg") is None and acc.title_series("File:敦-bronze-2.svg") == "bronze"


@pytest.fixture(scope="module")
def rendered(sources_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("acc")
    skipped = SkipLog()
    with pytest.MonkeyPatch.context() as mp:  # the two Commons sources alone
        from builder.glyphs import commons_ancient
        mp.setattr(collect, "GLYPH_SOURCES", (commons_ancient, acc))
        images = collect_images("馬火立溫", sources_dir, out, fonts=[], skipped=skipped, progress=False)
    return out, images, skipped


def test_one_drawing_one_copy_and_component_diagrams_skipped(rendered):
    out, images, skipped = rendered
    tracings = [(ch, g) for ch, g in images if g.style == "tracing"]
    origins = Counter(g.origin for _, g in tracings)
    assert max(origins.values()) == 1  # a title is taken once, whichever copy
    # 立-oracle is in both folders: the SVG copy is taken, the PNG logged as a duplicate
    li = [g for ch, g in tracings if g.origin == "commons:File:立-oracle.svg"]
    assert [g.source for g in li] == ["commons-ancient"]
    assert skipped.counts()["glyph-duplicate-drawing"] >= 1
    # 火-bronze draws 火 in black inside a grey graph of another character: skipped with its copies
    diagram = _of_kind(skipped, "glyph-component-diagram")
    assert any("火-bronze" in s.item for s in diagram) and len(diagram) == 1 + acc.AUGMENTS_PER_DRAWING
    assert not any(g.origin == "commons:File:火-bronze.svg" for _, g in images)
    scripts = {(ch, g.script) for ch, g in tracings}
    assert {("馬", "篆书"), ("馬", "金文"), ("馬", "甲骨文"), ("溫", "篆书")} <= scripts


def test_renders_framed_like_tracings_with_their_copies(rendered):
    out, images, _ = rendered
    mine = [g for _, g in images if g.source == "commons-acc-png"]
    originals = [g for g in mine if g.style == "tracing"]
    assert originals and all(g.series and g.page and g.licence.startswith(("public domain", "CC0")) for g in mine)
    for g in originals:
        a = np.asarray(Image.open(out / g.path))
        assert a.shape == (128, 128) and a[0, 0] == 255 and a.min() < 40
        ys, xs = np.nonzero(a < 128)
        assert xs.min() >= 6 and ys.min() >= 6 and xs.max() <= 121 and ys.max() <= 121
    copies = [g for g in mine if g.style == "tracing-augmented"]
    assert len(copies) == acc.AUGMENTS_PER_DRAWING * len(originals)
    by_id = {g.id: g for g in originals}
    assert all(by_id[c.derived_from].origin == c.origin and c.sha256 != by_id[c.derived_from].sha256 for c in copies)


def test_a_two_tone_render_is_a_component_diagram():
    black = Image.new("LA", (100, 100), (0, 0))
    ink = Image.new("L", (100, 100), 0)
    ink.paste(255, (20, 20, 80, 80))  # the alpha: one inked square
    black.putalpha(ink)
    assert tracing.two_tone_share(*black.split()) == 0.0
    grey = black.copy()
    g, a = grey.split()
    g.paste(150, (20, 20, 50, 80))  # half the ink grey: another character's strokes
    two = Image.merge("LA", (g, a))
    buf = io.BytesIO()
    two.save(buf, format="PNG")
    with pytest.raises(tracing.ComponentDiagram):
        tracing.drawing_image(buf.getvalue(), 64)
    buf = io.BytesIO()
    black.save(buf, format="PNG")
    assert tracing.drawing_image(buf.getvalue(), 64).size == (64, 64)


def _img(source: str, title: str) -> GlyphImage:
    return GlyphImage(id="x", path="p", script="篆书", source=source, licence="pd", style="tracing",
                      width=1, height=1, sha256="0", origin=f"commons:{title}")


def test_the_bench_takes_reviewed_drawings_only():
    from builder.glyphs.commons_acc_audit import AUDITED

    ok = next(t for t, v in AUDITED.items() if v == "ok")
    bad = next(t for t, v in AUDITED.items() if v.startswith("wrong: "))
    assert bench_select.reviewed(_img("commons-acc-png", ok))
    assert not bench_select.reviewed(_img("commons-acc-png", bad))
    assert not bench_select.reviewed(_img("commons-acc-png", "File:ACC-s05838.svg"))  # never reviewed
    assert bench_select.reviewed(_img("commons-ancient", "File:牛-oracle.svg"))  # all 359 were reviewed
    assert all(v == "ok" or v.startswith(("wrong: ", "doubtful: ")) for v in AUDITED.values())
    assert acc.audit_verdict("File:位-bronze.svg").startswith("wrong: ")  # the commons-ancient list, by title


def test_contact_sheets_and_verdicts_round_trip(rendered, tmp_path):
    out, images, _ = rendered
    (tmp_path / "qa").mkdir()
    shutil.copytree(out / "images", tmp_path / "records" / "images")
    items = [g for _, g in images if g.style == "tracing"][:5]
    with open(tmp_path / "qa" / "tracing_review.jsonl", "w", encoding="utf-8") as fh:
        for g in items:
            fh.write(f'{{"title": "{g.origin[8:]}", "character": "馬", "script": "{g.script}", '
                     f'"image_id": "{g.id}", "path": "{g.path}"}}\n')
    counts = contact_sheets(tmp_path, tmp_path / "sheets", per_sheet=4, columns=2, cell=64)
    assert counts["drawings"] == 5 and counts["sheets"] == 2
    assert Image.open(tmp_path / "sheets" / "sheet-001.png").size == (128, 2 * (64 + 16))
    index = (tmp_path / "sheets" / "index.tsv").read_text("utf-8").splitlines()
    rows = [line + ("ok" if i == 1 else "wrong: draws 乍" if i == 2 else "") for i, line in enumerate(index)]
    (tmp_path / "filled.tsv").write_text("\n".join(rows) + "\n", "utf-8")
    verdicts = read_verdicts(tmp_path / "filled.tsv")
    assert list(verdicts.values()) == ["ok", "wrong: draws 乍"]
    rows[3] = rows[3] + "maybe"
    (tmp_path / "bad.tsv").write_text("\n".join(rows) + "\n", "utf-8")
    with pytest.raises(TracingAuditError, match="line 4"):
        read_verdicts(tmp_path / "bad.tsv")
