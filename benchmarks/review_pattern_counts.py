"""Count the QA-level defect patterns of the data review (seeds 20261207/8/9) in a build.

Usage: python benchmarks/review_pattern_counts.py OUT [--no-dataset]

``OUT`` is a build folder (``OUT/qa/bench.jsonl``, ``OUT/qa/dataset.jsonl``,
``OUT/records/records.jsonl``); the Shuowen / Unihan files come from the source cache
(``$JIEZI_SOURCES``). Nothing is written; one JSON object is printed, per file (bench /
dataset), with the number of rows (turns) showing each pattern:

1. ``comi_circular``: a component interpretation that is a template (「X为形符，表示字义与X
   有关」, 「X表意，与Y会合成义」, a bare 「X表意」); ``comi_english_hint``: one holding Latin
   text that is not attributed to Unihan (a makemeahanzi hint).
2. ``char_modern_form_question``: a CHAR question asking for the 现代规范字形 / how it is
   written today; ``char_key_outside_table_unaccepted``: a CHAR key outside the
   通用规范汉字表 whose reference accepts no form in it (庫 without 库).
3. ``component_traditional_for_simplified``: a component named in its traditional form
   while the record's IDS draws the simplified one (鳄 ⿰鱼咢 listed with 魚).
4. ``duan_yisheng_phonetic_only``: a phonetic given 表音 only while Duan's note on the
   head says it is 亦聲 (閹 「奄亦聲」) or 形聲包會意 (bench).
5. ``orim_duan_confirms_an_emended_gloss``: an ORIM reference confirmed by a Duan note that
   emends, deletes or reinterprets it (:func:`builder.qa.orim._duan_verdict`).
6. ``orim_depiction``, ``orim_quotation``, ``orim_bare_class``: an ORIM reference holding
   a 象…形 description, a quotation or usage clause (：, 《), or only a one-character class
   word (:data:`builder.qa.orim.CLASS_WORDS`) that is a component of the head (楊 「木」).
7. ``come_sheng_simplified``: a component typed 简化 because Shuowen reads it 省;
   ``evoi_sheng_unlocated_line``: a 「X」为省形 line.
8. ``scrc_bars_only``: a SCRC question on a drawing :mod:`builder.qa.script_neutral` finds
   shows bars only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from builder.qa.component_names import same_component  # noqa: E402
from builder.qa.orim import CLASS_WORDS, _duan_verdict  # noqa: E402
from builder.qa.script_neutral import bar_characters, only_bars  # noqa: E402

CIRCULAR = re.compile(r"表示字义与|会合成义|为指事字的构件，以形表意|^「[^」]+」(（[^）]*）)?(表意|为形符)$")
_LATIN = re.compile(r"[A-Za-z]")
_PINYIN = re.compile(r"读[a-zA-Zü\u00C0-\u024F]+")
_HAN = re.compile(r"[\u3400-\u9fff\U00020000-\U0003134f]")


def _jsonl(path: Path):
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


class Sources:
    """The source-cache facts the counts read: Duan's notes by entry, the 通用规范汉字表,
    OpenCC's traditional -> simplified map."""

    def __init__(self, root: Path):
        self.root = root
        self._duan: dict[str, list[tuple[str, str]]] = {}
        self.standard = set()
        with open(root / "unihan" / "Unihan_OtherMappings.txt", encoding="utf-8") as fh:
            for line in fh:
                if "\tkTGH\t" in line:
                    self.standard.add(chr(int(line.split("\t", 1)[0][2:], 16)))
        import opencc

        self.t2s = opencc.OpenCC("t2s").convert

    def duan(self, entry_id: str) -> list[tuple[str, str]]:
        if entry_id not in self._duan:
            path = self.root / "shuowen" / "data" / f"{entry_id}.json"
            obj = json.loads(path.read_text("utf-8")) if path.is_file() else {}
            self._duan[entry_id] = [(d.get("explanation", ""), d.get("note", "")) for d in obj.get("duan_notes") or []]
        return self._duan[entry_id]


def _components(struct: dict) -> list[dict]:
    return [c for c in (struct or {}).get("components") or [] if isinstance(c, dict)]


