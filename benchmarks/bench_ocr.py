"""Benchmark the PP-OCR reader, the ``ocr`` and ``fused`` baselines: seconds per glyph and
full-bench wall time, and the measurements behind their settings.

Usage:
  .venv/bin/python benchmarks/bench_ocr.py [--bench out/jiezi-bench] [--gallery DIR] [--cores 2]
      [--cache-dir DIR] [--skip-run]
  .venv/bin/python benchmarks/bench_ocr.py --width [--sources DIR]
  .venv/bin/python benchmarks/bench_ocr.py --components [--bench ...] [--gallery ...]
  .venv/bin/python benchmarks/bench_ocr.py --fusion [--gallery ...] [--cache-dir DIR]
  .venv/bin/python benchmarks/bench_ocr.py --designs
  .venv/bin/python benchmarks/bench_ocr.py --risk-coverage RUN [--bench ...]
  .venv/bin/python benchmarks/bench_ocr.py --script-rule [--gallery ...] [--cache-dir DIR]
  .venv/bin/python benchmarks/bench_ocr.py --template-embedders [--gallery ...] [--cache-dir DIR]

Default mode, pinned to ``--cores`` CPUs (the target machine has 2):

  1. the recogniser over every distinct bench image, batched (64 per call) and one at a
     time: seconds per glyph, and the wall time of the whole bench (target: <= 2 min);
  2. the fused decision (embedding, neighbour search, reading, candidate model) per glyph,
     batched as ``jiezi eval`` does and one image at a time as the Space does;
  3. ``jiezi eval --model ocr`` and ``--model fused`` over the whole bench in child
     processes, with the gallery embeddings and the retrieval calibration copied from
     ``--cache-dir`` (the recogniser's readings and its confidence / fusion models are
     computed afresh): wall time.

``--width``: exact reading of 300 random makemeahanzi characters in three typefaces and
of the LXGW seal font's characters for recogniser lines 48, 96, 160 and 320 pixels wide
(the glyph is always 48 x 48 at the left): why :data:`harness.baselines.ocr.CANVAS_WIDTH` is 96.
``--components``: connected dark regions of the normalised glyph for gallery images of
each script, the bench images and synthetic noise: why :data:`harness.baselines.ocr.MAX_COMPONENTS`
is 40. ``--fusion``: the fused candidate model as a gradient-boosted classifier vs a
logistic regression on the same features, decided on the held-out half of the gallery
samples, per script and condition: top-1, answered and strict accuracy (%).
``--designs``: how close the template reader's faces draw 600 random characters to the
closest of the bench's nine font designs (median HOG cosine, median ink IoU, share of
glyphs with ink IoU > 0.9), beside controls that are the same design (a regional cut, a Mono
cut, AR PL UMing) and the bench designs among themselves: a template face must be as far
from every bench design as the bench designs are from each other.
``--risk-coverage RUN``: the risk-coverage table per script of a ``jiezi eval --model
fused`` (or ``ocr``) folder, from its ``decisions.json`` (right = the bench's character,
one-to-one traditional/simplified pairs equal), with the share abstained per script.
``--script-rule``: the fused script decision when none of a glyph's k nearest gallery glyphs
is the decided character, on 400 held-out gallery glyphs per script (seed 1; never the
bench) given their right character, in the seen and unseen-pair conditions: how often the
neighbours' vote (the rule) and the character's own nearest images' vote (the rule before)
name the glyph's script.
``--template-embedders``: the template reader's nearest character (top-1, top-5) on the
regular-script and simplified held-out gallery glyphs of the fusion's calibration sample
(1,000 per script, original images, never the bench), the templates compared by the
gallery's HOG and by the recogniser's own features, split by whether PP-OCR's dictionary
holds the character: why :func:`harness.baselines.fusion_fit.default_templates` uses the
recogniser's features.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
TARGET_S = 120


def _pin(cores: int) -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:cores])


def _bench_images(bench: str):
    from harness.bench import load_bench

    ds = load_bench(bench, "all", "test")
    first: dict[str, int] = {}
    for i, iid in enumerate(ds["image_id"]):
        first.setdefault(iid, i)
    sub = ds.select(list(first.values()))
    return [im.copy() for im in sub["image"]], sub["script"]


def reader_speed(bench: str, cores: int) -> None:
    from harness.baselines.ocr import GlyphReader

    images, _ = _bench_images(bench)
    reader = GlyphReader(threads=cores)
    reader.read(images[:8])  # session warm-up
    t0 = time.perf_counter()
    reader.read(images)
    wall = time.perf_counter() - t0
    one = GlyphReader(threads=cores, batch_size=1)
    t1 = time.perf_counter()
    one.read(images[:64])
    single = (time.perf_counter() - t1) / min(64, len(images))
    verdict = "OK" if wall <= TARGET_S else "OVER TARGET"
    print(f"recogniser ({reader.name}): {len(images)} bench images in {wall:.1f} s, batched "
          f"{1000 * wall / len(images):.1f} ms/glyph; one at a time {1000 * single:.1f} ms/glyph; "
          f"target whole bench <= {TARGET_S} s: {verdict}")


def fused_speed(bench: str, gallery: str, cache_dir: Path | None) -> None:
    from harness.baselines.fusion_fit import build_fused

    t0 = time.perf_counter()
    fb = build_fused(gallery, cache_dir=cache_dir, progress=False)
    print(f"fused baseline ready in {time.perf_counter() - t0:.1f} s (gallery {len(fb.gallery):,} images)")
    images, _ = _bench_images(bench)
    g = fb.gallery
    if fb.templates is not None:
        readings = fb.read(images)
        t = time.perf_counter()
        fb.template_readings(g.embedder.embed(images), readings)
        print(f"template reader ({fb.templates.describe()['characters']:,} characters, "
              f"{fb.templates.describe()['templates']:,} templates): {1000 * (time.perf_counter() - t) / len(images):.1f} "
              f"ms/glyph batched")
    else:
        print("template reader: no template font installed (fonts-ipamj-mincho, fonts-droid-fallback)")
    t1 = time.perf_counter()
    queries = g.embedder.embed(images)
    sims, idx = g.search(queries, fb.retrieval.settings.k)
    readings = fb.read(images)
    for j, r in enumerate(readings):
        fb.decide(queries[j], sims[j], idx[j], r)
    batched = (time.perf_counter() - t1) / len(images)
    t2 = time.perf_counter()
    n = min(20, len(images))
    for im in images[:n]:
        q = g.embedder.embed([im])
        s, i = g.search(q, fb.retrieval.settings.k)
        fb.decide(q[0], s[0], i[0], fb.read([im])[0])
    single = (time.perf_counter() - t2) / n
    print(f"fused decision: batched {1000 * batched:.1f} ms/glyph ({len(images)} images); one image at a time "
          f"(the Space) {1000 * single:.1f} ms/glyph")


def full_runs(bench: str, gallery: str | None, cache_dir: Path | None, cores: int) -> None:
    work = Path(tempfile.mkdtemp(prefix="jiezi-bench-ocr-"))
    try:
        cache = work / "cache"
        cache.mkdir()
        if cache_dir and cache_dir.is_dir():
            for f in list(cache_dir.glob("gallery-*.npy")) + list(cache_dir.glob("calibration-*.json")):
                shutil.copy2(f, cache / f.name)
        cpus = sorted(os.sched_getaffinity(0))[:cores] if hasattr(os, "sched_getaffinity") else None
        for model in ("ocr", "fused"):
            cmd = [sys.executable, "-m", "jiezi_cli", "eval", "--model", model, "--bench", bench, "--cache-dir",
                   str(cache), "--no-progress", "--no-bertscore", "--output", str(work / model)]
            if gallery:
                cmd += ["--gallery", gallery]
            t0 = time.perf_counter()
            rc = subprocess.run(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None).returncode
            wall = time.perf_counter() - t0
            print(f"jiezi eval --model {model}: " + (f"failed (exit {rc})" if rc else f"wall {wall:.1f} s "
                  "(readings, confidence / fusion model fitted afresh; gallery embeddings cached)"))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def widths(sources: Path) -> None:
    import json

    from fontTools.ttLib import TTFont
    from PIL import Image, ImageDraw, ImageFont

    import harness.baselines.ocr as ocr

    chars = [json.loads(line)["character"] for line in open(sources / "makemeahanzi" / "dictionary.txt", encoding="utf-8")]
    chars = random.Random(0).sample([c for c in chars if "\u4e00" <= c <= "\u9fff"], 300)
    seal_path = sources / "lxgw-seal" / "LXGWSeal-Regular.ttf"
    cmap = TTFont(str(seal_path)).getBestCmap()
    fonts = {"ukai": ("/usr/share/fonts/truetype/arphic/ukai.ttc", 0),
             "noto-serif": ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc", 2),
             "zenhei": ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", 0), "lxgw-seal": (str(seal_path), 0)}
    seal_chars = [chr(k) for k in cmap if "\u4e00" <= chr(k) <= "\u9fff"]

    def render(c, face):
        im = Image.new("L", (128, 128), 255)
        ImageDraw.Draw(im).text((64, 64), c, font=face, fill=0, anchor="mm")
        return im

    for width in (48, 96, 160, 320):
        ocr.CANVAS_WIDTH = width
        reader = ocr.GlyphReader(use_detector=False)
        line = [f"width {width:3d}"]
        for name, (path, index) in fonts.items():
            face = ImageFont.truetype(path, 96, index=index)
            cs = seal_chars if name == "lxgw-seal" else chars
            t0 = time.perf_counter()
            got = reader.read([render(c, face) for c in cs])
            ms = 1000 * (time.perf_counter() - t0) / len(cs)
            line.append(f"{name} {100 * np.mean([r.top[0] == c for r, c in zip(got, cs)]):.1f}% ({ms:.0f} ms)")
        print("  " + " | ".join(line))


def noise_images(count: int, seed: int = 0, size: int = 96) -> list:
    """``count`` seeded images holding no glyph: uniform noise, blurred noise (blobs) and
    sparse speckle, in turn."""
    from PIL import Image, ImageFilter

    rng = np.random.default_rng(seed + 101)
    out = []
    for i in range(count):
        if i % 3 == 0:
            a = rng.random((size, size)) * 255
        elif i % 3 == 1:
            blur = ImageFilter.GaussianBlur(float(rng.uniform(1.5, 4)))
            a = np.asarray(Image.fromarray((rng.random((size, size)) * 255).astype(np.uint8)).filter(blur), np.float64)
            a = (a - a.min()) / max(1e-6, np.ptp(a)) * 255
        else:
            a = np.where(rng.random((size, size)) < rng.uniform(0.02, 0.2), 0, 255).astype(np.float64)
        out.append(Image.fromarray(a.astype(np.uint8)))
    return out


def components(bench: str, gallery: str) -> None:
    from scipy import ndimage

    from harness.bench import load_gallery
    from harness.baselines.embed import normalise_glyphs

    def count(images):
        return np.asarray([ndimage.label(np.asarray(g) < 128)[1] for g in normalise_glyphs(images, 48)])

    ds = load_gallery(gallery)
    scripts = np.asarray(ds["script"])
    for s in sorted(set(scripts.tolist())):
        rows = random.Random(0).sample(list(np.flatnonzero(scripts == s)), min(300, int((scripts == s).sum())))
        c = count(ds.select(rows)["image"])
        print(f"gallery {s}: n {len(c)}, median {np.median(c):.0f}, 99th pct {np.percentile(c, 99):.0f}, max {c.max()}")
    images, bench_scripts = _bench_images(bench)
    c = count(images)
    print(f"bench: n {len(c)}, median {np.median(c):.0f}, max {c.max()}")
    c = count(noise_images(30, 7))
    print(f"uniform / blurred / speckle noise: {c.tolist()}")


def _design_stats(a: list, b: list, embedder) -> tuple[int, float, float, float]:
    """(characters both draw, median HOG cosine, median ink IoU, share with IoU > 0.9) of two
    lists of renderings of the same characters (None where a face lacks one)."""
    from harness.baselines.glyphnorm import normalise_glyphs

    keep = [i for i in range(len(a)) if a[i] is not None and b[i] is not None]
    if not keep:
        return 0, float("nan"), float("nan"), float("nan")
    ea, eb = embedder.embed([a[i] for i in keep]), embedder.embed([b[i] for i in keep])
    ia = np.stack([np.asarray(im) < 128 for im in normalise_glyphs([a[i] for i in keep], 64)])
    ib = np.stack([np.asarray(im) < 128 for im in normalise_glyphs([b[i] for i in keep], 64)])
    iou = (ia & ib).sum((1, 2)) / np.maximum((ia | ib).sum((1, 2)), 1)
    return len(keep), float(np.median((ea * eb).sum(1))), float(np.median(iou)), float((iou > 0.9).mean())


def designs(count: int = 600) -> None:
    """How close each template face and each control (a regional or Mono cut of a bench
    design, AR PL UMing) draws 600 random URO characters to the closest bench design, and
    each bench design to its closest other bench design."""
    from builder.glyphs import fonts
    from builder.glyphs.render import font_image
    from harness.baselines.embed import make_embedder
    from harness.baselines.templates import template_faces

    chars = random.Random(0).sample([chr(c) for c in range(0x4E00, 0x9FA6)], count)

    def render(design=None, face=None):
        out = []
        for c in chars:
            if design is not None:
                i = design.face_for(ord(c))
                face = None if i is None else (design.faces[i].path, design.faces[i].index)
            out.append(None if face is None else font_image(face[0], face[1], ord(c), 64))
        return out

    bench = {n: render(fonts.resolve_design(n)) for n in fonts.default_designs()}
    others = {f"template {Path(p).name}": render(face=(p, i)) for p, i in template_faces()}
    for fam in ("AR PL UMing CN", "Noto Serif CJK JP", "Noto Sans CJK JP", "LXGW WenKai Mono"):
        try:
            others[f"control {fam}"] = render(fonts.resolve_design(fam))
        except Exception as exc:  # a control family that is not installed
            print(f"  (control {fam}: {exc})")
    embedder = make_embedder("hog")
    print(f"{'face':34} {'closest bench design':20} {'n':>4} {'HOG cos':>8} {'ink IoU':>8} {'IoU>0.9':>8}")
    for name, images in {**others, **bench}.items():
        best = max(((_design_stats(images, imgs, embedder), b) for b, imgs in bench.items() if b != name),
                   key=lambda t: t[0][2])
        (n, cos, iou, high), b = best
        print(f"{name:34} {b:20} {n:4} {cos:8.3f} {iou:8.3f} {100 * high:7.0f}%")


def fusion_models(gallery: str, cache_dir: Path | None) -> None:
    from sklearn.linear_model import LogisticRegression

    from harness.baselines.fusion import FusedBaseline, fit_candidates
    from harness.baselines.fusion_fit import default_templates, fusion_samples
    from harness.baselines.ocr import GlyphReader
    from harness.baselines.retrieval import build_baseline

    rb = build_baseline(gallery, cache_dir=cache_dir, progress=False)
    fb = FusedBaseline(rb, GlyphReader(), templates=default_templates(rb.gallery.cache_dir))
    d = fusion_samples(fb)
    x, y, g = d["x"], d["y"], d["group"]
    glyph = np.asarray(d["glyph"])
    fold = np.random.default_rng(1).permutation(glyph.max() + 1) % 2
    test_g = np.flatnonzero(fold[glyph] == 1)
    fit = fold[glyph][g] == 0
    models = {"gradient boosting": fit_candidates(x[fit], y[fit]),
              "logistic regression": LogisticRegression(C=100.0, max_iter=5000).fit(x[fit], y[fit])}
    print(f"templates: {fb.templates.describe() if fb.templates else None}")
    for name, model in models.items():
        prob = model.predict_proba(x)[:, 1]
        cells: dict = {}
        for gid in test_g:
            rows = np.flatnonzero(g == gid)
            best = rows[int(np.argmax(prob[rows]))]
            c = cells.setdefault((d["script"][gid], d["condition"][gid]), [0, 0, 0, 0])
            c[0] += 1
            c[1] += y[best]
            c[2] += prob[best] >= 0.5
            c[3] += bool(prob[best] >= 0.5 and y[best])
        print(f"{name} (held-out glyphs, {len(test_g)} decisions):")
        for (script, cond), (m, right, answered, strict) in sorted(cells.items()):
            print(f"  {script:4} {cond:17} n {m:4}  top-1 {100 * right / m:5.1f}  answered {100 * answered / m:5.1f}"
                  f"  strict {100 * strict / m:5.1f}")


def template_embedders(gallery: str, cache_dir: Path | None, per_script: int = 1000) -> None:
    """The template reader's nearest character on held-out gallery glyphs of the modern
    scripts (the fusion's calibration glyphs: original images, 楷书 and 简体), compared by
    the gallery's HOG and by the recogniser's own features, top-1 and top-5, split by
    whether PP-OCR's dictionary holds the character."""
    from collections import Counter

    from harness.baselines.calibration import calibration_rows
    from harness.baselines.fusion_fit import build_fused
    from harness.baselines.ocr import RecogniserEmbedder
    from harness.baselines.templates import TemplateReader, template_cache_dir, template_faces
    from metrics.acce.variants import same_character

    fb = build_fused(gallery, cache_dir=cache_dir, progress=False)
    g, faces = fb.gallery, template_faces()
    if not faces:
        print("template embedders: no template font installed")
        return
    origins = g.image_origins()
    original = np.asarray([not origins.get(i, (i, False))[1] for i in g.ids], bool)
    rows = [int(r) for r in calibration_rows(g, per_script, 0, eligible=original) if g.scripts[int(r)] in ("楷书", "简体")]
    images, gold = [g.ds[r]["image"] for r in rows], [g.characters[r] for r in rows]
    cache = template_cache_dir(g.cache_dir)
    for name, embedder in (("HOG", g.embedder), ("recogniser features", RecogniserEmbedder())):
        tops = TemplateReader(embedder, faces, cache).read(embedder.embed(images), 5)
        cells = Counter()
        for r, c, top in zip(rows, gold, tops):
            key = (g.scripts[r], c in fb.reader.index)
            cells[key + ("n",)] += 1
            cells[key + ("1",)] += same_character(top[0][0], c)
            cells[key + ("5",)] += any(same_character(t, c) for t, _ in top)
        for script in ("楷书", "简体"):
            for known in (True, False):
                n = cells[(script, known, "n")]
                if n:
                    print(f"templates by {name:19} {script} {'in' if known else 'outside'} PP-OCR's classes: n {n:4}"
                          f"  top-1 {100 * cells[(script, known, '1')] / n:5.1f}  top-5 {100 * cells[(script, known, '5')] / n:5.1f}")


def risk_coverage(run: Path, bench: str) -> None:
    import json

    from harness.baselines.abstention import curves_by_script, format_table
    from harness.bench import load_bench
    from metrics.acce.variants import same_character

    decisions = json.loads((run / "decisions.json").read_text("utf-8"))
    threshold = json.loads((run / "results.json").read_text("utf-8"))["model"].get("fusion", {}).get("model", {})
    threshold = (threshold or {}).get("threshold", 0.5)
    ds = load_bench(bench, "all", "test")
    meta: dict = {}
    for r in ds.select_columns(["image_id", "character", "script"]).to_list():
        meta.setdefault(r["image_id"], r)
    scripts, conf, right, abstained = [], [], [], []
    for iid, d in decisions.items():
        top = d.get("character") or (d["scored"][0][0] if d.get("scored") else "")  # the answer, else the best guess
        scripts.append(meta[iid]["script"])
        conf.append(d["confidence"])
        right.append(same_character(top, meta[iid]["character"]))
        abstained.append(d["abstained"])
    curves = curves_by_script(scripts, ["all"] * len(scripts), np.asarray(conf), np.asarray(right), threshold, ())
    print(f"{run}: {len(decisions)} bench images; right = the bench's character (accuracy % of the most "
          "confident share)")
    print(format_table(curves, "all"))
    for s in sorted(set(scripts)):
        mask = np.asarray(scripts) == s
        print(f"  {s}: abstained on {100 * np.asarray(abstained)[mask].mean():.1f}% of {mask.sum()} images")
    components: dict = {}
    for d in decisions.values():
        components[d.get("component")] = components.get(d.get("component"), 0) + 1
    print("  decided by:", json.dumps(components, ensure_ascii=False))


def script_rule(gallery: str, cache_dir: Path | None, per_script: int = 400) -> None:
    from collections import defaultdict

    from harness.baselines.calibration import calibration_rows
    from harness.baselines.fusion_fit import askable_glyphs, build_fused
    from metrics.acce import labels

    fb = build_fused(gallery, cache_dir=cache_dir, progress=False)
    g, k = fb.gallery, fb.retrieval.settings.k
    alias = [labels.scoring_script(x) for x in g.scripts]
    origins = g.image_origins()
    family = np.asarray([origins.get(i, (i, False))[0] for i in g.ids], object)
    original = np.asarray([not origins.get(i, (i, False))[1] for i in g.ids], bool)
    picked = calibration_rows(g, per_script, 1, eligible=original)  # seed 1: not the fitting draw
    queries = g.embeddings[picked]
    for condition in ("seen", "unseen pair"):
        tab = defaultdict(lambda: [0, 0, 0, 0])  # glyphs, rule applies, neighbours right, own images right
        for j, q, hidden, s, i in askable_glyphs(fb, picked, family, alias, condition):
            gold = g.characters[q]
            t = tab[alias[q]]
            t[0] += 1
            if any(g.characters[int(r)] == gold for r in i):
                continue  # the character is among the neighbours: its own neighbours vote
            own = fb.rows_of[gold][~hidden[fb.rows_of[gold]]]
            top = own[np.argsort(-(g.embeddings[own] @ queries[j]))[:k]]
            t[1] += 1
            t[2] += fb._script(gold, queries[j], s, i, hidden)[0] == alias[q]
            t[3] += fb.retrieval.script_vote(g.embeddings[top] @ queries[j], top) == alias[q]
        print(f"{condition}: script, glyphs, character not among the {k} neighbours, script right by the "
              "neighbours' vote / by the character's own nearest images")
        for script, (n, f, a, b) in sorted(tab.items()):
            print(f"  {script:8} {n:5} {f:5}  {100 * a / max(f, 1):5.1f}% / {100 * b / max(f, 1):5.1f}%")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", default=str(REPO / "out" / "jiezi-bench"))
    ap.add_argument("--gallery", default=None)
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--cache-dir", type=Path, default=None, help="embedding cache (default ~/.cache/jiezi/retrieval)")
    ap.add_argument("--skip-run", action="store_true", help="no full `jiezi eval` runs")
    ap.add_argument("--width", action="store_true", help="recogniser line width comparison")
    ap.add_argument("--components", action="store_true", help="connected components of glyphs and noise")
    ap.add_argument("--fusion", action="store_true", help="candidate model: gradient boosting vs logistic")
    ap.add_argument("--designs", action="store_true", help="template faces vs the bench's font designs")
    ap.add_argument("--template-embedders", action="store_true",
                    help="template reader by HOG vs by the recogniser's features, on held-out gallery glyphs")
    ap.add_argument("--risk-coverage", type=Path, default=None, metavar="RUN", help="risk-coverage of an eval folder")
    ap.add_argument("--script-rule", action="store_true", help="fused script decision: neighbours vs own images")
    ap.add_argument("--sources", type=Path, default=Path(os.environ.get("JIEZI_SOURCES", REPO.parent / "shared" / "sources")))
    args = ap.parse_args()
    _pin(args.cores)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    if args.width:
        widths(args.sources)
        return
    if args.designs:
        designs()
        return
    if args.risk_coverage:
        risk_coverage(args.risk_coverage, args.bench)
        return
    from harness.bench import default_gallery

    gallery = args.gallery or default_gallery(args.bench)
    if args.components:
        components(args.bench, gallery)
        return
    if args.fusion:
        fusion_models(gallery, args.cache_dir)
        return
    if args.script_rule:
        script_rule(gallery, args.cache_dir)
        return
    if args.template_embedders:
        template_embedders(gallery, args.cache_dir)
        return
    reader_speed(args.bench, args.cores)
    fused_speed(args.bench, gallery, args.cache_dir)
    if not args.skip_run:
        full_runs(args.bench, args.gallery, args.cache_dir, args.cores)


if __name__ == "__main__":
    main()
