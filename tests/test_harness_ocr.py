"""PP-OCR (the rapidocr wheel's PP-OCRv6 recogniser) as a glyph reader, the ``ocr`` backend
and the fused OCR + retrieval baseline, on glyphs rendered from installed fonts."""

from __future__ import annotations

import io
import itertools
import json

import numpy as np
import pytest
from harness_fixtures import BENCH_FONT, FACTS, UNSEEN_CHARACTERS, build_hub_folders, render_glyph
from PIL import Image, ImageDraw, ImageFont

from harness.baselines.ocr import GlyphReader, OCRUnavailable, model_files, single_char_ctc
from harness.eval.backends.base import ModelSpecError, parse_model_spec
from harness.eval.options import EvalOptions
from harness.eval.run import evaluate

COMMON = "江河林明休好木本日月"


@pytest.fixture(scope="module")
def reader():
    return GlyphReader(use_detector=False)


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    root = tmp_path_factory.mktemp("hub-ocr")
    bench, data = build_hub_folders(root)
    return {"bench": bench, "dataset": data, "cache": root / "cache"}


def _img(ch, font=BENCH_FONT):
    return Image.open(io.BytesIO(render_glyph(ch, font)))


def _noise(seed=0, size=128):
    return Image.fromarray((np.random.default_rng(seed).random((size, size)) * 255).astype(np.uint8))


# --------------------------------------------------------------------------- the reader
def test_model_files_come_from_the_installed_wheel():
    rec, det = model_files()
    assert rec.name == "PP-OCRv6_rec_small.onnx" and det.name == "PP-OCRv6_det_small.onnx"
    assert "rapidocr" in rec.parts and rec.stat().st_size > 1_000_000
    with pytest.raises(ValueError, match="unknown OCR model"):
        model_files("ppocr-v99")


def test_reads_font_renderings_of_common_characters(reader):
    images = [_img(c) for c in COMMON]
    readings = reader.read(images)
    assert [r.top[0] for r in readings] == list(COMMON)
    assert all(r.text == c for r, c in zip(readings, COMMON))
    assert min(r.top[1] for r in readings) > 0.5
    # light ink on a dark ground (a rubbing) and a small image are read the same way
    inverted = Image.eval(_img("林").convert("L"), lambda v: 255 - v)
    small = _img("明").resize((40, 40))
    assert [r.top[0] for r in reader.read([inverted, small])] == ["林", "明"]


def test_noise_and_blank_images_get_no_confident_reading(reader):
    blank = Image.new("L", (100, 100), 255)
    for r in reader.read([_noise(0), _noise(1), blank]):
        assert r.top[1] < 0.5


def test_single_char_ctc_is_the_sum_over_alignments():
    rng = np.random.default_rng(3)
    steps, classes = 4, 4
    probs = rng.random((2, steps, classes)).astype(np.float32)
    probs /= probs.sum(2, keepdims=True)
    got = single_char_ctc(probs)
    for n in range(2):
        want = np.zeros(classes)
        for path in itertools.product(range(classes), repeat=steps):
            # collapse repeats, drop blanks (class 0): the paths that read exactly one label
            collapsed = [k for i, k in enumerate(path) if k != 0 and (i == 0 or path[i - 1] != k)]
            if len(collapsed) == 1:
                want[collapsed[0]] += np.prod([probs[n, t, k] for t, k in enumerate(path)])
        np.testing.assert_allclose(got[n], want, rtol=1e-5, atol=1e-7)


def test_closed_vocabulary_ranks_only_its_candidates(reader):
    vocab = ["江", "河", "林", "\U000f0000"]  # the last one is outside the recogniser's dictionary
    known, ids = reader.vocabulary(vocab)
    assert known == ["江", "河", "林"] and len(ids) == 3
    r = reader.read([_img("河")], closed=vocab)[0]
    assert {c for c, _ in r.closed} <= set(known)
    assert r.closed[0][0] == "河"
    assert abs(sum(p for _, p in r.closed) - 1.0) < 1e-5
    # a glyph outside the closed list is forced onto one of its candidates
    r = reader.read([_img("明")], closed=["江", "河"])[0]
    assert r.closed[0][0] in ("江", "河") and r.top[0] == "明"


