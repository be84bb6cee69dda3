"""說文解字 (shuowenjiezi/shuowen): one JSON file per entry, with 段玉裁's notes.

Fields used (``FORMAT.md`` of the source): ``id``, ``wordhead`` (字頭), ``explanation``
(許慎's text), ``pronunciation`` (反切), ``pinyin_full``, ``radical``, ``variants`` (重文:
``wordhead`` + ``explanation``), ``duan_notes`` (段注: the quoted text and the note).
``seal_character`` is a private font code, not text, and is ignored.

Each file gives two entries: ``shuowen:<id>`` (許慎's text, raw lines labelled 字頭 /
說解 / 反切 / 拼音 / 部首 / 重文) and ``duan:<id>`` (the notes, lines 引 quote / 注 note).
Upstream marks some characters with HTML (``<span>[<span>𦏲</span>]</span>``, a bracketed
alternative form); the tags are removed and the bracketed text kept.

The digitised 許慎 text garbles some rare characters into unrelated simplified ones (今
「从亼从绁。绁，古文及」 for 乀, 寑 「从宀钅聲鲞」 for 㑴聲): :func:`mark_garbled` (called by
the records stage, which has Unihan) lists them per entry in ``ShuowenEntry.garbled``, so
that the rules read such a passage from Duan's quotation or not at all. The raw text is
kept verbatim.
"""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import opencc

from builder.sources.adapters import Entry, source_path
from builder.sources.registry import FETCH_COMMAND, SourceError
from hub.skips import SkipLog

SOURCE = "shuowen"
REQUIRED = ("id", "wordhead", "explanation")
_TAG = re.compile(r"</?span[^>]*>")
_WS = re.compile(r"\s+")

# 重文 kinds by the opening words of the variant's explanation; order matters (亦古文 before 古文).
VARIANT_KINDS: tuple[tuple[str, str], ...] = (
    ("亦古文", "古文"), ("古文", "古文"), ("籒文", "籒文"), ("籀文", "籒文"), ("篆文", "篆文"),
    ("小篆", "篆文"), ("或", "或體"), ("俗", "俗字"), ("奇字", "奇字"),
)


def clean(text: str) -> str:
    """Remove the upstream HTML tags and collapse whitespace runs to one space."""
    return _WS.sub(" ", _TAG.sub("", text)).strip()


@dataclass
class Variant:
    """A 重文: the variant form, its kind (古文, 籒文, 或體, 篆文, 俗字, 奇字, 異體) and its text."""

    form: str
    kind: str
    text: str


@dataclass
class DuanNote:
    """One 段注 pair: the Shuowen text Duan quotes and his note on it."""

    quote: str
    note: str


@dataclass
class ShuowenEntry(Entry):
    """A Shuowen entry (``source == "shuowen"``) with its parsed fields."""

    explanation: str = ""
    pronunciation: str = ""
    pinyin_full: str = ""
    radical: str = ""
    variants: list[Variant] = field(default_factory=list)
    duan: Entry | None = None
    duan_notes: list[DuanNote] = field(default_factory=list)
    garbled: frozenset[str] = frozenset()


def variant_kind(text: str) -> str:
    """The 重文 kind named at the start of a variant's explanation (異體 when none is named);
    the head written before 或 does not hide a 或體 (它's 蛇: 「它或从虫」; 玨's 瑴: 「𤤴或从㱿」)."""
    if text[1:2] == "或":
        return "或體"
    for prefix, kind in VARIANT_KINDS:
        if text.startswith(prefix):
            return kind
    return "異體"


