"""Audit sheets: sample, review, ingest; bad sheets are rejected with row numbers."""

from __future__ import annotations

import csv
import json

import pytest
from datasets import load_dataset
from typer.testing import CliRunner

from builder.audit import COLUMNS, AuditSheetError, ingest, sample
from builder.qa_stage import read_jsonl
from jiezi_cli import app
from qa_fixtures import build_fixture


@pytest.fixture()
def built(sources_dir, tmp_path):
    out = tmp_path / "build"
    build_fixture(sources_dir, out, bench_size=40)
    return out


def _read(sheet):
    with open(sheet, encoding="utf-8-sig", newline="") as fh:
        return list(csv.reader(fh))


def _write(sheet, rows):
    with open(sheet, "w", encoding="utf-8-sig", newline="") as fh:
        csv.writer(fh).writerows(rows)


def test_sample_draws_the_paper_samples(built, tmp_path):
    sheet = tmp_path / "s.csv"
    counts = sample(built, sheet, record_fraction=0.5, dataset_pairs=20)
    rows = _read(sheet)
    assert rows[0] == COLUMNS
    stages = [r[2] for r in rows[1:]]
    n_bench = sum(1 for _ in read_jsonl(built / "qa" / "bench.jsonl"))
    assert stages.count("bench") == n_bench == counts["bench"]
    assert stages.count("dataset") == 20
    assert counts["records_sampled"] == 12  # half of the 24 fixture records
    assert all(r[0] == "" or r[0].endswith(".png") for r in rows[1:])
    assert all(json.loads(r[5]) for r in rows[1:] if r[2] != "records" or r[3] != "readings")


def test_reject_three_then_they_are_gone(built, tmp_path):
    sheet = tmp_path / "review.csv"
    res = CliRunner().invoke(app, ["audit", "sample", "--output", str(built), "--sheet", str(sheet),
                                   "--dataset-pairs", "30"])
    assert res.exit_code == 0, res.output
    rows = _read(sheet)
    bench_row = next(r for r in rows[1:] if r[2] == "bench" and r[1].endswith(":ORIM"))
    data_rows = [r for r in rows[1:] if r[2] == "dataset"][:2]
    rejected = [bench_row[1]] + [r[1] for r in data_rows]
    for r in rows[1:]:
        r[6] = "reject" if r[1] in rejected else "ok"
    corrected = next(r for r in rows[1:] if r[2] == "dataset" and r[1] not in rejected and r[1].endswith(":CHAR"))
    corrected[6], corrected[7] = "correct", corrected[4]  # a no-op correction: same answer
    _write(sheet, rows)

    res = CliRunner().invoke(app, ["audit", "ingest", str(sheet), "--output", str(built)])
    assert res.exit_code == 0, res.output
    rates = json.loads((built / "audit" / "rates.json").read_text("utf-8"))
    reviewed = len(rows) - 1
    assert rates["decisions"] == reviewed
    assert rates["rates"]["bench"]["reject"] == 1
    assert rates["rates"]["dataset"]["reject"] == 2 and rates["rates"]["dataset"]["correct"] == 1
    n_ds = rates["rates"]["dataset"]["reviewed"]
    assert rates["rates"]["dataset"]["error_rate"] == pytest.approx(3 / n_ds, abs=1e-4)
    assert rates["rates"]["records"]["error_rate"] == 0.0
    assert "error_rate" in res.output

    bench_ids = {f"bench:{r['id']}" for r in read_jsonl(built / "qa" / "bench.jsonl")}
    ds_ids = {f"dataset:{r['id']}:{q['kind']}" for r in read_jsonl(built / "qa" / "dataset.jsonl") for q in r["qa"]}
    for item in rejected:
        assert item not in bench_ids | ds_ids
    assert bench_row[1].removeprefix("bench:") not in set(
        load_dataset(str(built / "jiezi-bench"), "all", split="test")["id"])
    report = json.loads((built / "qa" / "report.json").read_text("utf-8"))
    assert report["audit"]["bench_rejected"] == 1 and report["audit"]["dataset_rejected"] == 2


def test_rejecting_a_record_field_drops_its_questions(built, tmp_path):
    sheet = tmp_path / "r.csv"
    sample(built, sheet, record_fraction=1.0, dataset_pairs=0, bench=False)
    rows = _read(sheet)
    target = next(r for r in rows[1:] if r[1] == "record:江_楷书#formation")
    target[6] = "reject"
    _write(sheet, rows)
    ingest(built, sheet)
    from builder.qa_stage import build_qa
    build_qa(built / "records", built, bench_size=40, progress=False, duan_notes=False)
    kinds = {q["kind"] for r in read_jsonl(built / "qa" / "dataset.jsonl") if r["record_id"] == "江_楷书" for q in r["qa"]}
    assert kinds and "FORC" not in kinds


def test_bad_sheets_are_rejected_with_row_numbers(built, tmp_path):
    sheet = tmp_path / "s.csv"
    sample(built, sheet, record_fraction=0.1, dataset_pairs=5)
    rows = _read(sheet)
    rows[2][1] = "dataset:no-such-image:CHAR"
    rows[3][6] = "maybe"
    rows[4][6] = "correct"
    rows[4][7] = ""
    bad = tmp_path / "bad.csv"
    _write(bad, rows)
    with pytest.raises(AuditSheetError) as err:
        ingest(built, bad)
    assert [r for r, _ in err.value.problems] == [3, 4, 5]
    assert "unknown item id" in str(err.value) and "'maybe'" in str(err.value)
    assert not (built / "audit" / "decisions.jsonl").exists()  # nothing applied

    swapped = [[r[1], r[0], *r[2:]] for r in _read(sheet)]
    _write(bad, swapped)
    with pytest.raises(AuditSheetError, match="row 1: columns changed"):
        ingest(built, bad)
    res = CliRunner().invoke(app, ["audit", "ingest", str(bad), "--output", str(built)])
    assert res.exit_code == 2 and "columns changed" in res.output
