"""Glyph-source registry, the commons-ancient tracings and the LXGW Seal 篆书 rule.

Real files throughout: the registered SVG tracings rasterised by cairosvg/libcairo, the
LXGW Seal font's cmap, cjkvi-ids and Unihan from the source cache, and a real pooch
fetch of the registered commons-ancient files from a loopback HTTP mirror.
"""

from __future__ import annotations

import hashlib
import io
import shutil
import tarfile
import threading
import types
from collections import Counter
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest
from PIL import Image

from builder.glyphs import collect, commons_ancient, lxgw_seal, registry, render
from builder.glyphs.base import Meta, Plan, Request
from builder.glyphs.collect import collect_images
from builder.glyphs.fonts import seal_glyphs
from builder.glyphs.oracle_mnist import simplified_only
from builder.sources import registry as src_registry
from hub.skips import SkipLog

AUDITED_NOT_SEAL = "地清球相祥禧語謹迎造语谨鸣"  # issue 12's audit of the bench's LXGW images


def test_registry_lists_every_source_with_the_same_interface():
    assert registry.NAMES == ("oracle-mnist", "font", "lxgw-seal", "commons-ancient", "commons-acc-png", "user")
    for mod in registry.GLYPH_SOURCES:
        assert isinstance(mod.NAME, str) and callable(mod.plan) and mod.__doc__


def test_a_new_corpus_is_one_module_and_one_registry_line(sources_dir, tmp_path, monkeypatch):
    """A corpus added as one module (here built in the test) and one registry entry is
    rendered, labelled and returned by collect_images with no other change."""
    svg = sources_dir / "commons-ancient" / "svg" / "牛-oracle.svg"
    extra = types.ModuleType("extra_corpus")
    extra.NAME = "extra"

    def plan(request: Request, plan: Plan, skipped: SkipLog) -> None:
        plan.add(render.Job("svg", "牛", "甲骨文", render.make_id("extra", "牛", request.size), path=str(svg)),
                 Meta("user:extra", "CC0-1.0", "tracing", origin="extra:牛"))

    extra.plan = plan
    monkeypatch.setattr(collect, "GLYPH_SOURCES", (extra,))
    images = collect_images(["牛"], sources_dir, tmp_path, fonts=[], skipped=SkipLog(), progress=False)
    assert [(ch, g.source, g.script, g.style, g.origin) for ch, g in images] == \
        [("牛", "user:extra", "甲骨文", "tracing", "extra:牛")]
    assert (tmp_path / images[0][1].path).is_file()