def count_item(kind: str, struct: dict, provs: list[dict], question: str, rec: dict | None, src: Sources,
               neutral: set[str], image_id: str, c: Counter, bench: bool = False) -> None:
    """Add one bench row's / dataset turn's patterns to ``c``."""
    comps = _components(struct)
    interps = [x.get("interpretation") or "" for x in comps]
    c["comi_circular"] += any(CIRCULAR.search(t) for t in interps)
    c["comi_english_hint"] += any(_LATIN.search(_PINYIN.sub("", re.split("Unihan (?:释义|首列义项)", t)[0])) for t in interps)
    ids = ((rec or {}).get("ids") or {}).get("value", "")
    c["component_traditional_for_simplified"] += any(
        src.t2s(x["name"]) != x["name"] and src.t2s(x["name"]) in ids and x["name"] not in ids for x in comps)
    if comps and kind in ("COMP_FULL", "COMP_ASPECT") and bench:  # Duan is a bench source only
        c["duan_yisheng_phonetic_only"] += _yisheng_missed(comps, provs, src)
    c["come_sheng_simplified"] += any(p.get("rule") == "evolution.simplification.sheng" for p in provs)
    if kind == "CHAR":
        c["char_modern_form_question"] += bool(re.search(r"现代规范字形|今天写作", question))
        key = struct.get("character", "")
        acc = set(struct.get("accepted") or [])
        c["char_key_outside_table_unaccepted"] += bool(key and key not in src.standard and src.standard
                                                       and not (acc & src.standard))
    if kind == "SCRC":
        c["scrc_bars_only"] += image_id in neutral
    if kind == "ORIM":
        _orim(struct.get("original_meaning", ""), provs, rec, src, c)
    if kind in ("EVOI", "EXEGESIS"):
        text = struct.get("evolution", "") or ""
        c["evoi_sheng_unlocated_line"] += "为省形" in text


def _yisheng_missed(comps: list[dict], provs: list[dict], src: Sources) -> bool:
    entries = {p["entry_id"] for p in provs if p.get("source") in ("shuowen", "duan")}
    for x in comps:
        if list(x.get("functions") or []) != ["表音"]:
            continue
        for eid in entries:
            for quote, note in src.duan(eid):
                if any(same_component(m, x["name"]) for m in re.findall(r"(\S)亦聲", note)):
                    return True
                if "形聲包會意" in note and "聲" in quote and sum(list(y.get("functions") or []) == ["表音"] for y in comps) == 1:
                    return True
    return False


def _orim(text: str, provs: list[dict], rec: dict | None, src: Sources, c: Counter) -> None:
    c["orim_depiction"] += bool(re.search(r"象.{0,12}之?形", text))
    c["orim_quotation"] += bool(re.search(r"：|《|“", text.split("（《说文》")[0]))
    core = re.sub(r"[\W也]", "", text)
    names = [x["name"] for x in (rec or {}).get("components", [])]
    c["orim_bare_class"] += len(core) == 1 and core in CLASS_WORDS and any(same_component(core, n) for n in names)
    for p in provs:
        if p.get("rule") != "qa.orim.duan_confirms":
            continue
        head = re.split(r"[。，；.]", text.strip())[0].rstrip("也")
        for quote, note in src.duan(p["entry_id"]):
            if quote.strip() == p["span"].strip() and _duan_verdict(quote, note, head, text) is not None:
                c["orim_duan_confirms_an_emended_gloss"] += 1
                return


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--no-dataset", action="store_true")
    a = ap.parse_args()
    src = Sources(Path(os.environ.get("JIEZI_SOURCES", REPO.parent / "shared" / "sources")))
    recs = {r["id"]: r for r in _jsonl(a.out / "records" / "records.jsonl")}
    bars = bar_characters_from(recs)
    neutral = {im["id"] for r in recs.values() if r["character"] in bars and r["script"] in ("甲骨文", "金文", "战国文字", "篆书")
               for im in r.get("images", []) if only_bars(a.out / "records" / im["path"])}
    result = {}
    bench = Counter()
    for row in _jsonl(a.out / "qa" / "bench.jsonl"):
        bench["rows"] += 1
        count_item(row["kind"], row["answer_struct"], row["provenance"], row["question"], recs.get(row["record_id"]),
                   src, neutral, row["image_id"], bench, bench=True)
    result["bench"] = dict(sorted(bench.items()))
    if not a.no_dataset:
        ds = Counter()
        for img in _jsonl(a.out / "qa" / "dataset.jsonl"):
            for t in img["qa"]:
                ds["turns"] += 1
                count_item(t["kind"], json.loads(t["answer_struct_json"]), json.loads(t["provenance_json"]),
                           t["question"], recs.get(img["record_id"]), src, neutral, img["id"], ds)
        result["dataset"] = dict(sorted(ds.items()))
    print(json.dumps(result, ensure_ascii=False, indent=1))
    return 0


def bar_characters_from(recs: dict) -> set[str]:
    """:func:`builder.qa.script_neutral.bar_characters` of the records' IDS."""
    from types import SimpleNamespace

    return bar_characters([SimpleNamespace(character=r["character"], ids=SimpleNamespace(value=r["ids"]["value"]))
                           for r in recs.values() if r.get("ids")])


if __name__ == "__main__":
    raise SystemExit(main())
