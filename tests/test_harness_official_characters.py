"""The official ``vqa_data.json``'s garbled ``character`` fields (issue 24): rows whose
character is GBK bytes read as UTF-8 are repaired from the id's prefix, others that
disagree with it are skipped and reported. The rows are made here in the release's shapes
(never copied from it), with real image files, and imported with ``jiezi import``."""

from __future__ import annotations

import json

import datasets
from image_files import glyph_image
from typer.testing import CliRunner

from harness.interop.official import check_character, gbk_mojibake_repair, import_official_dataset
from jiezi_cli import app


def _mojibake(ch: str) -> str:
    """What a UTF-8 reader makes of ``ch``'s GBK bytes (the release's garbling)."""
    return ch.encode("gbk").decode("utf-8")


def test_the_release_shapes_are_recovered():
    # the three code points the release shows for 山, 水 and 鹿
    assert [_mojibake(c) for c in "山水鹿"] == ["\u027d", "\u02ee", "\u00b9"]
    assert [gbk_mojibake_repair(c) for c in "\u027d\u02ee\u00b9"] == ["山", "水", "鹿"]
    assert gbk_mojibake_repair("山") is None  # a real CJK character is no GBK-as-UTF-8 text
    ok, note = check_character({"id": "山_隶书_3::vqa::script", "character": "\u027d"})
    assert ok == "山" and "U+027D" in note and "repaired" in note
    assert check_character({"id": "水_篆书_1::vqa::meaning", "character": "水"}) == ("水", None)
    assert check_character({"id": "free-form id", "character": "木"}) == ("木", None)
    bad, reason = check_character({"id": "山_隶书_3::vqa::script", "character": "木"})
    assert bad is None and "'山'" in reason and "'木'" in reason


def _vqa(tmp_path):
    (tmp_path / "images").mkdir()
    examples = []
    # nine garbled rows over three characters and three scripts, as in the release's sample
    rows = [(ch, script, k) for ch in "山水鹿" for k, script in enumerate(("隶书", "篆书", "金文"))]
    rows += [("日", "楷书", 0), ("月", "楷书", 0)]
    for ch, script, k in rows:
        image = f"images/{ch}_{script}_{k}.png"
        glyph_image(48).save(tmp_path / image)
        written = ch if ch in "日月" else _mojibake(ch)
        if ch == "月":
            written = "木"  # disagrees and is no mojibake: skipped
        for task, q, a in (("script", "请判断该字的字形类别。", script), ("headword", "这是什么字？", ch)):
            examples.append({"id": f"{ch}_{script}_{k}::vqa::{task}", "image": image, "character": written,
                             "script": script, "task": task, "question": q, "answer": a})
    path = tmp_path / "vqa_data.json"
    path.write_text(json.dumps({"levels": [{"id": "L1", "tasks": ["script", "headword"], "examples": examples}]},
                               ensure_ascii=False), "utf-8")
    return path


def test_import_repairs_nine_rows_and_skips_the_stranger(tmp_path):
    vqa = _vqa(tmp_path)
    report = import_official_dataset(vqa, tmp_path / "dataset")
    assert report["rows"] == 10 and report["turns"] == 20
    assert len(report["repaired"]) == 18  # nine images, two questions each
    assert [p["id"] for p in report["problems"]] == ["月_楷书_0::vqa::script", "月_楷书_0::vqa::headword"]
    out = datasets.load_dataset("parquet", data_files=str(tmp_path / "dataset" / "all" / "train-*.parquet"),
                                split="train")
    assert sorted(set(out["character"])) == sorted("山水鹿日")
    assert sum(1 for c in out["character"] if c == "山") == 3


def test_cli_reports_each_repair_and_skip(tmp_path):
    vqa = _vqa(tmp_path)
    res = CliRunner().invoke(app, ["import", "official-dataset", str(vqa), "-o", str(tmp_path / "d")])
    assert res.exit_code == 0, res.output
    assert "18 character(s) repaired, 2 problem(s)" in res.stdout
    assert "山_隶书_0::vqa::script: character 'ɽ' (U+027D) is GBK bytes read as UTF-8" in res.stderr
    assert "disagrees with the id's prefix '月'" in res.stderr
