"""``jiezi build records``: paper stages 1-2 on open sources -> ``DIR/records.jsonl`` and images.

Stages (each resumable; state under ``DIR/.work/``, cleared when the inputs change):

1. **sources**: verify every file of the required sources (``builder.sources.registry.require``);
   a missing or corrupt file stops here with the fetch command.
2. **adapters**: parse the sources, choose the characters.
3. **images**: :func:`builder.glyphs.collect.collect_images` renders / copies the glyph images
   (existing image files are reused).
4. **readings** (only when some record chunk is still to do): a structurizer turns the
   entries the remaining records need into :class:`builder.records.structurize.SourceReading`s,
   each through the fidelity check. The rules are recomputed (about 20 s on the full
   sources, as long as reloading a checkpoint of them took); the LLM structurizer
   caches every reply in ``.work/llm-cache.jsonl``, so an interrupted LLM pass resumes
   where it stopped.
5. **records**: one :class:`builder.schema.GlyphRecord` per (character, script):
   :func:`builder.records.align.align` per record, in chunks of ``CHUNK`` characters, each
   chunk written atomically to ``.work/records/``; a resumed build skips finished chunks.
6. **outputs**: ``records.jsonl`` (sorted by id), ``report.json``, ``skipped.jsonl``,
   ``record.schema.json`` (all written to a temp name, then renamed).

Which characters: every character some source analyses (Shuowen heads and 重文,
makemeahanzi, cjkvi-ids lines with a 六書 analysis), or ``characters`` when given.
Which scripts: those the images give (楷书 / 简体 font renderings, 篆书 from LXGW Seal,
甲骨文 from Oracle-MNIST, user labels); a character with no image still gets its
regular-script record (简体 for a simplified-only form, else 楷书) with no image.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_all_start_methods, get_context
from pathlib import Path
from typing import Callable, Iterable, Sequence

from builder.glyphs import collect as glyphs
from builder.glyphs.oracle_mnist import simplified_only
from builder.sources import registry as src_registry
from builder.sources.adapters import cjkvi_ids, makemeahanzi, shuowen, unihan
from builder.records.align import align
from builder.records.gather import Corpus
from builder.schema import BuildReport, GlyphImage, GlyphRecord, SCHEMA_VERSION, write_json_schema
from builder.codekey import code_digest
from builder.records.structurize import RuleStructurizer, SourceReading
from hub.atomic import atomic_path, atomic_write
from hub.skips import SkipLog
from metrics.acce import labels

BUILD_VERSION = "records-1"  # bump when a change of rules must invalidate checkpoints
CHUNK = 1000
STAGES = ("sources", "images", "readings", "records")


class StopAfter(Exception):
    """Raised internally when ``stop_after`` names the stage just finished."""


@dataclass
class BuildOptions:
    """Options of one build (all of them enter the checkpoint fingerprint).

    ``characters``: restrict to these characters (default: all analysed characters);
    ``fonts``: font designs for renderings (None = ``builder.glyphs.collect.default_fonts()``);
    ``user_glyphs``: labelled folders / CSV manifests; ``size``: image side in pixels;
    ``workers``: processes; ``structurizer``: a structurizer object (default rules);
    ``images``: render images at all (False: records without images, for quick runs);
    ``stop_after``: stop (successfully) after this stage ("sources", "images",
    "readings", or "records:N" = after N record chunks); ``progress``: show progress bars.
    """

    output: Path
    sources: Path | None = None
    characters: Sequence[str] | None = None
    fonts: list[str] | None = None
    user_glyphs: Sequence[Path] = ()
    size: int = 128
    workers: int = 1
    structurizer: object | None = None
    images: bool = True
    stop_after: str | None = None
    progress: bool = True
    check_hashes: bool = True
    chunk_hook: Callable[[int], None] | None = None  # called after each record chunk (tests)
    log: Callable[[str], None] = field(default=lambda msg: None)


# ---- stage 2: readings -------------------------------------------------------------------

@dataclass
class Loaded:
    """The parsed sources (adapters' output) and the chosen character universe."""

    shuowen: list
    mmh: list
    analysis: dict
    ids: dict
    unihan: dict
    universe: list[str]


def _equivalents(ch: str, uh: dict, fields=("kTraditionalVariant", "kSimplifiedVariant")) -> set[str]:
    d = uh.get(ch)
    out = set()
    if d is not None:
        for f in fields:
            out.update(d.data.get(f) or [])
    return out


def load_sources(sources_dir: Path, skipped: SkipLog, characters: Iterable[str] | None = None) -> Loaded:
    """Run every adapter and pick the characters to build: every character some source
    analyses (Shuowen heads and 重文, makemeahanzi, cjkvi-ids lines with a 六書 analysis),
    or ``characters``. Call :func:`select` before structurizing."""
    sw = shuowen.read(sources_dir, skipped)
    mm = makemeahanzi.read(sources_dir, skipped)
    an = cjkvi_ids.read_analysis(sources_dir, skipped)
    uh = unihan.read(sources_dir, skipped)
    shuowen.mark_garbled(sw, unihan.simplified_radical(uh))  # 今 「从亼从绁」: the digitised text's 乀
    if characters is not None:
        universe = sorted({c for c in characters if isinstance(c, str) and len(c) == 1})
    else:
        chars = {e.character for e in sw} | {v.form for e in sw for v in e.variants} | {e.character for e in mm}
        chars |= {ch for ch, e in an.items() if any(l.ids and l.analysis for l in e.data["lines"])}
        universe = sorted(chars)
    return Loaded(sw, mm, an, {}, uh, universe)


def select(loaded: Loaded, sources_dir: Path, skipped: SkipLog, characters: Iterable[str],
           restrict: bool) -> Loaded:
    """Keep the entries the records of ``characters`` can draw on: the characters, their
    traditional/simplified forms, the heads of their 重文 and the targets of cjkvi-ids
    links (one step each way), and read their ids.txt lines. With ``restrict`` False the
    Shuowen, makemeahanzi and ids-analysis entries are all kept (a full build)."""
    sw, mm, an, uh = loaded.shuowen, loaded.mmh, loaded.analysis, loaded.unihan
    chars = set(characters)
    need = set(chars)
    for ch in chars:
        # semantic / Z variants too: a seal drawing of 麵 shows its variant 麪, Shuowen's head
        need |= _equivalents(ch, uh, ("kTraditionalVariant", "kSimplifiedVariant", "kSemanticVariant", "kZVariant"))
    heads = {v.form: e.character for e in sw for v in e.variants}
    need |= {heads[c] for c in list(need) if c in heads}
    for c in list(need):
        e = an.get(c)
        if e is not None:
            need |= {l.link for l in e.data["lines"] if l.link}
    for ch in list(need):
        need |= _equivalents(ch, uh)
    if restrict:
        sw = [e for e in sw if e.character in need or any(v.form in need for v in e.variants)]
        mm = [e for e in mm if e.character in need]
        an = {c: e for c, e in an.items() if c in need}
    ids = cjkvi_ids.read_ids(sources_dir, skipped, characters=need)
    return Loaded(sw, mm, an, ids, {c: e for c, e in uh.items() if c in need}, loaded.universe)


def build_readings(loaded: Loaded, structurizer, *, workers: int = 1, progress: bool = True) -> list[SourceReading]:
    """All readings of the loaded entries (rule structurizer unless another is given).

    Shuowen entries go to ``structurizer``; the other sources are structured data and
    always use the rule structurizer. The rules run in this process: shipping pydantic
    readings between processes costs more than it saves (measured on the full sources:
    50 s with two processes against 30 s with one). A structurizer marked ``io_bound``
    (the LLM one) gets ``workers`` threads, since it waits on the network. Order is
    deterministic (source, then file order).
    """
    from concurrent.futures import ThreadPoolExecutor

    from tqdm.auto import tqdm

    rules = RuleStructurizer()
    rest = list(loaded.mmh) + list(loaded.analysis.values()) + list(loaded.ids.values()) + list(loaded.unihan.values())
    out: list[SourceReading] = []
    with tqdm(total=len(loaded.shuowen) + len(rest), desc="readings", unit="entry", disable=not progress) as bar:
        if getattr(structurizer, "io_bound", False) and workers > 1:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                for res in pool.map(structurizer.structurize, loaded.shuowen):
                    out += res
                    bar.update(1)
        else:
            for e in loaded.shuowen:
                out += structurizer.structurize(e)
                bar.update(1)
        for e in rest:
            out += rules.structurize(e)
            bar.update(1)
    return out


def make_corpus(loaded: Loaded, readings: list[SourceReading], simplified: frozenset[str] = frozenset()) -> Corpus:
    """Index readings by form, collect raw texts and the Unihan variant links;
    ``simplified`` is the simplified-only set (:func:`builder.glyphs.oracle_mnist.simplified_only`)."""
    corpus = Corpus(simplified_only=simplified)
    for e in loaded.shuowen:
        corpus.texts[e.key] = e.raw
        if e.duan is not None:
            corpus.texts[e.duan.key] = e.duan.raw
    for coll in (loaded.mmh, loaded.analysis.values(), loaded.ids.values(), loaded.unihan.values()):
        for e in coll:
            corpus.texts[e.key] = e.raw
    for r in readings:
        if not r.is_empty():
            corpus.add(r)
    for ch, e in loaded.unihan.items():
        t = e.data.get("kTraditionalVariant")
        s = e.data.get("kSimplifiedVariant")
        if t:
            corpus.traditional[ch] = list(t)
        if s:
            corpus.simplified[ch] = list(s)
        for f in ("kTraditionalVariant", "kSimplifiedVariant", "kSemanticVariant", "kZVariant"):
            for v in e.data.get(f) or []:
                if v != ch:
                    corpus.variants.setdefault(ch, set()).add(v)
                    corpus.variants.setdefault(v, set()).add(ch)
    return corpus


# ---- stage 4: records --------------------------------------------------------------------

_CORPUS: Corpus | None = None


def _align_chunk(pairs: list[tuple[str, str]]) -> list[tuple[str, dict]]:
    """(record JSON, record summary) per pair; the summary feeds the report without
    re-reading the records."""
    assert _CORPUS is not None
    out = []
    for ch, script in pairs:
        rec = align(ch, script, _CORPUS)
        out.append((rec.model_dump_json(exclude_none=True), summarize(rec)))
    return out


def summarize(rec: GlyphRecord) -> dict:
    """What the report counts about one record (images are attached later, so CHAR/SCRC
    are filled in by the caller)."""
    return {
        "character": rec.character, "script": rec.script,
        "grounds": [k for k, v in rec.grounds().items() if v],
        "structure_components": bool(rec.structure and rec.components),
        "formation_agree": len(rec.formation.agree) if rec.formation else 0,
        "formation_agree_no_duan": len([s for s in rec.formation.agree if s != "duan"]) if rec.formation else 0,
        "formation_agree_sources": list(rec.formation.agree) if rec.formation else [],
        "original_meaning": rec.original_meaning is not None,
        "functions": any(c.functions for c in rec.components),
        "flags": len(rec.flags),
    }


def regular_script(ch: str, simplified: frozenset[str]) -> str:
    """简体 for a simplified-only form (``simplified``:
    :func:`builder.glyphs.oracle_mnist.simplified_only`), else 楷书: the rule the glyph stage
    labels its renderings by."""
    return "简体" if ch in simplified else "楷书"


def record_pairs(universe: list[str], images: list[tuple[str, GlyphImage]],
                 simplified: frozenset[str]) -> list[tuple[str, str]]:
    """Every (character, script) to build, sorted by record id: each image's pair, and
    the regular-script pair of every character of ``universe`` without one."""
    pairs = {(ch, img.script) for ch, img in images}
    have = {ch for ch, s in pairs if s in labels.REGULAR_SCRIPTS}
    pairs |= {(ch, regular_script(ch, simplified)) for ch in universe if ch not in have}
    return sorted(pairs, key=lambda p: f"{p[0]}_{p[1]}")


# ---- the build ---------------------------------------------------------------------------

def _fingerprint(opts: BuildOptions, sources_dir: Path) -> str:
    h = hashlib.sha256()
    parts = {
        "version": BUILD_VERSION, "schema": SCHEMA_VERSION, "code": _code_digest(),
        "sources": {n: s.manifest_sha256 or [f.sha256 for f in s.files] for n, s in src_registry.REGISTRY.items()},
        "sources_dir": str(Path(sources_dir).resolve()),
        "characters": sorted(set(opts.characters)) if opts.characters is not None else None,
        "fonts": opts.fonts, "user": [str(Path(p).resolve()) for p in opts.user_glyphs], "size": opts.size,
        "images": opts.images,
        "structurizer": getattr(opts.structurizer, "fingerprint", lambda: "rule")() if opts.structurizer else "rule",
        # size and mtime of every source file: an edited cache (built with check_hashes
        # off) must not resume from chunks of its former content
        "files": _stat_digest(sources_dir),
    }
    h.update(json.dumps(parts, sort_keys=True, ensure_ascii=False).encode())
    return h.hexdigest()[:16]


def _code_digest() -> str:
    """SHA-256 of every project module the records stage imports (computed, see
    :mod:`builder.codekey`): a rule change invalidates the checkpoints by itself."""
    return code_digest(__name__, "builder.records.llm_structurize")


def _stat_digest(sources_dir: Path) -> str:
    h = hashlib.sha256()
    for name in src_registry.BUILD_SOURCES:
        src = src_registry.REGISTRY[name]
        for f in src.all_files():
            try:
                st = (Path(sources_dir) / name / f.path).stat()
                h.update(f"{name}/{f.path}:{st.st_size}:{st.st_mtime_ns}\n".encode())
            except OSError:
                h.update(f"{name}/{f.path}:missing\n".encode())
    return h.hexdigest()


def _check_stop(opts: BuildOptions, stage: str) -> None:
    if opts.stop_after == stage:
        raise StopAfter(stage)


def build(opts: BuildOptions) -> BuildReport | None:
    """Run the build; return the report (``None`` when stopped early by ``stop_after``).

    Stages as in the module docstring; each is timed into ``report.extra["timings_s"]``.
    Raises :class:`builder.sources.registry.SourceError` when a source is missing or corrupt.
    """
    t0 = time.time()
    out = Path(opts.output)
    out.mkdir(parents=True, exist_ok=True)
    sources_dir = src_registry.resolve_sources_dir(opts.sources)
    timings: dict[str, float] = {}
    src_registry.require(sources_dir, src_registry.BUILD_SOURCES, hashes=opts.check_hashes)
    timings["sources"] = time.time() - t0
    work = _open_work(out, opts, sources_dir)
    try:
        _check_stop(opts, "sources")
        t = time.time()
        skipped = SkipLog()
        loaded = load_sources(sources_dir, skipped, opts.characters)
        timings["adapters"] = time.time() - t
        # images before the readings: the images decide which records exist, and
        # Oracle-MNIST / user images may bring characters of their own
        t = time.time()
        images, fonts = _collect_images(loaded, sources_dir, out, opts, skipped)
        timings["images"] = time.time() - t
        _check_stop(opts, "images")
        plan = _plan_records(loaded, images, work, opts, sources_dir)
        t = time.time()
        corpus = None
        if plan.todo or opts.stop_after == "readings":
            corpus = _corpus_for(loaded, plan.pairs, sources_dir, skipped, work, opts)
        timings["readings"] = time.time() - t
        _check_stop(opts, "readings")
        t = time.time()
        if plan.todo:
            _run_align(corpus, plan.todo, plan.rdir, plan.by_pair, opts)
        timings["records"] = time.time() - t
        t = time.time()
        report = _write_outputs(out, plan.rdir, len(plan.chunks), images, fonts, skipped, opts)
        timings["outputs"] = time.time() - t
        timings["total"] = time.time() - t0
        report.extra["timings_s"] = {k: round(v, 2) for k, v in timings.items()}
        atomic_write(out / "report.json", report.model_dump_json(indent=2))
        return report
    except StopAfter as stop:
        opts.log(f"stopped after stage {stop.args[0]!r}; rerun the same command to resume")
        return None


def _open_work(out: Path, opts: BuildOptions, sources_dir: Path) -> Path:
    """The checkpoint folder ``out/.work``, emptied when the inputs' fingerprint changed
    since the run that wrote it; the new fingerprint is recorded before any work."""
    work = out / ".work"
    fp = _fingerprint(opts, sources_dir)
    state_path = work / "state.json"
    if state_path.is_file():
        state = json.loads(state_path.read_text(encoding="utf-8"))
        if state.get("fingerprint") != fp:
            opts.log("inputs changed since the last run: starting over")
            shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    atomic_write(state_path, json.dumps({"fingerprint": fp}))
    return work


def _collect_images(loaded: Loaded, sources_dir: Path, out: Path, opts: BuildOptions,
                    skipped: SkipLog) -> tuple[list[tuple[str, GlyphImage]], list[str]]:
    """(character, image) pairs of every glyph image, and the font designs rendered
    (both empty when ``opts.images`` is off)."""
    if not opts.images:
        return [], []
    fonts = list(opts.fonts) if opts.fonts is not None else glyphs.default_fonts()
    images = glyphs.collect_images(loaded.universe, sources_dir, out, fonts=fonts,
                                   user_sources=list(opts.user_glyphs), size=opts.size, skipped=skipped,
                                   workers=opts.workers, progress=opts.progress)
    return images, fonts


@dataclass
class _Plan:
    """Which records to build: every (character, script) ``pairs`` sorted by id, the
    images of each pair, the pairs in ``chunks`` of :data:`CHUNK`, the chunk folder and the
    chunks (index, pairs) not written by an earlier run."""

    pairs: list[tuple[str, str]]
    by_pair: dict[tuple[str, str], list[GlyphImage]]
    chunks: list[list[tuple[str, str]]]
    rdir: Path
    todo: list[tuple[int, list[tuple[str, str]]]]


def _plan_records(loaded: Loaded, images: list[tuple[str, GlyphImage]], work: Path, opts: BuildOptions,
                  sources_dir: Path) -> _Plan:
    """Each image's (character, script), and the regular-script record of every
    character; chunks already written by an earlier run are kept."""
    pairs = record_pairs(loaded.universe, images, simplified_only(sources_dir))
    by_pair: dict[tuple[str, str], list[GlyphImage]] = defaultdict(list)
    for ch, img in images:
        by_pair[(ch, img.script)].append(img)
    chunks = [pairs[i:i + CHUNK] for i in range(0, len(pairs), CHUNK)]
    rdir = work / "records"
    rdir.mkdir(exist_ok=True)
    todo = [(i, c) for i, c in enumerate(chunks) if not (rdir / f"chunk-{i:05d}.jsonl").is_file()]
    if len(todo) < len(chunks):
        opts.log(f"records: {len(chunks) - len(todo)} of {len(chunks)} chunks already done")
    return _Plan(pairs, by_pair, chunks, rdir, todo)


def _corpus_for(loaded: Loaded, pairs: list[tuple[str, str]], sources_dir: Path, skipped: SkipLog,
                work: Path, opts: BuildOptions) -> Corpus:
    """The corpus of readings every record draws on. The rules take ~20 s on the full
    sources, about what reloading them would; the LLM structurizer keeps a reply cache
    in ``work`` so its pass resumes."""
    # every record's characters, not just the remaining ones: a record also draws on its
    # neighbours (links pointing at it), and a resumed build must see the same corpus as
    # an uninterrupted one to write the same bytes
    loaded = select(loaded, sources_dir, skipped, sorted({ch for ch, _ in pairs}),
                    restrict=opts.characters is not None)
    structurizer = opts.structurizer or RuleStructurizer()
    if hasattr(structurizer, "attach_cache"):
        structurizer.attach_cache(work / "llm-cache.jsonl")
    readings = build_readings(loaded, structurizer, workers=opts.workers, progress=opts.progress)
    if isinstance(getattr(structurizer, "skipped", None), SkipLog):
        skipped.extend(structurizer.skipped)
    return make_corpus(loaded, readings, simplified_only(sources_dir))


def _run_align(corpus: Corpus, todo: list[tuple[int, list[tuple[str, str]]]], rdir: Path,
               by_pair: dict[tuple[str, str], list[GlyphImage]], opts: BuildOptions) -> None:
    global _CORPUS
    from tqdm.auto import tqdm

    stop_n = int(opts.stop_after.split(":")[1]) if opts.stop_after and opts.stop_after.startswith("records:") else None
    _CORPUS = corpus
    done = 0

    def finish(i: int, chunk, results: list[tuple[str, dict]]) -> None:
        nonlocal done
        summaries = []
        # the summaries first: a chunk counts as done only once its records file exists
        with atomic_path(rdir / f"chunk-{i:05d}.summary.json") as tmp:
            for (ch, script), (_line, summ) in zip(chunk, results):
                if by_pair.get((ch, script)):
                    summ["grounds"] = sorted(set(summ["grounds"]) | {"CHAR", "SCRC"})
                summaries.append(summ)
            tmp.write_text(json.dumps(summaries, ensure_ascii=False), encoding="utf-8")
        with atomic_path(rdir / f"chunk-{i:05d}.jsonl") as tmp:
            with open(tmp, "w", encoding="utf-8") as fh:
                for (ch, script), (line, _summ) in zip(chunk, results):
                    imgs = by_pair.get((ch, script), [])
                    if imgs:
                        # images go in as the record's "images" list, in place
                        head, rest = line.split(',"images":[]', 1)
                        line = (head + ',"images":['
                                + ",".join(im.model_dump_json(exclude_none=True) for im in imgs) + "]" + rest)
                    fh.write(line + "\n")
        done += 1
        if opts.chunk_hook:
            opts.chunk_hook(i)
        if stop_n is not None and done >= stop_n:
            raise StopAfter(f"records:{stop_n}")

    try:
        with tqdm(total=sum(len(c) for _, c in todo), desc="records", unit="rec", disable=not opts.progress) as bar:
            if opts.workers <= 1 or len(todo) <= 1:
                for i, chunk in todo:
                    finish(i, chunk, _align_chunk(chunk))
                    bar.update(len(chunk))
            else:
                method = "fork" if "fork" in get_all_start_methods() else "spawn"
                pool = ProcessPoolExecutor(max_workers=opts.workers, mp_context=get_context(method),
                                           initializer=_init_corpus, initargs=(None if method == "fork" else corpus,))
                try:
                    futures = [(i, chunk, pool.submit(_align_chunk, chunk)) for i, chunk in todo]
                    for i, chunk, fut in futures:
                        finish(i, chunk, fut.result())
                        bar.update(len(chunk))
                finally:
                    # on an interruption, drop the chunks not started yet
                    pool.shutdown(wait=True, cancel_futures=True)
    finally:
        _CORPUS = None


def _init_corpus(corpus: Corpus | None) -> None:
    global _CORPUS
    if corpus is not None:
        _CORPUS = corpus


def acceptance(summaries: list[dict]) -> dict[str, int]:
    """Character-level counts of the issue's acceptance points, on each character's
    regular-script record (楷书, or 简体 for a simplified-only form)."""
    regular: dict[str, dict] = {}
    for r in summaries:
        if r["script"] in labels.REGULAR_SCRIPTS:
            regular.setdefault(r["character"], r)
    rs = regular.values()
    return {
        "characters_with_structure_and_components": sum(1 for r in rs if r["structure_components"]),
        "characters_with_formation_agreed_by_2_sources": sum(1 for r in rs if r["formation_agree"] >= 2),
        "characters_with_formation_agreed_by_2_sources_excluding_duan": sum(
            1 for r in rs if r["formation_agree_no_duan"] >= 2),
        # makemeahanzi is the one analysis independent of the Shuowen tradition (cjkvi-ids'
        # column and Duan's notes both follow Shuowen): the strictest reading of "two sources"
        "characters_with_formation_agreed_by_shuowen_tradition_and_makemeahanzi": sum(
            1 for r in rs if "makemeahanzi" in r.get("formation_agree_sources", [])
            and {"shuowen", "duan", "cjkvi-ids"} & set(r.get("formation_agree_sources", []))),
        "characters_with_original_meaning": sum(1 for r in rs if r["original_meaning"]),
        "characters_with_component_functions": sum(1 for r in rs if r["functions"]),
    }


def _write_outputs(out: Path, rdir: Path, n_chunks: int, images, fonts, skipped: SkipLog,
                   opts: BuildOptions) -> BuildReport:
    # Chunks hold consecutive runs of the id-sorted pairs, so concatenating them in
    # order gives records.jsonl sorted by id.
    summaries: list[dict] = []
    with atomic_path(out / "records.jsonl") as tmp:
        with open(tmp, "wb") as dst:
            for i in range(n_chunks):
                with open(rdir / f"chunk-{i:05d}.jsonl", "rb") as src:
                    shutil.copyfileobj(src, dst)
                summaries += json.loads((rdir / f"chunk-{i:05d}.summary.json").read_text(encoding="utf-8"))
    with atomic_path(out / "skipped.jsonl") as tmp:
        skipped.write(tmp)
    with atomic_path(out / "record.schema.json") as tmp:
        write_json_schema(tmp)
    grounded = Counter(code for r in summaries for code in r["grounds"])
    by_script = Counter(img.script for _, img in images)
    covered = [s for s in labels.SCRIPTS if by_script.get(s)]
    fonts_rendered = sorted({img.font for _, img in images if img.font and img.style.startswith("font-")})
    return BuildReport(
        characters=len({r["character"] for r in summaries}),
        records=len(summaries),
        images_by_script={s: by_script[s] for s in labels.SCRIPTS if by_script.get(s)},
        fonts=fonts_rendered or list(fonts),
        grounded={code: grounded[code] for code in labels.SUBTASKS},
        skipped=skipped.counts(),
        scripts_covered=covered,
        scripts_missing=[s for s in labels.SCRIPTS if s not in covered],
        extra={
            "acceptance": acceptance(summaries),
            "images": len(images),
            "images_by_source": dict(sorted(Counter(img.source for _, img in images).items())),
            "records_by_script": dict(sorted(Counter(r["script"] for r in summaries).items())),
            "records_with_fidelity_flags": sum(1 for r in summaries if r["flags"]),
            "structurizer": getattr(opts.structurizer, "name", "rule") if opts.structurizer else "rule",
            "sources_dir": str(src_registry.resolve_sources_dir(opts.sources)),
            "note": "甲骨文 images are the Oracle-MNIST scans and Commons drawings; 篆书 (the Shuowen seal "
                    "series), 金文 and 战国文字 images are Commons drawings (commons-ancient SVG tracings and "
                    "commons-acc-png renders, each with augmented copies, style tracing-augmented); a few 篆书 "
                    "images are LXGW Seal renderings (a modern seal-style font, not authoritative seal forms; its "
                    "glyphs that draw the modern structure are style modern-seal-style-font under 楷书); 隶书 and "
                    "草书 need user images.",
        },
    )
