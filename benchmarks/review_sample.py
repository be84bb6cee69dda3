"""Draw a random review sample of a build for an independent paleographer's review.

    python benchmarks/review_sample.py OUT DEST --seed N [--bench 60 --dataset 40 --records 20]

Writes ``DEST/items.md`` (one numbered item per bench question, dataset turn and record
field: the image path to look at, the question, the answer, its structured form, and every
cited source entry's full raw text: from the item's record, else from any record of the
build (a phonetic's reading cites the phonetic's own entries, 織 -> ``makemeahanzi:戠``),
else from the source cache (``$JIEZI_SOURCES`` or ``--sources``), the place named beside
the entry) and ``DEST/verdicts.tsv`` (item,
kind, id, and empty ``verdict`` / ``note`` columns for the reviewer: ``ok``, ``wrong``,
``defect``). Images are copied to ``DEST/images/`` so the sample outlives a rebuild.
Prints the counts. Deterministic for the seed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
from pathlib import Path

RECORD_FIELDS = ("structure", "formation", "components", "original_meaning", "evolution", "definition_en", "readings")


def _jsonl(path: Path):
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def _records(out: Path) -> dict[str, dict]:
    return {r["id"]: r for r in _jsonl(out / "records" / "records.jsonl")}


TEXT_SOURCES = ("shuowen", "duan", "unihan", "makemeahanzi", "cjkvi-ids")


class RawIndex:
    """Every cited entry's raw text: the item's record first, then any record of the build,
    then the source cache read with the records stage's adapters (loaded on first need)."""

    def __init__(self, recs: dict[str, dict], sources: Path | None):
        self.build: dict[str, str] = {}
        for r in recs.values():
            for k, v in (r.get("raw") or {}).items():
                self.build.setdefault(k, v)
        self.sources = sources
        self._cache: dict[str, str] | None = None

    def text(self, rec: dict, key: str) -> tuple[str | None, str]:
        """(raw text, where it was found) of ``"<source>:<entry_id>"``."""
        raw = rec.get("raw") or {}
        for k in (key, "shuowen:" + key.split(":", 1)[1] if key.startswith("duan:") else key):
            if k in raw:
                return raw[k], "the record"
        if key in self.build:
            return self.build[key], "another record of the build"
        cache = self._source_cache()
        if key in cache:
            return cache[key], "the source cache"
        return None, ""

    def _source_cache(self) -> dict[str, str]:
        if self._cache is None:
            self._cache = {}
            if self.sources is not None and self.sources.is_dir():
                self._cache = _read_sources(self.sources)
        return self._cache


def _read_sources(root: Path) -> dict[str, str]:
    """{entry key: raw text} of every entry the adapters read from the source cache."""
    from builder.sources.adapters import cjkvi_ids, makemeahanzi, shuowen, unihan
    from hub.skips import SkipLog

    log, out = SkipLog(), {}
    for e in shuowen.read(root, log):
        out[e.key] = e.raw
        if e.duan is not None:
            out[e.duan.key] = e.duan.raw
    for e in makemeahanzi.read(root, log):
        out[e.key] = e.raw
    for coll in (unihan.read(root, log), cjkvi_ids.read_analysis(root, log), cjkvi_ids.read_ids(root, log)):
        for e in coll.values():
            out[e.key] = e.raw
    return out


def _sources(index: RawIndex, rec: dict, provs: list[dict]) -> str:
    keys = sorted({f"{p['source']}:{p['entry_id']}" for p in provs if p.get("source") in TEXT_SOURCES})
    parts = []
    for k in keys:
        text, where = index.text(rec, k)
        label = f"`{k}`" + ("" if where in ("", "the record") else f" (from {where})")
        parts.append(f"  - {label}:\n\n```\n{(text or '(not in the build or the source cache)')[:3000]}\n```")
    return "\n".join(parts) or "  - (no text source cited)"


def _copy(out: Path, dest: Path, rel: str) -> str:
    src = out / "records" / rel
    target = dest / "images" / Path(rel).name
    if src.is_file():
        shutil.copyfile(src, target)
    return str(target)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("dest", type=Path)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--bench", type=int, default=60)
    ap.add_argument("--dataset", type=int, default=40)
    ap.add_argument("--records", type=int, default=20)
    ap.add_argument("--sources", type=Path, default=Path(os.environ["JIEZI_SOURCES"]) if os.environ.get("JIEZI_SOURCES") else None,
                    help="source cache for entries no record holds (default $JIEZI_SOURCES)")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    (a.dest / "images").mkdir(parents=True, exist_ok=True)
    recs = _records(a.out)
    index = RawIndex(recs, a.sources)
    bench = list(_jsonl(a.out / "qa" / "bench.jsonl"))
    items = []
    for row in rng.sample(bench, a.bench):
        items.append(("bench", row["id"], row["record_id"], row["image"], row["question"], row["answer"],
                      row["answer_struct"], row["provenance"], row["script"]))
    ds = list(_jsonl(a.out / "qa" / "dataset.jsonl"))
    for img in rng.sample(ds, a.dataset):
        t = rng.choice(img["qa"])
        items.append(("dataset", f"{img['id']}:{t['kind']}", img["record_id"], img["image"], t["question"], t["answer"],
                      json.loads(t["answer_struct_json"]), json.loads(t["provenance_json"]), img["script"]))
    with_images = [r for r in recs.values() if r.get("images")]
    for rec in rng.sample(with_images, a.records * 3):
        fields = [f for f in RECORD_FIELDS if rec.get(f)]
        if not fields or sum(1 for x in items if x[0] == "record") >= a.records:
            continue
        f = rng.choice(fields)
        value = rec[f]
        provs = ([p for c in value for p in c.get("provenance", [])] if isinstance(value, list)
                 else value.get("provenance", []) if isinstance(value, dict) else [])
        im = next((i for i in rec["images"] if i["style"] != "tracing-augmented"), rec["images"][0])
        items.append(("record", f"{rec['id']}:{f}", rec["id"], im["path"], f"record field `{f}`",
                      json.dumps(value, ensure_ascii=False)[:1500], None, provs, rec["script"]))
    lines = [f"# Review sample (seed {a.seed}) of {a.out}\n"]
    tsv = ["item\tkind\tid\tverdict\tnote"]
    for n, (kind, iid, rid, path, q, ans, st, provs, script) in enumerate(items, 1):
        rec = recs.get(rid, {})
        img = _copy(a.out, a.dest, path)
        lines.append(f"## {n}. {kind} `{iid}` ({rec.get('character')}, {script})\n\n- image: `{img}`\n"
                     f"- question: {q}\n- answer:\n\n```\n{ans}\n```\n- structured: `{json.dumps(st, ensure_ascii=False)}`\n"
                     f"- provenance: `{json.dumps(provs, ensure_ascii=False)[:1500]}`\n- cited entries:\n{_sources(index, rec, provs)}\n")
        tsv.append(f"{n}\t{kind}\t{iid}\t\t")
    (a.dest / "items.md").write_text("\n".join(lines), "utf-8")
    (a.dest / "verdicts.tsv").write_text("\n".join(tsv) + "\n", "utf-8")
    print(json.dumps({"items": len(items), "bench": a.bench, "dataset": a.dataset,
                      "records": sum(1 for x in items if x[0] == "record"), "dest": str(a.dest)}))


if __name__ == "__main__":
    main()