def test_nothing_is_downloaded(monkeypatch):
    from rapidocr.utils import download_file

    def refuse(*args, **kwargs):
        raise AssertionError("rapidocr tried to download a file")

    monkeypatch.setattr(download_file.DownloadFile, "run", staticmethod(refuse))
    r = GlyphReader(use_detector=True)
    # a small glyph on a wide background: the whole-image reading is tried, then the detector
    photo = Image.new("L", (640, 480), 250)
    ImageDraw.Draw(photo).text((300, 220), "江", font=ImageFont.truetype(BENCH_FONT[0], 60), fill=0, anchor="mm")
    got = r.read([photo])[0]
    assert got.top[0] == "江"
    assert r._det is not None or got.top[1] >= r.detector_below


def test_missing_package_is_a_clear_error(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "rapidocr" else real(name, *a))
    with pytest.raises(OCRUnavailable, match="pip install rapidocr"):
        model_files()


# ----------------------------------------------------------------------- the backends
def test_model_specs():
    assert str(parse_model_spec("ocr")) == "ocr:ppocr-v6"
    assert str(parse_model_spec("ocr:ppocr-v6/closed")) == "ocr:ppocr-v6/closed"
    assert str(parse_model_spec("fused")) == "fused:ppocr-v6"
    for bad in ("ocr:tesseract", "ocr:ppocr-v6/open", "fused:x"):
        with pytest.raises(ModelSpecError, match="expected"):
            parse_model_spec(bad)


def _run(hub, tmp_path, model):
    return evaluate(EvalOptions(model=model, bench=str(hub["bench"]), output=tmp_path / model.replace(":", "_").replace("/", "_"),
                                progress=False, bertscore=False, cache_dir=hub["cache"]))


def _predictions(res, out):
    return {json.loads(x)["id"]: json.loads(x) for x in (out / "predictions.jsonl").read_text("utf-8").splitlines()}


def test_ocr_backend_reads_every_bench_glyph_and_knows_no_script(hub, tmp_path):
    res = _run(hub, tmp_path, "ocr")
    out = tmp_path / "ocr"
    preds = _predictions(res, out)
    assert res["scores"]["CHAR"] == 100.0  # unseen characters (森, 仲) included: OCR needs no gallery image
    assert all(p["output"] == "" for i, p in preds.items() if i.endswith("::SCRC"))
    # the other levels come from the decided character's records; an unseen character has none
    strc = {i: p["output"] for i, p in preds.items() if i.endswith("::STRC")}
    assert sum(1 for v in strc.values() if v) == len(FACTS) - len(UNSEEN_CHARACTERS)
    assert res["model"]["ocr"]["recogniser"] == "PP-OCRv6_rec_small.onnx"
    closed = _run(hub, tmp_path, "ocr:ppocr-v6/closed")
    assert closed["scores"]["CHAR"] < 100.0  # the unseen characters are outside the closed vocabulary


@pytest.mark.slow  # the fused baseline fitted: 35-65 s on 2 cores
def test_fused_backend_records_which_component_decided(hub, tmp_path):
    res = _run(hub, tmp_path, "fused")
    out = tmp_path / "fused"
    retrieval = _run(hub, tmp_path, "retrieval")
    assert res["scores"]["CHAR"] >= retrieval["scores"]["CHAR"]
    assert res["scores"]["CHAR"] >= 90.0 and res["scores"]["SCRC"] >= 80.0
    decisions = json.loads((out / "decisions.json").read_text("utf-8"))
    assert len(decisions) == len(FACTS)
    assert {d["component"] for d in decisions.values()} <= {"both", "ocr", "retrieval", "templates", "fusion"}
    by_char = {d["character"]: d for d in decisions.values() if d["character"]}
    for ch in UNSEEN_CHARACTERS:  # only OCR can name a character the gallery lacks
        assert by_char[ch]["component"] in ("ocr", "fusion")
    assert by_char["江"]["component"] == "both"
    for d in decisions.values():
        assert {"confidence", "ocr", "retrieval_candidates", "scored"} <= set(d)
    counts = res["model"]["decisions"]["by_component"]
    assert sum(counts.values()) == len(FACTS)


