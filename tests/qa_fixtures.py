"""Hand-built glyph records for the QA / bench / publication tests.

The facts are copied by hand from the real sources (Shuowen entry ids, cjkvi-ids and
makemeahanzi decompositions, Unihan readings and variants); the Shuowen ``raw`` text is
read from the source cache at build time, so every Shuowen span is a real substring.
Images are real renderings of the character with an installed CJK font (oracle-bone
records use a drawn stand-in marked as a scan, since the test must stay fast).

``write_records(sources_dir, out)`` writes ``out/records.jsonl`` and ``out/images/...``
exactly as ``jiezi build records`` lays them out, and returns the records.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from builder.schema import (
    Component, Formation, GlyphImage, GlyphRecord, Grounded, Provenance, Reading, Variant,
)

REPO = Path(__file__).resolve().parent.parent
FONT_FILES = {
    "font-song": "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc",
    "font-hei": "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "font-kai": "/usr/share/fonts/truetype/arphic/ukai.ttc",
}


def P(source, entry, span, rule):
    return Provenance(source=source, entry_id=str(entry), span=span, rule=rule)


def SW(entry, span, rule="shuowen.analysis"):
    return P("shuowen", entry, span, rule)


def DUAN(entry, span, rule="duan.analysis"):
    return P("duan", entry, span, rule)


def IDS(code, span, rule="cjkvi-ids.ids"):
    return P("cjkvi-ids", code, span, rule)


def MMH(ch, span, rule="makemeahanzi.etymology"):
    return P("makemeahanzi", ch, span, rule)


def UH(code, span, rule):
    return P("unihan", code, span, rule)


def _g(value, provs, agree=None, disagree=None):
    return Grounded(value=value, provenance=provs, agree=agree or sorted({p.source for p in provs}),
                    disagree=disagree or {})


def comp(name, functions, provs, position=None, interpretation=None, interp_provs=None, disagree=None):
    return Component(name=name, functions=functions, provenance=provs, position=position,
                     interpretation=interpretation, interpretation_provenance=interp_provs or [],
                     agree=sorted({p.source for p in provs}), disagree=disagree or {})


# character -> facts shared by its records; scripts -> image styles to render
SPECS: dict[str, dict] = {
    "江": dict(sw=6955, code="U+6C5F", ids="⿰氵工", structure="⿰", formation=("形声", False),
              form_provs=lambda: [SW(6955, "从水工聲"), IDS("U+6C5F", "工聲", "cjkvi-ids.analysis"),
                                  MMH("江", '"type":"pictophonetic"')],
              comps=lambda: [comp("氵", ["表意"], [SW(6955, "从水工聲"), IDS("U+6C5F", "⿰氵工"), MMH("江", '"semantic":"氵"')], "左"),
                             comp("工", ["表音"], [SW(6955, "从水工聲"), IDS("U+6C5F", "⿰氵工"), MMH("江", '"phonetic":"工"')], "右")],
              seal_comps=lambda: [comp("水", ["表意"], [SW(6955, "从水工聲")], "左"),
                                  comp("工", ["表音"], [SW(6955, "从水工聲")], "右")],
              gloss=("水。出蜀湔氐徼外崏山，入海。", ["duan"]), en="large river; the Yangzi; surname",
              pinyin="jiāng", fanqie="古雙切", scripts={"楷书": ["font-song", "font-hei", "font-kai"], "篆书": ["seal"]}),
    "河": dict(sw=6950, code="U+6CB3", ids="⿰氵可", structure="⿰", formation=("形声", False),
              form_provs=lambda: [SW(6950, "从水可聲"), IDS("U+6CB3", "可聲", "cjkvi-ids.analysis"),
                                  MMH("河", '"type":"pictophonetic"')],
              comps=lambda: [comp("氵", ["表意"], [SW(6950, "从水可聲"), IDS("U+6CB3", "⿰氵可"), MMH("河", '"semantic":"氵"')], "左"),
                             comp("可", ["表音"], [SW(6950, "从水可聲"), IDS("U+6CB3", "⿰氵可"), MMH("河", '"phonetic":"可"')], "右")],
              gloss=("水。出焞煌塞外昆侖山，發原注海。", ["duan"]), en="river; stream; the Yellow River",
              pinyin="hé", fanqie="乎哥切", scripts={"楷书": ["font-song", "font-hei", "font-kai"]}),
    "明": dict(sw=4304, code="U+660E", ids="⿰日月", structure="⿰", formation=("会意", False),
              form_provs=lambda: [SW(4304, "从月从囧"), IDS("U+660E", "會意", "cjkvi-ids.analysis"),
                                  MMH("明", '"type":"ideographic"')],
              comps=lambda: [comp("日", ["表意"], [IDS("U+660E", "⿰日月"), MMH("明", "The light of the sun 日 and moon 月")], "左"),
                             comp("月", ["表意"], [SW(4304, "从月从囧"), IDS("U+660E", "⿰日月"), MMH("明", "The light of the sun 日 and moon 月")], "右")],
              seal_form="朙",
              seal_comps=lambda: [comp("月", ["表意"], [SW(4304, "从月从囧")], "左"),
                                  comp("囧", ["表意"], [SW(4304, "从月从囧")], "右")],
              variants=lambda: [Variant(form="明", kind="古文", analysis="古文朙从日。", provenance=[SW(4304, "古文朙从日。", "shuowen.variant")])],
              gloss=("照也。", ["duan"]), en="bright, light, brilliant; clear",
              pinyin="míng", fanqie="武兵切", scripts={"楷书": ["font-song", "font-hei"], "篆书": ["seal"]}),
    "射": dict(sw=3293, code="U+5C04", ids="⿰身寸", structure="⿰", formation=("会意", False),
              form_provs=lambda: [SW(3293, "从矢从身"), DUAN(3293, "會意")],
              form_disagree={"makemeahanzi": "象形"},
              comps=lambda: [comp("身", ["表意"], [SW(3293, "从矢从身"), IDS("U+5C04", "⿰身寸"), MMH("射", "A bow 身 being drawn by a hand 寸")], "左"),
                             comp("寸", ["表意"], [SW(3293, "篆文䠶从寸。寸，法度也。亦手也。", "shuowen.variant"), IDS("U+5C04", "⿰身寸"),
                                                  MMH("射", "A bow 身 being drawn by a hand 寸")], "右",
                                  interpretation="寸，法度也。亦手也。", interp_provs=[SW(3293, "寸，法度也。亦手也。", "shuowen.variant")])],
              variants=lambda: [Variant(form="射", kind="篆文", analysis="篆文䠶从寸。寸，法度也。亦手也。",
                                        provenance=[SW(3293, "篆文䠶从寸。寸，法度也。亦手也。", "shuowen.variant")])],
              gloss=("弓弩發於身而中於遠也。", ["duan"]), en="shoot, eject, issue forth, emit",
              pinyin="shè", fanqie="食夜切", scripts={"楷书": ["font-song", "font-kai"]}),
    "背": dict(sw=2607, code="U+80CC", ids="⿱北⺼", structure="⿱", formation=("形声", False),
              form_provs=lambda: [SW(2607, "从肉北聲"), IDS("U+80CC", "北聲", "cjkvi-ids.analysis"), MMH("背", '"type":"pictophonetic"')],
              comps=lambda: [comp("北", ["表音"], [SW(2607, "从肉北聲"), IDS("U+80CC", "⿱北肉"), MMH("背", '"phonetic":"北"')], "上"),
                             comp("⺼", ["表意"], [SW(2607, "从肉北聲"), IDS("U+80CC", "⿱北肉"), MMH("背", '"semantic":"⺼"')], "下")],
              gloss=("𦟝也。", []), en="back; back side; behind; betray",
              pinyin="bèi", fanqie="補妹切", scripts={"楷书": ["font-song", "font-hei"]}),
    "往": dict(sw=1228, code="U+5F80", ids="⿰彳主", structure="⿰", formation=("形声", False),
              form_provs=lambda: [SW(1228, "从彳㞷聲"), MMH("往", '"type":"pictophonetic"')],
              comps=lambda: [comp("彳", ["表意"], [SW(1228, "从彳㞷聲"), IDS("U+5F80", "⿰彳主"), MMH("往", '"semantic":"彳"')], "左"),
                             comp("主", ["表音"], [IDS("U+5F80", "⿰彳主")], "右", disagree={"shuowen": "not listed"})],
              seal_comps=lambda: [comp("彳", ["表意"], [SW(1228, "从彳㞷聲")], "左"),
                                  comp("㞷", ["表音"], [SW(1228, "从彳㞷聲")], "右")],
              variants=lambda: [Variant(form="𨓹", kind="古文", analysis="古文从辵。", provenance=[SW(1228, "古文从辵。", "shuowen.variant")])],
              gloss=("之也。", ["duan"]), en="go, depart; past, formerly",
              pinyin="wǎng", fanqie="于兩切", scripts={"楷书": ["font-song", "font-hei"], "篆书": ["seal"]}),
    "大": dict(sw=6564, code="U+5927", ids="大", structure="独体", formation=("象形", False),
              form_provs=lambda: [SW(6564, "故大象人形"), IDS("U+5927", "象形", "cjkvi-ids.analysis")],
              form_disagree={"makemeahanzi": "会意"},
              comps=lambda: [comp("大", ["表意"], [SW(6564, "故大象人形"), IDS("U+5927", "大")])],
              gloss=("天大，地大，人亦大。故大象人形。", ["duan"]), en="big, great, vast, large, high",
              pinyin="dà", fanqie="徒蓋切", scripts={"甲骨文": ["scan", "scan", "scan"], "楷书": ["font-song", "font-hei"]}),
    "日": dict(sw=4170, code="U+65E5", ids="日", structure="独体", formation=("象形", False),
              form_provs=lambda: [SW(4170, "象形"), IDS("U+65E5", "象形", "cjkvi-ids.analysis"), MMH("日", '"type":"pictographic"')],
              comps=lambda: [comp("日", ["表意"], [SW(4170, "从囗一。象形"), IDS("U+65E5", "日"), MMH("日", '"type":"pictographic"')])],
              variants=lambda: [Variant(form="𡆠", kind="古文", analysis="古文。象形。", provenance=[SW(4170, "古文。象形。", "shuowen.variant")])],
              gloss=("實也。太陽之精不虧。", ["duan"]), en="sun; day; daytime",
              pinyin="rì", fanqie="人質切", scripts={"甲骨文": ["scan", "scan", "scan"], "楷书": ["font-song", "font-hei", "font-kai"]}),
    "月": dict(sw=4291, code="U+6708", ids="月", structure="独体", formation=("象形", False),
              form_provs=lambda: [SW(4291, "象形"), IDS("U+6708", "象形", "cjkvi-ids.analysis"), MMH("月", '"type":"pictographic"')],
              comps=lambda: [comp("月", ["表意"], [SW(4291, "象形"), IDS("U+6708", "月"), MMH("月", '"type":"pictographic"')])],
              gloss=("闕也。大陰之精。", ["duan"]), en="moon; month; Kangxi radical 74",
              pinyin="yuè", fanqie="魚厥切", scripts={"甲骨文": ["scan", "scan"], "楷书": ["font-song", "font-hei"]}),
    "木": dict(sw=3396, code="U+6728", ids="木", structure="独体", formation=("象形", False),
              form_provs=lambda: [SW(3396, "下象其根"), IDS("U+6728", "象形", "cjkvi-ids.analysis"), MMH("木", '"type":"pictographic"')],
              comps=lambda: [comp("木", ["表意"], [SW(3396, "从屮，下象其根"), IDS("U+6728", "木"), MMH("木", '"type":"pictographic"')])],
              gloss=("冒也。冒地而生。東方之行。", ["duan"]), en="tree; wood, lumber; wooden",
              pinyin="mù", fanqie="莫卜切", scripts={"甲骨文": ["scan", "scan"], "楷书": ["font-song", "font-kai"]}),
    "說": dict(sw=1542, code="U+8AAA", ids="⿰言兌", structure="⿰", formation=("形声", False),
              form_provs=lambda: [DUAN(1542, "兑聲"), IDS("U+8AAA", "兌聲", "cjkvi-ids.analysis"), MMH("說", '"type":"pictophonetic"')],
              comps=lambda: [comp("言", ["表意"], [SW(1542, "从言、兌"), IDS("U+8AAA", "⿰言兌"), MMH("說", '"semantic":"言"')], "左"),
                             comp("兌", ["表音"], [SW(1542, "从言、兌"), IDS("U+8AAA", "⿰言兌"), MMH("說", '"phonetic":"兌"')], "右")],
              variants=lambda: [Variant(form="说", kind="簡体", provenance=[UH("U+8AAA", "U+8BF4", "unihan.kSimplifiedVariant")])],
              gloss=("說，釋也。", ["duan"]), en="speak, say, talk; scold, upbraid",
              pinyin="shuō", fanqie="失爇切", scripts={"楷书": ["font-song", "font-kai"]}),
    "说": dict(sw=None, code="U+8BF4", ids="⿰讠兑", structure="⿰", formation=("形声", False),
              form_provs=lambda: [MMH("说", '"type":"pictophonetic"')],
              comps=lambda: [comp("讠", ["表意"], [IDS("U+8BF4", "⿰讠兑"), MMH("说", '"semantic":"讠"')], "左"),
                             comp("兑", ["表音"], [IDS("U+8BF4", "⿰讠兑"), MMH("说", '"phonetic":"兑"')], "右")],
              variants=lambda: [Variant(form="說", kind="繁體", provenance=[UH("U+8BF4", "U+8AAA U+8AAC", "unihan.kTraditionalVariant")])],
              gloss=None, en="speak, say, talk; scold, upbraid",
              pinyin="shuō", fanqie=None, scripts={"简体": ["font-song", "font-hei"]}),
    "惑": dict(sw=6829, code="U+60D1", ids="⿱或心", structure="⿱", formation=("形声", False),
              form_provs=lambda: [SW(6829, "从心或聲"), IDS("U+60D1", "或聲", "cjkvi-ids.analysis")],
              form_disagree={"makemeahanzi": "会意"},
              comps=lambda: [comp("或", ["表音"], [SW(6829, "从心或聲"), IDS("U+60D1", "⿱或心"), MMH("惑", "或 also provides the pronunciation")], "上"),
                             comp("心", ["表意"], [SW(6829, "从心或聲"), IDS("U+60D1", "⿱或心"), MMH("惑", "An uncertain 或 heart 心")], "下")],
              gloss=("亂也。", ["duan"]), en="confuse, mislead, baffle; doubt",
              pinyin="huò", fanqie="胡國切", scripts={"楷书": ["font-song", "font-hei"]}),
    "𣣌": dict(sw=2555, code="U+238CC", ids="⿰歹次", structure="⿰", formation=("形声", False),
              form_provs=lambda: [SW(2555, "从死次聲")],
              comps=lambda: [comp("死", ["表意"], [SW(2555, "从死次聲")], "左"), comp("次", ["表音"], [SW(2555, "从死次聲")], "右")],
              gloss=("戰見血曰傷；亂或爲惽；死而復生爲𣣌。", []), en=None,
              pinyin=None, fanqie="咨四切", scripts={}),
    "雲": dict(sw=7538, code="U+96F2", ids="⿱雨云", structure="⿱", formation=("形声", False),
              form_provs=lambda: [IDS("U+96F2", "云聲", "cjkvi-ids.analysis")],
              form_disagree={"makemeahanzi": "会意"},
              comps=lambda: [comp("雨", ["表意"], [SW(7538, "从雨"), IDS("U+96F2", "⿱雨云"), MMH("雲", "Rain 雨 falling from a cloud 云")], "上"),
                             comp("云", ["表音"], [SW(7538, "云象雲回轉形"), IDS("U+96F2", "⿱雨云"), MMH("雲", "Rain 雨 falling from a cloud 云")], "下")],
              variants=lambda: [Variant(form="云", kind="古文", analysis="古文省雨。", provenance=[SW(7538, "古文省雨。", "shuowen.variant")]),
                                Variant(form="云", kind="簡体", provenance=[UH("U+96F2", "U+4E91", "unihan.kSimplifiedVariant")])],
              gloss=("山川气也。", ["duan"]), en="clouds; Yunnan province",
              pinyin="yún", fanqie="王分切", scripts={"楷书": ["font-song", "font-hei"]}),
    "供": dict(sw=5003, code="U+4F9B", ids="⿰亻共", structure="⿰", formation=("形声", False),
              form_provs=lambda: [SW(5003, "从人共聲"), IDS("U+4F9B", "共聲", "cjkvi-ids.analysis")],
              form_disagree={"makemeahanzi": "会意"},
              comps=lambda: [comp("亻", ["表意"], [SW(5003, "从人共聲"), IDS("U+4F9B", "⿰亻共"), MMH("供", "A person 亻")], "左"),
                             comp("共", ["表音"], [SW(5003, "从人共聲"), IDS("U+4F9B", "⿰亻共"), MMH("供", "共 also provides the pronunciation")], "右")],
              gloss=("設也。", ["duan"]), en="supply, provide for; offer in worship",
              pinyin="gōng", fanqie="俱容切", scripts={"楷书": ["font-song", "font-hei"]}),
    "具": dict(sw=1764, code="U+5177", ids="⿱且八", structure="⿱", formation=("会意", False),
              form_provs=lambda: [SW(1764, "从廾，从貝省")],
              comps=lambda: [comp("貝", ["表意"], [SW(1764, "从廾，从貝省")], "上"), comp("廾", ["表意"], [SW(1764, "从廾，从貝省")], "下")],
              gloss=("共置也。", ["duan"]), en="tool, implement; draw up, write",
              pinyin="jù", fanqie="其遇切", scripts={}),
}


def _shuowen_raw(sources_dir: Path, entry_id: int) -> dict[str, str]:
    """``raw`` entries of a Shuowen file exactly as the records stage keeps them
    (builder/sources/adapters/shuowen.py: ``shuowen:<id>`` and ``duan:<id>`` line texts)."""
    from builder.sources.adapters.shuowen import parse_entry
    from hub.skips import SkipLog

    obj = json.loads((sources_dir / "shuowen" / "data" / f"{entry_id}.json").read_text("utf-8"))
    entry = parse_entry(obj, f"data/{entry_id}.json", SkipLog())
    out = {entry.key: entry.raw}
    if entry.duan is not None:
        out[entry.duan.key] = entry.duan.raw
    return out


def _render(char: str, style: str, path: Path, size: int = 64) -> None:
    img = Image.new("L", (size, size), 255)
    draw = ImageDraw.Draw(img)
    if style == "scan":  # a rubbing-like stand-in: noisy background, thick strokes
        font = ImageFont.truetype(FONT_FILES["font-hei"], int(size * 0.8))
        draw.rectangle([0, 0, size, size], fill=200)
        draw.text((size * 0.1, size * 0.02), char, font=font, fill=20)
    else:
        file = FONT_FILES.get(style, "/usr/share/fonts/truetype/babelstone/BabelStoneHan.ttf")
        font = ImageFont.truetype(file, int(size * 0.8))
        draw.text((size * 0.1, size * 0.02), char, font=font, fill=0)
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path, format="PNG")


def _image(out: Path, char: str, script: str, style: str, n: int) -> GlyphImage:
    source = {"scan": "oracle-mnist", "seal": "lxgw-seal"}.get(style, f"font:{style}")
    key = f"{source}|{char}|{script}|{style}|{n}"
    digest = hashlib.sha256(key.encode()).hexdigest()
    image_id = f"{source.split(':')[0]}-{digest[:12]}"
    rel = f"images/{script}/{image_id}.png"
    _render(char, style if style != "seal" else "seal", out / rel)
    data = (out / rel).read_bytes()
    return GlyphImage(
        id=image_id, path=rel, script=script, source=source,
        licence={"scan": "Apache-2.0", "seal": "OFL-1.1"}.get(style, "OFL-1.1"),
        style={"scan": "scan", "seal": "seal-style-font"}.get(style, style),
        font=None if style == "scan" else style, width=64, height=64,
        sha256=hashlib.sha256(data).hexdigest())


def build_records(sources_dir: Path, out: Path) -> list[GlyphRecord]:
    """Build the fixture records (and their images under ``out``)."""
    records = []
    for char, s in SPECS.items():
        raw = {}
        if s["sw"]:
            raw.update(_shuowen_raw(sources_dir, s["sw"]))
        code = s["code"]
        provs_struct = [IDS(code, s["ids"])] + ([MMH(char, f'"decomposition":"{s["ids"]}"')] if s["sw"] != 2555 else [])
        label, yisheng = s["formation"]
        gloss = s.get("gloss")
        readings = []
        if s.get("pinyin"):
            readings.append(Reading(pinyin=s["pinyin"], provenance=[UH(code, s["pinyin"], "unihan.kMandarin")]))
        if s.get("fanqie") and s["sw"]:
            readings.append(Reading(fanqie=s["fanqie"], provenance=[SW(s["sw"], s["fanqie"], "shuowen.pronunciation")]))
        scripts = s["scripts"] or {"楷书": []}
        for script, styles in scripts.items():
            seal = script == "篆书"
            comps = s["seal_comps"]() if seal and "seal_comps" in s else s["comps"]()
            rec = GlyphRecord(
                id=f"{char}_{script}", character=char, script=script,
                images=[_image(out, char, script, st, i) for i, st in enumerate(styles)],
                structure=_g(s["structure"], provs_struct),
                ids=_g(s["ids"], [IDS(code, s["ids"])]),
                formation=_g(Formation(label=label, yisheng=yisheng), s["form_provs"](),
                             disagree=s.get("form_disagree")),
                components=comps,
                original_meaning=(_g(gloss[0], [SW(s["sw"], gloss[0], "shuowen.gloss")],
                                     agree=["shuowen", *gloss[1]]) if gloss else None),
                definition_en=(_g(s["en"], [UH(code, s["en"], "unihan.kDefinition")]) if s.get("en") else None),
                readings=readings,
                variants=s["variants"]() if "variants" in s else [],
                form=s.get("seal_form") if seal else None,
                raw=raw,
            )
            records.append(rec)
    records.sort(key=lambda r: r.id)
    return records


def write_records(sources_dir: Path, out: Path) -> list[GlyphRecord]:
    """Write ``out/records.jsonl`` (+ images) and return the records."""
    out.mkdir(parents=True, exist_ok=True)
    records = build_records(sources_dir, out)
    with open(out / "records.jsonl", "w", encoding="utf-8") as fh:
        for r in records:
            fh.write(r.model_dump_json() + "\n")
    (out / "report.json").write_text(json.dumps({"characters": len({r.character for r in records}),
                                                 "records": len(records)}), "utf-8")
    return records


def copy_project(dest: Path) -> Path:
    """The project's Python packages and root modules under ``dest`` (no tests, outputs or caches)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "out", "node_modules")
    for name in ("builder", "hub", "metrics", "harness", "training", "space", "cards"):
        shutil.copytree(REPO / name, dest / name, ignore=ignore)
    for f in REPO.glob("jiezi_*.py"):
        shutil.copy2(f, dest / f.name)
    return dest


