"""The paper's expert-in-the-loop quality control as review sheets.

``jiezi audit sample`` (:func:`sample`) draws what the paper audited: 10% of the records
(one row per filled field: structure, IDS, formation, components, original meaning, ...),
5,000 QA pairs of JieZi-Dataset and every JieZi-Bench question, into one CSV sheet with
the columns of :data:`COLUMNS`; reviewers fill ``verdict`` (``ok`` / ``reject`` /
``correct``) and, for ``correct``, ``correction``. The accepted correction forms depend on
the item's subtask or record field (:data:`CORRECTION_FORMS`; the sheet repeats them in
its ``#help`` rows right under the header): a canonical label of ``metrics/acce/labels.py``
for CHAR / SCRC / STRC / FORC and the record fields structure / formation; the structured
answer (the ``answer_struct`` shape, e.g. ``{"structure": "⿰"}``, ``{"formation":
["形声"]}``, ``{"components": [...]}``); ``{"answer": ..., "answer_struct": ...}``; plain
text for ORIM / EVOI and the text fields. :func:`normalise_correction` checks a correction
and turns it into the form the build applies (a label or structured answer becomes
``{"answer", "answer_struct"}`` with the answer text written as the builder writes it).

``jiezi audit ingest`` (:func:`ingest`) validates a filled sheet (column order exactly as
written, known item ids, verdict values, every correction a valid value for its item;
every problem is reported with its CSV row number, and nothing is applied if any row is
bad), appends the decisions to
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
import hashlib
import io
import json
import random
import time
from collections import Counter
from pathlib import Path

from builder.qa.corrections import CORRECTION_FORMS, CorrectionError, accepted_forms, normalise_correction
from builder.qa.stage import read_jsonl
from hub.atomic import atomic_open, atomic_write_json
from hub.layout import records_dir_of

COLUMNS = ["image_path", "item_id", "stage", "question_or_field", "answer_or_value", "provenance", "verdict", "correction"]
VERDICTS = ("ok", "reject", "correct")
RECORD_FIELDS = ("structure", "ids", "formation", "components", "original_meaning", "definition_en",
                 "evolution", "readings", "variants")
# Columns sample writes and a reviewer must leave alone (ingest compares them with what
# sample wrote; ``stage`` is checked against the item id)
READ_ONLY = ("image_path", "question_or_field", "answer_or_value", "provenance")
# Rows whose item id starts with this are the sheet's own instructions, never items.
HELP_PREFIX = "#"


class AuditSheetError(ValueError):
    """A review sheet that cannot be ingested; ``problems`` lists ``(row, message)``."""

    def __init__(self, sheet: Path, problems: list[tuple[int, str]]):
        self.problems = problems
        lines = "\n".join(f"  row {r}: {m}" for r, m in problems[:50])
        more = f"\n  ... and {len(problems) - 50} more" if len(problems) > 50 else ""
        super().__init__(f"{sheet}: {len(problems)} problem(s), nothing applied:\n{lines}{more}")


def _cell_digests(row: list[str]) -> list[str]:
    """Short digests of a sheet row's :data:`READ_ONLY` cells (kept in the manifest)."""
    cells = dict(zip(COLUMNS, row))
    return [hashlib.sha1(cells[c].encode("utf-8")).hexdigest()[:12] for c in READ_ONLY]


def _records_dir(out_dir: Path) -> Path:
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


def help_rows() -> list[list[str]]:
    """The sheet's instruction rows (item id ``#help``): how to fill ``verdict`` and the
    correction forms per subtask and record field. Ingest skips them."""
    blank = ["", f"{HELP_PREFIX}help", "", "", "", "", "", ""]

    def row(what: str, text: str) -> list[str]:
        r = list(blank)
        r[3], r[4] = what, text
        return r

    rows = [row("HOW TO REVIEW", "verdict: ok / reject / correct (empty = not reviewed). For correct, "
                "write the right value in correction, in one of the forms below; ingest rejects the "
                "sheet (row numbers given, nothing applied) when a correction is not a valid value. "
                "Ingest ignores these #help rows.")]
    names = {"COMP": "COMR / COMF / COMI / COME / component questions", "EXEGESIS": "EVOI exegesis (dataset)"}
    for key, text in CORRECTION_FORMS.items():
        if key.startswith("record:"):
            fld = key.split(":", 1)[1]
            what = {"text": "original_meaning / definition_en / evolution",
                    "readings": "readings / variants"}.get(fld, fld)
            rows.append(row(f"record field {what}", text))
        else:
            rows.append(row(f"question {names.get(key, key)}", text))
    return rows


