"""User glyph images: labelled folders and CSV manifests, and their script labels.

Two layouts are accepted, so collections such as HUST-OBC, EVOBC, CHUBS or
pre-rasterised Wikimedia Commons SVGs can be added without code changes:

- a folder ``<root>/<script>/<character>/<file>.png|jpg|jpeg|webp|bmp|gif`` (the
  character folder may also be named ``U+6C5F``). An optional ``<root>/jiezi-source.json``
  ``{"source": "hust-obc", "licence": "...", "style": "scan"}`` names the collection;
  otherwise the source is the root folder's name and the licence ``"unspecified"``.
- a CSV manifest with a header ``path,character,script[,source,licence,style]``; paths
  are relative to the manifest's folder.

Script labels are normalised to the canonical labels of ``metrics/acce/labels.py``
(:func:`canonical_script`); ``style`` must be one of :data:`USER_STYLES` (default
``user``). One rule for every bad label or file, in a folder's ``jiezi-source.json`` as in
a manifest row: the item (every image the label applies to) is skipped and recorded in the
skip log with the file or row, the field and the allowed values, and the build reports the
count per kind at the end; never the whole source, never a silent fallback. Images that
are blank (one colour only, e.g. fully white, or fully transparent once composited on
white) are skipped the same way (kind ``user-blank-image``).
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

# the normaliser's own opening and compositing (hub/imageio.py), so "blank" means blank in the
# image the build would store
from builder.glyphs import render
from builder.glyphs.base import Meta, Plan, Request
from hub import imageio
from hub.skips import SkipLog
from metrics.acce import labels

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".webp", ".bmp", ".gif")
# The GlyphImage.style values (builder/schema.py) a user collection may claim.
USER_STYLES = ("scan", "tracing", "font-kai", "font-song", "font-hei", "seal-style-font", "user")
SOURCE_META = "jiezi-source.json"
# A channel whose values span at most this many levels counts as one colour: lossy
# encoders (JPEG, WebP) add a few levels of noise to a flat image.
BLANK_TOLERANCE = 4

# Synonyms a collection may use for a script, beyond the canonical label and the English
# names of labels.SCRIPTS. Traditional-character spellings, the usual short forms and
# romanisations; 古文 is the Shuowen name for Warring States forms (labels.py).
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "甲骨文": ("甲骨", "甲骨字", "契文", "卜辞", "卜辭", "oracle", "oracle bone", "oracle bone script",
              "oracle bone inscription", "oracle bone inscriptions", "obi", "obc", "jiaguwen"),
    "金文": ("金", "钟鼎文", "鐘鼎文", "铭文", "銘文", "bronze", "bronze inscription",
            "bronze inscriptions", "jinwen"),
    "战国文字": ("战国", "戰國", "戰國文字", "古文", "六国文字", "六國文字", "warring states",
              "warring states script", "zhanguo", "guwen"),
    "篆书": ("篆", "篆書", "篆文", "小篆", "seal", "small seal", "small seal script", "xiaozhuan", "zhuanshu"),
    "隶书": ("隶", "隸", "隸書", "clerical", "lishu"),
    "楷书": ("楷", "楷書", "楷体", "楷體", "正楷", "regular", "standard script", "kaishu"),
    "草书": ("草", "草書", "cursive", "grass script", "caoshu"),
    "简体": ("简", "簡", "簡體", "簡体", "简体字", "簡體字", "简化字", "簡化字", "simplified chinese", "jianti"),
}


def _key(label: str) -> str:
    key = re.sub(r"[\s_\-]+", " ", label.strip().casefold())
    return key


_LOOKUP: dict[str, str] = {}
for _canon, _english in labels.SCRIPTS.items():
    for _name in (_canon, _english, *_SYNONYMS.get(_canon, ())):
        _LOOKUP[_key(_name)] = _canon


def canonical_script(label: str) -> str | None:
    """The canonical script label (``labels.SCRIPTS``) for ``label``, or ``None``.

    Accepts the canonical labels, their English names (``"seal script"``), traditional
    spellings and common synonyms (小篆 -> 篆书, 甲骨 / oracle -> 甲骨文, 战国 / 古文 ->
    战国文字), case-, space-, hyphen- and underscore-insensitively. Anything else
    (e.g. 行书, which ACCE does not label) returns ``None``.
    """
    return _LOOKUP.get(_key(label))


@dataclass(frozen=True)
class UserItem:
    """One labelled user image: file, character, canonical script, source label
    (``"user:<name>"``), id prefix, licence, style, and ``item`` (how a skip names it)."""

    path: Path
    character: str
    script: str
    source: str
    slug: str
    licence: str
    style: str
    item: str


def slugify(name: str) -> str:
    """ASCII id prefix for a collection name (``"HUST-OBC"`` -> ``"hust-obc"``); a name
    with no ASCII letters or digits gets ``"src"`` plus a short hash of it."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.casefold()).strip("-")
    return slug or "src" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]


