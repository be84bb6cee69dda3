"""The records of the retrieval gallery (JieZi-Dataset config ``records``).

:func:`gallery_record` writes a GlyphRecord as the gallery shows it: an early-form
record keeps no form analysis, and a JieZi-Bench character keeps nothing read only from
the bench sources (:data:`BENCH_ONLY_SOURCES`), so retrieval over training records cannot
return the bench's reference wording.
"""

from __future__ import annotations

import json

from builder.schema import GlyphRecord, as_drawn


BENCH_ONLY_SOURCES = frozenset({"shuowen", "duan"})


def gallery_record(rec: GlyphRecord, reserved: bool) -> str:
    """The GlyphRecord JSON of the ``records`` gallery.

    An early-form record (甲骨文, 金文) keeps no structure, components or formation
    (:func:`builder.schema.as_drawn`). For a JieZi-Bench character (``reserved``) every value read only from the bench
    sources (Shuowen, Duan) is removed, with those sources' raw text, so retrieval over
    training records cannot return the bench's reference wording. Images listed are the
    dataset's only (bench images are never in the gallery).
    """
    data = as_drawn(rec).model_dump(mode="json")
    if not reserved:
        return json.dumps(data, ensure_ascii=False)

    def keep(provs):
        return [p for p in provs if p["source"] not in BENCH_ONLY_SOURCES]

    for fld in ("structure", "ids", "formation", "original_meaning", "definition_en", "evolution",
                "special_structure", "radical_stroke"):
        g = data.get(fld)
        if g is not None:
            g["provenance"] = keep(g["provenance"])
            g["agree"] = [a for a in g.get("agree", []) if a not in BENCH_ONLY_SOURCES]
            g["disagree"] = {k: v for k, v in g.get("disagree", {}).items() if k not in BENCH_ONLY_SOURCES}
            if not g["provenance"]:
                data[fld] = None
    for lst in ("components", "readings", "variants", "senses"):
        kept = []
        for item in data.get(lst) or []:
            item["provenance"] = keep(item["provenance"])
            for extra in ("interpretation_provenance", "evolution_provenance"):
                if extra in item:
                    item[extra] = keep(item[extra])
                    if not item[extra]:
                        item[extra.replace("_provenance", "_type" if extra.startswith("evolution") else "")] = None
            if item["provenance"]:
                kept.append(item)
        data[lst] = kept
    data["raw"] = {k: v for k, v in data.get("raw", {}).items() if k.split(":", 1)[0] not in BENCH_ONLY_SOURCES}
    data["images"] = []
    return json.dumps(data, ensure_ascii=False)
