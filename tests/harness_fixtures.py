"""A small JieZi-Bench and JieZi-Dataset in the Hub layout, built inside the harness tests.

``build_hub_folders(root)`` writes ``root/jiezi-bench`` and ``root/jiezi-dataset`` the way
``jiezi publish`` lays them out: real parquet files written by ``datasets`` with the
publication features (``hub.rows.BENCH_FEATURES``, ``RECORD_FEATURES`` /
``QA_FEATURES``), glyph images rendered with installed CJK fonts, and a README.md whose
YAML ``configs:`` names the files, so ``datasets.load_dataset(folder, config, split=...)``
reads them.

The gallery (JieZi-Dataset ``records`` + ``all``) holds 11 characters rendered in three
typefaces; its records, like the real build's, carry no evolution narrative and no
component evolution types (those live in the QA turns). The bench renders 13 characters
in a fourth typeface: 森 and 仲 are unseen characters (absent from the gallery), 男 is an
unseen glyph (labelled 简体 while the gallery has it as 楷书 only).
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from builder.schema import Component, Formation, GlyphImage, GlyphRecord, Grounded, Provenance
from harness import render
from metrics.acce import labels

GALLERY_FONTS = (
    ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc", 2, "font-song", "Noto Serif CJK"),
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2, "font-hei", "Noto Sans CJK"),
    ("/usr/share/fonts/truetype/cns11643/TW-Kai-98_1.ttf", 0, "font-kai", "TW-Kai"),
)
BENCH_FONT = ("/usr/share/fonts/truetype/arphic/ukai.ttc", 0, "font-kai", "AR PL UKai")

# character: (structure, formation, yisheng, [(component, functions, interpretation, evolution type)],
#             original meaning, evolution narrative)
FACTS = {
    "江": ("⿰", "形声", False, [("水", ["表意"], "水，表示与水流有关", "保留"), ("工", ["表音"], "声符", "保留")],
          "长江的专名", "篆书从水工声，隶变后水旁写作氵，楷书沿袭。"),
    "河": ("⿰", "形声", False, [("水", ["表意"], "水，表示与水流有关", "保留"), ("可", ["表音"], "声符", "保留")],
          "黄河的专名", "篆书从水可声，隶变后水旁写作氵。"),
    "林": ("⿰", "会意", False, [("木", ["表意"], "两棵树并立，表示成片的树木", "保留")],
          "平地上成片的树木", "甲骨文从二木会意，后世字形相承不变。"),
    "明": ("⿰", "会意", False, [("日", ["表意"], "太阳", "讹变"), ("月", ["表意"], "月亮", "保留")],
          "明亮", "甲骨文从日从月，或从囧从月；篆书从囧，隶变后从日。"),
    "休": ("⿰", "会意", False, [("人", ["表意"], "人", "保留"), ("木", ["表意"], "树木", "保留")],
          "人倚树休息", "甲骨文象人倚树而息，后世字形相承。"),
    "好": ("⿰", "会意", False, [("女", ["表意"], "女子", "保留"), ("子", ["表意"], "孩子", "保留")],
          "美好", "甲骨文从女从子，篆书相承，隶变后笔画平直。"),
    "男": ("⿱", "会意", False, [("田", ["表意"], "田地", "保留"), ("力", ["表意"], "耒，耕作的农具", "讹变")],
          "男子", "甲骨文从田从力，力象耒形；后世力形讹变。"),
    "日": ("独体", "象形", False, [("日", ["表意"], "象太阳之形", "保留")],
          "太阳", "甲骨文象太阳之形，中有一点；篆书线条化，隶变后写作方形。"),
    "月": ("独体", "象形", False, [("月", ["表意"], "象半月之形", "保留")],
          "月亮", "甲骨文象半月之形，篆书线条化，隶变后楷书作月。"),
    "木": ("独体", "象形", False, [("木", ["表意"], "象树木之形", "保留")],
          "树木", "甲骨文象树木之形，上为枝下为根，篆书相承。"),
    "本": ("独体", "指事", False, [("木", ["表意"], "树木", "保留"), ("一", ["符号"], "指示树根所在", "保留")],
          "树根", "金文在木下加点指示树根，篆书点变为一横。"),
    "森": ("⿱", "会意", False, [("木", ["表意"], "树木", "保留"), ("林", ["表意"], "成片的树木", "保留")],
          "树木众多", "甲骨文从三木会意，后世字形相承。"),
    "仲": ("⿰", "形声", True, [("人", ["表意"], "人", "保留"), ("中", ["表音", "表意"], "中声，兼表居中", "保留")],
           "排行第二", "篆书从人从中，中亦声，隶变后人旁写作亻。"),
}
UNSEEN_CHARACTERS = ("森", "仲")
BENCH_SCRIPT = {"男": "简体"}  # an unseen (character, script) pair
# Like makemeahanzi's hints, some record interpretations are English; the QA turns say them in Chinese.
ENGLISH_HINTS = {"江": {"水": "water", "工": "labor, work"}}


def render_glyph(character: str, font: tuple) -> bytes:
    """PNG bytes of ``character`` drawn in ``font`` (path, index, ...), 96 px on 128x128."""
    path, index = font[0], font[1]
    face = ImageFont.truetype(path, 96, index=index)
    img = Image.new("L", (128, 128), 255)
    ImageDraw.Draw(img).text((64, 64), character, font=face, fill=0, anchor="mm")
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def _prov(ch: str, span: str, rule: str) -> list[Provenance]:
    return [Provenance(source="makemeahanzi", entry_id=ch, span=span, rule=rule)]


def glyph_record(character: str, script: str, images: list[GlyphImage]) -> GlyphRecord:
    """The GlyphRecord of the fixture's facts (no evolution narrative, no component
    evolution types: as in the real records, those come from the QA stage; English
    interpretations for the characters of :data:`ENGLISH_HINTS`)."""
    structure, formation, yisheng, comps, meaning, _ = FACTS[character]
    return GlyphRecord(
        id=f"{character}_{script}", character=character, script=script, images=images,
        structure=Grounded(value=structure, provenance=_prov(character, structure, "ids.idc")),
        formation=Grounded(value=Formation(label=formation, yisheng=yisheng),
                           provenance=_prov(character, formation, "etymology.type")),
        components=[Component(name=n, functions=f, interpretation=ENGLISH_HINTS.get(character, {}).get(n, i),
                              provenance=_prov(character, n, "ids.component"),
                              interpretation_provenance=_prov(character, i, "etymology.hint"))
                    for n, f, i, _ in comps],
        original_meaning=Grounded(value=meaning, provenance=_prov(character, meaning, "definition")),
    )


def answer_struct(character: str, script: str, kind: str) -> dict:
    """The bench ``answer_struct`` of ``kind`` (ARCHITECTURE.md shapes)."""
    structure, formation, yisheng, comps, meaning, evolution = FACTS[character]
    if kind == "CHAR":
        return {"character": character}
    if kind == "SCRC":
        return {"script": script}
    if kind == "STRC":
        return {"structure": structure}
    if kind == "FORC":
        return {"formation": ["形声", "会意"] if yisheng else [formation], "yisheng": yisheng}
    if kind == "ORIM":
        return {"original_meaning": meaning}
    if kind == "EVOI":
        return {"evolution": evolution}
    full = kind == "COMP_FULL"
    return {"components": [{"name": n, "functions": f, "interpretation": i, **({"evolution_type": e} if full else {})}
                           for n, f, i, e in comps]}


def answer_text(character: str, script: str, kind: str) -> str:
    """The reference answer text in the bench's formats."""
    s = answer_struct(character, script, kind)
    if kind in ("CHAR", "SCRC"):
        return next(iter(s.values()))
    if kind == "STRC":
        return render.structure_text(s["structure"])
    if kind == "FORC":
        return render.formation_text(s["formation"])
    if kind == "ORIM":
        return s["original_meaning"]
    if kind == "EVOI":
        return s["evolution"]
    return render.components_text(s["components"], evolution=kind == "COMP_FULL")


