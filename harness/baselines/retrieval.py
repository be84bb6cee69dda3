"""The offline JieZi retrieval baseline, and the glyph retriever the ICL / RAG strategies share.

:class:`Gallery` embeds every glyph image of JieZi-Dataset's ``records`` config (one row
per image: ``image``, ``character``, ``script``, ``record`` = GlyphRecord JSON, ``id``)
with an embedder of :mod:`harness.baselines.embed`, caches the matrix on disk keyed by the
gallery's content fingerprint and the embedder settings, and finds the nearest images by
cosine similarity.

:class:`RetrievalBaseline` answers for ONE character per glyph:

1. neighbour weights ``w_i = exp((s_i - s_1) / T)`` over the top ``k`` similarities ``s``
   (``T``: :attr:`RetrievalSettings.temperature`); the character with the largest summed
   weight is the answer, its script the weighted vote of that character's neighbours
   only (简体 counted with 楷书, as the scorer does) (:meth:`RetrievalBaseline.decide`);
2. a calibrated confidence (:mod:`harness.baselines.abstention`: vote margin and top similarity,
   fitted on held-out gallery glyphs by :func:`fit_calibration`); below its
   threshold the baseline abstains and every question of the glyph stays unanswered
   (an empty answer, counted as unanswered and scored 0);
3. every other level (STRC, FORC, components, ORIM, EVOI) comes from that character's
   records (the decided script's first) and the QA turns of that character's
   neighbour images; a value they lack stays unanswered, never borrowed from another
   character.

Evolution types and narratives are derived at the QA stage, not stored in records, so
they are read from JieZi-Dataset's ``all`` config with ``metrics.acce.core.parse_answer``.
The gallery never holds bench images, and for bench characters its records carry no
Shuowen / Duan text (``builder.qa.stage.gallery_record``), so no reference leaks in.
Answers are rendered in the bench's formats (:mod:`harness.render`).
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from harness import render
from harness.baselines.abstention import CALIBRATION_VERSION, CONDITIONS, Calibration, curves_by_script, fit_logistic
from harness.bench import fingerprint, load_gallery, load_training_turns
from harness.baselines.embed import make_embedder
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
    :data:`harness.baselines.embed.EMBEDDERS`; ``use_turns``: fall back to JieZi-Dataset QA turns of
    the decided character for values its records lack; ``abstain``: answer nothing when
    the calibrated confidence is below the calibration's threshold.

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
    abstain: bool = True

    def __post_init__(self):
        if self.k < 1:
            raise ValueError(f"retrieval k must be >= 1, got {self.k}")
        if not self.temperature > 0:
            raise ValueError(f"retrieval temperature must be > 0, got {self.temperature}")


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


@dataclass
class Decision:
    """The baseline's reading of one glyph.

    ``character`` / ``script``: the decided pair (None when abstaining); ``confidence``:
    calibrated P(character right), 0-1; ``abstained``: confidence below the threshold (or
    abstention off: never); ``candidates``: ``[(character, vote weight)]`` best first
    (the nearest candidates shown when abstaining); ``rows``: the decided character's
    neighbour gallery rows; ``features``: :data:`harness.baselines.abstention.FEATURES` values;
    ``script_votes``: ``{raw gallery script label: count among rows}``.
    """

    character: str | None
    script: str | None
    confidence: float
    abstained: bool
    candidates: list[tuple[str, float]]
    rows: list[int]
    features: dict
    script_votes: dict


class RetrievalBaseline:
    """Answers bench rows from the nearest gallery glyphs (see module docstring).

    Usage: ``rb = RetrievalBaseline(gallery, settings, calibration)``; ``rb.decide(sims,
    idx)`` -> :class:`Decision`; ``rb.answer(sims, idx, kind)`` -> the answer text of one
    question of template ``kind`` (CHAR, SCRC, STRC, FORC, ORIM, EVOI, COMP_FULL,
    COMP_ASPECT or a single component subtask); ``""`` when abstaining or when the
    decided character's records lack the value. Without a ``calibration`` the baseline
    never abstains (confidence is then the winner's vote weight, uncalibrated).
    """

    def __init__(self, gallery: Gallery, settings: RetrievalSettings | None = None,
                 calibration: Calibration | None = None):
        self.gallery = gallery
        self.settings = settings or RetrievalSettings()
        self.calibration = calibration
        self.decisions = {"glyphs": 0, "abstained": 0}  # distinct (sims, idx) decided, for results
        self._counted: set[bytes] = set()

    def describe(self) -> dict:
        """The baseline's settings, gallery (with coverage) and calibration, for results.json."""
        cal = self.calibration.to_dict() if self.calibration else None
        return {"retrieval": asdict(self.settings), "gallery": self.gallery.describe(), "calibration": cal,
                "abstention": self.abstention_summary()}

    def abstention_summary(self) -> dict:
        """Glyphs decided and abstained on so far (each distinct neighbour list once)."""
        d = dict(self.decisions)
        d["abstained_share"] = round(d["abstained"] / d["glyphs"], 4) if d["glyphs"] else None
        return d

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
        """The script label with the largest summed weight over the given neighbours
        (简体 merged into 楷书)."""
        w = self._weights(sims)
        acc: dict[str, float] = defaultdict(float)
        for wi, i in zip(w, idx):
            s = self.gallery.scripts[int(i)]
            acc[labels.SCRIPT_SCORING_ALIAS.get(s, s)] += float(wi)
        return max(acc, key=acc.get)

    def features(self, sims: np.ndarray, idx: np.ndarray) -> tuple[dict, list]:
        """(:data:`harness.baselines.abstention.FEATURES` of the vote, the character votes)."""
        votes = self.character_votes(sims, idx)
        w1 = votes[0][1]
        w2 = votes[1][1] if len(votes) > 1 else 0.0
        rows = votes[0][2]
        top = float(max(sims[list(idx).index(r)] for r in rows))
        return {"margin": w1 - w2, "top_similarity": top, "support": len(rows) / len(idx)}, votes

    def decide(self, sims: np.ndarray, idx: np.ndarray, *, count: bool = False, calibrated: bool = True) -> Decision:
        """Decide the character, then its script from that character's neighbours only,
        and whether to abstain (see class docstring). ``count`` adds the decision to
        :attr:`decisions`; ``calibrated=False`` ignores the calibration (never abstains;
        used while fitting it). Raises ``ValueError`` on an empty neighbour list."""
        if len(idx) == 0:
            raise ValueError("retrieval: no neighbours to decide from")
        sims, idx = np.asarray(sims), np.asarray(idx)
        feats, votes = self.features(sims, idx)
        character, _, rows = votes[0]
        mine = np.isin(idx, rows)
        script = self.script_vote(sims[mine], idx[mine])
        raw: dict[str, int] = defaultdict(int)
        for r in rows:
            raw[self.gallery.scripts[r]] += 1
        if self.calibration is not None and calibrated:
            confidence = self.calibration.confidence(feats)
            abstained = self.settings.abstain and confidence < self.calibration.threshold
        else:
            confidence, abstained = float(votes[0][1]), False
        if count:
            self.decisions["glyphs"] += 1
            self.decisions["abstained"] += int(abstained)
        return Decision(None if abstained else character, None if abstained else script, round(confidence, 4),
                        abstained, [(c, round(w, 4)) for c, w, _ in votes[:5]], rows, feats, dict(raw))

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
        return clean_facts(character, facts)

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
        neighbours (``sims``, ``idx`` from :meth:`Gallery.search`). Returns ``""`` when
        abstaining or when the decided character's records and QA turns lack the value.
        Raises ``ValueError`` on an unknown ``kind``."""
        if len(idx) == 0:
            return ""
        key = np.asarray(idx).tobytes() + np.asarray(sims, np.float32).tobytes()
        seen = key in self._counted
        self._counted.add(key)
        d = self.decide(sims, idx, count=not seen)
        if d.abstained:
            return ""
        if kind == "CHAR":
            return d.character
        if kind == "SCRC":
            return d.script
        return self.render_fact(self.character_facts(d.character, d.script, d.rows), kind)

    @staticmethod
    def render_fact(facts: dict, kind: str) -> str:
        """One question's answer text from one character's facts (``""`` when absent)."""
        if kind in ("STRC", "FORC"):
            value = facts.get("structure" if kind == "STRC" else "formation")
            if not value:
                return ""
            return render.structure_text(value) if kind == "STRC" else render.formation_text(list(value))
        if kind in ("COMP_FULL", "COMP_ASPECT", "COMR", "COMF", "COMI", "COME"):
            if not facts.get("components"):
                return ""
            return render.components_text(
                facts["components"], functions=kind in ("COMP_FULL", "COMP_ASPECT", "COMF"),
                evolution=kind in ("COMP_FULL", "COME"), interpretation=kind in ("COMP_FULL", "COMP_ASPECT", "COMI"))
        field_name = {"ORIM": "original_meaning", "EVOI": "evolution"}.get(kind)
        if field_name is None:
            raise ValueError(f"retrieval baseline: unknown question kind {kind!r}")
        return facts.get(field_name) or ""


_IDC = re.compile(r"[\u2ff0-\u2fff]")
_PUNCT = " \t\n。，、；：「」『』“”（）()．.,;:!?！？"


def clean_facts(character: str, facts: dict) -> dict:
    """Drop values that are not answers (seen in user tests): an original meaning that
    is only the character itself (巳 glossed as 「巳」) and components whose name is a raw
    IDS string (「⿱竹𦻍」: an unsplit description, not a component). Returns ``facts``."""
    meaning = facts.get("original_meaning")
    if isinstance(meaning, str) and meaning.strip(_PUNCT) in ("", character):
        facts.pop("original_meaning")
    if facts.get("components"):
        facts["components"] = [c for c in facts["components"] if not _IDC.search(str(c.get("name") or ""))]
        if not facts["components"]:
            facts.pop("components")
    return facts


def softmax_weights(sims: np.ndarray, temperature: float) -> np.ndarray:
    """``exp((s - max s) / T)`` normalised to sum 1 (the baseline's neighbour weights)."""
    w = np.exp((np.asarray(sims, np.float64) - float(np.max(sims))) / temperature)
    return w / w.sum() if math.isfinite(w.sum()) and w.sum() > 0 else np.full(len(w), 1.0 / len(w))


CALIBRATION_PER_SCRIPT = 150


def held_out_mask(gallery: Gallery, picked: np.ndarray, condition: str):
    """``exclude`` callable for :meth:`Gallery.search` in one of
    :data:`harness.baselines.abstention.CONDITIONS`: what each query (gallery rows ``picked``) may
    not see; ``exclude(start, stop)`` -> ``(stop - start, len(gallery))`` bool."""
    n = len(gallery)
    if condition == "seen":
        def exclude(start, stop):
            m = np.zeros((stop - start, n), bool)
            m[np.arange(stop - start), picked[start:stop]] = True
            return m
        return exclude
    values = gallery.characters if condition == "unseen character" else [
        labels.SCRIPT_SCORING_ALIAS.get(x, x) for x in gallery.scripts]
    _, codes = np.unique(np.asarray(values, object), return_inverse=True)

    def exclude(start, stop):
        return codes[None, :] == codes[picked[start:stop]][:, None]
    return exclude


def calibration_rows(gallery: Gallery, per_script: int = CALIBRATION_PER_SCRIPT, seed: int = 0,
                     eligible: np.ndarray | None = None) -> np.ndarray:
    """The held-out gallery rows of a calibration: up to ``per_script`` per script
    (scoring aliases merged, 简体 with 楷书), a seeded random choice among the rows where
    the optional ``(len(gallery),)`` bool mask ``eligible`` holds, sorted ``(m,)`` int64."""
    alias = np.asarray([labels.SCRIPT_SCORING_ALIAS.get(x, x) for x in gallery.scripts], object)
    ok = np.ones(len(alias), bool) if eligible is None else np.asarray(eligible, bool)
    rng = np.random.default_rng(seed)
    return np.sort(np.concatenate([rng.permutation(np.flatnonzero((alias == s) & ok))[:per_script]
                                   for s in sorted(set(alias.tolist()))])).astype(np.int64)


def calibration_samples(baseline: "RetrievalBaseline", per_script: int = CALIBRATION_PER_SCRIPT,
                        seed: int = 0) -> dict:
    """Decisions on held-out gallery glyphs for fitting and checking the confidence.

    Up to ``per_script`` gallery images per script (scoring aliases merged; seeded
    random choice) are each answered three times (:data:`harness.baselines.abstention.CONDITIONS`)
    with the gallery rows that condition hides removed; in the ``seen`` condition only
    images whose (character, script) has another image are asked (else no right answer
    is left). The three conditions weigh about equally: the fitted confidence assumes
    that a third of the glyphs shown are of characters, and a third of scripts, that
    the gallery lacks. Returns arrays ``features``
    ``(n, len(FEATURES))``, ``correct`` (the decided character is right), and lists ``script``
    (the query's), ``condition``. A condition that would leave no gallery is skipped.
    """
    from harness.baselines.abstention import FEATURES

    g = baseline.gallery
    alias = np.asarray([labels.SCRIPT_SCORING_ALIAS.get(x, x) for x in g.scripts], object)
    picked = calibration_rows(g, per_script, seed)
    queries = g.embeddings[picked]
    pairs = Counter(zip(g.characters, alias.tolist()))
    feats, correct, scripts, conds = [], [], [], []
    for condition in CONDITIONS:
        if condition == "held-out script" and len(set(alias.tolist())) < 2:
            continue
        sims, idx = g.search(queries, baseline.settings.k, exclude=held_out_mask(g, picked, condition))
        for j, q in enumerate(picked):
            ok = np.isfinite(sims[j])
            if not ok.any() or (condition == "seen" and pairs[(g.characters[q], alias[q])] < 2):
                continue
            d = baseline.decide(sims[j][ok], idx[j][ok], calibrated=False)
            feats.append([d.features[f] for f in FEATURES])
            correct.append(d.character == g.characters[q])
            scripts.append(str(alias[q]))
            conds.append(condition)
    return {"features": np.asarray(feats, np.float64).reshape(-1, len(FEATURES)),
            "correct": np.asarray(correct, bool), "script": scripts, "condition": conds}


def fit_calibration(baseline: "RetrievalBaseline", *, per_script: int = CALIBRATION_PER_SCRIPT, seed: int = 0,
                    threshold: float = 0.5) -> Calibration:
    """Fit the confidence of ``baseline`` on :func:`calibration_samples`: logistic
    regression on one half (split at random, seeded), risk-coverage curves per script on
    the other half (``Calibration.curves``). ``threshold``: the lowest confidence answered."""
    data = calibration_samples(baseline, per_script, seed)
    n = len(data["correct"])
    order = np.random.default_rng(seed + 1).permutation(n)
    fit_rows, test_rows = np.sort(order[: (n + 1) // 2]), np.sort(order[(n + 1) // 2:])
    coef, intercept = fit_logistic(data["features"][fit_rows], data["correct"][fit_rows])
    cal = Calibration(coef, intercept, threshold)
    conf = np.asarray(cal.confidence(data["features"][test_rows]))
    cal.curves = curves_by_script([data["script"][i] for i in test_rows], [data["condition"][i] for i in test_rows],
                                  conf, data["correct"][test_rows], threshold)
    counts = {c: data["condition"].count(c) for c in CONDITIONS}
    cal.fit = {"gallery_fingerprint": baseline.gallery.fingerprint, "per_script": per_script, "seed": seed,
               "samples": n, "fit_half": len(fit_rows), "test_half": len(test_rows), "by_condition": counts,
               "accuracy_all_answered": round(100.0 * float(data["correct"].mean()), 1) if n else None,
               "target": "decided character right (every level is read from its records)"}
    return cal


def load_or_fit_calibration(baseline: "RetrievalBaseline", cache_dir: Path | None = None,
                            per_script: int = CALIBRATION_PER_SCRIPT) -> Calibration:
    """:func:`fit_calibration`, cached as JSON beside the embeddings, keyed by the gallery
    fingerprint, the embedder, k, T, the sample size and the calibration version."""
    s, g = baseline.settings, baseline.gallery
    path = Path(cache_dir or g.cache_dir) / (f"calibration-{g.fingerprint[:20]}-{g.embedder.name}-k{s.k}-"
                                             f"T{s.temperature:g}-n{per_script}-v{CALIBRATION_VERSION}.json")
    return cached_fit(path, Calibration.from_dict, lambda: fit_calibration(baseline, per_script=per_script))


def cached_fit(path: Path, load, fit):
    """The model stored as JSON at ``path`` (``load(dict)``), else ``fit()`` written there
    atomically (its ``to_dict()``); a damaged or older file is refitted. ``path``'s name
    must key everything the model depends on."""
    if path.exists():
        try:
            return load(json.loads(path.read_text("utf-8")))
        except (OSError, ValueError, KeyError, TypeError):
            pass  # a damaged or older file is refitted
    model = fit()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(model.to_dict(), fh, ensure_ascii=False, indent=1)
    os.replace(tmp, path)
    return model


def build_baseline(gallery_source: str | Path, settings: RetrievalSettings | None = None, *,
                   cache_dir: Path | None = None, progress: bool = True) -> RetrievalBaseline:
    """Load and embed the gallery, fit (or load) the abstention calibration and return
    the baseline. Raises ``harness.bench.BenchError`` when the gallery cannot be loaded."""
    settings = settings or RetrievalSettings()
    gallery = Gallery(gallery_source, make_embedder(settings.embedder), cache_dir=cache_dir, progress=progress)
    baseline = RetrievalBaseline(gallery, settings)
    baseline.calibration = load_or_fit_calibration(baseline, cache_dir)
    return baseline
