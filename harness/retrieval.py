"""The offline JieZi retrieval baseline, and the glyph retriever the ICL / RAG strategies share.

:class:`Gallery` embeds every glyph image of JieZi-Dataset's ``records`` config (one row
per image: ``image``, ``character``, ``script``, ``record`` = GlyphRecord JSON, ``id``)
with an embedder of :mod:`harness.embed`, caches the matrix on disk keyed by the
gallery's content fingerprint and the embedder settings, and finds the nearest images by
cosine similarity.

:class:`RetrievalBaseline` answers all ten subtasks from the neighbours of a bench glyph:

- neighbour weights ``w_i = exp((s_i - s_1) / T)`` over the top ``k`` similarities ``s``
  (``T``: :attr:`RetrievalSettings.temperature`);
- CHAR: the character with the largest summed weight; SCRC: the script with the largest
  summed weight (简体 counted with 楷书, as the scorer does);
- STRC and FORC: a weighted vote, each neighbour character voting with its weight for the
  value its record gives;
- components (COMR/COMF/COMI/COME), ORIM and EVOI: the values of the highest-weighted
  character that has them.

A character's values come from its gallery records (the record of the predicted script
first, then its other scripts) and, where the records lack a value (evolution types and
narratives are derived at the QA stage, not stored in records), from its images' QA turns
in JieZi-Dataset's ``all`` config, read with ``metrics.acce.core.parse_answer``. The
gallery never holds bench images, and for bench characters its records carry no
Shuowen / Duan text (``builder.qa.stage.gallery_record``), so no reference leaks in.
Answers are rendered in the bench's formats (:mod:`harness.render`).
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from harness import render
from harness.bench import fingerprint, load_gallery, load_training_turns
from harness.embed import make_embedder
from metrics.acce import labels
from metrics.acce.core import parse_answer


def cache_root() -> Path:
    """Where embeddings are cached: ``$JIEZI_CACHE/retrieval`` or ``~/.cache/jiezi/retrieval``."""
    base = os.environ.get("JIEZI_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "jiezi")
    return Path(base) / "retrieval"


def _atomic_save(path: Path, array: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            np.save(fh, array)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


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
                with multiprocessing.get_context("fork").Pool(workers) as pool:
                    for (start, stop), arr in zip(ranges, pool.imap(_embed_range, ranges)):
                        out[start:stop] = arr
                        bar.update(stop - start)
            else:
                for start, stop in ranges:
                    out[start:stop] = _embed_range((start, stop))
                    bar.update(stop - start)
        finally:
            _FORK_STATE.pop("job", None)
    if cache is not None:
        _atomic_save(cache, out)
    return out


@dataclass
class RetrievalSettings:
    """Settings of the retrieval baseline, recorded in results.json.

    ``k``: neighbours used (>= 1); ``temperature``: softmax temperature over cosine
    similarities (> 0; smaller trusts the first neighbour more); ``embedder``: a name of
    :data:`harness.embed.EMBEDDERS`; ``use_turns``: fall back to JieZi-Dataset QA turns for
    values the records lack.

    The defaults were chosen on the gallery alone, never on the bench: leave-one-out over
    2,000 gallery glyphs whose (character, script) has other images (each query's own
    image removed), grid k in {1, 5, 10, 20} x T in {0.005 .. 0.1}; k=10, T=0.02 gave the
    best character accuracy (87.2% vs 83.5% for k=1) with structure / formation agreement
    99.2% / 97.6% on the default build.
    """

    k: int = 10
    temperature: float = 0.02
    embedder: str = "hog"
    use_turns: bool = True

    def __post_init__(self):
        if self.k < 1:
            raise ValueError(f"retrieval k must be >= 1, got {self.k}")
        if not self.temperature > 0:
            raise ValueError(f"retrieval temperature must be > 0, got {self.temperature}")


class Gallery:
    """JieZi-Dataset's ``records`` config, embedded and searchable.

    ``source``: folder or Hub id of JieZi-Dataset. ``embedder``: an object of
    :mod:`harness.embed`. ``cache_dir``: where embedding matrices are kept (default
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
        """Gallery facts for results.json."""
        return {"source": self.source, "fingerprint": self.fingerprint, "images": len(self),
                "records": len(self._records), "characters": len(self._scripts_of),
                "embedder": self.embedder.describe(), "qa_turns": self._turns_error or
                ("loaded" if self._turns is not None else "not loaded")}

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Top-``k`` gallery rows of each query row (L2-normalised). Returns
        ``(sims, idx)``, both ``(len(queries), min(k, len(gallery)))``, best first."""
        k = min(k, len(self))
        sims = np.zeros((len(queries), k), np.float32)
        idx = np.zeros((len(queries), k), np.int64)
        for start in range(0, len(queries), 256):
            s = queries[start:start + 256] @ self.embeddings.T
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


_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\U00020000-\U0003134f]")


def _is_chinese(text: str | None) -> bool:
    """True when ``text`` contains at least one Han character."""
    return bool(text) and bool(_HAN.search(text))


def _evolution_section(text: str) -> str:
    """The evolution part of an answer: the text after a 字形演变 heading when the answer is
    a full exegesis, else the whole text."""
    for head in ("【字形演变】", "字形演变：", "字形演变:", "字形演变"):
        if head in text and not text.startswith(head):
            return text.split(head, 1)[1].strip(" ：:\n")
    return text.strip()


class RetrievalBaseline:
    """Answers bench rows from the nearest gallery glyphs (see module docstring).

    Usage: ``rb = RetrievalBaseline(gallery, settings)``; ``rb.index(images)`` -> neighbour
    arrays; ``rb.answer(sims, idx, kind)`` -> the answer text of one question of template
    ``kind`` (CHAR, SCRC, STRC, FORC, ORIM, EVOI, COMP_FULL, COMP_ASPECT or a single
    component subtask).
    """

    def __init__(self, gallery: Gallery, settings: RetrievalSettings | None = None):
        self.gallery = gallery
        self.settings = settings or RetrievalSettings()

    def describe(self) -> dict:
        """The baseline's settings and gallery, for results.json."""
        return {"retrieval": asdict(self.settings), "gallery": self.gallery.describe()}

    # -- voting ----------------------------------------------------------------------
    def _weights(self, sims: np.ndarray) -> np.ndarray:
        return softmax_weights(sims, self.settings.temperature)

    def character_votes(self, sims: np.ndarray, idx: np.ndarray) -> list[tuple[str, float, list[int]]]:
        """Characters of the neighbours with summed weights, best first:
        ``[(character, weight, [gallery rows])]``."""
        w = self._weights(sims)
        acc: dict[str, float] = defaultdict(float)
        rows: dict[str, list[int]] = defaultdict(list)
        for wi, i in zip(w, idx):
            c = self.gallery.characters[int(i)]
            acc[c] += float(wi)
            rows[c].append(int(i))
        return sorted(((c, acc[c], rows[c]) for c in acc), key=lambda t: -t[1])

    def script_vote(self, sims: np.ndarray, idx: np.ndarray) -> str:
        """The script label with the largest summed weight (简体 merged into 楷书)."""
        w = self._weights(sims)
        acc: dict[str, float] = defaultdict(float)
        for wi, i in zip(w, idx):
            s = self.gallery.scripts[int(i)]
            acc[labels.SCRIPT_SCORING_ALIAS.get(s, s)] += float(wi)
        return max(acc, key=acc.get)

    # -- facts of a character --------------------------------------------------------
    def character_facts(self, character: str, script: str, rows: list[int]) -> dict:
        """Values known for ``character``: records (``script`` first, then the others),
        then the parsed QA turns of its neighbour images ``rows`` for what the records lack."""
        facts: dict = {}
        recs = self.gallery.records_of(character)
        recs.sort(key=lambda r: r.get("script") != script)
        for rec in recs:
            for key, value in render.record_facts(rec).items():
                if key == "components":
                    self._merge_components(facts, value)
                else:
                    facts.setdefault(key, value)
        needs_turns = ("evolution" not in facts or "original_meaning" not in facts or "structure" not in facts
                       or "formation" not in facts or not facts.get("components")
                       or any(not c.get("evolution_type") or not _is_chinese(c.get("interpretation"))
                              for c in facts["components"]))
        if self.settings.use_turns and needs_turns:
            for row in rows:
                self._facts_from_turns(facts, self.gallery.turns(row))
        return facts

    @staticmethod
    def _merge_components(facts: dict, comps: list[dict]) -> None:
        if not facts.get("components"):
            facts["components"] = [dict(c) for c in comps]
            return
        by_name = {c["name"]: c for c in facts["components"]}
        for c in comps:
            mine = by_name.get(c["name"])
            if mine is None:
                continue  # the first source's component list is kept as is
            for key in ("functions", "interpretation", "evolution_type"):
                if not mine.get(key) and c.get(key):
                    mine[key] = c[key]
            # Records keep makemeahanzi's English hints; the dataset's QA turns state the
            # same component in Chinese, the language of the bench's references.
            if c.get("interpretation") and _is_chinese(c["interpretation"]) and not _is_chinese(mine.get("interpretation")):
                mine["interpretation"] = c["interpretation"]

    def _facts_from_turns(self, facts: dict, turns: list[tuple[str, str, str]]) -> None:
        for subtask, _question, answer in turns:
            code = str(subtask).upper()
            try:
                if code == "STRC" and "structure" not in facts:
                    got = parse_answer(answer, "STRC")
                    if got:
                        facts["structure"] = got["structure"]
                elif code == "FORC" and "formation" not in facts:
                    got = parse_answer(answer, "FORC")
                    if got:
                        facts["formation"] = (["形声", "会意"] if got.get("yisheng") else got["formation"])
                elif code in labels.COMPONENT_SUBTASKS:
                    got = parse_answer(answer, code)
                    if got:
                        self._merge_components(facts, got["components"])
                elif code == "ORIM" and "original_meaning" not in facts:
                    got = parse_answer(answer, "ORIM")
                    if got:
                        facts["original_meaning"] = got["original_meaning"]
                elif code == "EVOI" and ("evolution" not in facts or facts.get("_evolution_from_exegesis")):
                    text = _evolution_section(answer)
                    exegesis = text != answer.strip()
                    if text and ("evolution" not in facts or not exegesis):
                        facts["evolution"] = text
                        facts["_evolution_from_exegesis"] = exegesis
            except ValueError:
                continue

    # -- answers ---------------------------------------------------------------------
    def answer(self, sims: np.ndarray, idx: np.ndarray, kind: str) -> str:
        """The answer text for one question of template ``kind`` given one query's
        neighbours (``sims``, ``idx`` from :meth:`Gallery.search`). Returns ``""`` when no
        neighbour has the needed value."""
        if len(idx) == 0:
            return ""
        votes = self.character_votes(sims, idx)
        if kind == "CHAR":
            return votes[0][0]
        script = self.script_vote(sims, idx)
        if kind == "SCRC":
            return script
        facts = [(c, w, self.character_facts(c, script, rows)) for c, w, rows in votes]
        if kind in ("STRC", "FORC"):
            field = "structure" if kind == "STRC" else "formation"
            acc: dict[tuple, float] = defaultdict(float)
            for _, w, f in facts:
                if f.get(field):
                    acc[tuple(f[field]) if field == "formation" else (f[field],)] += w
            if not acc:
                return ""
            best = max(acc, key=acc.get)
            return render.structure_text(best[0]) if kind == "STRC" else render.formation_text(list(best))
        if kind in ("COMP_FULL", "COMP_ASPECT", "COMR", "COMF", "COMI", "COME"):
            for _, _, f in facts:
                if f.get("components"):
                    return render.components_text(
                        f["components"],
                        functions=kind in ("COMP_FULL", "COMP_ASPECT", "COMF"),
                        evolution=kind in ("COMP_FULL", "COME"),
                        interpretation=kind in ("COMP_FULL", "COMP_ASPECT", "COMI"))
            return ""
        field = {"ORIM": "original_meaning", "EVOI": "evolution"}.get(kind)
        if field is None:
            raise ValueError(f"retrieval baseline: unknown question kind {kind!r}")
        for _, _, f in facts:
            if f.get(field):
                return f[field]
        return ""


def softmax_weights(sims: np.ndarray, temperature: float) -> np.ndarray:
    """``exp((s - max s) / T)`` normalised to sum 1 (the baseline's neighbour weights)."""
    w = np.exp((np.asarray(sims, np.float64) - float(np.max(sims))) / temperature)
    return w / w.sum() if math.isfinite(w.sum()) and w.sum() > 0 else np.full(len(w), 1.0 / len(w))


def build_baseline(gallery_source: str | Path, settings: RetrievalSettings | None = None, *,
                   cache_dir: Path | None = None, progress: bool = True) -> RetrievalBaseline:
    """Load and embed the gallery and return the baseline."""
    settings = settings or RetrievalSettings()
    gallery = Gallery(gallery_source, make_embedder(settings.embedder), cache_dir=cache_dir, progress=progress)
    return RetrievalBaseline(gallery, settings)