def _character(value: str) -> str | None:
    value = value.strip()
    m = re.fullmatch(r"(?i)U\+([0-9A-F]{4,6})", value)
    if m:
        cp = int(m.group(1), 16)
        return chr(cp) if cp <= 0x10FFFF else None
    return value if len(value) == 1 else None


def _scripts_hint() -> str:
    return f"expected one of {', '.join(labels.SCRIPTS)} or a synonym (小篆, 甲骨, oracle, 战国, 古文 ...)"


def _styles_hint() -> str:
    return f"expected one of {', '.join(USER_STYLES)} (empty = user)"


def canonical_style(value: str) -> str | None:
    """The :data:`USER_STYLES` value ``value`` names (case- and space-insensitive; empty
    means ``"user"``), or ``None`` for an unknown style."""
    key = value.strip().casefold()
    if not key:
        return "user"
    return key if key in USER_STYLES else None


def blank_reason(path: Path) -> str | None:
    """Why the image at ``path`` is blank, or ``None`` when it has ink (or cannot be
    decoded: the rendering step reports that with its own kind).

    Blank: after EXIF orientation and compositing transparency on white (as the
    normaliser does), every channel spans at most :data:`BLANK_TOLERANCE` levels, i.e.
    the image is one colour: fully white, fully transparent, a flat grey or colour.
    """
    try:
        image = imageio.open_image(path, draft=256)  # a flat image stays flat at a reduced scale
    except imageio.ImageRejected:
        return None  # the rendering step reports it, with its own kind
    extrema = image.getextrema()
    bands = [extrema] if image.mode == "L" else list(extrema)
    if all(hi - lo <= BLANK_TOLERANCE for lo, hi in bands):
        colour = bands[0][0] if len(bands) == 1 else tuple(lo for lo, _ in bands)
        what = "white" if all(lo >= 255 - BLANK_TOLERANCE for lo, _ in bands) else f"one colour ({colour})"
        return (f"blank image {path.name}: {what} after compositing transparency on white, "
                f"{image.width}x{image.height} px; no glyph to learn from")
    return None


def _drop_blank(items: list["UserItem"], skipped: SkipLog) -> list["UserItem"]:
    """``items`` without blank images; each blank one is recorded (kind ``user-blank-image``)."""
    if not items:
        return items
    # Pillow releases the GIL while decoding, so threads spread the decode over the CPUs
    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:
        reasons = list(pool.map(lambda it: blank_reason(it.path), items))
    kept = []
    for it, reason in zip(items, reasons):
        if reason is None:
            kept.append(it)
        else:
            skipped.add(it.source, it.item, reason, field="path", kind="user-blank-image")
    return kept


def scan_user_sources(sources: list[Path] | tuple[Path, ...], skipped: SkipLog) -> list[UserItem]:
    """List the labelled images of every folder or ``.csv`` manifest in ``sources``.

    Order is deterministic: sources in the given order; in a folder, by script folder,
    character folder and file name; in a manifest, by row. Bad items are skipped and
    logged to ``skipped``, one entry per image or row naming the file or row, the field
    and the allowed values (kinds ``user-unknown-script``, ``user-bad-character``,
    ``user-bad-style``, ``user-missing-file``, ``user-not-an-image``,
    ``user-blank-image``, ``user-bad-manifest``). A source path that does not exist
    raises ``FileNotFoundError``: it is a mistake in the command, not bad data.
    """
    items: list[UserItem] = []
    for src in sources:
        src = Path(src)
        if src.is_dir():
            items.extend(_scan_folder(src, skipped))
        elif src.is_file() and src.suffix.casefold() == ".csv":
            items.extend(_scan_manifest(src, skipped))
        elif src.exists():
            raise ValueError(f"user glyph source {src}: expected a folder <script>/<character>/<image> or a .csv manifest")
        else:
            raise FileNotFoundError(f"user glyph source {src} does not exist")
    return _drop_blank(items, skipped)


def _source_meta(root: Path, skipped: SkipLog) -> tuple[str, str, str]:
    """``(name, licence, style)`` of a folder source from its ``jiezi-source.json``;
    ``style`` as written there (``""`` when absent)."""
    name, licence, style = root.resolve().name, "unspecified", ""
    meta_path = root / SOURCE_META
    if meta_path.is_file():
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            if not isinstance(meta, dict):
                raise ValueError("expected a JSON object")
        except (ValueError, UnicodeDecodeError) as exc:
            skipped.add(f"user:{name}", str(meta_path), f"unreadable {SOURCE_META}: {exc}; using defaults",
                        kind="user-bad-manifest")
            meta = {}
        name = str(meta.get("source") or name)
        licence = str(meta.get("licence") or meta.get("license") or licence)
        style = str(meta.get("style") or "")
    return name, licence, style