def test_fused_baseline_abstains_on_noise(hub):
    from harness.baselines.fusion_fit import build_fused

    fb = build_fused(hub["dataset"], cache_dir=hub["cache"], progress=False)
    g = fb.gallery
    images = [_noise(5), _noise(6), _img("河")]
    queries = g.embedder.embed(images)
    sims, idx = g.search(queries, fb.retrieval.settings.k)
    readings = fb.read(images)
    noise = [fb.decide(queries[j], sims[j], idx[j], readings[j]) for j in (0, 1)]
    assert all(d.abstained and d.character is None for d in noise)
    he = fb.decide(queries[2], sims[2], idx[2], readings[2])
    assert not he.abstained and he.character == "河" and he.script == "楷书"
    assert fb.answer(he, "STRC").startswith("⿰") and fb.answer(noise[0], "STRC") == ""


# ----------------------------------------------------------------- the template reader
# Neither the fixture gallery's typeface nor its bench's (TemplateReader takes explicit faces
# without template_faces' guard, which refuses it as one of the real bench's designs).
TEMPLATE_FACE = ("/usr/share/fonts/truetype/cns11643/TW-Sung-98_1.ttf", 0)
TEMPLATE_VOCAB = "江河林明休好木本日月森仲寀宷案实采菜息悳肤肰勺勹卪卩飲飤汙汓魚魝"


@pytest.fixture(scope="module")
def templates(tmp_path_factory):
    from harness.baselines.embed import make_embedder
    from harness.baselines.templates import TemplateReader

    return TemplateReader(make_embedder("hog"), [TEMPLATE_FACE], tmp_path_factory.mktemp("templates"),
                          vocabulary=list(TEMPLATE_VOCAB))


def test_template_faces_refuse_a_bench_design_and_a_missing_file(tmp_path, monkeypatch):
    from harness.baselines.templates import TEMPLATE_FONTS_ENV, TemplateFontError, template_faces

    for bench_face in (BENCH_FONT[0], TEMPLATE_FACE[0], "/usr/share/fonts/truetype/arphic/uming.ttc"):
        with pytest.raises(ValueError, match="a design the bench is rendered in"):
            template_faces([bench_face])  # AR PL UKai, TW-Sung, and UMing (BabelStone Han's design)
    with pytest.raises(FileNotFoundError):
        template_faces([str(tmp_path / "none.ttf")])
    (tmp_path / "bad.ttf").write_text("not a font")
    monkeypatch.setenv(TEMPLATE_FONTS_ENV, str(tmp_path / "bad.ttf"))
    with pytest.raises(TemplateFontError, match=r"bad.ttf \(from \$JIEZI_TEMPLATE_FONTS\) is not a font file"):
        template_faces()  # named, and said where it came from: not blamed on the dataset
    dejavu = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
    monkeypatch.setenv(TEMPLATE_FONTS_ENV, dejavu)
    assert template_faces() == [(dejavu, 0)]


def test_template_characters_are_the_dictionary_blocks_only():
    from harness.baselines.templates import TEMPLATE_BLOCKS, template_characters

    chars = template_characters("/usr/share/fonts/truetype/babelstone/BabelStoneHan.ttf", 0)
    cps = [ord(c) for c in chars]
    assert all(any(lo <= cp <= hi for lo, hi in TEMPLATE_BLOCKS) for cp in cps)
    assert "永" in chars and "㕯" in chars and any(0x20000 <= cp <= 0x2A6DF for cp in cps)  # URO, Ext A, Ext B
    assert not any(0xF900 <= cp <= 0xFAFF or cp >= 0x2A700 for cp in cps)  # no compatibility ideograph, no Ext C+


