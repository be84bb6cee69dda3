"""Print the exegesis-fidelity counts of a build folder (issue 21), for a before/after note.

Usage: python benchmarks/exegesis_counts.py OUT [--no-dataset]

``OUT`` is a build folder (``OUT/records/records.jsonl``, ``OUT/qa/bench.jsonl``,
``OUT/qa/dataset.jsonl``, ``OUT/qa/report.json``); nothing is written. ``--no-dataset``
skips the (large) dataset file. Figures, per file (bench / dataset):

- **省 components named in full**: component questions (COMP_FULL, COMP_ASPECT, COMR,
  COMF, COMI, COME, the EXEGESIS component list) naming a component X that a record's
  source marks as abbreviated (a span reading ``X省``) while the record's IDS does not draw
  X (``builder.qa.component_names.abbreviated_parts``: 癘 ⿸疒萬 with 「蠆省聲」), with the number
  of characters; and **circular 省 notes**: interpretations saying ``「X」之省`` of X itself.
- **EVOI skeleton table** (bench EVOI references): the stage report's table
  (``builder.qa.stage_report.template_diversity``: the skeleton is the text with every 「…」 slot
  blanked; distinct skeletons, the share of the most common one, mean length in
  characters), the most common skeleton itself, the share describing a change (one of
  :data:`CHANGE_WORDS`), and the share holding a bare attestation frame (a sentence that
  only says 甲骨文已见「X」字 / 金文亦见此字).
- **ORIM questions without attribution**: ORIM questions whose reference is Shuowen's gloss
  (provenance from shuowen) and whose question names no 《说文》.
- **EXEGESIS turns asking for components and giving none** (dataset).
- **sound-gloss references**: ORIM references that open with a sound-gloss by
  ``builder.qa.soundgloss`` (Unihan readings of the source cache), and the stage report's
  count of ORIM questions skipped for one (``missing:ORIM:sound-gloss:original_meaning``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from builder.qa import soundgloss  # noqa: E402
from builder.qa.component_names import _s2t as _opencc_s2t, abbreviated_parts  # noqa: E402
from builder.qa.stage_report import template_diversity  # noqa: E402
from builder.schema import GlyphRecord  # noqa: E402
from builder.sources import registry  # noqa: E402

COMPONENT_KINDS = ("COMP_FULL", "COMP_ASPECT", "COMR", "COMF", "COMI", "COME", "EXEGESIS")
CHANGE_WORDS = ("增加", "省作", "简化为", "简化作", "讹变", "讹作", "隶变", "隸變", "写作", "形体已变", "加「", "相混",
                "不从", "改作", "变为", "变作", "合为", "省去", "去掉", "均不从")
def _s2t(char: str) -> str:
    return _opencc_s2t().convert(char)


_QUOTE = re.compile(r"「[^」]*」")
_CIRCULAR = re.compile(r"「([^」]+)」之省")


class _IdsIndex:
    """The part of ``EvidenceIndex`` that :func:`abbreviated_parts` reads: records by
    character, here only their IDS."""

    def __init__(self, ids: dict[str, str]):
        self.ids = ids

    def records(self, char: str) -> list:
        v = self.ids.get(char)
        return [SimpleNamespace(ids=SimpleNamespace(value=v))] if v else []


def full_named(records_file: Path) -> dict[str, set[str]]:
    """Character -> the 省 components its records name in full where the IDS draws a part."""
    ids: dict[str, str] = {}
    candidates: list[str] = []
    with open(records_file, encoding="utf-8") as fh:
        for line in fh:
            d = json.loads(line)
            if d.get("ids") and d["character"] not in ids:
                ids[d["character"]] = d["ids"]["value"]
            if "省" in line and any("省" in p["span"] for c in d.get("components", []) for p in c["provenance"]):
                candidates.append(line)
    index = _IdsIndex(ids)
    out: dict[str, set[str]] = {}
    for line in candidates:
        rec = GlyphRecord.model_validate_json(line)
        located, unlocated = abbreviated_parts(rec, index)
        names = set(located) | set(unlocated)
        if names:
            out.setdefault(rec.character, set()).update(names)
    return out


def _components(struct: dict) -> list[dict]:
    comps = struct.get("components") if isinstance(struct, dict) else None
    return [c for c in comps or [] if isinstance(c, dict)]


def _bare_frame(text: str) -> bool:
    parts = re.split(r"[\n；。]", text)
    return any(re.fullmatch(r"[-\s]*(甲骨文|金文|小篆|战国文字)(已见「[^」]*」字|亦见此字)\s*", p) for p in parts)


def _shuowen_gloss(provenance: list[dict]) -> bool:
    return any(p.get("field") == "original_meaning" and p.get("source") == "shuowen" for p in provenance)


def _items(path: Path, dataset: bool):
    """(character, kind, question, answer_struct, provenance) of every QA item of a file."""
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if not dataset:
                yield row["character"], row["kind"], row["question"], row["answer_struct"], row["provenance"]
                continue
            for q in row.get("qa", []):
                yield (row["character"], q["kind"], q["question"], json.loads(q.get("answer_struct_json") or "{}"),
                       json.loads(q.get("provenance_json") or "[]"))


def count(path: Path, dataset: bool, named: dict[str, set[str]], readings) -> dict:
    """The figures of one QA file (module doc)."""
    c: Counter = Counter()
    chars: set[str] = set()
    evoi: list[str] = []
    for char, kind, question, struct, prov in _items(path, dataset):
        if kind in COMPONENT_KINDS:
            comps = _components(struct)
            if comps:
                c["component_questions"] += 1
            full = named.get(char, set())
            if any(x.get("name") in full for x in comps):
                c["sheng_named_in_full"] += 1
                chars.add(char)
            if any(m == x.get("name") for x in comps for m in _CIRCULAR.findall(x.get("interpretation") or "")):
                c["circular_sheng_notes"] += 1
        if kind == "EXEGESIS":
            c["exegesis_turns"] += 1
            c["exegesis_asking_components_without_any"] += "构件" in question and not _components(struct)
        if kind == "ORIM":
            c["orim_questions"] += 1
            if _shuowen_gloss(prov) and "说文" not in question and "說文" not in question:
                c["orim_without_attribution"] += 1
            ref = struct.get("original_meaning") or ""
            # the gloss of 驱 names its traditional head (驅馬也): no pun, as the stage reads it
            if ref and soundgloss.strip_sound_gloss(ref, [char, _s2t(char)], readings)[1]:
                c["orim_sound_gloss_references"] += 1
        if kind == "EVOI" and not dataset:
            text = struct.get("evolution") or ""
            evoi.append(text)
            c["evoi_describing_change"] += any(w in text for w in CHANGE_WORDS)
            c["evoi_bare_attestation_frame"] += _bare_frame(text)
    keys = ["component_questions", "sheng_named_in_full", "circular_sheng_notes", "orim_questions",
            "orim_without_attribution", "orim_sound_gloss_references"]
    keys += ["exegesis_turns", "exegesis_asking_components_without_any"] if dataset else [
        "evoi_describing_change", "evoi_bare_attestation_frame"]
    out = {k: c.get(k, 0) for k in keys}
    out["sheng_characters"] = len(chars)
    if evoi:
        n = len(evoi)
        table = template_diversity(evoi)
        top = Counter(_QUOTE.sub("「」", t) for t in evoi).most_common(1)[0][0]
        out["evoi"] = {"references": n, "distinct_skeletons": table["skeletons"],
                       "top_skeleton_share": table["top_skeleton_share"], "top_skeleton": top[:120],
                       "mean_length": table["mean_length"],
                       "share_describing_change": round(c["evoi_describing_change"] / n, 4),
                       "share_bare_attestation_frame": round(c["evoi_bare_attestation_frame"] / n, 4)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="build folder (records/, qa/)")
    ap.add_argument("--no-dataset", action="store_true", help="skip qa/dataset.jsonl")
    ap.add_argument("--sources", type=Path, default=None, help="source cache (default: $JIEZI_SOURCES ...)")
    args = ap.parse_args(argv)
    readings = soundgloss.load_readings(registry.resolve_sources_dir(args.sources) / "unihan" / "Unihan_Readings.txt")
    named = full_named(args.out / "records" / "records.jsonl")
    result = {"bench": count(args.out / "qa" / "bench.jsonl", False, named, readings)}
    if not args.no_dataset:
        result["dataset"] = count(args.out / "qa" / "dataset.jsonl", True, named, readings)
    report = json.loads((args.out / "qa" / "report.json").read_text("utf-8"))
    audit = report.get("audit", {})
    result["stage_report"] = {k: v for k, v in {**audit, **report.get("dataset", {}).get("not_asked", {})}.items()
                              if "sound-gloss" in str(k) or "sheng" in str(k)}
    print(json.dumps(result, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
