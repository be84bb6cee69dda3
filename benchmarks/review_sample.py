"""Draw a random review sample of a build for an independent paleographer's review.

    python benchmarks/review_sample.py OUT DEST --seed N [--bench 60 --dataset 40 --records 20]

Writes ``DEST/items.md`` (one numbered item per bench question, dataset turn and record
field: the image path to look at, the question, the answer, its structured form, and every
cited source entry's full raw text: the record's, another record's, or the Shuowen source
entry's) and ``DEST/verdicts.tsv`` (item,
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
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

RECORD_FIELDS = ("structure", "formation", "components", "original_meaning", "evolution", "definition_en", "readings")


def _jsonl(path: Path):
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def _records(out: Path) -> dict[str, dict]:
    return {r["id"]: r for r in _jsonl(out / "records" / "records.jsonl")}


class _Cited:
    """The text of a cited entry: the record's own raw text, else another record's (a
    component's own head, the phonetic's reading), else the Shuowen source entry itself
    (``$JIEZI_SOURCES``), so a reviewer can check every cited span."""

    def __init__(self, recs: dict[str, dict]):
        self.recs = recs
        self._all: dict[str, str] | None = None

    def text(self, rec: dict, key: str) -> str | None:
        raw = rec.get("raw") or {}
        text = raw.get(key)
        if text is None and key.startswith("duan:"):
            text = raw.get("shuowen:" + key.split(":", 1)[1])
        if text is None:
            if self._all is None:
                self._all = {k: v for r in self.recs.values() for k, v in (r.get("raw") or {}).items()}
            text = self._all.get(key) or self._source(key)
        return text

    @staticmethod
    def _source(key: str) -> str | None:
        src, _, entry_id = key.partition(":")
        root = Path(os.environ.get("JIEZI_SOURCES", Path(__file__).resolve().parent.parent.parent / "shared" / "sources"))
        path = root / "shuowen" / "data" / f"{entry_id}.json"
        if src not in ("shuowen", "duan") or not path.is_file():
            return None
        from builder.sources.adapters.shuowen import parse_entry
        from hub.skips import SkipLog

        entry = parse_entry(json.loads(path.read_text("utf-8")), path.name, SkipLog())
        if entry is None:
            return None
        return entry.raw if src == "shuowen" else (entry.duan.raw if entry.duan else None)


def _sources(rec: dict, provs: list[dict], cited: _Cited) -> str:
    keys = sorted({f"{p['source']}:{p['entry_id']}" for p in provs if p.get("source") in ("shuowen", "duan", "unihan", "makemeahanzi", "cjkvi-ids")})
    parts = []
    for k in keys:
        text = cited.text(rec, k)
        parts.append(f"  - `{k}`:\n\n```\n{(text or '(not in the record raw)')[:3000]}\n```")
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
    a = ap.parse_args()
    rng = random.Random(a.seed)
    (a.dest / "images").mkdir(parents=True, exist_ok=True)
    recs = _records(a.out)
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
    cited = _Cited(recs)
    lines = [f"# Review sample (seed {a.seed}) of {a.out}\n"]
    tsv = ["item\tkind\tid\tverdict\tnote"]
    for n, (kind, iid, rid, path, q, ans, st, provs, script) in enumerate(items, 1):
        rec = recs.get(rid, {})
        img = _copy(a.out, a.dest, path)
        lines.append(f"## {n}. {kind} `{iid}` ({rec.get('character')}, {script})\n\n- image: `{img}`\n"
                     f"- question: {q}\n- answer:\n\n```\n{ans}\n```\n- structured: `{json.dumps(st, ensure_ascii=False)}`\n"
                     f"- provenance: `{json.dumps(provs, ensure_ascii=False)[:1500]}`\n- cited entries:\n{_sources(rec, provs, cited)}\n")
        tsv.append(f"{n}\t{kind}\t{iid}\t\t")
    (a.dest / "items.md").write_text("\n".join(lines), "utf-8")
    (a.dest / "verdicts.tsv").write_text("\n".join(tsv) + "\n", "utf-8")
    print(json.dumps({"items": len(items), "bench": a.bench, "dataset": a.dataset,
                      "records": sum(1 for x in items if x[0] == "record"), "dest": str(a.dest)}))


if __name__ == "__main__":
    main()
