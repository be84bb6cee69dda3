"""The paper's expert-in-the-loop quality control as review sheets.

``jiezi audit sample`` (:func:`sample`) draws what the paper audited: 10% of the records
(one row per filled field: structure, IDS, formation, components, original meaning, ...),
5,000 QA pairs of JieZi-Dataset and every JieZi-Bench question, into one CSV sheet with
the columns of :data:`COLUMNS`; reviewers fill ``verdict`` (``ok`` / ``reject`` /
``correct``) and, for ``correct``, ``correction`` (the right value or answer; JSON for
components, or ``{"answer": ..., "answer_struct": ...}``).

``jiezi audit ingest`` (:func:`ingest`) validates a filled sheet (column order exactly as
written, known item ids, verdict values; every problem is reported with its CSV row
number, and nothing is applied if any row is bad), appends the decisions to
``OUT/audit/decisions.jsonl`` and reports error rates per stage as the paper does
(records: share of reviewed fields and of reviewed records with an error; dataset and
bench: share of reviewed QA pairs). The next ``jiezi build`` (which ``ingest`` runs unless
told not to) applies the decisions: rejected items disappear, corrected ones are
rewritten.

Item ids: ``record:<record id>#<field>``, ``dataset:<image id>:<kind>``,
``bench:<image id>:<kind>``.
"""

from __future__ import annotations

import csv
import json
import random
import time
from collections import Counter
from pathlib import Path

from builder.qa_stage import read_jsonl

COLUMNS = ["image_path", "item_id", "stage", "question_or_field", "answer_or_value", "provenance", "verdict", "correction"]
VERDICTS = ("ok", "reject", "correct")
RECORD_FIELDS = ("structure", "ids", "formation", "components", "original_meaning", "definition_en",
                 "evolution", "readings", "variants")


class AuditSheetError(ValueError):
    """A review sheet that cannot be ingested; ``problems`` lists ``(row, message)``."""

    def __init__(self, sheet: Path, problems: list[tuple[int, str]]):
        self.problems = problems
        lines = "\n".join(f"  row {r}: {m}" for r, m in problems[:50])
        more = f"\n  ... and {len(problems) - 50} more" if len(problems) > 50 else ""
        super().__init__(f"{sheet}: {len(problems)} problem(s), nothing applied:\n{lines}{more}")


def _records_dir(out_dir: Path) -> Path:
    from jiezi_bench import records_dir_of
    return records_dir_of(out_dir)


def _field_value(rec: dict, fld: str) -> tuple[str, list] | None:
    v = rec.get(fld)
    if v in (None, [], {}):
        return None
    if fld in ("components", "readings", "variants"):
        provs = [p for item in v for p in item.get("provenance", [])]
        if fld == "components":
            text = json.dumps([{k: c.get(k) for k in ("name", "functions", "interpretation", "evolution_type", "position")}
                               for c in v], ensure_ascii=False)
        else:
            text = json.dumps([{k: x for k, x in item.items() if k != "provenance"} for item in v], ensure_ascii=False)
        return text, provs
    value = v["value"]
    text = json.dumps(value, ensure_ascii=False) if isinstance(value, dict) else str(value)
    return text, v.get("provenance", [])


