"""The tracing audit's contact sheets: the drawings waiting for review, laid out to be looked at.

The QA stage writes ``OUT/qa/tracing_review.jsonl``: the Commons drawings a bench selection
would take (with :data:`builder.qa.bench_select.AUDIT_MARGIN` to spare) that no reviewer
has judged yet. :func:`contact_sheets` draws them on numbered sheets (one PNG per sheet,
each cell the glyph at ``cell`` pixels with its number, character and script below) and
writes ``index.tsv`` (number, sheet, title, character, script, image path, an empty
``verdict`` column). A reviewer fills ``verdict`` with ``ok``, ``wrong: <reason>`` or
``doubtful: <reason>``; :func:`read_verdicts` reads the filled index back as the
``title -> verdict`` entries of :mod:`builder.glyphs.commons_acc_audit`.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

VERDICT_PREFIXES = ("wrong: ", "doubtful: ")
INDEX_FIELDS = ("n", "sheet", "title", "character", "script", "path", "verdict")


class TracingAuditError(ValueError):
    """A review index that cannot be read: a missing column, an unknown verdict."""


def _label_font(size: int) -> ImageFont.ImageFont:
    from builder.glyphs.fonts import default_designs, resolve_design  # a CJK face for the labels

    for name in default_designs():
        for face in resolve_design(name).faces:
            try:
                return ImageFont.truetype(face.path, size, index=face.index)
            except OSError:
                continue
    return ImageFont.load_default()


def contact_sheets(out_dir: Path, sheets_dir: Path, *, per_sheet: int = 48, columns: int = 8,
                   cell: int = 160) -> dict:
    """Draw ``OUT/qa/tracing_review.jsonl`` on contact sheets in ``sheets_dir``.

    ``per_sheet`` drawings a sheet in ``columns`` columns; each cell ``cell`` x
    (``cell`` + label) pixels. Returns ``{"drawings", "sheets", "index"}``. Raises
    ``FileNotFoundError`` when the review list is missing (run ``jiezi build`` first).
    A drawing whose image file is missing is listed with an empty cell, not dropped."""
    out_dir, sheets_dir = Path(out_dir), Path(sheets_dir)
    path = out_dir / "qa" / "tracing_review.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no review list; run `jiezi build --output {out_dir}` first")
    items = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    sheets_dir.mkdir(parents=True, exist_ok=True)
    font = _label_font(max(12, cell // 8))
    rows_per_sheet = math.ceil(per_sheet / columns)
    label_h = cell // 4
    records = out_dir / "records"
    with open(sheets_dir / "index.tsv", "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, delimiter="\t")
        w.writerow(INDEX_FIELDS)
        n_sheets = 0
        for s0 in range(0, len(items), per_sheet):
            n_sheets += 1
            name = f"sheet-{n_sheets:03d}.png"
            sheet = Image.new("L", (columns * cell, rows_per_sheet * (cell + label_h)), 255)
            draw = ImageDraw.Draw(sheet)
            for i, it in enumerate(items[s0:s0 + per_sheet]):
                n = s0 + i + 1
                x, y = (i % columns) * cell, (i // columns) * (cell + label_h)
                img = records / it["path"]
                if img.is_file():
                    with Image.open(img) as im:
                        sheet.paste(im.convert("L").resize((cell - 8, cell - 8)), (x + 4, y + 4))
                draw.rectangle((x, y, x + cell - 1, y + cell + label_h - 1), outline=160)
                draw.text((x + 6, y + cell), f"{n} {it['character']} {it['script']}", fill=0, font=font)
                w.writerow((n, name, it["title"], it["character"], it["script"], it["path"], ""))
            sheet.save(sheets_dir / name)
    return {"drawings": len(items), "sheets": n_sheets, "index": str(sheets_dir / "index.tsv")}


def read_verdicts(index: Path) -> dict[str, str]:
    """``title -> verdict`` from a filled ``index.tsv`` (rows with an empty verdict are
    skipped). Raises :class:`TracingAuditError` naming the row for a verdict that is not
    ``ok``, ``wrong: <reason>`` or ``doubtful: <reason>``, or a missing column."""
    out: dict[str, str] = {}
    with open(index, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh, delimiter="\t")
        missing = {"title", "verdict"} - set(reader.fieldnames or ())
        if missing:
            raise TracingAuditError(f"{index}: missing column(s) {', '.join(sorted(missing))}")
        for lineno, row in enumerate(reader, 2):
            v = (row.get("verdict") or "").strip()
            if not v:
                continue
            if v != "ok" and not (v.startswith(VERDICT_PREFIXES) and len(v.split(": ", 1)[1].strip()) > 0):
                raise TracingAuditError(f"{index} line {lineno} ({row.get('title')}): verdict {v!r}; expected "
                                        f"'ok', 'wrong: <reason>' or 'doubtful: <reason>'")
            out[row["title"]] = v
    return out