def test_template_reader_reads_a_typeface_it_has_not_seen(templates):
    from builder.glyphs.fonts import resolve_design
    from builder.glyphs.render import font_image

    kai = resolve_design("LXGW WenKai").faces[0]  # a Kai glyph read against Song (TW-Sung) templates
    queries = templates.embedder.embed([font_image(kai.path, kai.index, ord(c), 128) for c in TEMPLATE_VOCAB])
    top = templates.read(queries, top=3)
    assert set(templates.characters) == set(TEMPLATE_VOCAB)
    assert all(len(t) == 3 and t[0][1] >= t[1][1] >= t[2][1] for t in top)
    right = [c for c, t in zip(TEMPLATE_VOCAB, top) if t[0][0] == c]
    assert len(right) >= 0.85 * len(TEMPLATE_VOCAB), right  # 32 of 32 on the set-up's fonts
    assert {"宷", "飤", "魝"} <= set(right)  # outside PP-OCRv6's classes, read by their templates
    scores = templates.scores(queries[:2])
    assert scores.shape == (2, len(templates.characters))
    sim = templates.similarity(queries[0], ["江", "\U000f0000"])
    assert sim[0] == pytest.approx(scores[0, templates.index["江"]], abs=1e-5) and sim[1] == -1.0


def test_fused_candidates_drop_non_han_readings(hub):
    from harness.baselines.fusion import is_han
    from harness.baselines.fusion_fit import build_fused
    from harness.baselines.ocr import Reading

    fb = build_fused(hub["dataset"], cache_dir=hub["cache"], progress=False, templates=False)
    assert fb.templates is None
    open_p, _ = fb._form_scores(Reading("P", [("P", 0.6), ("ρ", 0.1), ("江", 0.2)]))
    assert set(open_p) == {"江"}  # PP-OCR reads a Kai 卩 as the Latin P: no answer of this task
    assert is_han("卩") and is_han("𠟟") and not is_han("P") and not is_han("江河")


def test_unseen_pair_condition_hides_the_pair_only():
    from types import SimpleNamespace

    from harness.baselines.fusion_fit import _askable, _condition_mask

    fb = SimpleNamespace(gallery=SimpleNamespace(characters=["江", "江", "江", "河"]))
    alias = ["楷书", "楷书", "篆书", "楷书"]
    mask = _condition_mask(fb, np.asarray([0, 3]), np.asarray(["a", "b", "c", "d"], object), alias, "unseen pair")(0, 2)
    assert mask.tolist() == [[True, True, False, False], [False, False, False, True]]
    assert _askable("unseen pair", np.asarray([2]), alias, "楷书")  # 江 is still in the gallery as seal script
    assert not _askable("unseen pair", np.asarray([], np.int64), alias, "楷书")
    assert not _askable("seen", np.asarray([2]), alias, "楷书")


def test_policy_takes_retrieval_first_only_where_it_is_right_more_often():
    from harness.baselines.fusion_fit import choose_policy

    scripts = ["甲骨文"] * 4 + ["楷书"] * 4
    confidence = np.asarray([0.9, 0.2, 0.2, 0.2, 0.9, 0.9, 0.9, 0.2])
    right = np.asarray([1, 0, 0, 0, 1, 1, 1, 0], bool)  # fused: 1 of 4 oracle glyphs, 3 of 4 regular
    answered = np.asarray([1, 1, 0, 0, 1, 1, 0, 0], bool)
    ret_right = np.asarray([1, 1, 0, 0, 0, 0, 0, 0], bool)  # retrieval: 2 oracle glyphs, wrong on regular script
    policy, table = choose_policy(scripts, confidence, right, answered, ret_right, 0.5)
    assert policy == {"甲骨文": "retrieval-first"}
    assert table["甲骨文"] == {"n": 4, "fused": 25.0, "retrieval": 50.0, "retrieval_first": 50.0}
    assert table["楷书"]["fused"] == 75.0 and table["楷书"]["retrieval_first"] == 25.0


