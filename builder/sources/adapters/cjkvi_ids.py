"""cjkvi-ids: ``ids.txt`` (IDS with region tags) and ``ids-analysis.txt`` (六書 analysis).

``ids.txt``: ``U+XXXX<TAB>char<TAB>IDS[<TAB>IDS ...]``; an IDS may end in a region tag
``[GTJKV...]`` saying which regional glyph it describes (G China, T Taiwan, J Japan,
K Korea, V Vietnam ...). Entry id ``ids.txt:U+XXXX``, raw text = the line.

``ids-analysis.txt``: ``U+XXXXX<TAB>char<TAB>IDS-or-link<TAB>analysis<TAB>number`` where
the analysis is ``X聲`` / ``X亦聲`` / ``會意`` / ``象形`` / ``指事`` or a variant marker
(``古文``, ``籒文``, ``或字``, ``俗字``, ``篆文``, ``簡体`` ...) together with a link ``→X`` /
``←X`` to the related character, and the number locates the entry in the Shuowen order.
A character may have several lines; the entry (id ``ids-analysis.txt:U+XXXXX``) keeps
them all. Some lines end in a ``# ...`` comment, some of which quote a copyrighted
dictionary (``【字通】``): every comment is stripped on read and never kept in ``raw``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from builder.sources.adapters import Entry, source_path
from builder.ids import IDSError, parse
from hub.skips import SkipLog

SOURCE = "cjkvi-ids"
IDS_FILE = "ids.txt"
ANALYSIS_FILE = "ids-analysis.txt"


@dataclass(frozen=True)
class AnalysisLine:
    """One line of ids-analysis.txt without its comment."""

    ids: str | None      # the IDS, when column 3 is one
    link: str | None     # the linked character of a ``→X`` / ``←X`` / ``<X>`` column 3
    analysis: str        # column 4 ('' when empty)
    number: str          # column 5 ('' when empty)
    text: str            # the line as kept in raw


def split_ids_field(field: str) -> tuple[str, str]:
    """``⿱北月[GJK]`` -> (``⿱北月``, ``GJK``); an untagged IDS gets ``""``."""
    f = field.strip()
    if f.endswith("]") and "[" in f:
        i = f.rindex("[")
        return f[:i], f[i + 1:-1]
    return f, ""


def strip_comment(line: str) -> str:
    """The line without its ``# ...`` comment (and without trailing whitespace)."""
    i = line.find("#")
    return (line[:i] if i >= 0 else line).rstrip()


def read_ids(sources_dir: Path, skipped: SkipLog, *, path: Path | None = None,
             characters: set[str] | None = None) -> dict[str, Entry]:
    """``ids.txt`` -> {character: Entry} with ``data["ids"] = [(ids, regions), ...]``.

    Only ``characters`` are kept when given (the file has 88,937 lines). Malformed IDS
    alternatives are dropped and recorded; a line with none left is skipped.
    """
    p = path or source_path(sources_dir, SOURCE, IDS_FILE)
    out: dict[str, Entry] = {}
    with open(p, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if line.startswith("#") or not line.strip():
                continue
            text = line.rstrip("\n")
            cols = text.split("\t")
            if len(cols) < 3 or not cols[0].startswith("U+") or len(cols[1]) != 1:
                skipped.add(SOURCE, f"{p.name}:{lineno}", "expected 'U+XXXX<TAB>char<TAB>IDS'", kind="cjkvi-bad-line")
                continue
            ch = cols[1]
            if characters is not None and ch not in characters:
                continue
            alts = []
            for f in cols[2:]:
                ids, regions = split_ids_field(f)
                try:
                    parse(ids)
                except IDSError as exc:
                    skipped.add(SOURCE, f"{p.name}:{lineno}", str(exc), field="ids", kind="cjkvi-bad-ids")
                    continue
                alts.append((ids, regions))
            if not alts:
                continue
            out[ch] = Entry(SOURCE, f"{IDS_FILE}:{cols[0]}", ch, text, {"ids": alts})
    return out


def read_analysis(sources_dir: Path, skipped: SkipLog, *, path: Path | None = None) -> dict[str, Entry]:
    """``ids-analysis.txt`` -> {character: Entry} with ``data["lines"] = [AnalysisLine, ...]``.

    Comments are stripped before anything is kept. A line without a code point and a
    character is skipped and recorded.
    """
    p = path or source_path(sources_dir, SOURCE, ANALYSIS_FILE)
    lines: dict[str, list[AnalysisLine]] = {}
    ids_of: dict[str, str] = {}
    with open(p, encoding="utf-8") as fh:
        for lineno, raw_line in enumerate(fh, 1):
            text = strip_comment(raw_line.rstrip("\n"))
            if not text.strip():
                continue
            cols = text.split("\t")
            if len(cols) < 3 or not cols[0].startswith("U+") or len(cols[1]) != 1:
                skipped.add(SOURCE, f"{p.name}:{lineno}", "expected 'U+XXXXX<TAB>char<TAB>IDS-or-link ...'",
                            kind="cjkvi-bad-line")
                continue
            if "?" in cols[0]:
                continue  # upstream's placeholder lines for unencoded forms (U+?????)
            col3 = cols[2].strip()
            analysis = cols[3].strip() if len(cols) > 3 else ""
            number = cols[4].strip() if len(cols) > 4 else ""
            link = ids = None
            if col3[:1] in "→←" and len(col3) == 2:
                link = col3[1]
            elif col3[:1] == "<" and col3[-1:] == ">" and len(col3) == 3:
                link = col3[1]  # "<X>": this character is a glyph form of X
            elif col3:
                try:
                    parse(col3)
                    ids = col3
                except IDSError as exc:
                    skipped.add(SOURCE, f"{p.name}:{lineno}", str(exc), field="ids", kind="cjkvi-bad-ids")
            ch = cols[1]
            lines.setdefault(ch, []).append(AnalysisLine(ids, link, analysis, number, text))
            ids_of.setdefault(ch, cols[0])
    return {ch: Entry(SOURCE, f"{ANALYSIS_FILE}:{ids_of[ch]}", ch, "\n".join(l.text for l in ls), {"lines": ls})
            for ch, ls in lines.items()}