QUESTIONS = {
    "CHAR": "这个字形今天写作什么字？",
    "SCRC": "图中字形属于哪一种书体？可选：" + "、".join(labels.SCRIPTS) + "。",
    "STRC": "该字的结构类型是什么？",
    "COMP_FULL": "请完整列出该字的全部构件，并逐一说明其功能、演变类型与构字解释。",
    "COMP_ASPECT": "请对该字作构件分析：列出构件，标明功能，并说明其含义。",
    "FORC": "该字的造字法属于六书中的哪一种？",
    "ORIM": "该字的本义是什么？",
    "EVOI": "请梳理该字的字形演变过程。",
}
KIND_SUBTASK = {"CHAR": ("CHAR", "L1", ["CHAR"]), "SCRC": ("SCRC", "L1", ["SCRC"]), "STRC": ("STRC", "L2", ["STRC"]),
                "COMP_FULL": ("COMR", "L2", ["COMR", "COMF", "COMI", "COME"]),
                "COMP_ASPECT": ("COMR", "L2", ["COMR", "COMF", "COMI"]), "FORC": ("FORC", "L2", ["FORC"]),
                "ORIM": ("ORIM", "L3", ["ORIM"]), "EVOI": ("EVOI", "L4", ["EVOI_FAC", "EVOI_SCE"])}


def _image_id(data: bytes, source: str) -> str:
    return f"{source}-{hashlib.sha256(data).hexdigest()[:16]}"


def _readme(path: Path, configs: dict[str, list[str]], default: str) -> None:
    lines = ["---", "configs:"]
    for name, splits in configs.items():
        lines.append(f"- config_name: {name}")
        if name == default:
            lines.append("  default: true")
        lines.append("  data_files:")
        for split in splits:
            lines += [f"  - split: {split}", f"    path: {name}/{split}-*"]
    lines += ["---", "", f"# {path.name} (test fixture)", ""]
    (path / "README.md").write_text("\n".join(lines), encoding="utf-8")


