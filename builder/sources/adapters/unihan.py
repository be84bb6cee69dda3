"""Unihan (Unicode 17.0): definitions, readings, variants, radical-stroke.

Line format (Unicode Standard Annex #38): ``U+XXXX<TAB>kField<TAB>value``. Fields read:
``kDefinition`` (English gloss), ``kMandarin`` (pinyin), ``kFanqie`` (反切, space separated),
``kHanyuPinyin`` / ``kXHC1983`` (every Mandarin reading, ``location:reading,reading``),
``kSimplifiedVariant`` / ``kTraditionalVariant`` / ``kSemanticVariant`` / ``kZVariant``
(``U+XXXX`` lists, semantic variants may carry ``<kSource`` tags) and ``kRSUnicode``
(radical.strokes). An entry (id ``U+XXXX``) keeps those lines verbatim as its raw text.
"""

from __future__ import annotations

from pathlib import Path

from builder.sources.adapters import Entry, source_path
from hub.skips import SkipLog
from metrics.acce.variants import VARIANT_FIELDS, code_point

SOURCE = "unihan"
FIELDS: dict[str, tuple[str, ...]] = {
    # kHanyuPinyin / kXHC1983 list every Mandarin reading the dictionaries give (kMandarin
    # only the customary one): the records check other sources' pinyin against them
    "Unihan_Readings.txt": ("kDefinition", "kMandarin", "kFanqie", "kHanyuPinyin", "kXHC1983"),
    "Unihan_Variants.txt": VARIANT_FIELDS,
    "Unihan_IRGSources.txt": ("kRSUnicode",),
}


def read(sources_dir: Path, skipped: SkipLog, *, files: dict[str, Path] | None = None) -> dict[str, Entry]:
    """{character: Entry} with ``data[field] = value`` for the fields above.

    Variant fields are parsed to lists of characters (``data["kSimplifiedVariant"] =
    ["马"]``). Raises :class:`builder.sources.registry.SourceError` for a missing file; a malformed
    line is skipped and recorded.
    """
    lines: dict[str, list[str]] = {}
    data: dict[str, dict] = {}
    for fname, wanted in FIELDS.items():
        p = (files or {}).get(fname) or source_path(sources_dir, SOURCE, fname)
        want = set(wanted)
        with open(p, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.startswith("U+"):
                    continue
                parts = line.rstrip("\n").split("\t")
                if len(parts) != 3:
                    skipped.add(SOURCE, f"{fname}:{lineno}", "expected 'U+XXXX<TAB>kField<TAB>value'", kind="unihan-bad-line")
                    continue
                cp, fld, value = parts
                if fld not in want:
                    continue
                ch = code_point(cp)
                if ch is None:
                    skipped.add(SOURCE, f"{fname}:{lineno}", f"bad code point {cp!r}", kind="unihan-bad-line")
                    continue
                lines.setdefault(ch, []).append(line.rstrip("\n"))
                d = data.setdefault(ch, {})
                if fld in VARIANT_FIELDS:
                    d[fld] = [c for c in (code_point(v) for v in value.split()) if c]
                else:
                    d[fld] = value
    return {ch: Entry(SOURCE, f"U+{ord(ch):04X}", ch, "\n".join(lines[ch]), data[ch]) for ch in data}
