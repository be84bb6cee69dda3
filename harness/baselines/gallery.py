"""The glyph gallery the retrieval baseline and the ICL / RAG strategies share.

:class:`Gallery` embeds every glyph image of JieZi-Dataset's ``records`` config (one row
per image: ``image``, ``character``, ``script``, ``record`` = GlyphRecord JSON, ``id``)
with an embedder of :mod:`harness.baselines.embed`, caches the matrix on disk keyed by the
gallery's content fingerprint and the embedder settings, and finds the nearest images by
cosine similarity.
Embedding matrices are written with the one atomic writer (``hub.atomic``).
"""

from __future__ import annotations

import json
import math
import os
from collections import defaultdict
from pathlib import Path

import numpy as np

from harness.bench import fingerprint, load_gallery, load_training_turns
from hub.atomic import atomic_open
from metrics.acce import labels


def cache_root() -> Path:
    """Where embeddings are cached: ``$JIEZI_CACHE/retrieval`` or ``~/.cache/jiezi/retrieval``."""
    base = os.environ.get("JIEZI_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "jiezi")
    return Path(base) / "retrieval"


_FORK_STATE: dict = {}


def _embed_range(bounds: tuple[int, int]) -> np.ndarray:
    ds, column, embedder, batch_size = _FORK_STATE["job"]
    start, stop = bounds
    parts = [embedder.embed(b[column]) for b in ds.select(range(start, stop)).select_columns([column])
             .iter(batch_size=batch_size)]
    return np.concatenate(parts) if parts else np.zeros((0, embedder.dim), np.float32)


def default_workers(embedder) -> int:
    """Processes for embedding: the usable CPUs (at most 4) for numpy embedders, 1 for
    torch ones (torch already uses every core, and forking it is unsafe)."""
    if not getattr(embedder, "process_parallel", False):
        return 1
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(4, cpus))


def embed_images(ds, column: str, embedder, *, cache: Path | None = None, batch_size: int = 256,
                 progress: bool = True, desc: str = "embed", workers: int | None = None,
                 chunk_size: int | None = None) -> np.ndarray:
    """Embed column ``column`` (an ``Image`` feature) of every row of ``ds``.

    Returns ``(len(ds), embedder.dim)`` float32. With ``cache`` (a ``.npy`` path) the
    matrix is loaded from it when its shape matches, else computed and written there
    atomically. ``workers`` > 1 splits the rows over forked processes (default
    :func:`default_workers`) in chunks of ``chunk_size`` rows; rows keep their order.
    """
    if cache is not None and cache.exists():
        try:
            arr = np.load(cache)
            if arr.shape == (len(ds), embedder.dim):
                return arr
        except (OSError, ValueError):
            pass  # a damaged cache file is recomputed
    import multiprocessing

    from tqdm.auto import tqdm

    workers = default_workers(embedder) if workers is None else max(1, workers)
    chunk = chunk_size or min(2048, max(64, math.ceil(len(ds) / (4 * workers))))
    ranges = [(i, min(i + chunk, len(ds))) for i in range(0, len(ds), chunk)]
    out = np.zeros((len(ds), embedder.dim), np.float32)
    with tqdm(total=len(ds), desc=desc, unit="glyph", disable=not progress) as bar:
        _FORK_STATE["job"] = (ds, column, embedder, batch_size)
        try:
            if workers > 1 and len(ranges) > 1 and "fork" in multiprocessing.get_all_start_methods():
                _embed_in_pool(multiprocessing.get_context("fork").Pool(workers), ranges, out, bar)
            else:
                for start, stop in ranges:
                    out[start:stop] = _embed_range((start, stop))
                    bar.update(stop - start)
        finally:
            _FORK_STATE.pop("job", None)
    if cache is not None:
        with atomic_open(cache, "wb") as fh:
            np.save(fh, out)
    return out