def test_decide_follows_the_scripts_policy(hub):
    import copy

    from harness.baselines.fusion_fit import build_fused

    fb = build_fused(hub["dataset"], cache_dir=hub["cache"], progress=False, templates=False)
    g = fb.gallery
    images = [_img("河"), _noise(7)]
    queries = g.embedder.embed(images)
    sims, idx = g.search(queries, fb.retrieval.settings.k)
    readings = fb.read(images)
    own = fb.retrieval.decide(sims[0], idx[0])
    assert not own.abstained
    fb.model = copy.copy(fb.model)
    fb.model.policy = {"楷书": "retrieval-first"}
    d = fb.decide(queries[0], sims[0], idx[0], readings[0])
    # retrieval's answer; read by both when the recogniser read that character first too
    said = "both" if readings[0].top[0] == own.character else "retrieval"
    assert (d.character, d.confidence, d.component) == (own.character, own.confidence, said)
    readings[0].candidates = [("湖", 0.9)]
    assert fb.decide(queries[0], sims[0], idx[0], readings[0]).component == "retrieval"
    assert fb.decide(queries[1], sims[1], idx[1], readings[1]).abstained  # never on speckle
    fb.model.policy = {}
    plain = fb.decide(queries[0], sims[0], idx[0], readings[0])  # no policy: the candidate model's best
    assert (plain.character, plain.confidence) == tuple(plain.scored[0])


def test_script_of_a_character_outside_the_neighbours_is_the_neighbours_vote(hub):
    """OCR may decide a character none of the k nearest gallery glyphs is (an ancient drawing
    of a pair the gallery lacks): the script is then what those neighbours vote, never the
    script of the character's own farther images; its facts still come from those images."""
    from harness.baselines.fusion_fit import build_fused

    fb = build_fused(hub["dataset"], cache_dir=hub["cache"], progress=False, templates=False)
    g = fb.gallery
    query = g.embedder.embed([_img("河")])
    sims, idx = g.search(query, 3)
    near = {g.characters[int(i)] for i in idx[0]}
    far = next(c for c in fb.vocabulary if c not in near)
    script, rows, counts = fb._script(far, query[0], sims[0], idx[0], None)
    assert script == fb.retrieval.script_vote(sims[0], idx[0])
    assert rows and all(g.characters[r] == far for r in rows)  # the facts' rows: the character's own
    assert sum(counts.values()) == len(idx[0])  # the images that voted: the neighbours
    inside = g.characters[int(idx[0][0])]  # among the neighbours: its own neighbours vote
    mine = np.asarray([g.characters[int(i)] == inside for i in idx[0]])
    script, rows, _ = fb._script(inside, query[0], sims[0], idx[0], None)
    assert rows == [int(i) for i in idx[0][mine]]
    assert script == fb.retrieval.script_vote(sims[0][mine], idx[0][mine])


def test_fused_candidates_include_what_only_the_templates_name(hub, templates):
    from builder.glyphs.fonts import resolve_design
    from builder.glyphs.render import font_image
    from harness.baselines.fusion import FEATURES
    from harness.baselines.fusion_fit import build_fused

    fb = build_fused(hub["dataset"], cache_dir=hub["cache"], progress=False, templates=templates)
    described = fb.describe()["templates"]
    assert described["characters"] == len(TEMPLATE_VOCAB)
    assert described["licences"] == ["the font file's own"]  # TW-Sung is not a reserved face: no licence assumed
    kai = resolve_design("LXGW WenKai").faces[0]
    image = font_image(kai.path, kai.index, ord("宷"), 128)  # outside PP-OCRv6's classes and the gallery
    query = fb.gallery.embedder.embed([image])
    sims, idx = fb.gallery.search(query, fb.retrieval.settings.k)
    reading = fb.read([image])[0]
    assert "宷" not in fb.reader.index and "宷" not in fb.rows_of
    chars, x, _ = fb.candidate_table(query[0], sims[0], idx[0], reading)
    row = x[chars.index("宷")]
    assert row[FEATURES.index("template_first")] == 1.0 and row[FEATURES.index("template_gap")] > 0
    assert row[FEATURES.index("ocr_known")] == 0.0 and row[FEATURES.index("in_gallery")] == 0.0
    d = fb.decide(query[0], sims[0], idx[0], reading)
    assert "template" in d.features and d.record()["scored"]


