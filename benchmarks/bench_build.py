"""Benchmark the whole `jiezi build`: wall time per stage, QA pairs per second, peak memory.

Usage: .venv/bin/python benchmarks/bench_build.py [--output DIR] [--sources DIR]
       [--records DIR] [--cores 2] [--keep]

Runs ``jiezi build --output DIR`` in a child process pinned to ``--cores`` CPUs (the
target machine has 2), twice:

  A. cold for stage 3 and publication (``qa/``, ``jiezi-dataset/``, ``jiezi-bench/``
     removed first; the records stage runs too unless ``--records`` points at built
     records, and is itself cached when ``DIR/records`` is complete);
  B. the same command again: everything cached (the resume path).

Prints wall time, CPU seconds of the process tree (what the run costs independent of
other load on the machine), the stage timings of ``DIR/report.json``, QA pairs per second
of the QA stage, and the peak memory of the whole process tree (proportional set size,
so pages shared by forked workers count once; sampled every 0.5 s with psutil).
Targets (issue 3): <= 15 min and <= 6 GB on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parent.parent
TARGET_S, TARGET_RSS = 15 * 60, 6 * 1024 ** 3


def _cpu_children() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _run(cmd: list[str], cores: int) -> tuple[float, int, int, float]:
    """Run ``cmd``; return (wall seconds, peak memory (PSS bytes) of the process tree, exit code,
    CPU seconds of the whole tree)."""
    cpus = sorted(os.sched_getaffinity(0))[:cores] if hasattr(os, "sched_getaffinity") else None
    c0 = _cpu_children()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=REPO, preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
    peak = 0
    done = threading.Event()

    def mem(proc: psutil.Process) -> int:
        # PSS: forked workers share pages with their parent, and summing RSS would count
        # those pages once per process
        try:
            return proc.memory_full_info().pss
        except (psutil.AccessDenied, AttributeError):
            return proc.memory_info().rss

    def sample():
        nonlocal peak
        p = psutil.Process(proc.pid)
        while not done.is_set():
            try:
                peak = max(peak, mem(p) + sum(mem(c) for c in p.children(recursive=True)))
            except psutil.Error:
                pass
            time.sleep(0.5)

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    rc = proc.wait()
    done.set()
    t.join()
    return time.perf_counter() - t0, peak, rc, _cpu_children() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--output", type=Path, default=None, help="build folder (default: a temporary one, removed unless --keep)")
    ap.add_argument("--sources", type=Path, default=None)
    ap.add_argument("--records", type=Path, default=None, help="reuse these built records (skip the records stage)")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()

    tmp = None
    out = args.output
    if out is None:
        tmp = tempfile.mkdtemp(prefix="bench-build-")
        out = Path(tmp)
    for sub in ("qa", "jiezi-dataset", "jiezi-bench"):
        shutil.rmtree(out / sub, ignore_errors=True)
    cmd = [str(REPO / ".venv" / "bin" / "jiezi"), "build", "--output", str(out)]
    if args.sources:
        cmd += ["--sources", str(args.sources)]
    if args.records:
        cmd += ["--records", str(args.records)]
    print(f"$ {' '.join(cmd)}   (pinned to {args.cores} cores; load average now "
          f"{os.getloadavg()[0]:.1f}: other processes on these cores stretch the wall time, "
          "the CPU seconds below do not depend on them)", flush=True)
    try:
        for label in ("A cold QA + publication", "B rerun (cached)"):
            wall, peak, rc, cpu = _run(cmd, args.cores)
            if rc != 0:
                print(f"{label}: jiezi build failed with exit code {rc}")
                sys.exit(rc)
            report = json.loads((out / "report.json").read_text("utf-8"))
            tm = report["timings"]
            qa_pairs = report["dataset"]["qa_pairs"]
            rate = qa_pairs / tm["qa_s"] if tm.get("qa_s") and not report.get("qa_cached") else float("nan")
            print(f"{label}: {wall:.1f} s wall ({wall / 60:.1f} min), {cpu:.0f} CPU-s "
                  f"(= {cpu / args.cores / 60:.1f} min on {args.cores} fully used cores); stages {tm}; "
                  f"peak memory (PSS) {peak / 1024 ** 3:.2f} GB")
            print(f"  JieZi-Dataset {qa_pairs:,} QA pairs / {report['dataset']['images']:,} images; "
                  f"JieZi-Bench {report['bench']['questions']:,} questions; QA stage {rate:,.0f} QA pairs/s")
            if label.startswith("A"):
                ok_t, ok_m = wall <= TARGET_S, peak <= TARGET_RSS
                print(f"  targets: time {'OK' if ok_t else 'MISSED'} (<= 15 min), memory {'OK' if ok_m else 'MISSED'} (<= 6 GB)")
    finally:
        if tmp and not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
