"""Glyph images for the records (issue 2, item 7): what each image is, and producing them.

:func:`collect_images` asks every glyph source of :data:`builder.glyphs.registry.GLYPH_SOURCES`
for its jobs (interface: :mod:`builder.glyphs.base`), renders them, and returns
``(character, GlyphImage)`` pairs. The sources, in order:

1. **Oracle-MNIST** (``oracle-mnist``, :mod:`builder.glyphs.oracle_mnist`): all 3,000
   real oracle-bone scans of the test split, always (not filtered by ``characters``):
   script 甲骨文, style ``scan``, Apache-2.0; inverted to dark ink on light and upscaled.
2. **Regular-script fonts** (``font:<design>``, :mod:`builder.glyphs.font_renderings`):
   each requested character in each font design that has it; script 楷书 or 简体.
3. **LXGW Seal** (``lxgw-seal``, :mod:`builder.glyphs.lxgw_seal`): the requested
   characters with a glyph in the font's Small Seal block; script 篆书 only where the glyph
   shows the small-seal structure (:func:`builder.glyphs.lxgw_seal.seal_verdict`), else
   style ``modern-seal-style-font`` under the modern script.
4. **Commons ancient tracings** (``commons-ancient``, :mod:`builder.glyphs.commons_ancient`):
   traced 甲骨文 / 金文 / 篆书 outlines of the requested characters (style ``tracing``) and
   their augmented copies (style ``tracing-augmented``, JieZi-Dataset only).
5. **User images** (``user:<name>``, :mod:`builder.glyphs.user`): every labelled image of
   the ``user_sources`` folders / CSV manifests, not filtered.

Images are PNGs under ``out_dir/images/<script>/<id>.png``; ids hash everything that
determines the pixels (source, font files' checksums or source file hash, character,
size, render version; for user images the file bytes), so output is byte-deterministic
and a rerun reuses every existing file instead of redrawing it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_all_start_methods, get_context
from pathlib import Path

from tqdm.auto import tqdm

from builder.glyphs import render
from builder.glyphs.base import Plan, Request
from builder.glyphs.fonts import default_designs
from metrics.acce.variants import is_ideograph
from builder.glyphs.oracle_mnist import ORACLE_MNIST_CLASSES
from builder.glyphs.registry import GLYPH_SOURCES
from builder.schema import GlyphImage
from hub.skips import SkipLog

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


def collect_images(characters: Iterable[str], sources_dir: Path, out_dir: Path, *,
                   fonts: list[str] | None = None, user_sources: Sequence[Path] = (),
                   size: int = 128, skipped: SkipLog, workers: int = 1,
                   progress: bool = True) -> list[tuple[str, GlyphImage]]:
    """Produce the glyph images and return ``(character, GlyphImage)`` pairs.

    Args:
        characters: characters to render with fonts and LXGW Seal and to take tracings
            of (any iterable; order and duplicates do not matter; non-ideographs are
            skipped and logged). Oracle-MNIST and user images are always all included.
        sources_dir: the source cache (``oracle-mnist/``, ``lxgw-seal/``, ``unihan/``,
            ``cjkvi-ids/``, ``commons-ancient/``).
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
        Pairs in a deterministic order: by source in registry order, then as each
        source lists them (Oracle-MNIST by index; fonts by character then font; seal by
        character; tracings by file, each followed by its copies; user images by source,
        then folder path or manifest row).

    Raises:
        GlyphSourceError: a needed source file is missing or malformed (names the file
            and how to fetch it).
        SvgRendererMissing: cairosvg / libcairo is not installed (tracings need it).
        ValueError: ``size`` out of range, or a font in ``fonts`` is not installed.
        FileNotFoundError: a ``user_sources`` path does not exist.
    """
    if not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"size={size!r}: expected an integer number of pixels in {MIN_SIZE}..{MAX_SIZE}")
    out_dir = Path(out_dir)
    names = default_fonts() if fonts is None else list(dict.fromkeys(fonts))
    request = Request(tuple(_characters(characters, skipped)), Path(sources_dir), size,
                      tuple(names), tuple(Path(p) for p in user_sources))
    plan = Plan()
    for source in GLYPH_SOURCES:
        source.plan(request, plan, skipped)
    for script in {job.script for job in plan.jobs}:
        (out_dir / "images" / script).mkdir(parents=True, exist_ok=True)
    results = _run(plan.jobs, plan.context(out_dir, size), workers, progress)
    return _images(plan, results, skipped)


def _images(plan: Plan, results: list[render.Result], skipped: SkipLog) -> list[tuple[str, GlyphImage]]:
    """The ``(character, GlyphImage)`` pairs of the rendered jobs; a skipped job or a
    second job with the same image id is logged instead."""
    out: list[tuple[str, GlyphImage]] = []
    seen: set[str] = set()
    for job, meta, res in zip(plan.jobs, plan.metas, results):
        item = meta.item or f"U+{ord(job.character):04X} {job.character}"
        if res[0] == "skip":
            skipped.add(meta.source, item, res[1], kind=res[2])
            continue
        _, rel, image_id, sha, width, height = res
        if image_id in seen:
            skipped.add(meta.source, item, f"duplicate of image {image_id} (same file, character and script)",
                        kind="glyph-duplicate")
            continue
        seen.add(image_id)
        out.append((job.character, GlyphImage(
            id=image_id, path=rel, script=job.script, source=meta.source, licence=meta.licence,
            style=meta.style, font=meta.font, width=width, height=height, sha256=sha,
            origin=meta.origin, derived_from=meta.derived_from, series=meta.series, page=meta.page)))
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
