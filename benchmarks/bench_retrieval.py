"""Benchmark the offline retrieval baseline: glyphs per second and full-bench wall time.

Usage:
  .venv/bin/python benchmarks/bench_retrieval.py [--bench out/jiezi-bench] [--gallery DIR]
      [--cores 2] [--bertscore-model offline-minilm] [--skip-run]
  .venv/bin/python benchmarks/bench_retrieval.py --proxy [--sources DIR] [--cores 2] [--embedders hog,ppocr-v6]
  .venv/bin/python benchmarks/bench_retrieval.py --tune [--gallery DIR]
  .venv/bin/python benchmarks/bench_retrieval.py --risk-coverage [--bench out/jiezi-bench] [--gallery DIR]

Default mode, pinned to ``--cores`` CPUs (the target machine has 2):

  1. glyph embedding throughput (glyphs/s) of the default HOG embedder and of the
     EfficientNet-Lite0 ImageNet features on 2,000 gallery images (decode included);
  2. ``jiezi eval --model retrieval`` over the whole bench, cold (empty embedding cache:
     the whole gallery is embedded) and warm (a second run into a new folder, embeddings
     cached), each in a child process; prints wall time, generation and scoring time.
     Target (issue 5): cold full-bench run <= 10 min.

``--proxy``: why HOG is the default embedder. Top-1 nearest-neighbour character
accuracy and throughput of the embedders (HOG, EfficientNet-Lite0, the PP-OCRv6
recogniser's features) on glyphs the gallery never saw:
(a) 1,000 random makemeahanzi characters, gallery typefaces Noto Serif / Noto Sans /
TW-Kai / LXGW WenKai, queries in AR PL UKai, AR PL UMing and WenQuanYi Zen Hei;
(b) the same characters, gallery Song/Hei only (Noto Serif, Noto Sans, AR PL UMing),
queries in Kai (AR PL UKai, TW-Kai): a style the gallery lacks; (c) the 3,000 real
Oracle-MNIST test scans, split in half (gallery / queries, 10 classes).

``--tune``: how the baseline's defaults (k, temperature) were chosen without the bench:
leave-one-out on 2,000 gallery glyphs whose (character, script) has other images; prints
character accuracy and structure / formation agreement with the query's own record for
k in {1, 5, 10, 20} x T in {0.005, 0.01, 0.02, 0.05, 0.1} (abstention off).

``--risk-coverage``: the abstention of the baseline (``harness.baselines.abstention``). Fits (or
loads) the calibration on held-out gallery glyphs and prints its risk-coverage tables
per script on the held-out half, for all three conditions together and for each (seen,
unseen character, held-out script); then decides every distinct bench image and prints
the bench's risk-coverage table per script and per generalisation split (right = the
bench's character and script, 简体 counted as 楷书), with coverage and accuracy at the
calibrated threshold.
"""

from __future__ import annotations

import argparse
import gzip
import json
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
TARGET_S = 10 * 60


def _pin(cores: int) -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:cores])
    import torch

    torch.set_num_threads(cores)


def _throughput(embedder, images, workers=1) -> float:
    t0 = time.perf_counter()
    for i in range(0, len(images), 256):
        embedder.embed(images[i:i + 256])
    return len(images) / (time.perf_counter() - t0)


def embedding_speed(gallery: str, n: int) -> None:
    from harness.bench import load_gallery
    from harness.baselines.embed import make_embedder

    ds = load_gallery(gallery)
    sub = ds.select(range(min(n, len(ds))))
    t0 = time.perf_counter()
    images = [im.copy() for im in sub["image"]]
    decode = len(images) / (time.perf_counter() - t0)
    print(f"gallery: {len(ds)} images; PNG decode {decode:.0f} glyphs/s")
    for name, kw in (("hog", {}), ("efficientnet-lite0", {"size": 96})):
        emb = make_embedder(name, **kw)
        print(f"  {emb.name}: {_throughput(emb, images[:2000 if name == 'hog' else 256]):.0f} glyphs/s")