def sample(out_dir: Path, sheet: Path, *, seed: int = 0, record_fraction: float = 0.10,
           dataset_pairs: int = 5000, bench: bool = True) -> dict:
    """Write a review sheet for the build in ``out_dir`` and return counts by stage.

    Records: ``record_fraction`` of the records (deterministic for ``seed``), a row per
    filled field; dataset: ``dataset_pairs`` QA pairs drawn uniformly; bench: every row.
    Image paths are absolute. Also records the sampled ids in ``out_dir/audit/manifest.json``
    (ingest accepts only those). Raises ``FileNotFoundError`` when the build is missing.
    """
    out_dir, sheet = Path(out_dir), Path(sheet)
    qa_dir = out_dir / "qa"
    rec_dir = _records_dir(out_dir)
    if not (qa_dir / "dataset.jsonl").exists():
        raise FileNotFoundError(f"{qa_dir}: no stage-3 outputs; run `jiezi build --output {out_dir}` first")
    rng = random.Random(f"audit:{seed}")
    rows: list[list[str]] = []
    counts: Counter = Counter()

    # records: one row per filled field of the sampled records (two passes: the file
    # can be large, so only the sampled lines are parsed)
    with open(rec_dir / "records.jsonl", encoding="utf-8") as fh:
        n_lines = sum(1 for line in fh if line.strip())
    n_rec = max(1, round(n_lines * record_fraction)) if n_lines else 0
    chosen = set(rng.sample(range(n_lines), n_rec))
    with open(rec_dir / "records.jsonl", encoding="utf-8") as fh:
        i = -1
        for line in fh:
            if not line.strip():
                continue
            i += 1
            if i not in chosen:
                continue
            rec = json.loads(line)
            img = str((rec_dir / rec["images"][0]["path"]).resolve()) if rec.get("images") else ""
            for fld in RECORD_FIELDS:
                fv = _field_value(rec, fld)
                if fv is None:
                    continue
                rows.append([img, f"record:{rec['id']}#{fld}", "records", fld, fv[0],
                             json.dumps(fv[1], ensure_ascii=False), "", ""])
                counts["records"] += 1
            counts["records_sampled"] += 1

    # dataset: reservoir sample of QA pairs
    reservoir: list[tuple[str, dict, dict]] = []
    seen = 0
    for row in read_jsonl(qa_dir / "dataset.jsonl"):
        for q in row["qa"]:
            seen += 1
            if len(reservoir) < dataset_pairs:
                reservoir.append((row["image"], row, q))
            else:
                j = rng.randrange(seen)
                if j < dataset_pairs:
                    reservoir[j] = (row["image"], row, q)
    for image, row, q in sorted(reservoir, key=lambda t: (t[1]["id"], t[2]["kind"])):
        prov = q.get("provenance_json") or json.dumps(q.get("provenance", []), ensure_ascii=False)
        rows.append([str((rec_dir / image).resolve()), f"dataset:{row['id']}:{q['kind']}", "dataset",
                     q["question"], q["answer"], prov, "", ""])
        counts["dataset"] += 1

    if bench:
        for r in read_jsonl(qa_dir / "bench.jsonl"):
            rows.append([str((rec_dir / r["image"]).resolve()), f"bench:{r['id']}", "bench",
                         r["question"], r["answer"], json.dumps(r["provenance"], ensure_ascii=False), "", ""])
            counts["bench"] += 1

    sheet.parent.mkdir(parents=True, exist_ok=True)
    tmp = sheet.with_name(sheet.name + ".tmp")
    with open(tmp, "w", encoding="utf-8-sig", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        w.writerows(rows)
    tmp.replace(sheet)

    audit_dir = out_dir / "audit"
    audit_dir.mkdir(parents=True, exist_ok=True)
    man_path = audit_dir / "manifest.json"
    manifest = json.loads(man_path.read_text("utf-8")) if man_path.exists() else {"ids": {}, "sheets": []}
    for r in rows:
        manifest["ids"][r[1]] = r[2]
    manifest["sheets"].append({"sheet": str(sheet.resolve()), "written_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                               "counts": dict(counts), "seed": seed})
    man_tmp = man_path.with_name("manifest.json.tmp")
    man_tmp.write_text(json.dumps(manifest, ensure_ascii=False), "utf-8")
    man_tmp.replace(man_path)
    return dict(counts)


def read_sheet(sheet: Path, known_ids: dict[str, str]) -> list[dict]:
    """Validate and read a filled sheet. Returns the reviewed rows (non-empty verdict) as
    decisions ``{"item_id", "stage", "verdict", "correction", "sheet", "row"}``.

    Raises :class:`AuditSheetError` listing every bad row: changed column order or names
    (row 1), unknown item id, stage not matching the id, verdict not in
    ``ok`` / ``reject`` / ``correct``, ``correct`` without a correction, a JSON correction
    that does not parse.
    """
    sheet = Path(sheet)
    problems: list[tuple[int, str]] = []
    decisions: list[dict] = []
    with open(sheet, encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if header != COLUMNS:
            raise AuditSheetError(sheet, [(1, f"columns changed: expected {COLUMNS}, got {header}")])
        for n, row in enumerate(reader, 2):
            if len(row) != len(COLUMNS):
                problems.append((n, f"expected {len(COLUMNS)} cells, got {len(row)}"))
                continue
            cells = dict(zip(COLUMNS, row))
            item_id, verdict = cells["item_id"].strip(), cells["verdict"].strip().lower()
            if item_id not in known_ids:
                problems.append((n, f"unknown item id {item_id!r} (not in any sheet `jiezi audit sample` wrote)"))
                continue
            if cells["stage"].strip() != known_ids[item_id]:
                problems.append((n, f"stage {cells['stage']!r} does not match item {item_id!r} (stage {known_ids[item_id]!r})"))
            if not verdict:
                continue
            if verdict not in VERDICTS:
                problems.append((n, f"verdict {cells['verdict']!r} is not one of {', '.join(VERDICTS)}"))
                continue
            correction = cells["correction"].strip()
            if verdict == "correct":
                if not correction:
                    problems.append((n, "verdict 'correct' needs a correction"))
                    continue
                if correction.startswith(("{", "[")):
                    try:
                        json.loads(correction)
                    except ValueError as exc:
                        problems.append((n, f"correction looks like JSON but does not parse: {exc}"))
                        continue
            decisions.append({"item_id": item_id, "stage": known_ids[item_id], "verdict": verdict,
                              "correction": correction, "sheet": sheet.name, "row": n})
    if problems:
        raise AuditSheetError(sheet, problems)
    return decisions


def error_rates(decisions: list[dict]) -> dict:
    """Error rates per stage from reviewed decisions (the paper's audit figures).

    Returns ``{stage: {"reviewed", "ok", "reject", "correct", "error_rate"}}``, with the
    records stage also giving ``records_reviewed`` and ``record_error_rate`` (share of
    records with at least one rejected or corrected field). Rates are in 0..1.
    """
    out: dict[str, dict] = {}
    by_stage: dict[str, Counter] = {}
    bad_records: dict[str, bool] = {}
    for d in decisions:
        c = by_stage.setdefault(d["stage"], Counter())
        c["reviewed"] += 1
        c[d["verdict"]] += 1
        if d["stage"] == "records":
            rid = d["item_id"][len("record:"):].split("#", 1)[0]
            bad_records[rid] = bad_records.get(rid, False) or d["verdict"] != "ok"
    for stage, c in sorted(by_stage.items()):
        errors = c["reject"] + c["correct"]
        out[stage] = {"reviewed": c["reviewed"], "ok": c["ok"], "reject": c["reject"], "correct": c["correct"],
                      "error_rate": round(errors / c["reviewed"], 4) if c["reviewed"] else None}
        if stage == "records":
            out[stage]["records_reviewed"] = len(bad_records)
            out[stage]["record_error_rate"] = round(sum(bad_records.values()) / max(1, len(bad_records)), 4)
    return out


def ingest(out_dir: Path, sheet: Path) -> dict:
    """Validate ``sheet`` and append its decisions to ``out_dir/audit/decisions.jsonl``.

    Returns ``{"decisions": n, "rates": error_rates(this sheet), "rates_all":
    error_rates(every decision so far)}``. Raises :class:`AuditSheetError` (nothing
    written) for a bad sheet and ``FileNotFoundError`` when no sheet was ever sampled.
    """
    out_dir = Path(out_dir)
    man_path = out_dir / "audit" / "manifest.json"
    if not man_path.exists():
        raise FileNotFoundError(f"{man_path}: no audit manifest; run `jiezi audit sample --output {out_dir}` first")
    known = json.loads(man_path.read_text("utf-8"))["ids"]
    decisions = read_sheet(sheet, known)
    dec_path = out_dir / "audit" / "decisions.jsonl"
    with open(dec_path, "a", encoding="utf-8") as fh:
        for d in decisions:
            fh.write(json.dumps(d, ensure_ascii=False) + "\n")
    latest: dict[str, dict] = {}
    for line in dec_path.read_text("utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            latest[d["item_id"]] = d
    rates = {"decisions": len(decisions), "rates": error_rates(decisions),
             "rates_all": error_rates(list(latest.values()))}
    (out_dir / "audit" / "rates.json").write_text(json.dumps(rates, ensure_ascii=False, indent=1), "utf-8")
    return rates