def test_candidate_model_gives_one_glyphs_rows_the_same_probabilities_as_a_batch():
    from harness.baselines.fusion import FEATURES, FusionModel, fit_candidates

    rng = np.random.default_rng(0)
    x = rng.random((600, len(FEATURES)))
    y = x[:, 0] + 0.3 * rng.random(600) > 0.7
    model = FusionModel([], 0.0, estimator=fit_candidates(x, y))
    batch = model.probability(np.vstack([x, x]))  # >= 1,000 rows: scikit-learn's own threads
    single = model.probability(x[:12])  # a glyph's candidates: one thread, same trees
    np.testing.assert_allclose(single, batch[:12], rtol=0, atol=1e-12)
    assert 0.0 <= single.min() and single.max() <= 1.0 and model.probability(np.zeros((0, len(FEATURES)))).shape == (0,)


def test_exact_reading_of_a_gallery_character_keeps_its_own_form():
    """Issue 22: a 汓 read 汙 was answered 污, OpenCC's t2s form of the reading. A reading the
    gallery holds lends its probability to its one-to-one partner only; a reading the gallery
    lacks (or hides: held-out fitting) still lends it to OpenCC's forms."""
    from types import SimpleNamespace

    from harness.baselines.fusion import FusedBaseline
    from harness.baselines.ocr import Reading

    fake = SimpleNamespace(rows_of={"汙": np.asarray([0]), "污": np.asarray([1]), "唠": np.asarray([2]),
                                    "嘮": np.asarray([3])})
    fake._visible = lambda c, hidden: FusedBaseline._visible(fake, c, hidden)
    reading = Reading("汙", [("汙", 0.8), ("唠", 0.1)])
    open_p, _ = FusedBaseline._form_scores(fake, reading)
    assert open_p == {"汙": 0.8, "唠": 0.1, "嘮": 0.1}  # 污 not read; the one-to-one 唠/嘮 pair both
    hidden = np.asarray([True, False, False, False])  # 汙's only gallery image withheld
    open_p, _ = FusedBaseline._form_scores(fake, reading, hidden)
    assert open_p["污"] == 0.8 and open_p["汙"] == 0.8
    del fake.rows_of["汙"]  # the gallery lacks 汙: its OpenCC form is a candidate
    assert FusedBaseline._form_scores(fake, reading)[0]["污"] == 0.8


def test_condition_weights_stand_for_the_deployment_mix():
    from harness.baselines.fusion_fit import DEPLOYMENT_MIX, condition_weights

    scripts = ["楷书"] * 6 + ["篆书"] * 2 + ["隶书"] * 2
    conditions = ["seen", "seen", "unseen character", "unseen pair", "held-out script", "held-out script",
                  "unseen pair", "seen", "seen", "unseen pair"]
    mix = {"楷书": {"seen": 3, "unseen character": 1}, "篆书": {"unseen pair": 1}}
    w = condition_weights(scripts, conditions, mix)
    # 楷书's 6 decisions weigh 6 in all: 3/4 of it on its 2 seen, 1/4 on its 1 unseen character
    np.testing.assert_allclose(w[:6], [2.25, 2.25, 1.5, 0, 0, 0])
    np.testing.assert_allclose(w[6:8], [2.0, 0.0])  # 篆书: unseen pairs only
    np.testing.assert_allclose(w[8:], [1.0, 1.0])  # not in the mix: equal weights
    assert set(DEPLOYMENT_MIX["楷书"]) == {"seen", "unseen character"}  # no regular-script pair is withheld