def _embed_in_pool(pool, ranges: list[tuple[int, int]], out: np.ndarray, bar) -> None:
    """Fill ``out`` from ``pool`` (one ``_embed_range`` task per range) and shut it down.

    A finished pool is closed and joined, so its workers leave on their own sentinel: the
    context manager's terminate() signals workers that may be blocked on the task queue's
    lock, and one such worker was seen never to exit (a fused eval hung 28 min in
    Pool.__exit__, parent in join(), the worker waiting on the queue lock, 2026-12-04).
    terminate() is kept for an interruption."""
    try:
        for (start, stop), arr in zip(ranges, pool.imap(_embed_range, ranges)):
            out[start:stop] = arr
            bar.update(stop - start)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


class Gallery:
    """JieZi-Dataset's ``records`` config, embedded and searchable.

    ``source``: folder or Hub id of JieZi-Dataset. ``embedder``: an object of
    :mod:`harness.baselines.embed`. ``cache_dir``: where embedding matrices are kept (default
    :func:`cache_root`). Raises ``harness.bench.BenchError`` when the gallery cannot be
    loaded.
    """

    def __init__(self, source: str | Path, embedder, *, cache_dir: Path | None = None, progress: bool = True):
        self.source = str(source)
        self.embedder = embedder
        self.progress = progress
        self.ds = load_gallery(source)
        self.fingerprint = fingerprint(self.ds)
        self.cache_dir = Path(cache_dir) if cache_dir else cache_root()
        cache = self.cache_dir / f"gallery-{self.fingerprint[:20]}-{embedder.name}.npy"
        self.embeddings = embed_images(self.ds, "image", embedder, cache=cache, progress=progress,
                                       desc="embed gallery")
        cols = [c for c in ("id", "character", "script") if c in self.ds.column_names]
        data = self.ds.select_columns(cols).to_dict()
        self.ids: list[str] = data.get("id") or [str(i) for i in range(len(self.ds))]
        self.characters: list[str] = data["character"]
        self.scripts: list[str] = data["script"]
        # One record per (character, script): the gallery repeats it for every image, so
        # only the first copy is kept (read in batches: the column is large).
        self._records: dict[tuple[str, str], str] = {}
        pos = 0
        for batch in self.ds.select_columns(["record"]).iter(batch_size=8192):
            for j, rec in enumerate(batch["record"]):
                self._records.setdefault((self.characters[pos + j], self.scripts[pos + j]), rec)
            pos += len(batch["record"])
        self._scripts_of: dict[str, list[str]] = defaultdict(list)
        for c, s in self._records:
            self._scripts_of[c].append(s)
        self._turns = None  # JieZi-Dataset "all" config (messages, subtasks), opened on first use
        self._turn_rows: dict[str, int] | None = None
        self._turns_error: str | None = None
        self._parsed: dict[tuple[str, str], dict | None] = {}
        self._turn_cache: dict[int, list[tuple[str, str, str]]] = {}

    def __len__(self) -> int:
        return len(self.ds)

    def describe(self) -> dict:
        """Gallery facts for results.json (with :meth:`coverage`)."""
        return {"source": self.source, "fingerprint": self.fingerprint, "images": len(self),
                "records": len(self._records), "characters": len(self._scripts_of),
                "coverage": self.coverage(),
                "embedder": self.embedder.describe(), "qa_turns": self._turns_error or
                ("loaded" if self._turns is not None else "not loaded")}

    def coverage(self) -> dict:
        """What the gallery can recognise: ``{"scripts": {script: {"images": n,
        "characters": m}}, "missing": [scripts of labels.SCRIPTS with no image]}``;
        scripts in :data:`metrics.acce.labels.SCRIPTS` order, others after them (computed once)."""
        if getattr(self, "_coverage", None) is not None:
            return self._coverage
        images: dict[str, int] = defaultdict(int)
        for s in self.scripts:
            images[s] += 1
        chars: dict[str, int] = defaultdict(int)
        for _c, s in self._records:
            chars[s] += 1
        order = [s for s in labels.SCRIPTS if s in images] + sorted(s for s in images if s not in labels.SCRIPTS)
        self._coverage = {"scripts": {s: {"images": images[s], "characters": chars.get(s, 0)} for s in order},
                          "missing": [s for s in labels.SCRIPTS if s not in images]}
        return self._coverage

    def search(self, queries: np.ndarray, k: int, exclude=None) -> tuple[np.ndarray, np.ndarray]:
        """Top-``k`` gallery rows of each query row (L2-normalised). Returns
        ``(sims, idx)``, both ``(len(queries), min(k, len(gallery)))``, best first.
        ``exclude``: optional callable ``(start, stop) -> (stop - start, len(gallery))``
        bool mask of gallery rows each query may not see (held-out evaluation); excluded
        rows get similarity -inf and come last."""
        k = min(k, len(self))
        sims = np.zeros((len(queries), k), np.float32)
        idx = np.zeros((len(queries), k), np.int64)
        for start in range(0, len(queries), 256):
            s = queries[start:start + 256] @ self.embeddings.T
            if exclude is not None:
                s[exclude(start, start + len(s))] = -np.inf
            part = np.argpartition(-s, k - 1, axis=1)[:, :k] if k < s.shape[1] else np.tile(np.arange(k), (len(s), 1))
            top = np.take_along_axis(s, part, 1)
            order = np.argsort(-top, axis=1, kind="stable")
            idx[start:start + len(s)] = np.take_along_axis(part, order, 1)
            sims[start:start + len(s)] = np.take_along_axis(top, order, 1)
        return sims, idx

    def record(self, character: str, script: str) -> dict | None:
        """The GlyphRecord dict of (character, script), or None (parsed once, then cached)."""
        key = (character, script)
        if key not in self._parsed:
            text = self._records.get(key)
            self._parsed[key] = json.loads(text) if text else None
        return self._parsed[key]

    def image_origins(self) -> dict[str, tuple[str, bool]]:
        """``{image id: (family, derived)}`` from the records' image entries: ``family`` is
        the traced source file an image was drawn from (``GlyphImage.origin``; its
        augmented copies share it), else the image id; ``derived`` is True for an
        augmented copy (``derived_from`` set). Images without an entry are absent."""
        out: dict[str, tuple[str, bool]] = {}
        for text in self._records.values():
            for im in json.loads(text).get("images") or []:
                out[im["id"]] = (im.get("origin") or im["id"], bool(im.get("derived_from")))
        return out

    def records_of(self, character: str) -> list[dict]:
        """Every gallery record of ``character``."""
        return [r for s in self._scripts_of.get(character, []) if (r := self.record(character, s))]

    def turns(self, row: int) -> list[tuple[str, str, str]]:
        """(subtask, question, answer) of the JieZi-Dataset QA turns of gallery row
        ``row``'s image, in order (empty when the ``all`` config cannot be read;
        :meth:`describe` says why)."""
        if self._turns is None and self._turns_error is None:
            self._open_turns()
        if self._turns is None:
            return []
        where = self._turn_rows.get(self.ids[row])
        return [] if where is None else self._turns_at(where)

    def _open_turns(self) -> None:
        try:
            ds = load_training_turns(self.source)
            self._turn_rows = {image_id: n for n, image_id in enumerate(ds.select_columns(["id"])["id"])}
            self._turns = ds.select_columns(["messages", "subtasks"])
        except Exception as exc:  # the baseline still answers from records alone
            self._turns_error = f"JieZi-Dataset QA turns unavailable: {exc}"

    def _turns_at(self, n: int) -> list[tuple[str, str, str]]:
        if n in self._turn_cache:
            return self._turn_cache[n]
        item = self._turns[n]
        texts = [("".join(p.get("text") or "" for p in m["content"] if p.get("type") == "text"), m["role"])
                 for m in item["messages"]]
        questions = [t for t, role in texts if role == "user"]
        answers = [t for t, role in texts if role == "assistant"]
        self._turn_cache[n] = list(zip(item["subtasks"], questions, answers))
        return self._turn_cache[n]

    def examples(self, row: int, subtask: str) -> list[tuple[str, str]]:
        """(question, answer) of gallery row ``row``'s QA turns with subtask ``subtask``
        (the few-shot ICL demonstrations)."""
        return [(q, a) for s, q, a in self.turns(row) if s == subtask]
