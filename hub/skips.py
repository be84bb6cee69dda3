"""Recording bad input without losing the rest of a run.

Every stage that reads user or source data takes a :class:`SkipLog`: a bad item is
skipped, recorded with the source, the item, the field and the reason, and counted in
the stage's report. Nothing here raises; the caller decides what is fatal (a missing
source is, one bad line is not).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from pydantic import BaseModel, ConfigDict


class SkippedItem(BaseModel):
    """One bad input the build skipped: which source and item, which field, and why."""

    model_config = ConfigDict(extra="forbid", frozen=False)

    source: str
    item: str
    field: str | None = None
    reason: str


class SkipLog:
    """An append-only list of :class:`SkippedItem`.

    ``kind`` groups reasons for the report's counts (e.g. ``"truncated-jsonl"``,
    ``"font-missing-glyph"``); it defaults to the source name.
    """

    def __init__(self) -> None:
        self.items: list[SkippedItem] = []
        self._kinds: list[str] = []

    def add(self, source: str, item: str, reason: str, *, field: str | None = None,
            kind: str | None = None) -> None:
        """Record one skipped item. ``item`` names it (a line number, an entry id, a path)."""
        self.items.append(SkippedItem(source=source, item=str(item), field=field, reason=reason))
        self._kinds.append(kind or source)

    def extend(self, other: "SkipLog") -> None:
        """Append every item of ``other`` (used when merging logs of worker processes)."""
        self.items.extend(other.items)
        self._kinds.extend(other._kinds)

    def counts(self) -> dict[str, int]:
        """Skipped items per kind, sorted by kind."""
        return dict(sorted(Counter(self._kinds).items()))

    def __len__(self) -> int:
        return len(self.items)

    def write(self, path: str | Path) -> None:
        """Write one JSON object per skipped item (UTF-8, JSON Lines)."""
        with open(path, "w", encoding="utf-8") as fh:
            for kind, item in zip(self._kinds, self.items):
                fh.write(json.dumps({"kind": kind, **item.model_dump()}, ensure_ascii=False) + "\n")