def full_run(bench: str, gallery: str | None, cores: int, bertscore_model: str | None) -> None:
    work = Path(tempfile.mkdtemp(prefix="jiezi-bench-retrieval-"))
    try:
        cmd = [str(REPO / ".venv" / "bin" / "jiezi"), "eval", "--model", "retrieval", "--bench", bench,
               "--cache-dir", str(work / "cache"), "--no-progress"]
        if gallery:
            cmd += ["--gallery", gallery]
        if bertscore_model:
            cmd += ["--bertscore-model", bertscore_model]
        cpus = sorted(os.sched_getaffinity(0))[:cores] if hasattr(os, "sched_getaffinity") else None
        for label in ("cold", "warm"):
            out = work / label
            t0 = time.perf_counter()
            rc = subprocess.run(cmd + ["--output", str(out)], cwd=REPO,
                                preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None,
                                stdout=subprocess.DEVNULL).returncode
            wall = time.perf_counter() - t0
            if rc != 0:
                print(f"{label}: jiezi eval failed (exit {rc})")
                return
            res = json.loads((out / "results.json").read_text("utf-8"))
            run = res["run"]
            s = res["scores"]
            print(f"{label}: wall {wall:.1f} s (process), results wall_time_s {run['wall_time_s']}, generation "
                  f"{run['generation_s']} s, scoring {run['scoring_s']} s; {res['bench']['rows']} questions, "
                  f"{res['bench']['images']} images, gallery {res['model']['gallery']['images']} images")
            if label == "cold":
                verdict = "OK" if wall <= TARGET_S else "OVER TARGET"
                print(f"  target <= {TARGET_S} s: {verdict}")
                print("  " + "  ".join(f"{k}={'–' if s.get(k) is None else f'{s[k]:.1f}'}" for k in (
                    "CHAR", "SCRC", "STRC", "COMR", "COMF", "COMI", "FORC", "ORIM", "COME", "EVOI_FAC",
                    "EVOI_SCE", "macro")))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def proxy(sources: Path, embedders: tuple[str, ...] = ("hog", "efficientnet-lite0", "ppocr-v6")) -> None:
    from PIL import Image, ImageDraw, ImageFont

    from harness.baselines.embed import make_embedder

    chars = []
    for line in open(sources / "makemeahanzi" / "dictionary.txt", encoding="utf-8"):
        c = json.loads(line)["character"]
        if "\u4e00" <= c <= "\u9fff":
            chars.append(c)
    random.seed(0)
    chars = random.sample(chars, 1000)
    fonts = {
        "serif": ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc", 2),
        "sans": ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2),
        "twkai": ("/usr/share/fonts/truetype/cns11643/TW-Kai-98_1.ttf", 0),
        "wenkai": ("/usr/share/fonts/truetype/lxgw-wenkai/LXGWWenKai-Light.ttf", 0),
        "ukai": ("/usr/share/fonts/truetype/arphic/ukai.ttc", 0),
        "uming": ("/usr/share/fonts/truetype/arphic/uming.ttc", 0),
        "zenhei": ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", 0),
    }
    faces = {k: ImageFont.truetype(p, 96, index=i) for k, (p, i) in fonts.items()}

    def render(c, f):
        im = Image.new("L", (128, 128), 255)
        ImageDraw.Draw(im).text((64, 64), c, font=faces[f], fill=0, anchor="mm")
        return im

    raw = gzip.open(sources / "oracle-mnist" / "t10k-images-idx3-ubyte.gz").read()
    obi = np.frombuffer(raw[16:], np.uint8).reshape(-1, 28, 28)
    obi_y = np.frombuffer(gzip.open(sources / "oracle-mnist" / "t10k-labels-idx1-ubyte.gz").read()[8:], np.uint8)
    obi_img = [Image.fromarray(x) for x in obi]
    perm = np.random.default_rng(0).permutation(len(obi))
    g_idx, q_idx = perm[:1500], perm[1500:]
    tasks = {
        "typefaces (mixed styles)": (["serif", "sans", "twkai", "wenkai"], ["ukai", "uming", "zenhei"]),
        "unseen style (Kai vs Song/Hei)": (["serif", "sans", "uming"], ["ukai", "twkai"]),
    }
    print("top-1 nearest-neighbour character accuracy (higher is better) and throughput")
    settings = {"hog": {}, "efficientnet-lite0": {"size": 96}, "ppocr-v6": {}}
    for name in embedders:
        emb = make_embedder(name, **settings[name])
        line = [emb.name]
        for task, (gal, qry) in tasks.items():
            G = [(render(c, f), c) for c in chars for f in gal]
            Q = [(render(c, f), c) for c in chars for f in qry]
            t0 = time.perf_counter()
            a = np.concatenate([emb.embed([i for i, _ in G][k:k + 256]) for k in range(0, len(G), 256)])
            b = np.concatenate([emb.embed([i for i, _ in Q][k:k + 256]) for k in range(0, len(Q), 256)])
            speed = (len(G) + len(Q)) / (time.perf_counter() - t0)
            gl, ql = np.array([c for _, c in G]), np.array([c for _, c in Q])
            acc = (gl[(b @ a.T).argmax(1)] == ql).mean()
            line.append(f"{task}: {100 * acc:.1f}%")
        F = np.concatenate([emb.embed(obi_img[k:k + 256]) for k in range(0, len(obi_img), 256)])
        acc = (obi_y[g_idx][(F[q_idx] @ F[g_idx].T).argmax(1)] == obi_y[q_idx]).mean()
        line.append(f"oracle-bone scans: {100 * acc:.1f}%")
        line.append(f"{speed:.0f} glyphs/s")
        print("  " + " | ".join(line))


