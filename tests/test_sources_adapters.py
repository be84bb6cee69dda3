"""Each adapter on excerpts of the real source files (copied into tmp_path, never modified in place)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builder.records import official
from builder.sources.adapters import cjkvi_ids, makemeahanzi, shuowen, unihan
from hub.skips import SkipLog

SHUOWEN_IDS = {"江": 6955, "背": 2607, "䠶": 3293, "往": 1228, "舞": 3363, "朙": 4304}


def excerpt(src: Path, dest: Path, keep) -> Path:
    """Copy the lines of ``src`` for which ``keep(line)`` holds (comments kept as they are)."""
    lines = [l for l in src.read_text(encoding="utf-8").splitlines(keepends=True) if keep(l)]
    dest.write_text("".join(lines), encoding="utf-8")
    return dest


def test_shuowen_entries_keep_raw_text_variants_and_duan_notes(sources_dir):
    skipped = SkipLog()
    files = [sources_dir / "shuowen" / "data" / f"{i}.json" for i in SHUOWEN_IDS.values()]
    entries = {e.character: e for e in shuowen.read(sources_dir, skipped, files=files)}
    assert set(entries) == set(SHUOWEN_IDS) and not skipped
    jiang = entries["江"]
    assert jiang.entry_id == "6955" and jiang.key == "shuowen:6955"
    assert jiang.explanation == "水。出蜀湔氐徼外崏山，入海。从水工聲。"
    assert "說解\t水。出蜀湔氐徼外崏山，入海。从水工聲。" in jiang.raw and "反切\t古雙切" in jiang.raw
    assert jiang.duan is not None and jiang.duan.key == "duan:6955" and "引\t从水。工聲。" in jiang.duan.raw
    # 重文 with their kinds; upstream's HTML markup removed, the bracketed forms kept
    wu = entries["舞"]
    assert [(v.form, v.kind) for v in wu.variants] == [("𦏶", "古文")]
    assert wu.variants[0].text == "古文舞从羽[𦏲]、亡[亾]。" and "<span>" not in wu.raw
    she = entries["䠶"]
    assert [(v.form, v.kind) for v in she.variants] == [("射", "篆文")]
    assert "會意。食夜切" in she.duan.raw
    assert [(v.form, v.kind) for v in entries["朙"].variants] == [("明", "古文")]


def test_shuowen_bad_files_are_skipped_and_recorded(sources_dir, tmp_path):
    good = tmp_path / "6955.json"
    good.write_bytes((sources_dir / "shuowen" / "data" / "6955.json").read_bytes())
    no_expl = tmp_path / "2607.json"
    obj = json.loads((sources_dir / "shuowen" / "data" / "2607.json").read_text(encoding="utf-8"))
    del obj["explanation"]
    no_expl.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")
    broken = tmp_path / "1228.json"
    broken.write_text((sources_dir / "shuowen" / "data" / "1228.json").read_text(encoding="utf-8")[:200], encoding="utf-8")
    skipped = SkipLog()
    entries = shuowen.read(sources_dir, skipped, files=[good, no_expl, broken])
    assert [e.character for e in entries] == ["江"]
    assert skipped.counts() == {"shuowen-bad-json": 1, "shuowen-missing-field": 1}
    miss = next(i for i in skipped.items if i.field == "explanation")
    assert miss.item == "data/2607.json" and "explanation" in miss.reason


def test_makemeahanzi_lines_and_a_truncated_line(sources_dir, tmp_path):
    src = sources_dir / "makemeahanzi" / "dictionary.txt"
    path = excerpt(src, tmp_path / "dictionary.txt", lambda l: any(f'"character":"{c}"' in l for c in "江明射"))
    text = path.read_text(encoding="utf-8")
    path.write_text(text + text.splitlines()[0][:60] + "\n", encoding="utf-8")  # a cut-off copy of a line
    skipped = SkipLog()
    entries = {e.character: e for e in makemeahanzi.read(sources_dir, skipped, path=path)}
    assert set(entries) == set("江明射")
    assert skipped.counts() == {"truncated-jsonl": 1} and skipped.items[0].item == "dictionary.txt:4"
    e = entries["江"]
    assert e.raw in text and e.data["decomposition"] == "⿰氵工"
    assert e.data["etymology"] == {"type": "pictophonetic", "phonetic": "工", "semantic": "氵", "hint": "water"}
    assert makemeahanzi.ETYMOLOGY_TYPES[entries["明"].data["etymology"]["type"]] == "会意"


def test_cjkvi_ids_region_tags_and_analysis_without_zitong_comments(sources_dir, tmp_path):
    ids_path = excerpt(sources_dir / "cjkvi-ids" / "ids.txt", tmp_path / "ids.txt",
                       lambda l: l.startswith("#") or l.split("\t")[1:2] in (["江"], ["背"], ["明"]))
    skipped = SkipLog()
    ids = cjkvi_ids.read_ids(sources_dir, skipped, path=ids_path)
    assert ids["背"].data["ids"] == [("⿱北月", "GJK"), ("⿱北⺼", "TV")]
    assert ids["背"].entry_id == "ids.txt:U+80CC" and ids["江"].data["ids"] == [("⿰氵工", "")]
    # 戌 carries a 【字通】 comment upstream; 明 has an IDS line and a 古文 link line
    ana_path = excerpt(sources_dir / "cjkvi-ids" / "ids-analysis.txt", tmp_path / "ids-analysis.txt",
                       lambda l: l.split("\t")[1:2] in (["戌"], ["明"], ["江"], ["往"], ["岁"]))
    assert "【字通】" in ana_path.read_text(encoding="utf-8")
    ana = cjkvi_ids.read_analysis(sources_dir, skipped, path=ana_path)
    for e in ana.values():
        assert "【字通】" not in e.raw and "#" not in e.raw
    assert ana["戌"].raw == "U+0620C\t戌\t⿵戊一\t一亦聲\t5390010"
    ming = ana["明"].data["lines"]
    assert (ming[0].ids, ming[0].analysis) == ("⿰日月", "會意")
    assert (ming[1].link, ming[1].analysis) == ("朙", "古文")
    assert (ana["岁"].data["lines"][0].link, ana["岁"].data["lines"][0].analysis) == ("歲", "簡体")
    assert ana["往"].data["lines"][0].link == "𢓸"
    assert not skipped


def test_unihan_fields(sources_dir, tmp_path):
    wanted = ("U+6C5F\t", "U+99AC\t", "U+9A6C\t", "U+660E\t")
    files = {name: excerpt(sources_dir / "unihan" / name, tmp_path / name, lambda l: l.startswith(wanted))
             for name in unihan.FIELDS}
    skipped = SkipLog()
    uh = unihan.read(sources_dir, skipped, files=files)
    jiang = uh["江"]
    assert jiang.entry_id == "U+6C5F"
    assert jiang.data == {"kDefinition": "large river; the Yangzi; surname", "kFanqie": "古雙", "kMandarin": "jiāng",
                          "kHanyuPinyin": "31551.030:jiāng", "kXHC1983": "0559.040:jiāng", "kRSUnicode": "85.3"}
    assert "U+6C5F\tkMandarin\tjiāng" in jiang.raw
    assert uh["馬"].data["kSimplifiedVariant"] == ["马"] and uh["马"].data["kTraditionalVariant"] == ["馬"]
    assert uh["明"].data["kSemanticVariant"] == ["朙"]
    assert not skipped


def test_official_layout_round_trip(sources_dir, tmp_path):
    from PIL import Image

    path = sources_dir / "jiezi-official-samples" / "meta_samples.json"
    original = json.loads(path.read_text(encoding="utf-8"))
    # the release's images are not in the samples: stand real image files in for them
    for rec in original:
        for rel in rec["images"]:
            p = tmp_path / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            Image.new("L", (64, 48), 255).save(p, format="PNG" if rel.endswith(".png") else "JPEG")
    skipped = SkipLog()
    records = official.import_official(path, skipped, images_root=tmp_path)
    assert not skipped and [r.id for r in records] == ["并_篆书", "悳_甲骨文", "畀_篆书", "脩_金文"]
    bi = records[2]
    assert bi.formation.value.label == "形声" and bi.formation.value.yisheng
    assert bi.formation.value.label_set() == ["形声", "会意"]
    assert bi.components[0].name == "由" and bi.components[0].functions == ["表音", "表意"]
    assert bi.images[0].width == 64 and bi.images[0].path == "images/meta/畀_篆书_1.jpg"
    from builder.records.fidelity import check_record
    assert all(not check_record(r) for r in records) and all(not r.flags for r in records)
    assert official.export_official(records) == original
    # without the image files the records still import; the missing images are logged
    skipped = SkipLog()
    again = official.import_official(path, skipped)
    assert skipped.counts() == {"official-image-missing": 13}
    assert [{k: v for k, v in r.items() if k != "images"} for r in official.export_official(again)] == \
        [{k: v for k, v in r.items() if k != "images"} for r in original]


@pytest.mark.parametrize("methods,label,yisheng", [(["会意字"], "会意", False), (["形声字", "会意字"], "形声", True),
                                                   (["象形字"], "象形", False)])
def test_official_creation_method_mapping(methods, label, yisheng):
    f, problem = official.formation_from_methods(methods)
    assert (f.label, f.yisheng, problem) == (label, yisheng, None)
    assert official.methods_from_formation(f) == methods