def _record_rows(rec_dir: Path, rng: random.Random, record_fraction: float, counts: Counter) -> list[list[str]]:
    """One row per filled field of ``record_fraction`` of the records (two passes: the file
    can be large, so only the sampled lines are parsed)."""
    rows: list[list[str]] = []
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
    return rows


def _dataset_rows(qa_dir: Path, rec_dir: Path, rng: random.Random, dataset_pairs: int, counts: Counter) -> list[list[str]]:
    """A reservoir sample of ``dataset_pairs`` QA pairs of JieZi-Dataset."""
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
    rows = []
    for image, row, q in sorted(reservoir, key=lambda t: (t[1]["id"], t[2]["kind"])):
        prov = q.get("provenance_json") or json.dumps(q.get("provenance", []), ensure_ascii=False)
        rows.append([str((rec_dir / image).resolve()), f"dataset:{row['id']}:{q['kind']}", "dataset",
                     q["question"], q["answer"], prov, "", ""])
        counts["dataset"] += 1
    return rows


def _bench_rows(qa_dir: Path, rec_dir: Path, counts: Counter) -> list[list[str]]:
    """Every JieZi-Bench row."""
    rows = []
    for r in read_jsonl(qa_dir / "bench.jsonl"):
        rows.append([str((rec_dir / r["image"]).resolve()), f"bench:{r['id']}", "bench",
                     r["question"], r["answer"], json.dumps(r["provenance"], ensure_ascii=False), "", ""])
        counts["bench"] += 1
    return rows


