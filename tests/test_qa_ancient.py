"""Issue 12, items 3, 5 and 6, on records the real records stage builds from the source cache.

- Answers true to the glyph shown: an Oracle-MNIST scan gets no structure, component or
  formation answer (never the modern character's IDS: 翌 is not ⿱羽立 形声 in 甲骨文), a
  seal image Shuowen's analysis of the seal, and every question but CHAR / SCRC names the
  script shown.
- The evolution rules on each case the review found wrong (regression tests).
- EVOI references: stages the evidence attests, Duan's later forms, nothing about the
  dataset, and the template-diversity figures.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from builder.qa.compose import EARLY_FORM_REASON, L2_KINDS, facts_for
from builder.qa.evidence import EvidenceIndex, strip_inherited
from builder.qa.evolution import derive
from builder.qa.facts import BENCH, DATASET
from builder.qa.interpretation import _reading
from builder.qa.questions import bench_eligible, bench_qa, dataset_qa
from builder.qa.stage import load_duan, load_modern_forms, load_shuowen
from builder.qa.stage_report import template_diversity
from builder.qa.wording import FONT_REGION_REASON, image_missing
from builder.records.build import BuildOptions, build
from builder.schema import GlyphImage, GlyphRecord
from hub import templates as T
from hub.skips import SkipLog

OBI_CLASSES = "大日月牛翌田勿矢巳木"  # the ten Oracle-MNIST classes
AUDITED = "信䉠饕昔芸蕓机機郊邑祀示理玉舊隼鵻谋謀某帙鎌鐮镰赎贖卖賣耿牛佗它肰事仁瓔嬰尸河江紾复復飞飛"
ALL = {"shuowen", "duan", "unihan", "cjkvi-ids", "makemeahanzi"}


def _read(out: Path) -> list[GlyphRecord]:
    return [GlyphRecord.model_validate_json(line) for line in open(out / "records.jsonl", encoding="utf-8")]


@pytest.fixture(scope="module")
def obi_records(sources_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("obi")
    build(BuildOptions(output=out, sources=sources_dir, characters=OBI_CLASSES, fonts=["TW-Kai"], progress=False))
    recs = _read(out)
    strip_inherited(recs)
    return recs


@pytest.fixture(scope="module")
def audited(sources_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("audited")
    build(BuildOptions(output=out, sources=sources_dir, characters=AUDITED, images=False, progress=False))
    recs = _read(out)
    removed = strip_inherited(recs)
    skips = SkipLog()
    duan, entries = load_shuowen(sources_dir, skips)
    index = EvidenceIndex(recs, duan=duan, modern=load_modern_forms(sources_dir, skips), entries=entries)
    return {r.id: r for r in recs}, index, removed


def _evo(audited, rid, sources=ALL):
    recs, index, _ = audited
    return derive(recs[rid], index, sources)


def _types(evo):
    return {k: (v.type, v.rule) for k, v in evo.components.items()}


# --- item 3: answers true to the glyph shown ------------------------------------------------

def test_no_oracle_mnist_glyph_gets_a_modern_ids_answer(obi_records):
    index = EvidenceIndex(obi_records)
    scans = [r for r in obi_records if r.script == "甲骨文" and any(im.source == "oracle-mnist" for im in r.images)]
    assert {r.character for r in scans} == set(OBI_CLASSES)
    for rec in scans:
        for profile in (DATASET, BENCH):
            facts = facts_for(rec, profile, index)
            assert facts.structure is None and facts.formation is None and facts.components == []
            assert all(facts.missing[k] == EARLY_FORM_REASON for k in L2_KINDS if k in facts.missing)
            assert {k for k in L2_KINDS} <= set(facts.missing)
            qas = dataset_qa(facts, rec.images[0], 0) if profile is DATASET else (
                bench_qa(facts, rec.images[0], 0, second_component=True) if bench_eligible(facts) else [])
            for q in qas:
                assert q.subtask not in ("STRC", "COMR", "FORC"), (rec.id, q.kind)
                assert not (set(q.answer_struct) & {"structure", "components", "formation"}), (rec.id, q.kind)
                sources = {p["source"] for p in q.provenance if p["field"] in ("structure", "components", "formation")}
                assert not sources & {"cjkvi-ids", "makemeahanzi"}, (rec.id, q.kind)
                if q.kind not in ("CHAR", "SCRC", "EXEGESIS"):
                    assert q.question.startswith("图中字形为甲骨文。")
    # 翌 in 甲骨文 is the 羽-shaped graph used by loan: the modern ⿱羽立 形声 never appears,
    # while the regular-script record of the same character keeps its IDS answers
    yi = next(r for r in scans if r.character == "翌")
    texts = [q.answer for q in dataset_qa(facts_for(yi, DATASET, index), yi.images[0], 0, max_pairs=10)]
    assert texts and not any("形声" in t or "「立」" in t for t in texts)
    modern = next(r for r in obi_records if r.id == "翌_楷书")
    assert facts_for(modern, DATASET, index).formation[0].label == "形声"


def test_an_early_form_record_shows_no_modern_analysis(obi_records):
    # what users read of an oracle-bone record (the records config, `jiezi records show`)
    import json

    from builder.qa.gallery import gallery_record
    from builder.records.show import show_record

    rec = next(r for r in obi_records if r.character == "翌" and r.script == "甲骨文")
    # records.jsonl itself states no modern layout, parts or class of an early form (issue
    # 20/21 review: 眉's 甲骨文 is no ⿸); the 楷书 record has them
    assert rec.ids is None and rec.structure is None and rec.formation is None and rec.components == []
    data = json.loads(gallery_record(rec, reserved=False))
    assert data["ids"] is None and data["structure"] is None and data["formation"] is None
    assert data["components"] == [] and data["character"] == "翌"
    text = show_record(rec)
    assert "⿱羽立" not in text and "no source analyses the 甲骨文 form" in text, text
    kai = next(r for r in obi_records if r.character == "翌" and r.script == "楷书")
    assert json.loads(gallery_record(kai, reserved=False))["ids"] is not None


def test_early_form_in_the_bench_is_asked_only_l1_l3_l4(obi_records):
    index = EvidenceIndex(obi_records)
    rec = next(r for r in obi_records if r.id == "月_甲骨文")
    facts = facts_for(rec, BENCH, index)
    assert bench_eligible(facts)
    kinds = [q.kind for q in bench_qa(facts, rec.images[0], 0, second_component=True)]
    # EVOI only where the narrative states a change (issue 20 review): 月's does not
    from builder.qa.compose import NO_CHANGE_REASON
    # 月 「闕也。大陰之精」: a sound-gloss and cosmology, no ORIM (data review 12-04, round 4)
    orim = [] if facts.missing.get("ORIM") == "cosmological-gloss:original_meaning" else ["ORIM"]
    assert kinds == ["CHAR", "SCRC", *orim] + (["EVOI"] if "EVOI" not in facts.missing else [])
    assert "EVOI" in kinds or facts.missing["EVOI"] in (NO_CHANGE_REASON, "no-evolution-evidence")


def test_seal_image_gets_shuowens_analysis_of_the_seal(obi_records):
    index = EvidenceIndex(obi_records)
    # 大: Shuowen 象人形 (a pictograph, no parts named); the IDS ⿻一人 describes the modern
    # form, so the seal image gets the formation but no structure or component answer
    big = next(r for r in obi_records if r.id == "大_篆书")
    f = facts_for(big, DATASET, index)
    assert f.formation[0].label == "象形" and f.structure is None and f.components == []
    # 日: Shuowen 从囗一，象形: the seal's parts are 囗 and 一, not the modern 独体 日
    sun = next(r for r in obi_records if r.id == "日_篆书")
    f = facts_for(sun, DATASET, index)
    assert [c.name for c in f.components] == ["囗", "一"] and f.structure is None


def test_questions_name_the_script_shown_except_char_and_scrc():
    for kind in T.KINDS:
        zh, en = T.question(kind, 0, script="金文")
        named = zh.startswith("图中字形为金文。") and en.startswith("The glyph shown is in bronze script")
        assert named != (kind in T.UNNAMED_SCRIPT_KINDS)
        assert T.question(kind, 0) == T.question(kind, 0, script=None)
        # an early form's EVOI asks for the documented evolution (no source describes that form)
        rest = T.EVOI_DOCUMENTED[0][0] if kind == "EVOI" else T.question(kind, 0)[0]
        assert T.split_script_prefix(zh) == (("图中字形为金文。", rest) if named else ("", zh))


def test_font_drawing_another_decomposition_gets_no_structure_question(audited):
    recs, index, _ = audited
    rec = recs["舊_楷书"]
    facts = facts_for(rec, DATASET, index)

    def img(font):
        return GlyphImage(id=f"font-{font}", path="x.png", script="楷书", source=f"font:{font}", licence="OFL-1.1",
                          style="font-song", font=font, width=128, height=128, sha256="0" * 64)
    # cjkvi-ids: 舊 ⿱萑臼 [GJK], ⿱雈臼 [T]; the record's IDS is the unmarked / mainland one
    # (data review 12-04: 棊's T-only ⿱其朩 was stated of a mainland font), so a Taiwan font,
    # which draws the other decomposition, gets no structure question
    assert rec.ids.value == "⿱萑臼"
    assert image_missing(facts, img("TW-Sung"))["STRC"] == FONT_REGION_REASON
    assert image_missing(facts, img("Hanazono Mincho")) == {}
    assert not any(q.kind in ("STRC", "COMR", "COMP_FULL") for q in dataset_qa(facts, img("TW-Sung"), 0, max_pairs=12))


# --- item 5: the audited evolution cases ---------------------------------------------------

def test_abbreviated_variant_gives_no_false_elaboration(audited):
    t = _types(_evo(audited, "信_楷书"))
    assert t["人"][0] == "保留" and "繁化" not in {v[0] for v in t.values()}
    for rid in ("䉠_楷书", "饕_楷书"):
        evo = _evo(audited, rid)
        assert "繁化" not in {v[0] for v in _types(evo).values()}, rid
        assert not any(s.rule == "evolution.elaboration.added_vs_variant" for s in evo.statements), rid


def test_xi_has_no_component_can(audited):
    recs, _, _ = audited
    assert "殘" not in {c.name for c in recs["昔_楷书"].components}
    assert "「殘」" not in _evo(audited, "昔_楷书").narrative()


def test_simplification_only_for_one_to_one_pairs(audited):
    for rid, other in (("芸_楷书", "蕓"), ("机_楷书", "機")):
        evo = _evo(audited, rid)
        assert other not in evo.narrative(), rid
        assert "简化" not in {v[0] for v in _types(evo).values()}, rid
    assert _types(_evo(audited, "芸_楷书"))["云"][0] == "保留"
    # a real one-to-one pair keeps its claim
    assert "繁体作「謀」" in _evo(audited, "谋_简体").narrative()


def test_position_forms_are_one_label(audited):
    recs, _, _ = audited
    rules = set()
    for rid, name in (("郊_楷书", "邑"), ("祀_楷书", "示"), ("理_楷书", "玉")):
        t = _types(_evo(audited, rid))
        comp = next(k for k in t if k in (name, "阝", "礻", "王"))
        assert t[comp][0] == "保留", (rid, t)
        rules.add(t[comp][1])
    assert rules == {"evolution.retention.position_form"}
    assert "讹变" not in _evo(audited, "理_楷书").narrative()


def test_nothing_inherited_from_a_chongwen_headword(audited):
    recs, index, removed = audited
    # the records stage no longer gives a 重文 its head's analysis or reading (issue 20):
    # the QA stage's safety net finds only what a same-word gloss brings (none for 隼)
    rec = recs["隼_楷书"]
    assert not any(p.source == "shuowen" and p.entry_id == "2368" for c in rec.components for p in c.provenance)
    assert rec.formation is None or all(p.source != "shuowen" for p in rec.formation.provenance)
    narrative = derive(rec, index, ALL).narrative()
    assert "小篆作「鵻」" not in narrative and "或體" in narrative
    assert _reading(index, "隼", frozenset(ALL))[0] == "sǔn"


def test_modern_readings_come_from_unihan(audited):
    _, index, _ = audited
    assert _reading(index, "某", frozenset(ALL))[0] == "mǒu"
    assert _reading(index, "帙", frozenset(ALL))[0] == "zhì"
    recs, _, _ = audited
    f = facts_for(recs["谋_简体"], BENCH, index)
    interp = next(c.interpretation for c in f.components if c.name == "某")
    assert "mǒu" in interp and "méi" not in interp


def test_jian_modern_form_is_the_standard_one(audited):
    narrative = _evo(audited, "鎌_楷书").narrative()
    assert "「镰」" in narrative and "𰾮" not in narrative


def test_shu_mai_is_phonetic(audited):
    recs, _, _ = audited
    mai = next(c for c in recs["赎_简体"].components if c.name == "卖")
    assert "表音" in mai.functions


def test_geng_keeps_only_shuowens_own_analysis(audited):
    recs, _, _ = audited
    assert {c.name for c in recs["耿_楷书"].components} == {"耳", "烓"}
    assert "从光" not in _evo(audited, "耿_楷书").narrative()


def test_niu_duan_rejection_is_no_agreement(audited):
    recs, index, _ = audited
    f = facts_for(recs["牛_楷书"], BENCH, index)
    assert f.orim is None and f.missing["ORIM"] == "unconfirmed:original_meaning"


def test_no_stray_english_interpretation(audited):
    recs, _, _ = audited
    assert all(c.interpretation != "Another" for c in recs["佗_楷书"].components)


# --- item 6: EVOI references -----------------------------------------------------------------

def test_evoi_traces_attested_stages_and_never_speaks_of_the_dataset(obi_records, audited):
    index = EvidenceIndex(obi_records)
    for rec in obi_records:
        text = derive(rec, index, ALL).narrative()
        assert "数据" not in text and "本数据" not in text
    moon = derive(next(r for r in obi_records if r.id == "月_楷书"), index, ALL).narrative()
    # no bare attestation sentence (issue 21: 甲骨文已见「月」字 says nothing of the form)
    assert "已见" not in moon and "亦见此字" not in moon and "小篆" in moon
    # Duan's 俗 statement on 鎌 (俗作鐮) as a stage of its own
    jian = _evo(audited, "鎌_楷书")
    assert any(s.rule == "evolution.duan_later_form" and "鐮" in s.zh for s in jian.statements)


def test_template_diversity_figures():
    refs = ["小篆作「江」，《说文》：「从水工聲」。", "小篆作「河」，《说文》：「从水可聲」。",
            "甲骨文已见「月」字；小篆「月」为独体象形字。"]
    d = template_diversity(refs)
    assert d["references"] == 3 and d["skeletons"] == 2
    assert d["top_skeleton_share"] == round(2 / 3, 4)
    assert d["two_or_more_stages"] == round(1 / 3, 4)
    assert d["mean_length"] == round(sum(map(len, refs)) / 3, 1)
    assert template_diversity([])["skeletons"] == 0


# --- the independent review of 2026-12-01 (60 bench items, 40 dataset turns) ----------------

def test_shuowen_variants_are_only_those_shuowen_records(audited):
    # 肰: Shuowen has two 古文 (cjkvi lists the second again as 𦛡); 事: no 俗字 亊 in Shuowen
    ran = _evo(audited, "肰_楷书").narrative()
    assert "𦛡" not in ran and ran.count("《说文》收古文") == 2, ran
    shi = _evo(audited, "事_楷书").narrative()
    assert "亊" not in shi and "𠭏" not in shi, shi


def test_a_variants_component_is_quoted_as_shuowen_writes_it(audited):
    ren = _evo(audited, "仁_楷书").narrative()
    assert "屍" not in ren, ren


def test_a_radical_in_reduced_shape_is_explained_as_its_radical(audited):
    recs, index, _ = audited
    index.reserved = frozenset()  # no bench: 玉's own Shuowen gloss may be quoted in the dataset
    try:
        f = facts_for(recs["瓔_楷书"], DATASET, index)
    finally:
        index.reserved = None
    interp = next(c.interpretation for c in f.components if c.name == "王")
    # what 王 stands for here is 玉, explained by 玉's own gloss, never by 王's
    assert "（即「玉」）" in interp and "玉，《说文》：「石之美" in interp and "王，《说文》" not in interp, interp


def test_a_place_name_gloss_keeps_its_repeated_head(audited):
    # the digitised 說文 reads 河「水。出焞煌…」; Duan restores the head (河水), and only
    # for a place name: 紾，轉也 stays 轉 (Duan's 紾轉也 does not make 紾轉 a meaning)
    recs = audited[0]
    he, jiang = recs["河_楷书"].original_meaning, recs["江_楷书"].original_meaning
    assert he.value.startswith("河水") and jiang.value.startswith("江水"), (he.value, jiang.value)
    assert "shuowen" in he.agree and "duan" in he.agree
    assert recs["紾_楷书"].original_meaning.value == "轉"


def test_a_merged_simplified_character_takes_no_traditional_words_entry(audited):
    # 复 is its own traditional form and the simplification of 復/複/覆; Shuowen's 往來 is
    # 復's gloss (复's own head is 𡕨, 行故道也): 复 gets nothing from 復's entry
    recs = audited[0]
    fu = recs["复_楷书"]
    assert fu.original_meaning is None or "往來" not in fu.original_meaning.value, fu.original_meaning
    assert recs["復_楷书"].original_meaning.value.startswith("往來")


def test_a_simplified_single_component_character_is_simplified(audited):
    # 飞 is the simplified 飛 (one-to-one): its whole glyph is 简化, not 保留
    types = _types(_evo(audited, "飞_简体"))
    assert types and all(t == ("简化", "evolution.simplification.single") for t in types.values()), types
    assert all(t[0] == "保留" for t in _types(_evo(audited, "飛_楷书")).values())


def test_orim_questions_do_not_claim_a_reading_of_the_form_shown():
    for zh, _en in T.TEMPLATES["ORIM"]:
        assert "构形" not in zh and "造字之初" not in zh


def test_audited_tracing_is_left_out(sources_dir, tmp_path):
    # 常-bronze draws 尚, 位-oracle / 位-bronze draw 立: the graphs those words were written
    # with, not the characters the files name (independent review of all 359 tracings)
    from builder.glyphs.commons_ancient import AUDITED_OUT, tracings

    listed = {rel for _ch, _script, rel, _sha in tracings()}
    assert set(AUDITED_OUT) <= listed, set(AUDITED_OUT) - listed
    assert all(v.startswith(("wrong: ", "doubtful: ")) for v in AUDITED_OUT.values())
    build(BuildOptions(output=tmp_path, sources=sources_dir, characters="常位立", fonts=["TW-Kai"], progress=False))
    origins = {im.origin for r in _read(tmp_path) for im in r.images if im.origin}
    for left_out in ("svg/常-bronze.svg", "svg/位-oracle.svg", "svg/位-bronze.svg"):
        assert left_out in AUDITED_OUT
        # keyed by the Commons title: neither the SVG nor a PNG render of it is taken (issue 20)
        assert "commons:File:" + left_out[len("svg/"):] not in origins, left_out
    assert "commons:File:立-oracle.svg" in origins  # the character it draws keeps its own
    skipped = (tmp_path / "skipped.jsonl").read_text("utf-8")
    assert skipped.count("glyph-audited-out") >= 3
    # 立-oracle is in both copies (SVG and a commons-acc-png render): one drawing, taken once
    li = next(r for r in _read(tmp_path) if r.id == "立_甲骨文")
    assert [im.source for im in li.images if im.style == "tracing"] == ["commons-ancient"]
    assert "File:立-oracle.svg" in skipped and "glyph-duplicate-drawing" in skipped


def test_a_chongwen_record_inherits_nothing_from_its_head(sources_dir, tmp_path):
    """Issue 20 item 6: the records themselves (before any QA-stage filtering) give 隼, the
    或體 of 鵻 (「鵻或从隹、一」), none of 鵻's analysis, reading or meaning (形声 from 从鳥隹聲,
    隹 表音, zhuī, 祝鳩); 明, the 古文 of 朙 and still read like it, keeps the gloss 照."""
    build(BuildOptions(output=tmp_path, sources=sources_dir, characters="隼鵻明朙", images=False, progress=False))
    recs = {r.id: r for r in _read(tmp_path)}
    sun = recs["隼_楷书"]
    assert sun.formation is None or all(p.source != "shuowen" for p in sun.formation.provenance)
    assert not any(p.rule.endswith("head_of_variant") for c in sun.components for p in c.provenance)
    assert not any("表音" in c.functions and c.name == "隹" for c in sun.components)
    assert sun.original_meaning is None or "祝鳩" not in sun.original_meaning.value
    assert not any(rd.pinyin and rd.pinyin.startswith("zhu") for rd in sun.readings)
    assert "祝鳩" in recs["鵻_楷书"].original_meaning.value
    ming = recs["明_楷书"]
    assert ming.original_meaning is not None and ming.original_meaning.value.startswith("照")
    assert ming.formation is None or all(not p.rule.endswith("head_of_variant") for p in ming.formation.provenance)