def parse_entry(obj: dict, name: str, skipped: SkipLog) -> ShuowenEntry | None:
    """One parsed JSON object -> :class:`ShuowenEntry`, or ``None`` (recorded in ``skipped``)."""
    if not isinstance(obj, dict):
        skipped.add(SOURCE, name, f"expected a JSON object, got {type(obj).__name__}", kind="shuowen-bad-entry")
        return None
    for key in REQUIRED:
        if key not in obj or obj[key] in (None, ""):
            skipped.add(SOURCE, name, f"required field {key!r} is missing or empty", field=key,
                        kind="shuowen-missing-field")
            return None
    head = str(obj["wordhead"]).strip()
    if len(head) != 1:
        skipped.add(SOURCE, name, f"wordhead {head!r} is not one character", field="wordhead",
                    kind="shuowen-bad-entry")
        return None
    for key in ("variants", "duan_notes"):
        if key in obj and not isinstance(obj[key], list):
            skipped.add(SOURCE, name, f"field {key!r} is {type(obj[key]).__name__}, expected a list", field=key,
                        kind="shuowen-bad-entry")
            return None
    eid = str(obj["id"])
    expl = clean(str(obj["explanation"]))
    pron = clean(str(obj.get("pronunciation") or ""))
    pinyin = clean(str(obj.get("pinyin_full") or ""))
    radical = clean(str(obj.get("radical") or ""))
    lines = [f"字頭\t{head}", f"說解\t{expl}"]
    if pron:
        lines.append(f"反切\t{pron}")
    if pinyin:
        lines.append(f"拼音\t{pinyin}")
    if radical:
        lines.append(f"部首\t{radical}")
    variants = []
    for i, v in enumerate(obj.get("variants") or []):
        form = clean(str((v or {}).get("wordhead") or ""))
        text = clean(str((v or {}).get("explanation") or ""))
        if len(form) != 1 or not text:
            skipped.add(SOURCE, f"{name} variants[{i}]", f"variant form {form!r} / text {text[:20]!r} unusable",
                        field="variants", kind="shuowen-bad-variant")
            continue
        variants.append(Variant(form, variant_kind(text), text))
        lines.append(f"重文\t{form}\t{text}")
    notes, dlines = [], []
    for i, d in enumerate(obj.get("duan_notes") or []):
        if not isinstance(d, dict):
            skipped.add(SOURCE, f"{name} duan_notes[{i}]", "not an object", field="duan_notes",
                        kind="shuowen-bad-variant")
            continue
        q, n = clean(str(d.get("explanation") or "")), clean(str(d.get("note") or ""))
        notes.append(DuanNote(q, n))
        dlines += [f"引\t{q}", f"注\t{n}"]
    if "duan_notes" in obj and not obj["duan_notes"]:
        # Duan's edition has every entry of Xu Shen's text and none of Xu Xuan's 新附 (恰, 拗,
        # 佇, 件, 穩, 哦: 478 entries, the 新附 blocks at the end of each radical): quoting
        # them as 《说文》 would pass a Song addition off as Xu Shen's (data review 12-04)
        skipped.add(SOURCE, name, f"{head}: a 新附 entry (Xu Xuan's addition: no note in Duan's edition)",
                    field="duan_notes", kind="shuowen-xinfu")
        return None
    entry = ShuowenEntry(SOURCE, eid, head, "\n".join(lines), explanation=expl, pronunciation=pron,
                         pinyin_full=pinyin, radical=radical, variants=variants, duan_notes=notes)
    if dlines:
        entry.duan = Entry("duan", eid, head, "\n".join(dlines))
    return entry


def _load(path: Path, skipped: SkipLog) -> ShuowenEntry | None:
    name = f"data/{path.name}"
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        skipped.add(SOURCE, name, f"not valid UTF-8 JSON: {exc}", kind="shuowen-bad-json")
        return None
    return parse_entry(obj, name, skipped)


def read(sources_dir: Path, skipped: SkipLog, *, files: list[Path] | None = None) -> list[ShuowenEntry]:
    """Read every ``shuowen/data/*.json`` (or just ``files``), sorted by numeric id.

    Raises :class:`SourceError` when the data folder is missing or empty; a file that is
    not JSON or lacks ``id`` / ``wordhead`` / ``explanation`` is skipped and recorded.
    """
    if files is None:
        data = Path(sources_dir) / SOURCE / "data"
        source_path(sources_dir, SOURCE, "FORMAT.md")
        files = sorted(data.glob("*.json")) if data.is_dir() else []
        if not files:
            raise SourceError(f"source {SOURCE!r}: no data/*.json under {data}; fetch it with `{FETCH_COMMAND} {SOURCE}`")
    # File reads dominate; threads overlap them (the JSON parsing is cheap).
    local = [SkipLog() for _ in files]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(_load, files, local))
    for log in local:
        skipped.extend(log)
    out = [e for e in results if e is not None]
    out.sort(key=lambda e: (int(e.entry_id) if e.entry_id.isdigit() else 1 << 30, e.entry_id))
    return out


def mark_garbled(entries: list[ShuowenEntry], suspects: frozenset[str]) -> None:
    """Set ``garbled`` on each entry (module docstring): the characters of 許慎's text and
    its 重文 texts that are ``suspects`` (characters with a simplified radical, Unihan
    ``kRSUnicode``: :func:`builder.sources.adapters.unihan.simplified_radical`), no head or
    重文 of ``entries``, and absent, in both forms (OpenCC s2t), from Duan's quotation: 魾
    「大鳠也」 is Duan's 「大鱯也」 in its simplified form and stays; 今's 绁 (Duan: 乀) is
    garbled. An entry Duan does not quote is left alone: nothing to compare with."""
    s2t = opencc.OpenCC("s2t")
    forms = {e.character for e in entries} | {v.form for e in entries for v in e.variants}
    for e in entries:
        quoted = "".join(n.quote for n in e.duan_notes)
        if not quoted:
            continue
        text = e.explanation + "".join(v.text for v in e.variants)
        e.garbled = frozenset(c for c in set(text) if c in suspects and c not in forms and c not in quoted
                              and s2t.convert(c) not in quoted)