def test_policy_and_candidate_model_count_decisions_by_weight():
    from harness.baselines.fusion import FEATURES, fit_candidates
    from harness.baselines.fusion_fit import choose_policy

    scripts = ["甲骨文"] * 4
    confidence = np.asarray([0.9, 0.9, 0.2, 0.2])
    right = np.asarray([1, 1, 0, 0], bool)  # fused right on the first two
    answered = np.ones(4, bool)
    ret_right = np.asarray([0, 0, 1, 1], bool)  # retrieval answers all, right on the last two
    policy, table = choose_policy(scripts, confidence, right, answered, ret_right, 0.5, np.asarray([1, 1, 3, 3.0]))
    assert policy == {"甲骨文": "retrieval-first"} and table["甲骨文"]["fused"] == 25.0
    assert choose_policy(scripts, confidence, right, answered, ret_right, 0.5, np.asarray([3, 3, 1, 1.0]))[0] == {}
    rng = np.random.default_rng(0)
    x = rng.random((400, len(FEATURES)))
    y = x[:, 0] > 0.5
    flipped = np.concatenate([y[:200], ~y[200:]])  # the second half says the opposite, at weight 0
    weight = np.r_[np.ones(200), np.zeros(200)]
    a = fit_candidates(x[:200], y[:200]).predict_proba(x)[:, 1]
    b = fit_candidates(x, flipped, weight).predict_proba(x)[:, 1]
    np.testing.assert_allclose(a, b)



# ------------------------------------------- the recogniser's features and the template reader
LOOK_ALIKES = "己已"  # one stroke apart (on the default bench the HOG templates took a TW-Sung 己 for 已)


def test_a_reading_keeps_the_recognisers_features_through_its_cache_form(reader):
    from harness.baselines.ocr import FEATURE_DIM, Reading, RecogniserEmbedder

    r = reader.read([_img("河")])[0]
    assert r.features.shape == (FEATURE_DIM,) and abs(float(np.linalg.norm(r.features)) - 1.0) < 1e-4
    # the embedder of the template reader sees the same line, so a template and a reading compare
    assert float(RecogniserEmbedder().embed([_img("河")])[0] @ r.features) > 0.999
    back = Reading.from_dict(json.loads(json.dumps(r.to_dict())))
    assert back.features.dtype == np.float32 and np.abs(back.features - r.features).max() < 1e-3
    assert (back.text, back.candidates) == (r.text, [(c, round(p, 6)) for c, p in r.candidates])
    assert Reading.from_dict({"text": "", "candidates": []}).features is None  # a cache of an older reader
    assert GlyphReader(features=False).read([_img("河")])[0].features is None


def test_templates_compared_by_the_recognisers_features_tell_look_alikes_apart(reader, tmp_path):
    from builder.glyphs.fonts import resolve_design
    from builder.glyphs.render import font_image
    from harness.baselines.ocr import RecogniserEmbedder
    from harness.baselines.templates import TemplateReader

    vocab = TEMPLATE_VOCAB + LOOK_ALIKES
    templates = TemplateReader(RecogniserEmbedder(), [TEMPLATE_FACE], tmp_path, vocabulary=list(vocab))
    kai = resolve_design("LXGW WenKai").faces[0]  # Kai glyphs against Song (TW-Sung) templates
    readings = reader.read([font_image(kai.path, kai.index, ord(c), 128) for c in vocab])
    top = templates.read(np.stack([r.features for r in readings]), top=3)
    right = [c for c, t in zip(vocab, top) if t[0][0] == c]
    assert len(right) >= 0.9 * len(vocab), right  # 34 of 34 on the set-up's fonts
    assert set(LOOK_ALIKES) <= set(right)
    assert {"宷", "勹", "卩", "魝"} <= set(right)  # outside PP-OCRv6's classes: the features still describe them


