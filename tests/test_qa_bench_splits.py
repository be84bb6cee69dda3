"""JieZi-Bench selection, per-image proportions, splits and leakage into JieZi-Dataset."""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict

import pytest
from datasets import load_dataset

from builder.qa.stage import read_jsonl
from qa_fixtures import build_fixture


@pytest.fixture(scope="module")
def built(sources_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("build")
    report = build_fixture(sources_dir, out, bench_size=40)
    return out, report


def test_one_question_per_subtask_per_image_and_component_ratio(built):
    out, report = built
    rows = list(read_jsonl(out / "qa" / "bench.jsonl"))
    per_image = defaultdict(Counter)
    for r in rows:
        per_image[r["image_id"]][r["subtask"]] += 1
    assert len(per_image) == report["bench"]["images"] >= 6
    for image_id, c in per_image.items():
        for s in ("CHAR", "SCRC", "STRC", "FORC", "ORIM", "EVOI"):
            assert c[s] == 1, (image_id, s)
        assert 1 <= c["COMR"] <= 2
    assert report["bench"]["by_subtask"]["CHAR"] == report["bench"]["images"]
    assert report["bench"]["component_questions_per_image"] == pytest.approx(
        report["bench"]["by_subtask"]["COMR"] / report["bench"]["images"], abs=1e-3)
    scripts = Counter(r["script"] for r in rows if r["subtask"] == "CHAR")
    assert scripts["甲骨文"] >= 1 and scripts["楷书"] >= 1  # spread over the scripts the images allow


def test_references_come_from_bench_sources(built):
    out, _ = built
    for r in read_jsonl(out / "qa" / "bench.jsonl"):
        sources = {p["source"] for p in r["provenance"]}
        if r["subtask"] == "ORIM":
            assert sources <= {"shuowen", "duan"}
        if r["subtask"] == "FORC":
            assert "shuowen" in sources
        if r["subtask"] == "EVOI":
            assert all(p["rule"].startswith("evolution.") for p in r["provenance"])
        assert r["answer"].strip()
        json.loads(json.dumps(r["answer_struct"]))


def test_split_flags_are_consistent(built):
    out, report = built
    rows = list(read_jsonl(out / "qa" / "bench.jsonl"))
    assert report["bench"]["splits"]["unseen_characters"] > 0
    assert report["bench"]["splits"]["unseen_glyphs"] >= report["bench"]["splits"]["unseen_characters"]
    for r in rows:
        if r["unseen_character"]:
            assert r["unseen_glyph"]
    plan = json.loads((out / "qa" / "bench_plan.json").read_text("utf-8"))
    unseen_chars = set(plan["unseen_characters"])
    # unseen characters have no ancient-script records (those images stay in training)
    assert not unseen_chars & {"日", "月", "木", "大"}
    assert {r["character"] for r in rows if r["unseen_character"]} == unseen_chars


def test_no_leakage_into_the_published_dataset(built):
    out, report = built
    leak = report["leakage"]
    assert leak["bench_images_in_dataset"] == leak["unseen_characters_in_dataset"] == 0
    assert leak["unseen_glyph_pairs_in_dataset"] == 0
    assert leak["dataset_answers_naming_an_unseen_character"] == 0
    bench = load_dataset(str(out / "jiezi-bench"), "all", split="test")
    dataset = load_dataset(str(out / "jiezi-dataset"), "all", split="train")
    gallery = load_dataset(str(out / "jiezi-dataset"), "records", split="train")
    bench = bench.cast_column("image", bench.features["image"].__class__(decode=False))
    bench_sha = {hashlib.sha256(x["bytes"]).hexdigest() for x in bench["image"]}
    bench_ids = set(bench["image_id"])
    ds_rows = dataset.cast_column("images", dataset.features["images"].__class__(
        dataset.features["images"].feature.__class__(decode=False)))
    ds_sha = {hashlib.sha256(ims[0]["bytes"]).hexdigest() for ims in ds_rows["images"]}
    assert not bench_sha & ds_sha
    assert not bench_ids & set(dataset["id"]) and not bench_ids & set(gallery["id"])
    unseen_chars = set(bench.filter(lambda r: r["unseen_character"])["character"])
    assert unseen_chars and not unseen_chars & (set(dataset["character"]) | set(gallery["character"]))
    # nor named in any answer (as a component, a variant or in a gloss)
    for turns in list(dataset["messages"]) + list(dataset["messages_en"]):
        for t in turns:
            if t["role"] == "assistant":
                assert not unseen_chars & set(t["content"][0]["text"])
    unseen_pairs = {(r["character"], r["script"]) for r in bench if r["unseen_glyph"]}
    assert not unseen_pairs & set(zip(dataset["character"], dataset["script"]))


def test_gallery_hides_bench_reference_text(built):
    out, _ = built
    plan = json.loads((out / "qa" / "bench_plan.json").read_text("utf-8"))
    reserved = set(plan["reserved_characters"])
    for row in read_jsonl(out / "qa" / "gallery_records.jsonl"):
        rec = json.loads(row["record"])
        if rec["character"] in reserved:
            assert not any(k.startswith("shuowen:") for k in rec["raw"])
            om = rec.get("original_meaning")
            assert om is None or all(p["source"] not in ("shuowen", "duan") for p in om["provenance"])


def test_unseen_components_flag(built):
    out, report = built
    rows = [r for r in read_jsonl(out / "qa" / "bench.jsonl") if r["kind"] == "COMP_FULL"]
    dataset_names = set()
    for row in read_jsonl(out / "qa" / "dataset.jsonl"):
        for q in row["qa"]:
            for c in (json.loads(q["answer_struct_json"]) or {}).get("components", []):
                dataset_names.add(c["name"])
    from builder.qa.evolution import canonical_component
    seen = {canonical_component(n) for n in dataset_names}
    for r in rows:
        names = [c["name"] for c in r["answer_struct"]["components"]]
        assert r["unseen_components"] == sorted(n for n in set(names) if canonical_component(n) not in seen)
    assert 0 <= report["bench"]["unseen_component_share"] <= 1


def test_selection_is_deterministic(built, sources_dir, tmp_path):
    out, _ = built
    again = tmp_path / "again"
    build_fixture(sources_dir, again, bench_size=40, publish=False)
    a = json.loads((out / "qa" / "bench_plan.json").read_text("utf-8"))
    b = json.loads((again / "qa" / "bench_plan.json").read_text("utf-8"))
    assert a["images"]
    assert a["unseen_characters"] == b["unseen_characters"]
    assert [(i["character"], i["script"]) for i in a["images"]] == [(i["character"], i["script"]) for i in b["images"]]


def test_small_build_warns_and_leaves_empty_splits_out(sources_dir, tmp_path):
    """A bench too small for 12.5% unseen characters: the stage report warns, the empty
    split is not declared, and the real `datasets.load_dataset` loads every declared
    config and split (and the whole config) offline."""
    from huggingface_hub import DatasetCard

    from harness.bench import load_bench

    out = tmp_path / "small"
    report = build_fixture(sources_dir, out, bench_size=4)
    assert report["bench"]["splits"]["unseen_characters"] == 0
    warnings = report["bench"]["selection"]["warnings"]
    assert any(w.startswith("split unseen_characters is empty") and "left out" in w for w in warnings)
    folder = out / "jiezi-bench"
    card = DatasetCard.load(folder / "README.md")
    data = card.data.to_dict()
    for c in data["configs"]:
        assert [d["split"] for d in c["data_files"]] == ["test", "unseen_glyphs"]
    for info in data["dataset_info"]:
        assert [s["name"] for s in info["splits"]] == ["test", "unseen_glyphs"]
    assert not list(folder.rglob("unseen_characters-*"))
    assert "not published" in card.text and "split unseen_characters is empty" in card.text
    cache = str(tmp_path / "hf")
    for config in ("L1", "L2", "L3", "L4", "all"):
        whole = load_dataset(str(folder), config, cache_dir=cache)
        assert set(whole) == {"test", "unseen_glyphs"} and len(whole["test"]) > 0
        assert len(load_dataset(str(folder), config, split="unseen_glyphs", cache_dir=cache)) > 0
    with pytest.raises(ValueError, match="Unknown split"):
        load_dataset(str(folder), "all", split="unseen_characters", cache_dir=cache)
    assert len(load_bench(folder, "all", "test")) == report["bench"]["questions"]  # what `jiezi eval` reads


def test_bench_smaller_than_requested_is_reported(sources_dir, tmp_path):
    report = build_fixture(sources_dir, tmp_path / "b", bench_size=1024, publish=False)
    sel = report["bench"]["selection"]
    assert sel["requested_images"] == 1024 and report["bench"]["images"] < 1024
    assert any(f"JieZi-Bench has {report['bench']['images']} images, fewer than the 1024 requested" in w
               for w in sel["warnings"])