def _write_sheet(sheet: Path, rows: list[list[str]]) -> None:
    with atomic_open(sheet, encoding="utf-8-sig", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        # the instructions travel with the sheet, right under the header (the column
        # check reads row 1 only; ingest skips #help rows)
        w.writerows(help_rows())
        w.writerows(rows)


def _record_manifest(out_dir: Path, sheet: Path, rows: list[list[str]], counts: Counter, seed: int) -> None:
    """Add the sheet's item ids and read-only cell digests to ``audit/manifest.json``."""
    audit_dir = out_dir / "audit"
    audit_dir.mkdir(parents=True, exist_ok=True)
    man_path = audit_dir / "manifest.json"
    manifest = json.loads(man_path.read_text("utf-8")) if man_path.exists() else {"ids": {}, "sheets": []}
    cells = manifest.setdefault("cells", {})
    for r in rows:
        manifest["ids"][r[1]] = r[2]
        cells[r[1]] = _cell_digests(r)
    manifest["sheets"].append({"sheet": str(sheet.resolve()), "written_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                               "counts": dict(counts), "seed": seed})
    atomic_write_json(man_path, manifest, indent=None, newline=False)


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
    counts: Counter = Counter()
    rows = _record_rows(rec_dir, rng, record_fraction, counts)
    rows += _dataset_rows(qa_dir, rec_dir, rng, dataset_pairs, counts)
    if bench:
        rows += _bench_rows(qa_dir, rec_dir, counts)
    _write_sheet(sheet, rows)
    _record_manifest(out_dir, sheet, rows, counts, seed)
    return dict(counts)


def _decode_sheet(sheet: Path) -> str:
    raw = sheet.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        row = raw[:exc.start].count(b"\n") + 1
        raise AuditSheetError(sheet, [(row, f"{sheet.name}: not UTF-8 (byte offset {exc.start}); "
                                            "save it as 'CSV UTF-8' (Excel: File > Save As > CSV UTF-8)")]) from None


def _check_item(n: int, row: list[str], cells: dict, known_ids: dict[str, str], seen: dict[str, int],
                written_cells: dict[str, list[str]] | None) -> str | None:
    """The problem with one row's item id, stage or read-only cells (None when fine); a
    known, first-seen item is entered in ``seen``. A stage mismatch is reported but the row
    is still read (its verdict may carry other problems)."""
    item_id = cells["item_id"].strip()
    if item_id not in known_ids:
        return f"unknown item id {item_id!r} (not in any sheet `jiezi audit sample` wrote)"
    if item_id in seen:
        return f"item {item_id} appears twice, on rows {seen[item_id]} and {n}: keep one row per item"
    seen[item_id] = n
    wrote = (written_cells or {}).get(item_id)
    if wrote is not None:
        edited = [c for c, a, b in zip(READ_ONLY, _cell_digests(row), wrote) if a != b]
        if edited:
            return (f"item {item_id}: read-only column(s) {', '.join(edited)} differ from "
                    "what `jiezi audit sample` wrote; restore them and put the right value "
                    "in the correction column (verdict 'correct')")
    return None


def _read_verdict(item_id: str, cells: dict) -> tuple[str, str, str | None]:
    """(verdict, normalised correction, problem or None) of one row."""
    verdict = cells["verdict"].strip().lower()
    correction = written = cells["correction"].strip()
    if not verdict:
        return "", correction, None
    if verdict not in VERDICTS:
        return verdict, correction, f"verdict {cells['verdict']!r} is not one of {', '.join(VERDICTS)}"
    if verdict != "correct":
        return verdict, correction, None
    if not correction:
        return verdict, correction, (f"item {item_id}: verdict 'correct' needs a correction; "
                                     f"accepted: {accepted_forms(item_id)}")
    try:
        return verdict, normalise_correction(item_id, written), None
    except CorrectionError as exc:
        return verdict, correction, f"item {item_id}: correction {written!r} is not valid: {exc}"
    except (AttributeError, TypeError, KeyError, ValueError) as exc:  # a shape no check foresaw
        return verdict, correction, (f"item {item_id}: correction {written!r} has an unexpected shape "
                                     f"({type(exc).__name__}: {exc}); accepted: {accepted_forms(item_id)}")


def read_sheet(sheet: Path, known_ids: dict[str, str], written_cells: dict[str, list[str]] | None = None) -> list[dict]:
    """Validate and read a filled sheet. Returns the reviewed rows (non-empty verdict) as
    decisions ``{"item_id", "stage", "verdict", "correction", "sheet", "row"}``.

    ``correction`` is the normalised form (:func:`normalise_correction`);
    ``correction_as_written`` keeps the reviewer's text when it differs. Rows whose item id
    starts with ``#`` (the sheet's help rows) are skipped, whatever they hold.

    Raises :class:`AuditSheetError` listing every bad row: changed column order or names
    (row 1), unknown item id, stage not matching the id, verdict not in
    ``ok`` / ``reject`` / ``correct``, ``correct`` without a correction, a correction that
    is not a valid value for its item (a label outside the subtask's label set, JSON that
    does not parse or has the wrong shape, ...), the same item on two rows, a read-only
    cell (:data:`READ_ONLY`) that differs from what sample wrote (``cells``: item id ->
    :func:`_cell_digests`, from the manifest; ``written_cells``, not checked when None), a file that is not
    UTF-8 (Excel's plain "CSV" on a Chinese Windows writes GBK).
    """
    sheet = Path(sheet)
    problems: list[tuple[int, str]] = []
    decisions: list[dict] = []
    seen: dict[str, int] = {}
    with io.StringIO(_decode_sheet(sheet), newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if header != COLUMNS:
            raise AuditSheetError(sheet, [(1, f"columns changed: expected {COLUMNS}, got {header}")])
        for n, row in enumerate(reader, 2):
            if len(row) != len(COLUMNS):
                problems.append((n, f"expected {len(COLUMNS)} cells, got {len(row)}"))
                continue
            cells = dict(zip(COLUMNS, row))
            item_id = cells["item_id"].strip()
            if item_id.startswith(HELP_PREFIX):
                continue  # an instruction row (a verdict filled down a column over it means nothing)
            stage_ok = item_id not in known_ids or cells["stage"].strip() == known_ids[item_id]
            problem = _check_item(n, row, cells, known_ids, seen, written_cells)
            if item_id in known_ids and item_id in seen and seen[item_id] == n and not stage_ok:
                problems.append((n, f"stage {cells['stage']!r} does not match item {item_id!r} (stage {known_ids[item_id]!r})"))
            if problem is not None:
                problems.append((n, problem))
                continue
            verdict, correction, problem = _read_verdict(item_id, cells)
            if problem is not None:
                problems.append((n, problem))
                continue
            if not verdict:
                continue
            decision = {"item_id": item_id, "stage": known_ids[item_id], "verdict": verdict,
                        "correction": correction, "sheet": sheet.name, "row": n}
            if correction != cells["correction"].strip():
                decision["correction_as_written"] = cells["correction"].strip()
            decisions.append(decision)
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
    manifest = json.loads(man_path.read_text("utf-8"))
    decisions = read_sheet(sheet, manifest["ids"], manifest.get("cells"))
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
