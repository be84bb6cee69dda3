"""Audit sheets: sample, review, ingest; bad sheets are rejected with row numbers."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from datasets import load_dataset
from typer.testing import CliRunner

from builder.qa.audit import COLUMNS, AuditSheetError, ingest, sample
from builder.qa.stage import read_jsonl
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


def _items(rows):
    """The item rows of a sheet (not the header, not the #help rows)."""
    return [r for r in rows[1:] if not r[1].startswith("#")]


def test_sample_draws_the_paper_samples(built, tmp_path):
    sheet = tmp_path / "s.csv"
    counts = sample(built, sheet, record_fraction=0.5, dataset_pairs=20)
    rows = _read(sheet)
    assert rows[0] == COLUMNS
    stages = [r[2] for r in _items(rows)]
    n_bench = sum(1 for _ in read_jsonl(built / "qa" / "bench.jsonl"))
    assert stages.count("bench") == n_bench == counts["bench"]
    assert stages.count("dataset") == 20
    assert counts["records_sampled"] == 12  # half of the 24 fixture records
    assert all(r[0] == "" or r[0].endswith(".png") for r in _items(rows))
    assert all(json.loads(r[5]) for r in _items(rows) if r[2] != "records" or r[3] != "readings")


def test_reject_three_then_they_are_gone(built, tmp_path):
    sheet = tmp_path / "review.csv"
    res = CliRunner().invoke(app, ["audit", "sample", "--output", str(built), "--sheet", str(sheet),
                                   "--dataset-pairs", "30"])
    assert res.exit_code == 0, res.output
    rows = _read(sheet)
    bench_row = next(r for r in rows[1:] if r[2] == "bench" and r[1].endswith(":ORIM"))
    data_rows = [r for r in rows[1:] if r[2] == "dataset"][:2]
    rejected = [bench_row[1]] + [r[1] for r in data_rows]
    for r in rows[1:]:  # filled down the whole column, over the #help rows too (ignored)
        r[6] = "reject" if r[1] in rejected else "ok"
    corrected = next(r for r in rows[1:] if r[2] == "dataset" and r[1] not in rejected and r[1].endswith(":CHAR"))
    corrected[6], corrected[7] = "correct", corrected[4]  # a no-op correction: same answer
    _write(sheet, rows)

    res = CliRunner().invoke(app, ["audit", "ingest", str(sheet), "--output", str(built)])
    assert res.exit_code == 0, res.output
    rates = json.loads((built / "audit" / "rates.json").read_text("utf-8"))
    reviewed = len(_items(rows))
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
    from builder.qa.stage import build_qa
    build_qa(built / "records", built, bench_size=40, progress=False, duan_notes=False)
    kinds = {q["kind"] for r in read_jsonl(built / "qa" / "dataset.jsonl") if r["record_id"] == "江_楷书" for q in r["qa"]}
    assert kinds and "FORC" not in kinds


def test_bad_sheets_are_rejected_with_row_numbers(built, tmp_path):
    sheet = tmp_path / "s.csv"
    sample(built, sheet, record_fraction=0.1, dataset_pairs=5)
    rows = _read(sheet)
    first = len(rows) - len(_items(rows))  # index of the first item row
    rows[first][1] = "dataset:no-such-image:CHAR"
    rows[first + 1][6] = "maybe"
    rows[first + 2][6] = "correct"
    rows[first + 2][7] = ""
    bad = tmp_path / "bad.csv"
    _write(bad, rows)
    with pytest.raises(AuditSheetError) as err:
        ingest(built, bad)
    assert [r for r, _ in err.value.problems] == [first + 1, first + 2, first + 3]
    assert "unknown item id" in str(err.value) and "'maybe'" in str(err.value)
    assert not (built / "audit" / "decisions.jsonl").exists()  # nothing applied

    swapped = [[r[1], r[0], *r[2:]] for r in _read(sheet)]
    _write(bad, swapped)
    with pytest.raises(AuditSheetError, match="row 1: columns changed"):
        ingest(built, bad)
    res = CliRunner().invoke(app, ["audit", "ingest", str(bad), "--output", str(built)])
    assert res.exit_code == 2 and "columns changed" in res.output


def _bench_rows(built):
    return {r["id"]: r for r in read_jsonl(built / "qa" / "bench.jsonl")}


def test_invalid_corrections_reject_the_sheet_with_row_numbers(built, tmp_path):
    sheet = tmp_path / "s.csv"
    sample(built, sheet, record_fraction=1.0, dataset_pairs=5)
    rows = _read(sheet)
    by_id = {r[1]: (n, r) for n, r in enumerate(rows, 1)}
    strc = next(i for i in by_id if i.startswith("bench:") and i.endswith(":STRC"))
    forc = next(i for i in by_id if i.startswith("bench:") and i.endswith(":FORC"))
    comp = next(i for i in by_id if i.startswith("bench:") and i.endswith(":COMP_FULL"))
    scrc = next(i for i in by_id if i.startswith("bench:") and i.endswith(":SCRC"))
    rec_struct = next(i for i in by_id if i.startswith("record:") and i.endswith("#structure"))
    bad = {
        strc: "foo-structure",                                     # not a structure label
        forc: '{"formation": ["形声字"]}',                          # structured, unknown label
        comp: "氵 表意；工 表音",                                    # component answers need JSON
        scrc: '{"script": "篆书", "colour": "red"}',               # unknown key
        rec_struct: "left-right",                                  # English, not the IDC
    }
    for item, value in bad.items():
        by_id[item][1][6], by_id[item][1][7] = "correct", value
    ok = next(i for i in by_id if i.startswith("bench:") and i.endswith(":ORIM"))
    by_id[ok][1][6] = "ok"
    path = tmp_path / "bad.csv"
    _write(path, rows)
    before = _bench_rows(built)[strc.removeprefix("bench:")]["answer"]
    with pytest.raises(AuditSheetError) as err:
        ingest(built, path)
    assert sorted(r for r, _ in err.value.problems) == sorted(by_id[i][0] for i in bad)
    text = str(err.value)
    assert "'foo-structure'" in text and "⿰" in text and "独体" in text   # names the value and the label set
    assert "形声字" in text and "formation" in text
    assert "give JSON" in text and '"components"' in text
    assert "colour" in text
    assert "nothing applied" in text
    assert not (built / "audit" / "decisions.jsonl").exists()
    assert _bench_rows(built)[strc.removeprefix("bench:")]["answer"] == before
    res = CliRunner().invoke(app, ["audit", "ingest", str(path), "--output", str(built)])
    assert res.exit_code == 2 and "foo-structure" in res.output


def test_structured_and_label_corrections_are_applied(built, tmp_path):
    sheet = tmp_path / "s.csv"
    sample(built, sheet, record_fraction=0.1, dataset_pairs=5)
    rows = _read(sheet)
    bench = _bench_rows(built)
    strc_rows = [r for r in rows if r[1].startswith("bench:") and r[1].endswith(":STRC")]
    forc = next(r for r in rows if r[1].startswith("bench:") and r[1].endswith(":FORC")
                and bench[r[1].removeprefix("bench:")]["answer_struct"]["formation"] != ["会意"])
    comp = next(r for r in rows if r[1].startswith("bench:") and r[1].endswith(":COMP_ASPECT"))
    # the answer_struct shape, a bare label, and the answer as the builder writes it
    a, b = strc_rows[0], strc_rows[1]
    new_a = "⿱" if bench[a[1].removeprefix("bench:")]["answer_struct"]["structure"] != "⿱" else "⿲"
    a[6], a[7] = "correct", json.dumps({"structure": new_a}, ensure_ascii=False)
    b[6], b[7] = "correct", "独体"
    forc[6], forc[7] = "correct", '{"formation": ["会意"]}'
    comp[6], comp[7] = "correct", json.dumps(
        [{"name": "水", "functions": ["表意"], "interpretation": "河流"}], ensure_ascii=False)
    _write(sheet, rows)
    res = CliRunner().invoke(app, ["audit", "ingest", str(sheet), "--output", str(built)])
    assert res.exit_code == 0, res.output
    assert json.loads((built / "audit" / "rates.json").read_text("utf-8"))["rates"]["bench"]["correct"] == 4

    after = _bench_rows(built)
    got_a = after[a[1].removeprefix("bench:")]
    assert got_a["answer_struct"] == {"structure": new_a}
    assert got_a["answer"].startswith(new_a + "（")                  # written as the builder writes it
    got_b = after[b[1].removeprefix("bench:")]
    assert got_b["answer_struct"] == {"structure": "独体"} and got_b["answer"] == "独体（独体字）"
    got_f = after[forc[1].removeprefix("bench:")]
    assert got_f["answer_struct"] == {"formation": ["会意"], "yisheng": False} and got_f["answer"] == "会意"
    got_c = after[comp[1].removeprefix("bench:")]
    assert got_c["answer_struct"] == {"components": [{"name": "水", "functions": ["表意"], "interpretation": "河流"}]}
    assert "构件「水」" in got_c["answer"]
    # and so in the published bench
    pub = {r["id"]: r for r in load_dataset(str(built / "jiezi-bench"), "all", split="test")}
    assert json.loads(pub[got_a["id"]]["answer_struct"]) == {"structure": new_a}
    assert json.loads(pub[got_f["id"]]["answer_struct"])["formation"] == ["会意"]
    # the decision keeps what the reviewer wrote beside the normalised form
    decisions = [json.loads(x) for x in (built / "audit" / "decisions.jsonl").read_text("utf-8").splitlines()]
    d = next(x for x in decisions if x["item_id"] == forc[1])
    assert d["correction_as_written"] == '{"formation": ["会意"]}'
    assert json.loads(d["correction"])["answer_struct"]["formation"] == ["会意"]


def test_sheet_documents_the_correction_forms(built, tmp_path):
    from builder.qa.corrections import CORRECTION_FORMS

    sheet = tmp_path / "s.csv"
    sample(built, sheet, record_fraction=0.1, dataset_pairs=5)
    rows = _read(sheet)
    assert rows[0] == COLUMNS
    help_rows = [r for r in rows[1:] if r[1].startswith("#")]
    assert help_rows and rows[1] in help_rows                          # right under the header
    assert all(len(r) == len(COLUMNS) for r in help_rows)
    text = "\n".join(" ".join(r) for r in help_rows)
    for forms in CORRECTION_FORMS.values():
        assert forms in text
    for label in ("⿰", "独体", "形声", "表意", "保留", "answer_struct", "reject"):
        assert label in text
    # an untouched sheet ingests (help rows are not items)
    assert ingest(built, sheet)["decisions"] == 0
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text("utf-8")
    audit = readme[readme.index("jiezi audit sample"):]
    assert "answer_struct" in audit[:3000] and "#help" in audit[:3000]


def _rebuild(built):
    from builder.qa.stage import build_qa
    build_qa(built / "records", built, bench_size=40, progress=False, duan_notes=False)


def test_corrected_record_fields_yield_the_corrected_questions(built, tmp_path):
    sheet = tmp_path / "r.csv"
    sample(built, sheet, record_fraction=1.0, dataset_pairs=0, bench=False)
    rows = _read(sheet)
    by_id = {r[1]: r for r in rows[1:]}
    # a record JieZi-Dataset asks FORC and ORIM of (which one depends on the bench selection)
    rid = next(r["record_id"] for r in read_jsonl(built / "qa" / "dataset.jsonl")
               if {"FORC", "ORIM"} <= {q["kind"] for q in r["qa"]} and f"record:{r['record_id']}#formation" in by_id
               and f"record:{r['record_id']}#original_meaning" in by_id)
    by_id[f"record:{rid}#formation"][6:8] = ["correct", "会意"]
    by_id[f"record:{rid}#original_meaning"][6:8] = ["correct", "审校者写的本义"]
    _write(sheet, rows)
    ingest(built, sheet)
    _rebuild(built)
    qs = {q["kind"]: q for r in read_jsonl(built / "qa" / "dataset.jsonl") if r["record_id"] == rid
          for q in r["qa"]}
    assert qs["FORC"]["answer"] == "会意"
    assert "审校者写的本义" in qs["ORIM"]["answer"]
    row_of = {r[1]: n for n, r in enumerate(rows, 1)}
    for kind, fld in (("FORC", "formation"), ("ORIM", "original_meaning")):
        provs = qs[kind].get("provenance") or json.loads(qs[kind]["provenance_json"])
        assert {"source": "user", "rule": "audit.correction",
                "entry_id": f"r.csv:{row_of[f'record:{rid}#{fld}']}"}.items() <= provs[0].items() or any(
            p.get("rule") == "audit.correction" and p.get("entry_id") == f"r.csv:{row_of[f'record:{rid}#{fld}']}"
            for p in provs)
    # the bench profile uses the reviewer's value too
    from builder.qa.compose import facts_for
    from builder.qa.facts import BENCH
    from builder.qa.decisions import apply_record_decisions, load_decisions
    from builder.qa.stage import load_records
    from hub.skips import SkipLog
    skips = SkipLog()
    recs = load_records(built / "records", skips, progress=False)
    apply_record_decisions(recs, load_decisions(built), skips)
    rec = next(r for r in recs if r.id == rid)
    from builder.qa.evidence import EvidenceIndex
    f = facts_for(rec, BENCH, EvidenceIndex(recs))
    assert f.formation[0].label == "会意" and f.orim[0] == "审校者写的本义"


def test_malformed_corrections_are_row_errors(built, tmp_path):
    sheet = tmp_path / "s.csv"
    sample(built, sheet, record_fraction=0.1, dataset_pairs=200)
    rows = _read(sheet)
    chars = [(n, r) for n, r in enumerate(rows, 1) if r[2] == "dataset" and r[1].endswith(":CHAR")][:4]
    bad = ['{"answer": null}', '{"answer_struct": null}', "1", '{"answer": "x", "answer_struct": 5}']
    for (_, r), value in zip(chars, bad):
        r[6], r[7] = "correct", value
    _write(sheet, rows)
    with pytest.raises(AuditSheetError) as err:
        ingest(built, sheet)
    assert sorted(r for r, _ in err.value.problems) == [n for n, _ in chars]
    assert "CJK ideograph" in str(err.value)
    assert not (built / "audit" / "decisions.jsonl").exists()


def test_gbk_sheet_is_rejected_with_a_clear_message(built, tmp_path):
    sheet = tmp_path / "s.csv"
    sample(built, sheet, record_fraction=0.1, dataset_pairs=5)
    text = sheet.read_text("utf-8-sig")
    gbk = tmp_path / "gbk.csv"
    gbk.write_bytes(text.encode("gbk", errors="replace"))
    with pytest.raises(AuditSheetError, match=r"gbk.csv: not UTF-8 \(byte offset \d+\); save it as 'CSV UTF-8'"):
        ingest(built, gbk)


def test_duplicate_items_and_edited_read_only_cells_are_rejected(built, tmp_path):
    sheet = tmp_path / "s.csv"
    sample(built, sheet, record_fraction=0.1, dataset_pairs=20)
    rows = _read(sheet)
    items = [(n, r) for n, r in enumerate(rows, 1) if r[2] == "dataset"]
    (n1, r1), (n2, r2) = items[0], items[1]
    r1[6] = "reject"
    dup = list(r1)
    dup[6] = "ok"
    r2[4], r2[6] = r2[4] + "（改）", "ok"   # an edited answer instead of a correction
    rows.append(dup)
    _write(sheet, rows)
    with pytest.raises(AuditSheetError) as err:
        ingest(built, sheet)
    msgs = dict(err.value.problems)
    assert f"rows {n1} and {len(rows)}" in msgs[len(rows)]
    assert "answer_or_value" in msgs[n2] and "correction column" in msgs[n2]
    assert not (built / "audit" / "decisions.jsonl").exists()


def test_a_corrected_evoi_claims_no_rule(built, tmp_path):
    sheet = tmp_path / "s.csv"
    sample(built, sheet, record_fraction=0.1, dataset_pairs=5)
    rows = _read(sheet)
    evoi = next(r for r in rows if r[1].startswith("bench:") and r[1].endswith(":EVOI"))
    evoi[6], evoi[7] = "correct", "审校者改写的演变叙述"
    _write(sheet, rows)
    ingest(built, sheet)
    _rebuild(built)
    got = _bench_rows(built)[evoi[1].removeprefix("bench:")]
    assert got["answer"] == "审校者改写的演变叙述"
    assert got["answer_struct"]["evolution"] == "审校者改写的演变叙述" and got["answer_struct"].get("rules", []) == []
    assert [p["rule"] for p in got["provenance"]] == ["audit.correction"]
