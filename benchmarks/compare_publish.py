"""Re-publish a finished build and compare it with the Hub folders already in it.

Usage: .venv/bin/python benchmarks/compare_publish.py BUILD_DIR [dataset|bench]

Writes the resource again with this checkout's ``builder.publish.write.write_hub_folder``
into a temporary folder (BUILD_DIR is read only) and compares it with
``BUILD_DIR/jiezi-<resource>``: per parquet file the row content (``pyarrow`` tables and
schema metadata), the row-group count and whether the bytes are identical, then the
card's text (a unified diff, empty when the same). Prints the CPU seconds of the write.
Used to show that a change of the writer keeps the published content (issue 11: the
batched writer wrote byte-identical files). Exit status 1 when any file differs.
"""

from __future__ import annotations

import difflib
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main(build: Path, kind: str) -> int:
    import datasets
    import pyarrow.parquet as pq

    from builder.publish.write import write_hub_folder

    datasets.disable_progress_bars()
    ref = build / f"jiezi-{kind}"
    differ = 0
    with tempfile.TemporaryDirectory(prefix="compare-publish-") as tmp:
        t = time.process_time()
        new = write_hub_folder(build, kind, Path(tmp) / "f", progress=False)
        print(f"write: {time.process_time() - t:.1f} CPU-s")
        a = sorted(p.relative_to(new) for p in new.rglob("*.parquet"))
        b = sorted(p.relative_to(ref) for p in ref.rglob("*.parquet"))
        if a != b:
            print(f"different files: only new {sorted(set(a) - set(b))}, only old {sorted(set(b) - set(a))}")
            return 1
        for rel in a:
            ta, tb = pq.read_table(new / rel), pq.read_table(ref / rel)
            same = ta.equals(tb) and ta.schema.metadata == tb.schema.metadata
            ga, gb = pq.ParquetFile(new / rel).metadata.num_row_groups, pq.ParquetFile(ref / rel).metadata.num_row_groups
            identical = (new / rel).read_bytes() == (ref / rel).read_bytes()
            differ += not (same and ga == gb)
            print(f"{rel} {ta.num_rows} {'SAME' if same else 'DIFF'} rowgroups {ga} {gb} "
                  f"{'bytes-identical' if identical else 'bytes differ'}")
        card = list(difflib.unified_diff((ref / "README.md").read_text("utf-8").splitlines(),
                                         (new / "README.md").read_text("utf-8").splitlines(), lineterm="", n=0))
        print("card diff lines:", card[:12])
    return 1 if differ else 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[2] not in ("dataset", "bench"):
        sys.exit(__doc__.split("\n\n", 2)[1])
    sys.exit(main(Path(sys.argv[1]), sys.argv[2]))
