"""One adapter per source: parse the real file format, keep each entry's raw text.

Every adapter returns :class:`Entry` objects (or subclasses with the source's parsed
fields). ``Entry.raw`` is the entry's text as the source gives it (for JSON sources:
the text fields, markup removed; for line formats: the lines themselves), and is what
provenance spans are cut from: a span must be an exact substring of
``raw["<source>:<entry_id>"]`` in the record. Bad items are skipped and recorded in
the :class:`hub.skips.SkipLog` passed in; a missing file raises
:class:`builder.sources.registry.SourceError`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from builder.sources.registry import FETCH_COMMAND, SourceError


@dataclass
class Entry:
    """One source entry: ``source`` is the provenance source name, ``character`` the
    form the entry is about, ``raw`` its raw text."""

    source: str
    entry_id: str
    character: str
    raw: str
    data: dict = field(default_factory=dict)

    @property
    def key(self) -> str:
        """The key of this entry's text in ``GlyphRecord.raw``."""
        return f"{self.source}:{self.entry_id}"


def source_path(sources_dir: Path, source: str, rel: str) -> Path:
    """``<sources_dir>/<source>/<rel>``; raises :class:`SourceError` naming it when absent."""
    path = Path(sources_dir) / source / rel
    if not path.is_file():
        raise SourceError(f"source {source!r}: file {path} is missing; fetch it with `{FETCH_COMMAND} {source}`")
    return path


def cjk(ch: str) -> bool:
    """Whether ``ch`` is a CJK ideograph (URO, extensions A-J, compatibility) or a CJK radical form."""
    o = ord(ch)
    return (0x3400 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0x20000 <= o <= 0x3FFFF
            or 0x2E80 <= o <= 0x2FDF or o == 0x3007)
