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

``--publish-only DIR`` times publication alone (issue 11 item 6) on a finished build
folder ``DIR`` (read only; the Hub folders go to a temporary folder): ``jiezi publish``'s
one-pass writer (``builder.publish.write.write_hub_folder``) for JieZi-Dataset and
JieZi-Bench, beside a raw pyarrow write of the same rows and image bytes (the same example
rows, built by the same functions, written with ``pyarrow.parquet.ParquetWriter`` per
config and split, no ``datasets`` encoding, no card). Prints wall and CPU seconds of each
and the ratio (target: publish within 1.5x of the raw write). ``--per-config`` adds the
former way, one ``datasets`` ``download_and_prepare`` per config (the builders
``jiezi_dataset.JieZiDataset`` / ``jiezi_bench.JieZiBench``, ``num_proc=2`` for the dataset
as ``jiezi build`` ran it).
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


def _timed(fn) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process and its children) of ``fn()``."""
    c0 = time.process_time() + _cpu_children()
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0, time.process_time() + _cpu_children() - c0


def _raw_write(build: Path, dest: Path) -> int:
    """The rows of both resources written with plain pyarrow, one file per config and
    split, from one pass over the stage-3 files; returns the rows written."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from builder.publish.write import _features, _placed_examples
    from hub.layout import records_dir_of

    images = records_dir_of(build)
    n = 0
    for kind in ("dataset", "bench"):
        writers: dict[tuple[str, str], pq.ParquetWriter] = {}
        batches: dict[tuple[str, str], list[dict]] = {}

        def flush(key):
            schema = _features(kind, key[0]).arrow_schema
            if key not in writers:
                (dest / kind / key[0]).mkdir(parents=True, exist_ok=True)
                writers[key] = pq.ParquetWriter(dest / kind / key[0] / f"{key[1]}.parquet", schema)
            writers[key].write_table(pa.Table.from_pylist(batches.pop(key), schema=schema))

        for config, split, example in _placed_examples(kind, build / "qa", images):
            batches.setdefault((config, split), []).append(example)
            n += 1
            if len(batches[(config, split)]) >= 100:  # datasets' row group size for image data
                flush((config, split))
        for key in list(batches):
            flush(key)
        for w in writers.values():
            w.close()
    return n


def _per_config(build: Path, dest: Path) -> None:
    """The former publication: one datasets download_and_prepare per config."""
    import datasets

    from jiezi_bench import JieZiBench
    from jiezi_dataset import JieZiDataset

    for cls, configs, num_proc in ((JieZiDataset, ("L1", "L2", "L3", "L4", "all", "records"), 2),
                                   (JieZiBench, ("L1", "L2", "L3", "L4", "all"), None)):
        for config in configs:
            b = cls(config_name=config, data_dir=str(build), cache_dir=str(dest / "cache"))
            b.download_and_prepare(output_dir=str(dest / cls.__name__ / config), file_format="parquet",
                                   max_shard_size="500MB", download_mode=datasets.DownloadMode.FORCE_REDOWNLOAD,
                                   num_proc=num_proc)


def publish_only(build: Path, per_config: bool) -> None:
    """Time publication alone on the build folder ``build`` (see module docstring)."""
    import datasets

    from builder.publish.write import write_hub_folder

    datasets.disable_progress_bars()
    with tempfile.TemporaryDirectory(prefix="bench-publish-") as tmp:
        dest = Path(tmp)
        print(f"publication of {build} (load average {os.getloadavg()[0]:.1f})", flush=True)
        pub = _timed(lambda: [write_hub_folder(build, kind, dest / f"jiezi-{kind}", progress=False)
                              for kind in ("dataset", "bench")])
        size = sum(f.stat().st_size for f in dest.rglob("*.parquet"))
        print(f"  jiezi publish (one pass, datasets ParquetWriter + cards): {pub[0]:.1f} s wall, {pub[1]:.1f} CPU-s; "
              f"{size / 1e6:.0f} MB of parquet", flush=True)
        rows = [0]
        raw = _timed(lambda: rows.__setitem__(0, _raw_write(build, dest / "raw")))
        raw_size = sum(f.stat().st_size for f in (dest / "raw").rglob("*.parquet"))
        print(f"  raw pyarrow write of the same {rows[0]:,} rows + image bytes: {raw[0]:.1f} s wall, "
              f"{raw[1]:.1f} CPU-s; {raw_size / 1e6:.0f} MB", flush=True)
        ratio = pub[1] / raw[1]
        print(f"  ratio publish / raw: {pub[0] / raw[0]:.2f}x wall, {ratio:.2f}x CPU "
              f"(target <= 1.5x: {'OK' if ratio <= 1.5 else 'MISSED'})", flush=True)
        if per_config:
            old = _timed(lambda: _per_config(build, dest / "per-config"))
            print(f"  former per-config datasets runs: {old[0]:.1f} s wall, {old[1]:.1f} CPU-s "
                  f"({old[1] / pub[1]:.1f}x the one-pass CPU)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--output", type=Path, default=None, help="build folder (default: a temporary one, removed unless --keep)")
    ap.add_argument("--sources", type=Path, default=None)
    ap.add_argument("--records", type=Path, default=None, help="reuse these built records (skip the records stage)")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--publish-only", type=Path, default=None, metavar="DIR",
                    help="time publication alone on the finished build folder DIR (read only)")
    ap.add_argument("--per-config", action="store_true", help="with --publish-only: also time the former per-config way")
    args = ap.parse_args()
    if args.publish_only:
        publish_only(args.publish_only, args.per_config)
        return

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