def append_text(path: Path, text: str) -> None:
    """Append ``text`` to the UTF-8 file at ``path`` (an edit that changes no behaviour)."""
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def build_fixture(sources_dir: Path, out: Path, *, bench_size: int = 8, publish: bool = True, seed: int = 0) -> dict:
    """Records -> QA -> (Hub folders) for the fixture records under ``out``; returns the
    stage report."""
    from builder.publish.write import write_hub_folder
    from builder.qa.stage import build_qa

    write_records(sources_dir, out / "records")
    report = build_qa(out / "records", out, seed=seed, bench_size=bench_size, progress=False, duan_notes=False)
    if publish:
        for kind in ("dataset", "bench"):
            write_hub_folder(out, kind, report=report, progress=False)
    return report


def character_records(sources_dir: Path, out: Path, characters: str) -> list[GlyphRecord]:
    """The records stage run for ``characters`` only (no images) into ``out``, read back."""
    from builder.records.build import BuildOptions, build

    build(BuildOptions(output=out, sources=sources_dir, characters=characters, images=False, progress=False,
                       check_hashes=False))
    return [GlyphRecord.model_validate_json(x) for x in (out / "records.jsonl").read_text("utf-8").splitlines()]


def review_index(sources_dir: Path, out: Path, characters: str, *, definitions=None, readings: bool = True):
    """``({record id: record}, EvidenceIndex)`` over the records of ``characters``
    (:func:`character_records` into ``out``) with the real Shuowen, Duan and modern-form
    sources; ``definitions``: Unihan definitions (``True`` loads them from the sources, a dict
    is used as given); ``readings``: the Unihan / Shuowen readings the sound-gloss rules need.
    The set-up the data-review regression tests share."""
    from builder.qa import part_glosses, soundgloss
    from builder.qa.evidence import EvidenceIndex
    from builder.qa.stage import load_modern_forms, load_shuowen
    from hub.skips import SkipLog

    records = character_records(sources_dir, out, characters)
    skips = SkipLog()
    duan, entries = load_shuowen(sources_dir, skips)
    if definitions is True:
        definitions = part_glosses.load_definitions(sources_dir, skips)
    index = EvidenceIndex(records, duan=duan, entries=entries, modern=load_modern_forms(sources_dir, skips),
                          definitions=definitions or {})
    if readings:
        index.readings = soundgloss.load_source_readings(sources_dir, skips)
        index.reserved = frozenset()
    return {r.id: r for r in records}, index