def test_fused_baseline_asks_its_templates_in_their_own_space(hub, reader, tmp_path):
    from harness.baselines.fusion import FusedBaseline
    from harness.baselines.ocr import Reading, RecogniserEmbedder
    from harness.baselines.retrieval import build_baseline
    from harness.baselines.templates import TemplateReader

    rb = build_baseline(hub["dataset"], cache_dir=hub["cache"], progress=False)
    by_features = TemplateReader(RecogniserEmbedder(), [TEMPLATE_FACE], tmp_path, vocabulary=list(TEMPLATE_VOCAB))
    fb = FusedBaseline(rb, reader, templates=by_features)
    image = _img("河")
    query, reading = rb.gallery.embedder.embed([image])[0], reader.read([image])[0]
    assert fb.template_query(query, reading) is reading.features  # not the gallery's HOG embedding
    assert fb.template_reading(fb.template_query(query, reading))[0][0] == "河"
    assert fb.template_readings(query[None], [Reading("河", [("河", 0.9)])]) == [None]  # no features: no templates
    hog = TemplateReader(rb.gallery.embedder, [TEMPLATE_FACE], tmp_path, vocabulary=list(TEMPLATE_VOCAB))
    assert FusedBaseline(rb, reader, templates=hog).template_query(query, reading) is query


def test_the_answer_is_the_form_the_glyph_shows_and_agreeing_readers_are_answered():
    from types import SimpleNamespace

    from harness.baselines.fusion import AGREEMENT_OCR, FEATURES, FusedBaseline

    def row(**kw):
        r = np.zeros(len(FEATURES))
        for k, v in kw.items():
            r[FEATURES.index(k)] = v
        return r

    # the model ranks the traditional 癬 first (both forms count as one character when fitted);
    # the recogniser read the simplified 癣 and its template is nearer: 癣 is answered
    chars = ["癬", "癣", "痒"]
    x = np.stack([row(ocr_exact=0.17, vote=0.9, template=0.80), row(ocr_exact=0.82, template=0.85),
                  row(ocr_exact=0.01, template=0.70)])
    assert FusedBaseline._shown_form(chars, x, np.asarray([0.99, 0.98, 0.01]), 0) == 1
    assert FusedBaseline._shown_form(chars, x, np.asarray([0.01, 0.02, 0.9]), 2) == 2  # no other form: kept
    # a template look-alike first, the recogniser and retrieval agreeing on 天 (retrieval voting a
    # modern script, so ocr_modern carries the reading): 天 is answered
    fb = SimpleNamespace()
    chars = ["夭", "天"]
    x = np.stack([row(template_first=1, template=0.95),
                  row(ocr_p=0.9998, ocr_modern=0.9998, ocr_first=1, retrieval_first=1, vote=0.98)])
    assert FusedBaseline._agreement(fb, chars, x) == 1
    x[1, FEATURES.index("ocr_modern")] = AGREEMENT_OCR - 0.01  # a weaker reading leaves the model's choice
    assert FusedBaseline._agreement(fb, chars, x) is None
    x[1, FEATURES.index("ocr_modern")] = 0.0  # retrieval votes an ancient script: the model decides
    assert FusedBaseline._agreement(fb, chars, x) is None
    x[1, FEATURES.index("ocr_modern")], x[1, FEATURES.index("retrieval_first")] = 0.9998, 0  # retrieval disagrees
    assert FusedBaseline._agreement(fb, chars, x) is None


def test_an_agreement_below_the_models_threshold_is_still_answered(hub):
    """A 24 px 日 read 日 at 0.997 and voted 日 first by retrieval had been abstained on at 0.46
    (fresh-user trial): the agreement answers, at no less than the threshold."""
    import copy

    from harness.baselines.fusion_fit import build_fused

    fb = build_fused(hub["dataset"], cache_dir=hub["cache"], progress=False, templates=False)
    g = fb.gallery
    image = _img("河")
    query = g.embedder.embed([image])
    sims, idx = g.search(query, fb.retrieval.settings.k)
    reading = fb.read([image])[0]
    plain = fb.decide(query[0], sims[0], idx[0], reading)
    assert plain.character == "河" and plain.component == "both"
    fb.model = copy.copy(fb.model)
    fb.model.threshold = 0.999999  # the model alone would abstain
    d = fb.decide(query[0], sims[0], idx[0], reading)
    assert not d.abstained and d.character == "河" and d.confidence >= fb.model.threshold
