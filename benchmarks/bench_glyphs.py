"""Benchmark the glyph-image stage: images per second, resume time, peak memory.

Usage: .venv/bin/python benchmarks/bench_glyphs.py [--chars 2000] [--workers 2] [--size 128]
       [--sources DIR] [--output DIR]

Three runs into one output folder:
  A. Oracle-MNIST only (characters = none): the 3,000 scans, fresh;
  B. ``--chars`` characters x the default fonts + LXGW Seal, fresh (scans reused);
  C. run B again: everything reused (the resume path).
Prints images/second for each, the projected time of a records build that renders 15,000
and 20,000 characters with the default fonts, and the peak RSS of this process and of
the largest worker. The characters are spread evenly over the union of the Shuowen heads
and the makemeahanzi characters, so rare and common characters are both represented.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time
from pathlib import Path

from builder.glyphs.collect import collect_images, default_fonts
from hub.skips import SkipLog

REPO = Path(__file__).resolve().parent.parent


def _characters(sources: Path, n: int) -> list[str]:
    chars: set[str] = set()
    with open(sources / "makemeahanzi" / "dictionary.txt", encoding="utf-8") as fh:
        chars.update(json.loads(line)["character"] for line in fh if line.strip())
    for path in (sources / "shuowen" / "data").glob("*.json"):
        head = json.loads(path.read_text(encoding="utf-8")).get("wordhead", "")
        if len(head) == 1:
            chars.add(head)
    ordered = sorted(chars)
    step = max(1, len(ordered) // n)
    return ordered[::step][:n]


def _cpu() -> float:
    # CPU seconds of this process and its finished children (the pool's workers are
    # reaped when collect_images returns), so contention from other jobs does not count.
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _run(label: str, chars: list[str], sources: Path, out: Path, args) -> tuple[float, float, int]:
    skipped = SkipLog()
    t0, c0 = time.perf_counter(), _cpu()
    images = collect_images(chars, sources, out, size=args.size, skipped=skipped, workers=args.workers,
                            progress=False)
    dt, cpu = time.perf_counter() - t0, _cpu() - c0
    print(f"{label}: {len(images)} images in {dt:.2f} s wall = {len(images) / dt:.0f} images/s; "
          f"{cpu:.2f} CPU-s ({len(skipped)} skipped: {skipped.counts()})")
    return dt, cpu, len(images)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--chars", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--size", type=int, default=128)
    ap.add_argument("--sources", type=Path,
                    default=Path(os.environ.get("JIEZI_SOURCES", REPO.parent / "shared" / "sources")))
    ap.add_argument("--output", type=Path, default=None, help="default: a temporary folder, removed after")
    args = ap.parse_args()

    fonts = default_fonts()
    chars = _characters(args.sources, args.chars)
    print(f"{len(chars)} characters x {len(fonts)} default fonts ({', '.join(fonts)}) + LXGW Seal; "
          f"size {args.size}px; workers {args.workers}; cores {os.cpu_count()}")
    with tempfile.TemporaryDirectory(prefix="bench-glyphs-") as tmp:
        out = args.output or Path(tmp)
        t_oracle, _, n_oracle = _run("A oracle-mnist (fresh)", [], args.sources, out, args)
        t_fonts, cpu_fonts, n_all = _run("B fonts + seal (fresh, scans reused)", chars, args.sources, out, args)
        t_resume, cpu_resume, _ = _run("C rerun (all reused)", chars, args.sources, out, args)
        files = list((out / "images").rglob("*.png"))
        disk = sum(f.stat().st_size for f in files)
    n_fonts = n_all - n_oracle
    # Time of B spent on new renderings: B minus the cost of reusing the scans (share of C).
    t_new = max(1e-9, t_fonts - t_resume * n_oracle / max(1, n_all))
    cpu_new = max(1e-9, cpu_fonts - cpu_resume)
    rate = n_fonts / t_new
    cpu_ms = 1000 * cpu_new / n_fonts
    per_char = n_fonts / max(1, len(chars))
    print(f"font + seal renderings: {n_fonts} ({per_char:.2f} per character) at {rate:.0f} images/s wall, "
          f"{cpu_ms:.2f} CPU-ms per image (= {args.workers * 1000 / cpu_ms:.0f} images/s on {args.workers} "
          f"idle cores); average PNG {disk / max(1, len(files)) / 1024:.1f} KiB")
    for n in (15_000, 20_000):
        projected = t_oracle + n * per_char / rate
        idle = t_oracle + n * per_char * cpu_ms / 1000 / args.workers
        print(f"projected fresh glyph stage for {n:,} characters ({n * per_char:,.0f} renderings + 3,000 "
              f"scans): {projected:.0f} s at this run's wall rate, {idle:.0f} s on idle cores; "
              f"resume ~{t_resume * n / len(chars):.0f} s")
    self_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak RSS: main process {self_mb:.0f} MiB, largest worker {child_mb:.0f} MiB")


if __name__ == "__main__":
    main()
