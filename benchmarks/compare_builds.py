"""Compare two `jiezi build` output folders: is the content the same, code fingerprints aside?

Usage: python benchmarks/compare_builds.py BASE NEW [--no-parquet]

Checks, each printed as ``same`` or with the first differences:

- ``report.json`` (top level) and ``records/report.json``, as JSON, leaving out what
  depends on the run and not on the content: stage timings and seconds, the build folder's own path
  (``folders``, ``sources_dir``) and ``qa_cached``;
- ``records/records.jsonl``, ``records/skipped.jsonl`` and the stage-3 files ``qa/*.jsonl``
  byte for byte (line count and first differing line otherwise); ``qa/fingerprint.json``
  and ``qa/report.json`` as JSON without the code fingerprint (``code``) and paths;
- every parquet split of ``jiezi-dataset/`` and ``jiezi-bench/``: the same configs and
  splits, the same Arrow schema (with the ``datasets`` features metadata), the same
  number of rows and equal columns (read one column at a time with pyarrow and compared
  with ``ChunkedArray.equals``, so a different shard or row-group layout does not count,
  only the rows' values and order do); the cards (``README.md``) as text, where lines
  that only count Arrow bytes (``num_bytes``, ``dataset_size``) are reported apart.

Exit status 0 when everything compared is the same, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

#: keys whose values depend on the run (time, folder, code fingerprint), not on the content
RUN_KEYS = {"timings", "timings_s", "seconds", "folders", "sources_dir", "records_dir", "qa_cached", "code", "cached"}


def _strip(obj):
    if isinstance(obj, dict):
        return {k: _strip(v) for k, v in obj.items() if k not in RUN_KEYS}
    if isinstance(obj, list):
        return [_strip(v) for v in obj]
    return obj


def _json_diff(a, b, path: str = "") -> list[str]:
    """Paths where two JSON values differ (at most 10)."""
    if type(a) is not type(b):
        return [f"{path or '.'}: {a!r:.80} != {b!r:.80}"]
    if isinstance(a, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                out.append(f"{path}.{k}: only in {'new' if k in b else 'base'}")
            else:
                out += _json_diff(a[k], b[k], f"{path}.{k}")
        return out[:10]
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items != {len(b)} items"]
        return [d for x, y, i in zip(a, b, range(len(a))) for d in _json_diff(x, y, f"{path}[{i}]")][:10]
    return [] if a == b else [f"{path or '.'}: {a!r:.80} != {b!r:.80}"]


def compare_json(base: Path, new: Path, rel: str) -> bool:
    if not (base / rel).exists() and not (new / rel).exists():
        return True
    if not (base / rel).exists() or not (new / rel).exists():
        print(f"{rel}: missing in {'base' if not (base / rel).exists() else 'new'}")
        return False
    a = _strip(json.loads((base / rel).read_text("utf-8")))
    b = _strip(json.loads((new / rel).read_text("utf-8")))
    diffs = _json_diff(a, b)
    print(f"{rel}: " + ("same (timings, paths, code fingerprints left out)" if not diffs else "DIFFERS"))
    for d in diffs:
        print(f"    {d}")
    return not diffs


def compare_bytes(base: Path, new: Path, rel: str) -> bool:
    pa_, pb = base / rel, new / rel
    if not pa_.exists() and not pb.exists():
        return True
    if not pa_.exists() or not pb.exists():
        print(f"{rel}: missing in {'base' if not pa_.exists() else 'new'}")
        return False
    if pa_.stat().st_size == pb.stat().st_size and pa_.read_bytes() == pb.read_bytes():
        lines = sum(1 for _ in open(pa_, "rb"))
        print(f"{rel}: same bytes ({lines:,} lines)")
        return True
    with open(pa_, encoding="utf-8") as fa, open(pb, encoding="utf-8") as fb:
        for i, (la, lb) in enumerate(zip(fa, fb), 1):
            if la != lb:
                print(f"{rel}: DIFFERS from line {i}:\n    base {la[:160]!r}\n    new  {lb[:160]!r}")
                return False
    print(f"{rel}: DIFFERS in length ({sum(1 for _ in open(pa_, 'rb'))} vs {sum(1 for _ in open(pb, 'rb'))} lines)")
    return False


def _splits(folder: Path) -> dict[tuple[str, str], list[Path]]:
    out: dict[tuple[str, str], list[Path]] = {}
    for f in sorted(folder.glob("*/*.parquet")):
        split = f.name.split("-00")[0]
        out.setdefault((f.parent.name, split), []).append(f)
    return out


def _column(files: list[Path], name: str) -> pa.ChunkedArray:
    return pa.chunked_array([c for f in files for c in pq.read_table(f, columns=[name]).column(name).chunks],
                            type=pq.read_schema(files[0]).field(name).type)


def _first_row_diff(a: pa.ChunkedArray, b: pa.ChunkedArray, step: int = 2000) -> int | None:
    for i in range(0, len(a), step):
        if a.slice(i, step).to_pylist() != b.slice(i, step).to_pylist():
            for j, (x, y) in enumerate(zip(a.slice(i, step).to_pylist(), b.slice(i, step).to_pylist())):
                if x != y:
                    return i + j
    return None


def compare_parquet(base: Path, new: Path, rel: str) -> bool:
    """Same configs/splits, schemas, row counts and column values (see module docstring)."""
    sa, sb = _splits(base / rel), _splits(new / rel)
    ok = True
    if set(sa) != set(sb):
        print(f"{rel}: splits differ: only base {sorted(set(sa) - set(sb))}, only new {sorted(set(sb) - set(sa))}")
        ok = False
    for key in sorted(set(sa) & set(sb)):
        schema_a, schema_b = pq.read_schema(sa[key][0]), pq.read_schema(sb[key][0])
        rows_a = sum(pq.ParquetFile(f).metadata.num_rows for f in sa[key])
        rows_b = sum(pq.ParquetFile(f).metadata.num_rows for f in sb[key])
        bad = []
        if not schema_a.equals(schema_b, check_metadata=True):
            bad.append("schema")
        if rows_a != rows_b:
            bad.append(f"rows {rows_a} != {rows_b}")
        else:
            for name in schema_a.names:
                ca, cb = _column(sa[key], name), _column(sb[key], name)
                if not ca.equals(cb):
                    bad.append(f"column {name} (first differing row {_first_row_diff(ca, cb)})")
        files = f"{len(sa[key])}/{len(sb[key])} files"
        print(f"{rel}/{key[0]}/{key[1]}: " + (f"same ({rows_a:,} rows, {len(schema_a.names)} columns; {files})"
                                              if not bad else "DIFFERS: " + "; ".join(bad)))
        ok &= not bad
    card_a, card_b = (base / rel / "README.md"), (new / rel / "README.md")
    if card_a.exists() or card_b.exists():
        ok &= _compare_card(card_a, card_b, f"{rel}/README.md")
    return ok


#: card lines that count Arrow bytes as ``datasets`` wrote them: the sum of each written
#: batch's buffer sizes, which depends on how the rows were cut into batches and processes
#: (offsets and validity bitmaps per batch), not on the rows
SIZE_KEYS = ("num_bytes:", "dataset_size:")


def _compare_card(card_a: Path, card_b: Path, rel: str) -> bool:
    """Same card text; byte-size lines (``SIZE_KEYS``) that alone differ are reported and
    not counted as a difference of content."""
    if not (card_a.exists() and card_b.exists()):
        print(f"{rel}: missing in {'base' if not card_a.exists() else 'new'}")
        return False
    la, lb = card_a.read_text("utf-8").splitlines(), card_b.read_text("utf-8").splitlines()
    # the hash of the parquet files' bytes (hub.read.content_fingerprint): it
    # changes with the shard layout, and older builds do not state it; the rows are compared above
    fp = {side: [x.strip() for x in lines if x.startswith("content_fingerprint:")] for side, lines in (("base", la), ("new", lb))}
    la, lb = [x for x in la if not x.startswith("content_fingerprint:")], [x for x in lb if not x.startswith("content_fingerprint:")]
    if fp["base"] != fp["new"]:
        print(f"{rel}: content_fingerprint (parquet bytes) base {fp['base'] or 'none'} new {fp['new'] or 'none'}; left out")
    if la == lb:
        print(f"{rel}: same text")
        return True
    diffs = [(i + 1, x, y) for i, (x, y) in enumerate(zip(la, lb)) if x != y]
    if len(la) == len(lb) and all(x.strip().startswith(SIZE_KEYS) and y.strip().split(":")[0] == x.strip().split(":")[0]
                                  for _, x, y in diffs):
        print(f"{rel}: same text except {len(diffs)} Arrow byte-size lines (num_bytes / dataset_size: they "
              "depend on how datasets batched the rows, not on the rows), e.g. "
              + "; ".join(f"line {i}: {x.strip()} -> {y.strip()}" for i, x, y in diffs[:2]))
        return True
    print(f"{rel}: DIFFERS")
    for i, x, y in diffs[:8]:
        print(f"    line {i}: {x.strip()!r} != {y.strip()!r}")
    if len(la) != len(lb):
        print(f"    {len(la)} vs {len(lb)} lines")
    return False


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--no-parquet", action="store_true", help="skip the Hub folders")
    args = ap.parse_args(argv)
    ok = True
    for rel in ("report.json", "records/report.json", "qa/report.json", "qa/fingerprint.json"):
        ok &= compare_json(args.base, args.new, rel)
    for rel in ("records/records.jsonl", "records/skipped.jsonl", "qa/dataset.jsonl", "qa/bench.jsonl",
                "qa/records_gallery.jsonl", "qa/gallery_records.jsonl", "qa/skipped.jsonl"):
        ok &= compare_bytes(args.base, args.new, rel)
    if not args.no_parquet:
        for rel in ("jiezi-dataset", "jiezi-bench"):
            ok &= compare_parquet(args.base, args.new, rel)
    print("ALL SAME" if ok else "SOME DIFFER")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