def _write(path: Path, rows: list[dict], features) -> None:
    import datasets

    # Columns the publication adds later (and this fixture does not know) get empty values,
    # columns it dropped are left out: the fixture follows the publication's features.
    empty = {datasets.Value: "", datasets.List: []}
    rows = [{k: r.get(k, empty.get(type(f), None)) for k, f in features.items()} for r in rows]
    path.parent.mkdir(parents=True, exist_ok=True)
    datasets.Dataset.from_list(rows, features=features).to_parquet(str(path))


def build_hub_folders(root: Path) -> tuple[Path, Path]:
    """Write ``root/jiezi-bench`` and ``root/jiezi-dataset``; returns their paths."""
    from hub.rows import BENCH_FEATURES, QA_FEATURES, RECORD_FEATURES
    from jiezi_dataset import to_messages

    root = Path(root)
    bench_dir, data_dir = root / "jiezi-bench", root / "jiezi-dataset"

    # ---- gallery: JieZi-Dataset records + all
    records, turns = [], []
    for ch in FACTS:
        if ch in UNSEEN_CHARACTERS:
            continue
        images = []
        for font in GALLERY_FONTS:
            data = render_glyph(ch, font)
            images.append((GlyphImage(id=_image_id(data, "font"), path=f"images/楷书/{ch}.png", script="楷书",
                                      source=f"font:{font[3]}", licence="OFL-1.1", style=font[2], font=font[3],
                                      width=128, height=128, sha256=hashlib.sha256(data).hexdigest()), data))
        rec = glyph_record(ch, "楷书", [im for im, _ in images])
        rec_json = json.dumps(rec.model_dump(mode="json"), ensure_ascii=False)
        for im, data in images:
            image = {"bytes": data, "path": f"{im.id}.png"}
            records.append({"id": im.id, "image": image, "character": ch, "script": "楷书", "record": rec_json})
            qas = [{"question": QUESTIONS[k], "answer": answer_text(ch, "楷书", k), "question_en": k, "answer_en": k}
                   for k in ("CHAR", "SCRC", "STRC", "COMP_FULL", "FORC", "ORIM", "EVOI")]
            kinds = ("CHAR", "SCRC", "STRC", "COMP_FULL", "FORC", "ORIM", "EVOI")
            turns.append({"id": im.id, "images": [image], "messages": to_messages(qas, "zh"),
                          "messages_en": to_messages(qas, "en"), "character": ch, "script": "楷书",
                          "subtasks": ["CHAR", "SCRC", "STRC", "COMR", "FORC", "ORIM", "EVOI"], "provenance": "[]",
                          "answer_struct": json.dumps([answer_struct(ch, "楷书", k) for k in kinds], ensure_ascii=False)})
    _write(data_dir / "records" / "train-00000-of-00001.parquet", records, RECORD_FEATURES)
    _write(data_dir / "all" / "train-00000-of-00001.parquet", turns, QA_FEATURES)
    _readme(data_dir, {"all": ["train"], "records": ["train"]}, "all")

    # ---- bench
    rows = []
    for ch in FACTS:
        script = BENCH_SCRIPT.get(ch, "楷书")
        data = render_glyph(ch, BENCH_FONT)
        image_id = _image_id(data, "font")
        unseen_char = ch in UNSEEN_CHARACTERS
        unseen_glyph = unseen_char or ch in BENCH_SCRIPT
        kinds = ["CHAR", "SCRC", "STRC", "COMP_FULL", "FORC", "ORIM", "EVOI"]
        if len(FACTS[ch][3]) >= 2:
            kinds.insert(4, "COMP_ASPECT")
        for kind in kinds:
            subtask, level, metrics = KIND_SUBTASK[kind]
            rows.append({
                "id": f"{image_id}::{kind}", "image": {"bytes": data, "path": f"{image_id}.png"}, "image_id": image_id,
                "question": QUESTIONS[kind], "answer": answer_text(ch, script, kind),
                "answer_struct": json.dumps(answer_struct(ch, script, kind), ensure_ascii=False),
                "subtask": subtask, "metrics": metrics, "level": level, "character": ch, "script": script,
                "unseen_character": unseen_char, "unseen_glyph": unseen_glyph,
                "unseen_components": [], "provenance": "[]", "question_en": kind, "answer_en": kind, "kind": kind,
            })
    configs = {}
    for config in ("L1", "L2", "L3", "L4", "all"):
        sel = [r for r in rows if config == "all" or r["level"] == config
               or (config == "L4" and r["kind"] == "COMP_FULL")]
        for split, keep in (("test", lambda r: True), ("unseen_characters", lambda r: r["unseen_character"]),
                            ("unseen_glyphs", lambda r: r["unseen_glyph"])):
            _write(bench_dir / config / f"{split}-00000-of-00001.parquet", [r for r in sel if keep(r)], BENCH_FEATURES)
        configs[config] = ["test", "unseen_characters", "unseen_glyphs"]
    _readme(bench_dir, configs, "all")
    return bench_dir, data_dir