def tune(gallery: str) -> None:
    from collections import Counter

    from harness.render import formation_text
    from harness.baselines.retrieval import RetrievalSettings, build_baseline

    rb = build_baseline(gallery, RetrievalSettings(use_turns=False))
    rb.calibration = None  # the defaults were tuned for the vote itself, before abstention
    g = rb.gallery
    pairs = Counter(zip(g.characters, g.scripts))
    candidates = [i for i in range(len(g)) if pairs[(g.characters[i], g.scripts[i])] >= 2]
    queries = random.Random(0).sample(candidates, min(2000, len(candidates)))
    sims, idx = g.search(g.embeddings[queries], 41)
    keep = [idx[r] != q for r, q in enumerate(queries)]  # the query's own image is not a neighbour
    S = np.array([sims[r][keep[r]][:40] for r in range(len(queries))])
    I = np.array([idx[r][keep[r]][:40] for r in range(len(queries))])
    gold = {}
    for q in queries:
        facts = rb.character_facts(g.characters[q], g.scripts[q], [])
        gold[q] = (g.characters[q], facts.get("structure"), facts.get("formation"))
    print(f"leave-one-out on {len(queries)} gallery glyphs (gallery {len(g)} images)")
    for k in (1, 5, 10, 20):
        for t in (0.005, 0.01, 0.02, 0.05, 0.1):
            rb.settings = RetrievalSettings(k=k, temperature=t, use_turns=False)
            char = struct = form = n_s = n_f = 0
            for r, q in enumerate(queries):
                ch, st, fo = gold[q]
                char += rb.answer(S[r][:k], I[r][:k], "CHAR") == ch
                if st:
                    n_s += 1
                    struct += rb.answer(S[r][:k], I[r][:k], "STRC").startswith(st)
                if fo:
                    n_f += 1
                    form += rb.answer(S[r][:k], I[r][:k], "FORC") == formation_text(fo)
            print(f"  k={k:2d} T={t:<5} CHAR {100 * char / len(queries):.1f}  STRC {100 * struct / max(n_s, 1):.1f}  "
                  f"FORC {100 * form / max(n_f, 1):.1f}")


