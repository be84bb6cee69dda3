"""Re-publish a finished build and compare it with the Hub folders already in it.

Usage: .venv/bin/python benchmarks/compare_publish.py BUILD_DIR [dataset|bench]

Writes the resource again with this checkout's ``builder.publish.write.write_hub_folder``
into a temporary folder (BUILD_DIR is read only) and compares it with
``BUILD_DIR/jiezi-<resource>`` by ``compare_builds.compare_parquet`` (configs, splits,
schemas, row counts, column values, card text), then says per parquet file whether its
row groups and bytes are identical too. Prints the CPU seconds of the write. Used to show
that a change of the writer keeps the published content (issue 11: the batched writer
wrote byte-identical files). Exit status 1 when the content differs.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.compare_builds import compare_parquet  # noqa: E402


def main(build: Path, kind: str) -> int:
    import datasets
    import pyarrow.parquet as pq

    from builder.publish.write import write_hub_folder

    datasets.disable_progress_bars()
    rel = f"jiezi-{kind}"
    with tempfile.TemporaryDirectory(prefix="compare-publish-") as tmp:
        t = time.process_time()
        write_hub_folder(build, kind, Path(tmp) / rel, progress=False)
        print(f"write: {time.process_time() - t:.1f} CPU-s")
        ok = compare_parquet(build, Path(tmp), rel)
        for f in sorted((Path(tmp) / rel).rglob("*.parquet")):
            old = build / rel / f.relative_to(Path(tmp) / rel)
            if old.exists():
                groups = (pq.ParquetFile(f).metadata.num_row_groups, pq.ParquetFile(old).metadata.num_row_groups)
                print(f"{f.relative_to(Path(tmp))}: row groups {groups[0]} / {groups[1]}, "
                      f"{'bytes-identical' if f.read_bytes() == old.read_bytes() else 'bytes differ'}")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[2] not in ("dataset", "bench"):
        sys.exit(__doc__.split("\n\n", 2)[1])
    sys.exit(main(Path(sys.argv[1]), sys.argv[2]))
