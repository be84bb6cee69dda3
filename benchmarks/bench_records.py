"""Benchmark `jiezi build records` on the full default sources: wall time, CPU time, peak RSS.

Usage: .venv/bin/python benchmarks/bench_records.py [--sources DIR] [--output DIR] [--workers 2]
       [--no-images] [--resume]

Runs one full build (all analysed characters, the default fonts, LXGW Seal, every
Oracle-MNIST scan) into a fresh temporary folder (or ``--output``), then, with
``--resume``, the same command again (the resume path: every stage reused). Prints per
run the wall time, the CPU seconds of this process and its workers, the peak resident
memory of this process and of the largest worker, the report's acceptance counts, and
whether the targets hold: <= 5 min and <= 4 GB RSS on 2 cores (issue 2).

Peak RSS comes from ``resource.getrusage`` (``ru_maxrss``, KiB on Linux): for
``RUSAGE_CHILDREN`` it is the largest single finished child, not a sum, so the printed
total (parent + largest worker x workers) is an upper bound of the simultaneous peak.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from builder.records.build import BuildOptions, build  # noqa: E402
from builder.sources.registry import resolve_sources_dir  # noqa: E402

TARGET_S, TARGET_GB = 300.0, 4.0


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _rss_mb() -> tuple[float, float]:
    return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)


def run(label: str, out: Path, args) -> dict:
    t0, c0 = time.perf_counter(), _cpu()
    report = build(BuildOptions(output=out, sources=args.sources, workers=args.workers, images=not args.no_images,
                                progress=False))
    wall, cpu = time.perf_counter() - t0, _cpu() - c0
    own, child = _rss_mb()
    peak_gb = (own + child * max(args.workers, 1)) / 1024
    row = {"run": label, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "peak_rss_main_mb": round(own),
           "peak_rss_largest_worker_mb": round(child), "peak_rss_upper_bound_gb": round(peak_gb, 2),
           "characters": report.characters, "records": report.records, "images": report.extra.get("images"),
           "images_by_script": report.images_by_script, "fonts": len(report.fonts),
           "acceptance": report.extra.get("acceptance"), "stage_timings_s": report.extra.get("timings_s"),
           "meets_time_target": wall <= TARGET_S, "meets_memory_target": peak_gb <= TARGET_GB}
    print(json.dumps(row, ensure_ascii=False, indent=2))
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sources", type=Path, default=None, help="source cache (default: $JIEZI_SOURCES / ~/.cache)")
    ap.add_argument("--output", type=Path, default=None, help="output folder (default: a fresh temp folder)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--no-images", action="store_true", help="records only")
    ap.add_argument("--resume", action="store_true", help="run the same build a second time (everything reused)")
    args = ap.parse_args()
    args.sources = resolve_sources_dir(args.sources)
    print(f"sources: {args.sources}; workers: {args.workers}; images: {not args.no_images}")
    with tempfile.TemporaryDirectory(prefix="jiezi-bench-records-") as tmp:
        out = args.output or Path(tmp) / "records"
        run("fresh", out, args)
        if args.resume:
            run("resume", out, args)


if __name__ == "__main__":
    main()