def test_commons_ancient_registry_entry_pins_every_file(sources_dir):
    src = src_registry.REGISTRY["commons-ancient"]
    assert src.commit == "71d44f459c4302a33741f81325e2f06a1a23c589" and src.required
    listed = src.manifest_files()
    assert len(listed) == 359
    assert listed[0].upstream_path == "public/ancient/" + listed[0].path.split("/", 1)[1]
    # the hashes are those of the copy's files.tsv, and the cached files match them
    tsv = (sources_dir / "commons-ancient" / "files.tsv").read_text("utf-8").splitlines()[1:]
    assert {f"svg/{row.split(chr(9))[0]}": row.split(chr(9))[4] for row in tsv} == {f.path: f.sha256 for f in listed}
    assert src_registry.check(sources_dir, ["commons-ancient"]).ok
    counts = Counter(script for _, script, _, _ in commons_ancient.tracings())
    assert counts == {"金文": 212, "甲骨文": 140, "篆书": 7}
    assert len({ch for ch, *_ in commons_ancient.tracings()}) == 234


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def fetch_via_mirror(name: str, sources_dir, tmp_path, archive_dir: str):
    """``src_registry.fetch`` of source ``name`` from a loopback mirror serving its raw
    files at the pinned commit and its manifest-listed files as the repository archive
    (members under ``archive_dir/``), built from the cached copy. Returns the check result."""
    src = src_registry.REGISTRY[name]
    root = tmp_path / "mirror"
    for f in src.files:
        dest = root / "raw.githubusercontent.com" / src.repo / src.commit / f.upstream_path
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(sources_dir / name / f.path, dest)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for f in src.manifest_files():
            tar.add(sources_dir / name / f.path, arcname=f"{archive_dir}/{f.upstream_path}")
    archive = root / "codeload.github.com" / src.repo / "tar.gz" / src.commit
    archive.parent.mkdir(parents=True)
    archive.write_bytes(buf.getvalue())
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        return src_registry.fetch(tmp_path / "cache", [name], mirror=f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.server
def test_commons_ancient_is_fetchable_with_pooch(sources_dir, tmp_path):
    """The registered files come from the repository archive of the pinned commit
    (manifest-listed SVGs under public/ancient/) and raw files; served by a loopback mirror."""
    result = fetch_via_mirror("commons-ancient", sources_dir, tmp_path, "mandarin-practice-x")
    assert result.ok and result.checked["commons-ancient"] == 361


@pytest.fixture(scope="module")
def traced(sources_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("traced")
    skipped = SkipLog()
    with pytest.MonkeyPatch.context() as mp:  # this source alone: the 3,000 scans are tested elsewhere
        mp.setattr(collect, "GLYPH_SOURCES", (commons_ancient,))
        images = collect_images("牛象丁", sources_dir, out, fonts=[], skipped=skipped, progress=False)
    return out, [(ch, g) for ch, g in images if g.source == "commons-ancient"], skipped


def test_tracings_are_labelled_per_image(traced):
    out, images, skipped = traced
    tracings = [(ch, g) for ch, g in images if g.style == "tracing"]
    assert sorted((ch, g.script) for ch, g in tracings) == sorted(
        [("丁", "甲骨文"), ("丁", "金文"), ("牛", "甲骨文"), ("象", "甲骨文"), ("象", "金文")])  # no 牛-bronze.svg
    for ch, g in tracings:
        form = {"甲骨文": "oracle", "金文": "bronze", "篆书": "seal"}[g.script]
        # keyed by the Commons file title (the drawing, whichever copy), with its page
        assert g.origin == f"commons:File:{ch}-{form}.svg" and g.derived_from is None
        assert g.series == form and g.page.startswith("https://commons.wikimedia.org/wiki/File:")
        assert g.licence.startswith("public domain") and g.path.startswith(f"images/{g.script}/")
    assert not skipped.items  # tracings of characters not requested are simply not taken


def test_tracing_pixels_dark_ink_centred_on_white(traced):
    out, images, _ = traced
    for ch, g in images:
        if g.style != "tracing":
            continue
        a = np.asarray(Image.open(out / g.path))
        assert a.shape == (128, 128) and a[0, 0] == 255 and a.min() < 40
        ys, xs = np.nonzero(a < 128)
        assert xs.min() >= 6 and ys.min() >= 6 and xs.max() <= 121 and ys.max() <= 121
        assert abs((xs.min() + xs.max()) / 2 - 63.5) <= 2 and abs((ys.min() + ys.max()) / 2 - 63.5) <= 2


def test_augmented_copies_name_their_tracing_and_differ(traced, sources_dir, tmp_path):
    out, images, _ = traced
    by_id = {g.id: g for _, g in images}
    copies = [g for _, g in images if g.style == "tracing-augmented"]
    assert len(copies) == 5 * commons_ancient.AUGMENTS_PER_TRACING
    for g in copies:
        src = by_id[g.derived_from]
        assert src.style == "tracing" and src.origin == g.origin and src.script == g.script
        assert g.sha256 != src.sha256
    assert len({g.sha256 for g in copies}) == len(copies)
    # byte-deterministic: a fresh folder gives the same files
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(collect, "GLYPH_SOURCES", (commons_ancient,))
        again = collect_images("牛", sources_dir, tmp_path, fonts=[], skipped=SkipLog(), progress=False)
    redo = {g.id: g.sha256 for _, g in again if g.source == "commons-ancient"}
    assert redo and all(by_id[i].sha256 == sha for i, sha in redo.items())


def test_lxgw_seal_rule_keeps_the_audited_glyphs_out_of_seal(sources_dir, tmp_path):
    glyphs, _ = seal_glyphs(sources_dir / "lxgw-seal" / "LXGWSeal-Regular.ttf")
    everything = sorted({g.character for g in glyphs})
    skipped = SkipLog()
    plan = Plan()
    lxgw_seal.plan(Request(tuple(everything), sources_dir, 64), plan, skipped)
    labelled = {(j.character, j.script, m.style) for j, m in zip(plan.jobs, plan.metas)}
    seal = {ch for ch, script, _ in labelled if script == "篆书"}
    assert not seal & set(AUDITED_NOT_SEAL)
    # the ten modern-structure glyphs stay as a modern seal-style font under the modern script
    modern = {ch for ch, script, style in labelled if style == "modern-seal-style-font"}
    # (清 itself is filed under the glyph's own head 淸, which is kept as modern)
    assert set("地淸球相祥禧語謹迎造") <= modern and "清" not in {ch for ch, _, _ in labelled}
    assert all(script == "楷书" for ch, script, style in labelled if style == "modern-seal-style-font")
    # the simplified heads are left out: their traditional heads keep the glyph
    kept = {ch for ch, _, _ in labelled}
    assert not kept & set("语谨鸣") and {"語", "謹", "鳴"} <= kept
    assert skipped.counts()["seal-not-head"] >= 3
    # the rule keeps real seal glyphs as 篆书, including traditional heads filed under a
    # simplified glyph name (東 on uni4E1C) and heads with a full seal component (萬, 降)
    assert set("一上下日月雨春鳴東國萬降") <= seal
    assert all(style == "seal-style-font" for ch, script, style in labelled if script == "篆书")


def test_seal_verdict_rules_one_by_one(sources_dir):
    glyphs, _ = seal_glyphs(sources_dir / "lxgw-seal" / "LXGWSeal-Regular.ttf")
    g = {x.character: x for x in glyphs}
    simp = simplified_only(sources_dir)
    ids = lxgw_seal.read_ids(sources_dir, set(g))
    trad = lxgw_seal.traditional_variants(sources_dir, set(g))
    share = {}
    for x in glyphs:
        share.setdefault(x.glyph, set()).add(x.character)

    def verdict(ch):
        return lxgw_seal.seal_verdict(g[ch], simp, ids, lxgw_seal.glyph_heads(g[ch].glyph, share[g[ch].glyph], trad))

    assert verdict("语")[0] == "not-head" and "simplified" in verdict("语")[1]
    assert verdict("献")[0] == "not-head" and verdict("獻") is None  # 献 lists itself as traditional too
    assert verdict("花")[0] == "not-head" and verdict("華") is None  # a later character on 華's glyph
    assert verdict("清")[0] == "not-head"  # the glyph is named uni6DF8: 淸
    assert verdict("淸") == ("modern", "modern decomposition ⿰氵靑 has the post-seal reduced form(s) 氵")
    assert verdict("迎")[0] == verdict("祥")[0] == "modern"
    assert verdict("地") == ("modern", "audited: " + lxgw_seal.REVIEWED_MODERN["地"])
    assert verdict("春") is None and verdict("降") is None


def test_svg_renderer_missing_is_a_clear_error(monkeypatch):
    import builtins

    from builder.glyphs import tracing

    real = builtins.__import__

    def no_cairo(name, *args, **kwargs):
        if name == "cairosvg":
            raise OSError("no library called \"cairo-2\" was found")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_cairo)
    with pytest.raises(tracing.SvgRendererMissing, match="pip install cairosvg.*libcairo2"):
        tracing.tracing_image(b"<svg xmlns='http://www.w3.org/2000/svg'/>", 64)


def test_bad_svg_is_skipped_not_fatal(tmp_path):
    bad = tmp_path / "x.svg"
    bad.write_text("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'></svg>")
    render.init_worker(render.RenderContext(str(tmp_path), 64, ()))
    res = render.run_job(render.Job("svg", "牛", "甲骨文", "t-1", path=str(bad)))
    assert res[0] == "skip" and res[2] == "glyph-render-error" and "no ink" in res[1]
    assert hashlib.sha256(bad.read_bytes()).hexdigest()  # the file is left as it was