def review_facts(recs, rid: str, profile=None):
    """``builder.qa.compose.facts_for`` of record ``rid`` of a :func:`review_index` pair
    (default profile: the bench). A seal id the records lack (no images are built there) is the
    head's regular-script record read as a seal image."""
    from builder.qa.compose import facts_for
    from builder.qa.facts import BENCH

    by_id, index = recs
    if rid not in by_id and rid.endswith("_篆书"):
        rec = by_id[rid.replace("_篆书", "_楷书")].model_copy(update={"id": rid, "script": "篆书"})
    else:
        rec = by_id[rid]
    return facts_for(rec, profile or BENCH, index)


def character_corpus(sources_dir: Path, characters: str):
    """The records stage's corpus (sources read, restricted to ``characters`` and what they
    link to, readings structurized by rule) for :func:`builder.records.align.align`."""
    from builder.glyphs.oracle_mnist import simplified_only
    from builder.records.build import build_readings, load_sources, make_corpus, select
    from builder.records.structurize import RuleStructurizer
    from hub.skips import SkipLog

    skipped = SkipLog()
    loaded = load_sources(sources_dir, skipped, characters)
    loaded = select(loaded, sources_dir, skipped, loaded.universe, restrict=True)
    return make_corpus(loaded, build_readings(loaded, RuleStructurizer(), progress=False), simplified_only(sources_dir))
