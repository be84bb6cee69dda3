"""Glyph images for the records (issue 2, item 7): what each image is, and producing them.

:func:`collect_images` gathers, as ``(character, GlyphImage)`` pairs:

1. **Oracle-MNIST** (``oracle-mnist``): all 3,000 real oracle-bone scans of the test
   split, always (not filtered by ``characters``): script 甲骨文, style ``scan``,
   Apache-2.0. Originals are 28 x 28 grey rubbings with light strokes on black; they are
   inverted to dark ink on light and upscaled (Lanczos) to ``size``.
2. **Regular-script fonts** (``font:<design>``): each requested character drawn with
   each font design of ``fonts`` (default :func:`default_fonts`) whose cmap has it;
   style ``font-kai`` / ``font-song`` / ``font-hei``. Script 楷书, except 简体 for a
   simplified form that differs from its traditional form (Unihan ``kTraditionalVariant``
   present and not containing the character itself, see
   :func:`builder.glyphs.oracle_mnist.simplified_only`). A design without the character is
   skipped and logged (kind ``font-missing-glyph``).
3. **LXGW Seal** (``lxgw-seal``): the requested characters that have a glyph in the
   font's Unicode Small Seal block (see :func:`builder.glyphs.fonts.seal_glyphs`);
   script 篆书, style ``seal-style-font``, SIL OFL 1.1. This is a modern seal-style
   typeface, not an authoritative Shuowen seal form: the style says so and consumers
   (QA, cards) must keep saying so.
4. **User images** (``user:<name>``): every labelled image of the ``user_sources``
   folders / CSV manifests (see :mod:`builder.glyphs.user`), not filtered.

Images are PNGs under ``out_dir/images/<script>/<id>.png``; ids hash everything that
determines the pixels (source, font files' checksums, character, size, render version;
for user images the file bytes), so output is byte-deterministic and a rerun reuses
every existing file instead of redrawing it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_all_start_methods, get_context
from pathlib import Path

from tqdm.auto import tqdm

from builder.glyphs import render
from builder.glyphs.oracle_mnist import (
    LXGW_SEAL_FONT,
    ORACLE_MNIST_CLASSES,
    read_oracle_mnist,
    simplified_only,
    source_file,
)
from builder.glyphs.fonts import FontDesign, default_designs, is_ideograph, resolve_design, seal_design, seal_glyphs
from builder.glyphs.user import scan_user_sources, slugify
from builder.schema import GlyphImage
from builder.skips import SkipLog

__all__ = ["collect_images", "default_fonts", "ORACLE_MNIST_CLASSES"]

# Jobs per pool task: large enough to amortise pickling, small enough for a live bar.
CHUNK = 256
MIN_SIZE, MAX_SIZE = 16, 2048


def default_fonts() -> list[str]:
    """The default regular-script font designs that are installed here.

    Nine distinct designs when the Debian packages of the README are installed: Song
    (Noto Serif CJK SC, TW-Sung, Hanazono Mincho, BabelStone Han), Kai (TW-Kai, AR PL UKai
    CN, LXGW WenKai) and Hei (Noto Sans CJK SC, WenQuanYi Zen Hei); see
    :data:`builder.glyphs.fonts.DEFAULT_DESIGNS` for what was left out and why. A name
    is either a fontconfig family or a design spanning several files (TW-Kai = TW-Kai +
    TW-Kai-Ext-B; Hanazono Mincho = HanaMinA + HanaMinB).
    """
    return default_designs()


def _characters(characters: Iterable[str], skipped: SkipLog) -> list[str]:
    # Sorted by code point: the caller may pass a set, whose order is not reproducible.
    chars: set[str] = set()
    for ch in characters:
        if isinstance(ch, str) and len(ch) == 1 and is_ideograph(ord(ch)):
            chars.add(ch)
        else:
            skipped.add("glyphs", repr(ch), "not a single CJK ideograph: no font or seal rendering",
                        field="character", kind="glyph-bad-character")
    return sorted(chars)


def _meta(design: FontDesign) -> tuple[str, str, str, str, None]:
    return design.source, design.licence, design.style, design.name, None


def collect_images(characters: Iterable[str], sources_dir: Path, out_dir: Path, *,
                   fonts: list[str] | None = None, user_sources: Sequence[Path] = (),
                   size: int = 128, skipped: SkipLog, workers: int = 1,
                   progress: bool = True) -> list[tuple[str, GlyphImage]]:
    """Produce the glyph images and return ``(character, GlyphImage)`` pairs.

    Args:
        characters: characters to render with fonts and LXGW Seal (any iterable; order
            and duplicates do not matter; non-ideographs are skipped and logged).
            Oracle-MNIST and user images are always all included.
        sources_dir: the source cache (``oracle-mnist/``, ``lxgw-seal/``, ``unihan/``).
        out_dir: the records directory; images go to ``out_dir/images/<script>/`` and
            ``GlyphImage.path`` is relative to it.
        fonts: regular-script font designs or fontconfig families (or font file paths,
            ``path#index`` for a .ttc face); ``None`` = :func:`default_fonts`.
        user_sources: labelled user folders and/or ``.csv`` manifests.
        size: canvas side in pixels (16..2048); every image is ``size`` x ``size``.
        skipped: receives every skipped item (missing glyph, bad user row, undecodable
            file ...), with a ``kind`` for the report's counts.
        workers: processes rendering in parallel (1 = in this process).
        progress: show a progress bar.

    Returns:
        Pairs in a deterministic order: Oracle-MNIST by index; font renderings by
        character (code point) then font in ``fonts`` order; seal renderings by
        character; user images by source, then folder path or manifest row.

    Raises:
        GlyphSourceError: a needed source file is missing or malformed (names the file
            and how to fetch it).
        ValueError: ``size`` out of range, or a font in ``fonts`` is not installed.
        FileNotFoundError: a ``user_sources`` path does not exist.
    """
    if not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"size={size!r}: expected an integer number of pixels in {MIN_SIZE}..{MAX_SIZE}")
    sources_dir, out_dir = Path(sources_dir), Path(out_dir)
    rows, cols, scans, classes = read_oracle_mnist(sources_dir)
    seal_path = source_file(sources_dir, LXGW_SEAL_FONT)
    simplified = simplified_only(sources_dir)
    names = default_fonts() if fonts is None else list(dict.fromkeys(fonts))
    designs = [resolve_design(name) for name in names]
    seal = seal_design(seal_path)
    chars = _characters(characters, skipped)
    user_items = scan_user_sources(tuple(user_sources), skipped)

    jobs: list[render.Job] = []
    # Per job: (source, licence, style, font, item name for the skip log or None).
    metas: list[tuple[str, str, str, str | None, str | None]] = []

    for i, (pixels, label) in enumerate(zip(scans, classes)):
        image_id = render.make_id("oracle-mnist", "t10k", i, pixels, size)
        jobs.append(render.Job("oracle", ORACLE_MNIST_CLASSES[label], "甲骨文", image_id,
                               pixels=pixels, rows=rows, cols=cols))
        metas.append(("oracle-mnist", "Apache-2.0", "scan", None, f"t10k image {i}"))

    slugs = ["font-" + slugify(d.name) for d in designs]
    for ch in chars:
        script = "简体" if ch in simplified else "楷书"
        for d_index, design in enumerate(designs):
            face = design.face_for(ord(ch))
            if face is None:
                skipped.add(design.source, f"U+{ord(ch):04X} {ch}",
                            f"font {design.name!r} has no glyph for U+{ord(ch):04X} in its cmap",
                            kind="font-missing-glyph")
                continue
            image_id = render.make_id(slugs[d_index], design.fingerprint, ord(ch), size)
            jobs.append(render.Job("font", ch, script, image_id, design=d_index, face=face, codepoint=ord(ch)))
            metas.append(_meta(design))

    seal_index = len(designs)
    wanted = set(chars)
    seal_found, unmapped = seal_glyphs(seal_path)
    for seal_cp, glyph in unmapped:
        skipped.add("lxgw-seal", f"U+{seal_cp:04X} ({glyph})",
                    "no modern character could be established for this Small Seal code point", kind="seal-unmapped")
    for g in seal_found:
        if g.character not in wanted:
            continue
        image_id = render.make_id("lxgw-seal", seal.fingerprint, g.glyph, ord(g.character), size)
        jobs.append(render.Job("font", g.character, "篆书", image_id, design=seal_index, face=0, codepoint=g.draw))
        metas.append(_meta(seal))
    seal_chars = {g.character for g in seal_found}
    lacking = len(wanted - seal_chars)
    if lacking:
        # One line, not one per character: the font covers ~140 characters by design.
        skipped.add("lxgw-seal", f"{lacking} characters",
                    f"LXGW Seal has seal glyphs for {len(seal_chars)} characters; {lacking} of the "
                    f"{len(wanted)} requested characters have none", kind="seal-not-covered")

    for item in user_items:
        jobs.append(render.Job("user", item.character, item.script, path=str(item.path), slug=item.slug))
        metas.append((item.source, item.licence, item.style, None, item.item))

    ctx = render.RenderContext(
        str(out_dir), size,
        tuple(tuple((f.path, f.index) for f in d.faces) for d in [*designs, seal]),
    )
    for script in {job.script for job in jobs}:
        (out_dir / "images" / script).mkdir(parents=True, exist_ok=True)
    results = _run(jobs, ctx, workers, progress)

    out: list[tuple[str, GlyphImage]] = []
    seen: set[str] = set()
    for job, (source, licence, style, font, item), res in zip(jobs, metas, results):
        item = item or f"U+{ord(job.character):04X} {job.character}"
        if res[0] == "skip":
            skipped.add(source, item, res[1], kind=res[2])
            continue
        _, rel, image_id, sha, width, height = res
        if image_id in seen:
            skipped.add(source, item, f"duplicate of image {image_id} (same file, character and script)",
                        kind="glyph-duplicate")
            continue
        seen.add(image_id)
        out.append((job.character, GlyphImage(
            id=image_id, path=rel, script=job.script, source=source, licence=licence, style=style,
            font=font, width=width, height=height, sha256=sha)))
    return out


def _run(jobs: list[render.Job], ctx: render.RenderContext, workers: int, progress: bool) -> list[render.Result]:
    """Run ``jobs`` in order, in this process or a pool of ``workers`` processes."""
    chunks = [jobs[i:i + CHUNK] for i in range(0, len(jobs), CHUNK)]
    results: list[render.Result] = []
    if workers <= 1 or len(chunks) <= 1:
        render.init_worker(ctx)
        with tqdm(total=len(jobs), desc="glyph images", unit="img", disable=not progress) as bar:
            for chunk in chunks:
                results.extend(render.run_chunk(chunk))
                bar.update(len(chunk))
        return results
    # fork where the OS has it: workers start at once and, unlike spawn, need no
    # importable __main__ (a caller may run from stdin or a notebook). The first submit
    # forks every worker, before the progress bar starts its monitor thread.
    method = "fork" if "fork" in get_all_start_methods() else "spawn"
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=get_context(method),
                               initializer=render.init_worker, initargs=(ctx,))
    try:
        futures = [pool.submit(render.run_chunk, chunk) for chunk in chunks]
        with tqdm(total=len(jobs), desc="glyph images", unit="img", disable=not progress) as bar:
            for future in futures:
                chunk_result = future.result()
                results.extend(chunk_result)
                bar.update(len(chunk_result))
    finally:
        # On Ctrl-C, drop the queued chunks instead of rendering all of them before exiting
        # (images already written stay; the rerun reuses them).
        pool.shutdown(wait=True, cancel_futures=True)
    return results
