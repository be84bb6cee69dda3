"""makemeahanzi ``dictionary.txt``: one JSON object per line (JSON Lines).

Fields (upstream README): ``character``, ``definition`` (English), ``pinyin`` (list),
``decomposition`` (an IDS; ``？`` for an unknown component), ``radical``,
``etymology`` {``type``: ``pictographic`` | ``ideographic`` | ``pictophonetic``,
``hint`` (English), ``semantic``, ``phonetic``}, ``matches`` (stroke-to-component map,
unused). The entry's raw text is the line itself, so spans are JSON fragments such as
``"phonetic":"工"``.
"""

from __future__ import annotations

import json
from pathlib import Path

from builder.sources.adapters import Entry, source_path
from hub.skips import SkipLog

SOURCE = "makemeahanzi"
FILE = "dictionary.txt"

# etymology.type -> 六書 label (the three classes makemeahanzi uses).
ETYMOLOGY_TYPES: dict[str, str] = {"pictographic": "象形", "ideographic": "会意", "pictophonetic": "形声"}


def parse_line(line: str, lineno: int, skipped: SkipLog, name: str = FILE) -> Entry | None:
    """One line -> :class:`Entry` (``entry_id`` = the character, ``data`` = the object)."""
    text = line.rstrip("\n")
    if not text.strip():
        return None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        skipped.add(SOURCE, f"{name}:{lineno}", f"not a complete JSON object ({exc.msg} at column {exc.colno})",
                    kind="truncated-jsonl")
        return None
    if not isinstance(obj, dict):
        skipped.add(SOURCE, f"{name}:{lineno}", "line is not a JSON object", kind="makemeahanzi-bad-entry")
        return None
    ch = obj.get("character")
    if not isinstance(ch, str) or len(ch) != 1:
        skipped.add(SOURCE, f"{name}:{lineno}", f"'character' is {ch!r}, expected one character",
                    field="character", kind="makemeahanzi-bad-entry")
        return None
    ety = obj.get("etymology")
    if ety is not None and not isinstance(ety, dict):
        skipped.add(SOURCE, f"{name}:{lineno}", "'etymology' is not an object", field="etymology",
                    kind="makemeahanzi-bad-entry")
        return None
    return Entry(SOURCE, ch, ch, text, obj)


def read(sources_dir: Path, skipped: SkipLog, *, path: Path | None = None) -> list[Entry]:
    """Every entry of ``dictionary.txt`` (or ``path``), in file order; bad lines are skipped.

    Raises :class:`builder.sources.registry.SourceError` when the file is missing.
    """
    p = path or source_path(sources_dir, SOURCE, FILE)
    out, seen = [], set()
    with open(p, encoding="utf-8", errors="strict") as fh:
        for lineno, line in enumerate(fh, 1):
            e = parse_line(line, lineno, skipped, p.name)
            if e is None:
                continue
            if e.character in seen:
                skipped.add(SOURCE, f"{p.name}:{lineno}", f"duplicate entry for {e.character}", kind="makemeahanzi-duplicate")
                continue
            seen.add(e.character)
            out.append(e)
    return out