def _scan_folder(root: Path, skipped: SkipLog) -> list[UserItem]:
    name, licence, style_written = _source_meta(root, skipped)
    source, slug = f"user:{name}", "user-" + slugify(name)
    style = canonical_style(style_written)
    out: list[UserItem] = []
    for script_dir in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        script = canonical_script(script_dir.name)
        if script is None:
            skipped.add(source, str(script_dir), f"unknown script label {script_dir.name!r}; {_scripts_hint()}",
                        field="script", kind="user-unknown-script")
            continue
        for char_dir in sorted(p for p in script_dir.iterdir() if not p.name.startswith(".")):
            if not char_dir.is_dir():
                skipped.add(source, str(char_dir), "expected a character folder <script>/<character>/",
                            kind="user-bad-layout")
                continue
            character = _character(char_dir.name)
            if character is None:
                skipped.add(source, str(char_dir), f"folder name {char_dir.name!r} is not one character or U+XXXX",
                            field="character", kind="user-bad-character")
                continue
            for file in sorted(p for p in char_dir.iterdir() if not p.name.startswith(".")):
                if file.suffix.casefold() not in IMAGE_EXTENSIONS:
                    hint = " (rasterise SVGs first, e.g. rsvg-convert -w 512)" if file.suffix.casefold() == ".svg" else ""
                    skipped.add(source, str(file), f"not an image file: extension {file.suffix or '(none)'!r}, expected "
                                f"one of {', '.join(IMAGE_EXTENSIONS)}{hint}", kind="user-not-an-image")
                    continue
                if style is None:
                    # the folder's label applies to each of its images: each is skipped,
                    # as a manifest row with that style would be
                    skipped.add(source, str(file), f"style {style_written!r} (from {root / SOURCE_META}) is not "
                                f"a known style; {_styles_hint()}", field="style", kind="user-bad-style")
                    continue
                out.append(UserItem(file, character, script, source, slug, licence, style, str(file)))
    return out


def _scan_manifest(path: Path, skipped: SkipLog) -> list[UserItem]:
    default_name = path.stem
    out: list[UserItem] = []
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        skipped.add(f"user:{default_name}", str(path), f"manifest is not UTF-8: {exc}", kind="user-bad-manifest")
        return out
    reader = csv.DictReader(text.splitlines())
    fields = [f.strip().casefold() for f in (reader.fieldnames or [])]
    missing = [c for c in ("path", "character", "script") if c not in fields]
    if missing:
        skipped.add(f"user:{default_name}", str(path),
                    f"manifest header {reader.fieldnames} lacks column(s) {missing}; expected "
                    "path,character,script[,source,licence,style]", kind="user-bad-manifest")
        return out
    reader.fieldnames = fields
    for row in reader:
        line = reader.line_num
        item = f"{path}:{line}"
        row = {k: (v or "").strip() for k, v in row.items() if k is not None}
        name = row.get("source") or default_name
        source = name if name.startswith("user:") else f"user:{name}"
        script = canonical_script(row.get("script", ""))
        if script is None:
            skipped.add(source, item, f"unknown script label {row.get('script', '')!r}; {_scripts_hint()}",
                        field="script", kind="user-unknown-script")
            continue
        character = _character(row.get("character", ""))
        if character is None:
            skipped.add(source, item, f"character {row.get('character', '')!r} is not one character or U+XXXX",
                        field="character", kind="user-bad-character")
            continue
        style = canonical_style(row.get("style", ""))
        if style is None:
            skipped.add(source, item, f"style {row['style']!r} is not a known style; {_styles_hint()}",
                        field="style", kind="user-bad-style")
            continue
        if not row.get("path"):
            skipped.add(source, item, "empty path", field="path", kind="user-missing-file")
            continue
        file = (path.parent / row["path"]).resolve()
        if not file.is_file():
            skipped.add(source, item, f"image file {file} does not exist", field="path", kind="user-missing-file")
            continue
        licence = row.get("licence") or row.get("license") or "unspecified"
        slug = "user-" + slugify(source.removeprefix("user:"))
        out.append(UserItem(file, character, script, source, slug, licence, style, item))
    return out


# --- the glyph source -------------------------------------------------------------------

NAME = "user"


def plan(request: Request, plan: Plan, skipped: SkipLog) -> None:
    """Glyph source ``user:<name>`` (interface: :mod:`builder.glyphs.base`): every
    labelled image of ``request.user_sources``, whatever ``request.characters`` holds,
    by source, then folder path or manifest row. Raises ``FileNotFoundError`` for a
    source path that does not exist (see :func:`scan_user_sources`)."""
    for item in scan_user_sources(tuple(request.user_sources), skipped):
        plan.add(render.Job("user", item.character, item.script, path=str(item.path), slug=item.slug),
                 Meta(item.source, item.licence, item.style, item=item.item))
