"""Counts of the records-level review patterns (issue 20/21 data reviews) in one or two builds.

    python benchmarks/records_review_counts.py OUT [NEW_OUT]

Per build, from ``records/records.jsonl`` (and ``qa/bench.jsonl``, ``qa/dataset.jsonl`` for
the cited-entry count):

1. ``hint_*``: components read off a makemeahanzi hint (rules ``makemeahanzi.hint.components``
   / ``.phrase`` / ``.semantic``), interpretations from makemeahanzi, and formations that
   rest on a makemeahanzi type its own entry or cjkvi-ids contradicts (an ``ideographic``
   entry whose hint names a part giving the sound; a ``pictophonetic`` entry naming no
   phonetic; a label cjkvi-ids' own analysis disagrees with);
2. ``borrowed_*``: formations and components reached through another character (rule
   suffix ``@link:`` / ``@traditional:`` / ``@simplified:`` / ``@head:``);
3. ``shuowen_*``: Shuowen components that misread a formula (named 重 in 从重X, 有 in 从X有Y,
   古 / 文 of 古文X, 未 / 詳 of 徐鉉's 未詳, a part after 下/上 the IDS does not show) or a garbled character of
   the digitised text (a character with a simplified radical the Duan quotation lacks);
4. ``early_form_analysis``: 甲骨文 / 金文 / 战国文字 records stating a structure, IDS, class or
   components; ``stroke_split_layout``: records whose structure is a stroke split's layout;
5. ``kaishu_simplified_only``: 楷书 records of a character now simplified-only;
6. ``cited_not_in_raw``: provenance entries (bench rows, dataset turns) whose
   ``<source>:<entry>`` is not in the row's own record raw.

With two builds it also prints the bench questions changed / dropped / added (by id and
answer) and the dataset turns changed / dropped / added (by image id and kind). Set
``$JIEZI_SOURCES`` for the simplified-only set (item 5).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections import Counter
from pathlib import Path

from builder.ids import stroke_split

TEXT = ("shuowen", "duan", "unihan", "makemeahanzi", "cjkvi-ids")
EARLY = {"甲骨文", "金文", "战国文字"}
HINT_RULES = ("makemeahanzi.hint.components", "makemeahanzi.hint.phrase", "makemeahanzi.hint.semantic")


def _records(out: Path):
    with open(out / "records" / "records.jsonl", encoding="utf-8") as fh:
        for line in fh:
            yield json.loads(line)


def _mmh_contradicted(r: dict) -> bool:
    f = r.get("formation") or {}
    if not any(p["source"] == "makemeahanzi" and "@" not in p["rule"] for p in f.get("provenance", [])):
        return False  # the record's own makemeahanzi entry (a partner's is another entry)
    raw = (r.get("raw") or {}).get(f"makemeahanzi:{r['character']}")
    ety = (json.loads(raw).get("etymology") or {}) if raw else {}
    hint = ety.get("hint") or ""
    return ((ety.get("type") == "ideographic" and "provides the pronunciation" in hint)
            or (ety.get("type") == "pictophonetic" and not ety.get("phonetic"))
            or "cjkvi-ids" in f.get("disagree", {}))


def _shuowen_misread(c: dict, ids_leaves: set[str]) -> bool:
    for p in c["provenance"]:
        if p["source"] != "shuowen" or "semantic" not in p["rule"]:
            continue
        span, n = p["span"], c["name"]
        if n == "重" and "从重" in span and "从重省" not in span:
            return True
        if n == "有" and "有" in span and f"从{n}" not in span:
            return True
        if n in "古文" and "古文" in span or n in "未詳详" and ("未詳" in span or "未详" in span):
            return True
        if any(f"{w}{n}" in span for w in "上下") and n not in ids_leaves:
            return True
    return False


def _garbled(c: dict, suspects: set[str]) -> bool:
    return c["name"] in suspects and any(p["source"] == "shuowen" and "garbled" not in p["rule"] and "@" not in p["rule"]
                                         and c["name"] in p["span"] for p in c["provenance"])


def record_counts(out: Path, simplified: frozenset[str], suspects: set[str]) -> Counter:
    n: Counter = Counter()
    for r in _records(out):
        comps = r.get("components") or []
        n["records"] += 1
        n["hint_components"] += sum(any(p["rule"] in HINT_RULES for p in c["provenance"]) for c in comps)
        n["hint_interpretations"] += sum(any(p["source"] == "makemeahanzi" for p in c.get("interpretation_provenance", []))
                                         for c in comps)
        n["hint_contradicted_formation"] += _mmh_contradicted(r)
        f = r.get("formation") or {}
        for via in ("@link:", "@traditional:", "@simplified:", "@head:"):
            n[f"borrowed_formation{via}"] += any(via in p["rule"] for p in f.get("provenance", []))
            n[f"borrowed_components{via}"] += sum(any(via in p["rule"] for p in c["provenance"]) for c in comps)
        leaves = set((r.get("ids") or {}).get("value", ""))
        n["shuowen_misread_components"] += sum(_shuowen_misread(c, leaves) for c in comps)
        n["shuowen_garbled_components"] += sum(_garbled(c, suspects) for c in comps)
        if r["script"] in EARLY and any(r.get(k) for k in ("structure", "ids", "formation", "components")):
            n["early_form_analysis"] += 1
        s = r.get("structure") or {}
        if s.get("value") not in (None, "独体") and r.get("ids") and stroke_split(r["ids"]["value"]):
            n["stroke_split_layout"] += 1
        if r["script"] == "楷书" and r["character"] in simplified:
            n["kaishu_simplified_only"] += 1
    return n


def _raw_keys(out: Path) -> dict[str, set[str]]:
    return {r["id"]: set(r.get("raw") or {}) for r in _records(out)}


def cited_not_in_raw(out: Path, raw: dict[str, set[str]]) -> Counter:
    n: Counter = Counter()

    def check(rid: str, provs: list[dict], kind: str) -> None:
        keys = {f"{p['source']}:{p['entry_id']}" for p in provs if p.get("source") in TEXT}
        own = raw.get(rid, set())
        miss = {k for k in keys if k not in own and not (k.startswith("duan:") and "shuowen:" + k[5:] in own)}
        n[f"{kind}_items"] += 1
        n[f"{kind}_items_citing_an_entry_not_in_their_record"] += bool(miss)

    with open(out / "qa" / "bench.jsonl", encoding="utf-8") as fh:
        for line in fh:
            q = json.loads(line)
            check(q["record_id"], q["provenance"], "bench")
    with open(out / "qa" / "dataset.jsonl", encoding="utf-8") as fh:
        for line in fh:
            d = json.loads(line)
            for t in d["qa"]:
                check(d["record_id"], json.loads(t["provenance_json"]), "dataset_turn")
    return n


def _digest(*parts: str) -> str:
    return hashlib.blake2b("\x1f".join(parts).encode(), digest_size=8).hexdigest()


def qa_index(out: Path) -> tuple[dict[str, tuple[str, str, str]], dict[tuple[str, str], str]]:
    bench = {}
    with open(out / "qa" / "bench.jsonl", encoding="utf-8") as fh:
        for line in fh:
            q = json.loads(line)
            bench[q["id"]] = (q["subtask"], q["script"], _digest(q["question"], q["answer"], json.dumps(q["answer_struct"])))
    turns = {}
    with open(out / "qa" / "dataset.jsonl", encoding="utf-8") as fh:
        for line in fh:
            d = json.loads(line)
            for i, t in enumerate(d["qa"]):
                turns[(d["id"], f"{t['kind']}#{i}")] = _digest(t["kind"], t["answer"], t["answer_struct_json"])
    return bench, turns


def compare(base: Path, new: Path) -> dict:
    b0, t0 = qa_index(base)
    b1, t1 = qa_index(new)
    out = {"bench": {"base": len(b0), "new": len(b1), "changed": sum(1 for k in b0.keys() & b1.keys() if b0[k] != b1[k]),
                     "dropped": len(b0.keys() - b1.keys()), "added": len(b1.keys() - b0.keys())}}
    t0k = {(i, k.split("#")[0]) for i, k in t0}
    t1k = {(i, k.split("#")[0]) for i, k in t1}
    out["dataset_turns"] = {"base": len(t0), "new": len(t1), "changed": sum(1 for k in t0.keys() & t1.keys() if t0[k] != t1[k]),
                            "kinds_dropped": len(t0k - t1k), "kinds_added": len(t1k - t0k)}
    per = Counter((s, sc) for s, sc, _ in b1.values())
    out["bench_new_by_subtask"] = dict(Counter(s for s, _ in per.elements()))
    out["bench_new_by_subtask_script"] = {f"{s} {sc}": n for (s, sc), n in sorted(per.items())}
    return out


def _suspects() -> tuple[frozenset[str], set[str]]:
    src = os.environ.get("JIEZI_SOURCES")
    if not src:
        return frozenset(), set()
    from builder.glyphs.oracle_mnist import simplified_only
    from builder.sources.adapters import unihan
    from hub.skips import SkipLog

    return simplified_only(Path(src)), set(unihan.simplified_radical(unihan.read(Path(src), SkipLog())))


def main() -> None:
    outs = [Path(a) for a in sys.argv[1:3]]
    simplified, suspects = _suspects()
    report = {}
    for out in outs:
        c = record_counts(out, simplified, suspects)
        c.update(cited_not_in_raw(out, _raw_keys(out)))
        report[str(out)] = dict(sorted(c.items()))
    if len(outs) == 2:
        report["qa_compare"] = compare(*outs)
    print(json.dumps(report, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
