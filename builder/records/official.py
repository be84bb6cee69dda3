"""The official JieZi metadata layout (``meta_samples.json`` of Ran00w/JieZi-test): import and export.

A user holding the official release can map it to this project's records and back.
The layout is a JSON list of objects::

    {"character", "script", "creation_method": ["会意字", ...], "structure": "⿱",
     "special_structure", "components": [{"component", "function": ["表意"], "explanation"}],
     "original_meaning", "evolution", "pinyin": [...],
     "meaning_chunks": [{"pinyin", "pos", "meaning", "notes", "examples"}], "images": [paths]}

Mapping: ``creation_method`` ``X字`` -> the 六書 label X; the pair 形声字 + 会意字 -> 形声 with
the 亦声 flag (and back). Component names are kept as written (no alias folding), so
:func:`export_official` gives back what :func:`import_official` read. ``images`` become
:class:`GlyphImage`s when the files exist under ``images_root``; a listed image that is
not there is skipped and logged (kind ``official-image-missing``).

The samples are CC BY-NC-ND 4.0: this module exists for format interoperability; the
default build never reads them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from builder.sources.adapters import Entry
from builder.records.fidelity import enforce
from builder.records.structurize import SourceReading
from builder.schema import (Component, FidelityFlag, Formation, GlyphImage, GlyphRecord, Grounded, Provenance,
                            Reading, Sense)
from hub.skips import SkipLog
from metrics.acce import labels

SOURCE = "jiezi-official"
LICENCE = "CC-BY-NC-ND-4.0"
FIELDS = ("character", "script", "creation_method", "structure", "special_structure", "components",
          "original_meaning", "evolution", "pinyin", "meaning_chunks", "images")
REQUIRED = ("character", "script")


def _span(value: str) -> str:
    """How a string value appears inside the compact JSON raw text."""
    return json.dumps(value, ensure_ascii=False)[1:-1]


def read(path: Path, skipped: SkipLog) -> list[Entry]:
    """The entries of an official metadata file (``entry_id`` = ``<character>_<script>``, ``#n`` on repeats).

    ``raw`` is the object as compact JSON. A non-object item, or one without a
    one-character ``character`` or a known ``script``, is skipped and recorded.
    """
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of metadata records, got {type(data).__name__}")
    out, seen = [], {}
    for i, obj in enumerate(data):
        if not isinstance(obj, dict):
            skipped.add(SOURCE, f"{Path(path).name}[{i}]", "not a JSON object", kind="official-bad-record")
            continue
        ch, script = obj.get("character"), obj.get("script")
        if not isinstance(ch, str) or len(ch) != 1:
            skipped.add(SOURCE, f"{Path(path).name}[{i}]", f"character {ch!r} is not one character",
                        field="character", kind="official-bad-record")
            continue
        if script not in labels.SCRIPTS:
            skipped.add(SOURCE, f"{Path(path).name}[{i}]", f"script {script!r} is not one of {list(labels.SCRIPTS)}",
                        field="script", kind="official-bad-record")
            continue
        eid = f"{ch}_{script}"
        seen[eid] = seen.get(eid, 0) + 1
        if seen[eid] > 1:
            eid += f"#{seen[eid]}"
        out.append(Entry(SOURCE, eid, ch, json.dumps(obj, ensure_ascii=False), obj))
    return out


def formation_from_methods(methods: list[str]) -> tuple[Formation | None, str | None]:
    """``["形声字", "会意字"]`` -> 形声 + 亦声; ``["会意字"]`` -> 会意. Returns (formation,
    problem) where problem names a combination the schema cannot hold (the first label is kept)."""
    names = [m[:-1] if isinstance(m, str) and m.endswith("字") else m for m in methods or []]
    names = [n for n in names if n in labels.FORMATIONS]
    if not names:
        return None, (f"unknown creation_method {methods!r}" if methods else None)
    if sorted(names) == ["会意", "形声"]:
        return Formation(label="形声", yisheng=True), None
    problem = f"creation_method {methods!r} has several classes; kept {names[0]}" if len(set(names)) > 1 else None
    return Formation(label=names[0]), problem


def methods_from_formation(f: Formation | None) -> list[str]:
    """The inverse of :func:`formation_from_methods`."""
    if f is None:
        return []
    if f.yisheng and f.label == "形声":
        return ["形声字", "会意字"]
    return [f"{f.label}字"]


def _image(path_str: str, script: str, images_root: Path | None, skipped: SkipLog, item: str) -> GlyphImage | None:
    if images_root is None or not (Path(images_root) / path_str).is_file():
        skipped.add(SOURCE, item, f"image {path_str} not found under {images_root}", field="images",
                    kind="official-image-missing")
        return None
    from hub.imageio import ImageRejected, open_image

    p = Path(images_root) / path_str
    data = p.read_bytes()
    try:
        w, h = open_image(data, name=path_str).size  # the one guard: pixel cap, truncated, undecodable
    except ImageRejected as exc:
        skipped.add(SOURCE, item, f"{path_str} is not a usable image ({exc.reason})", field="images",
                    kind="official-not-an-image")
        return None
    sha = hashlib.sha256(data).hexdigest()
    return GlyphImage(id=f"{SOURCE}-{sha[:16]}", path=path_str, script=script, source=SOURCE, licence=LICENCE,
                      style="user", width=w, height=h, sha256=sha)


def to_record(entry: Entry, skipped: SkipLog, images_root: Path | None = None) -> GlyphRecord:
    """One official entry -> a :class:`GlyphRecord` (each value cited in the entry's JSON),
    checked by :func:`builder.records.fidelity.enforce` like every structurizer's output."""
    o, ch, script = entry.data, entry.character, entry.data["script"]

    def prov(span: str, rule: str) -> list[Provenance]:
        return [Provenance(source=SOURCE, entry_id=entry.entry_id, span=span, rule=f"official.{rule}")]

    r = SourceReading(source=SOURCE, entry_key=entry.key, character=ch)
    f, problem = formation_from_methods(o.get("creation_method") or [])
    if problem:
        skipped.add(SOURCE, entry.entry_id, problem, field="creation_method", kind="official-formation")
    if f is not None:
        span = json.dumps(o["creation_method"], ensure_ascii=False)
        r.formation = Grounded[Formation](value=f, provenance=prov(span, "creation_method"))
    for c in o.get("components") or []:
        if not isinstance(c, dict) or not c.get("component"):
            continue
        fns = [x for x in c.get("function") or [] if x in labels.FUNCTIONS]
        comp = Component(name=c["component"], functions=fns,
                         provenance=prov(_span(c["component"]) + '", "function": '
                                         + json.dumps(c.get("function") or [], ensure_ascii=False), "component"))
        if c.get("explanation") is not None:
            comp.interpretation = c["explanation"]
            comp.interpretation_provenance = prov(_span(c["explanation"]) or '"explanation": ""', "explanation")
        r.components.append(comp)
    for name, rule in (("original_meaning", "original_meaning"), ("evolution", "evolution"),
                       ("special_structure", "special_structure")):
        v = o.get(name)
        if isinstance(v, str) and v:
            setattr(r, name, Grounded[str](value=v, provenance=prov(_span(v), rule)))
    for p in o.get("pinyin") or []:
        if isinstance(p, str) and p:
            r.readings.append(Reading(pinyin=p, provenance=prov(_span(p), "pinyin")))
    for m in o.get("meaning_chunks") or []:
        if isinstance(m, dict) and m.get("meaning"):
            r.senses.append(Sense(meaning=m["meaning"], pinyin=m.get("pinyin"), pos=m.get("pos"), notes=m.get("notes"),
                                  examples=m.get("examples"), provenance=prov(_span(m["meaning"]), "meaning_chunk")))
    r = enforce(r, {entry.key: entry.raw})
    rec = GlyphRecord(id=f"{ch}_{script}", character=ch, script=script, formation=r.formation,
                      components=r.components, original_meaning=r.original_meaning, evolution=r.evolution,
                      special_structure=r.special_structure, readings=r.readings, senses=r.senses,
                      flags=list(r.flags), raw={entry.key: entry.raw})
    st = o.get("structure")
    if isinstance(st, str) and st:
        if st in labels.STRUCTURES:
            rec.structure = Grounded(value=st, provenance=prov(_span(st), "structure"))
        else:
            rec.flags.append(FidelityFlag(field="structure", value=st, reason="not an IDC or 独体", source=SOURCE))
    for k, path_str in enumerate(o.get("images") or []):
        img = _image(str(path_str), script, images_root, skipped, f"{entry.entry_id} images[{k}]")
        if img is not None:
            rec.images.append(img)
    return rec


def import_official(path: Path, skipped: SkipLog, *, images_root: Path | None = None) -> list[GlyphRecord]:
    """Read an official metadata file into records (see the module docstring)."""
    return [to_record(e, skipped, images_root) for e in read(path, skipped)]


def export_official(records) -> list[dict]:
    """Records -> the official metadata layout (key order as upstream). Empty fields are
    written as upstream writes them: ``""`` for strings, ``[]`` for lists."""
    out = []
    for r in records:
        pinyin = list(dict.fromkeys(x.pinyin for x in r.readings if x.pinyin))
        out.append({
            "character": r.character,
            "script": r.script,
            "creation_method": methods_from_formation(r.formation.value if r.formation else None),
            "structure": r.structure.value if r.structure else "",
            "special_structure": r.special_structure.value if r.special_structure else "",
            "components": [{"component": c.name, "function": list(c.functions), "explanation": c.interpretation or ""}
                           for c in r.components],
            "original_meaning": r.original_meaning.value if r.original_meaning else "",
            "evolution": r.evolution.value if r.evolution else "",
            "pinyin": pinyin,
            "meaning_chunks": [{"pinyin": s.pinyin or "", "pos": s.pos or "", "meaning": s.meaning,
                                "notes": s.notes or "", "examples": s.examples or ""} for s in r.senses],
            "images": [im.path for im in r.images],
        })
    return out