def risk_coverage_report(bench: str, gallery: str) -> None:
    from harness.baselines.abstention import CONDITIONS, curves_by_script, format_table
    from harness.bench import load_bench
    from harness.baselines.gallery import embed_images
    from harness.baselines.retrieval import build_baseline
    from metrics.acce import labels

    t0 = time.perf_counter()
    rb = build_baseline(gallery)
    cal = rb.calibration
    print(f"gallery {len(rb.gallery):,} images; calibration ({time.perf_counter() - t0:.0f} s incl. embedding): "
          f"coef {dict(zip(('margin', 'top_similarity'), (round(c, 3) for c in cal.coef)))}, "
          f"intercept {cal.intercept:.3f}, threshold {cal.threshold}")
    print(json.dumps(cal.fit, ensure_ascii=False))
    print("coverage:", json.dumps(rb.gallery.coverage(), ensure_ascii=False))
    for cond in ("all", *CONDITIONS):
        print(f"\nheld-out gallery glyphs, condition: {cond} (accuracy % of the most confident share)")
        print(format_table(cal.curves, cond))
    if not Path(bench).exists():
        print(f"\nno bench at {bench}: bench table skipped")
        return
    ds = load_bench(bench, "all", "test")
    first: dict[str, int] = {}
    for i, iid in enumerate(ds["image_id"]):
        first.setdefault(iid, i)
    sub = ds.select(list(first.values()))
    queries = embed_images(sub, "image", rb.gallery.embedder, desc="embed bench")
    sims, idx = rb.gallery.search(queries, rb.settings.k)
    conf, correct, script_ok, scripts, groups = [], [], [], [], []
    meta = sub.select_columns(["character", "script", "unseen_character", "unseen_glyph"]).to_list()
    for j, m in enumerate(meta):
        d = rb.decide(sims[j], idx[j], calibrated=False)
        conf.append(cal.confidence(d.features))
        alias = labels.scoring_script(m["script"])
        correct.append(d.character == m["character"])
        script_ok.append(d.script == alias)
        scripts.append(m["script"])
        groups.append("unseen character" if m["unseen_character"] else ("unseen glyph" if m["unseen_glyph"] else "seen"))
    conf_arr, ok, sok = np.asarray(conf), np.asarray(correct), np.asarray(script_ok)
    names = ("seen", "unseen glyph", "unseen character")
    by_script = curves_by_script(scripts, groups, conf_arr, ok, cal.threshold, names)
    print(f"\nJieZi-Bench ({len(meta):,} distinct images), right = the bench's character; per script:")
    print(format_table(by_script, "all"))
    for name in names:
        print(f"\nJieZi-Bench, {name} images only:")
        print(format_table(by_script, name))
    answered = conf_arr >= cal.threshold
    print(f"\nat threshold {cal.threshold}: {answered.sum():,} of {len(meta):,} images answered "
          f"({100 * answered.mean():.1f}%), {(~answered).sum():,} abstained; CHAR accuracy of the answered "
          f"{100 * ok[answered].mean() if answered.any() else float('nan'):.1f}% vs {100 * ok.mean():.1f}% answering all; "
          f"script right on {100 * sok[answered].mean() if answered.any() else float('nan'):.1f}% of the answered")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", default=str(REPO / "out" / "jiezi-bench"))
    ap.add_argument("--gallery", default=None)
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--bertscore-model", default="offline-minilm")
    ap.add_argument("--skip-run", action="store_true", help="only the embedding throughput")
    ap.add_argument("--proxy", action="store_true", help="embedder accuracy comparison on rendered glyphs and scans")
    ap.add_argument("--tune", action="store_true", help="leave-one-out choice of k and temperature on the gallery")
    ap.add_argument("--risk-coverage", action="store_true", help="abstention: risk-coverage per script")
    ap.add_argument("--embedders", default="hog,efficientnet-lite0,ppocr-v6", help="--proxy: embedders compared")
    ap.add_argument("--sources", type=Path, default=Path(os.environ.get("JIEZI_SOURCES", REPO.parent / "shared" / "sources")))
    args = ap.parse_args()
    _pin(args.cores)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    if args.proxy:
        proxy(args.sources, tuple(e.strip() for e in args.embedders.split(",") if e.strip()))
        return
    from harness.bench import default_gallery

    gallery = args.gallery or default_gallery(args.bench)
    if args.tune:
        tune(gallery)
        return
    if args.risk_coverage:
        risk_coverage_report(args.bench, gallery)
        return
    embedding_speed(gallery, 2000)
    if not args.skip_run:
        full_run(args.bench, args.gallery, args.cores, args.bertscore_model)


if __name__ == "__main__":
    main()
