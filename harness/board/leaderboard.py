"""The JieZi-Bench leaderboard: validate, score and store submissions; list the table.

One code path for the CLI (``jiezi leaderboard submit|show``) and the Gradio Space:

- :func:`submit` ``(file_bytes, model_name, meta, board_dir) -> Row`` validates a
  ``predictions.jsonl`` (:func:`validate_predictions`), scores it with the board's fixed
  settings and stores one immutable row; it raises :class:`SubmissionError` with a
  plain-words message on any problem.
- :func:`table` ``(board_dir) -> list[dict]`` gives the submitted rows and the paper's
  Table 10 rows (``paper_table10.json``, marked "reported in paper"), best macro first.
- :func:`verify` ``(board_dir, row) -> dict`` re-scores a stored row from its stored
  predictions with the board's settings and checks its stored scores
  (``jiezi leaderboard verify ROW``).

A row keeps, besides its scores, the run that produced it (``details["run"]``, from the
``results.json`` of ``jiezi eval``: model spec, prompt version, decoding settings, image size,
strategy, protocol, bench fingerprint and revision) and the board's bench identity
(``details["bench"]``: source, revision, content fingerprint, image sizes). Model names are
compared with the paper's under NFKC and a Unicode TR39 confusable skeleton.

Board folder::

    BOARD/board.json                  fixed at creation: the bench (source, fingerprint,
                                      rows) and the scorer (BERTScore model, judge)
    BOARD/submissions/<id>.json       one row per distinct submission (never rewritten)
    BOARD/predictions/<id>.jsonl      the submitted predictions, as validated

A submission's id is the SHA-256 of its content (the (id, output) pairs sorted by id),
so the same answers submitted twice are one row; rows are created with an exclusive
link of a fully written temp file, so no row ever overwrites another.

Submission format (the ``predictions.jsonl`` that ``jiezi eval`` writes): UTF-8 JSON
Lines, one object per bench row of the board's config/split, each id exactly once;
fields ``id`` (string, required), ``output`` (string or null, required), and optionally
``parsed`` (object or null), ``latency_s`` (number or null), ``error`` (string or null);
no other field; plain JSON only (no NaN/Infinity, no duplicate keys).

A ``jiezi eval --protocol paper`` run (issue 13) submits the same way with one line per
bench image (``id`` = image id): :func:`submit_paper` re-scores it with
``metrics.acce.paper.score_paper`` in the run's scoring mode (``reference`` | ``jiezi``) and
stores it as a ``paper`` row of that scoring; :func:`table` ranks rows only within one
(protocol, scoring) group and :func:`verify` re-scores a paper row the same way.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import re
import tempfile
import time
import unicodedata
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

from confusable_homoglyphs.confusables import confusables_data

from harness.bench import (
    META_COLUMNS,
    BenchError,
    bench_identity,
    fingerprint,
    image_sizes,
    load_bench,
    resolve_revision,
)
from harness.eval.protocol_paper import load_paper_images
from harness.scoring import make_judge, resolve_bertscore_model, score_rows, scorer_settings
from harness.eval.thinking import label as thinking_label
from metrics.acce import labels
from metrics.acce.paper import score_paper

log = logging.getLogger(__name__)

BOARD_FORMAT = "jiezi-leaderboard/1"
MAX_BYTES = 50_000_000  # bytes; a full-bench predictions file is a few MB
ALLOWED_FIELDS = ("id", "output", "parsed", "latency_s", "error")
REQUIRED_FIELDS = ("id", "output")
PAPER_TABLE = Path(__file__).with_name("paper_table10.json")
LEVEL_KEYS = ("L1", "L2", "L3", "L4", "macro")
_NAME = re.compile(r"^[^\W_][\w .+\-()]{0,79}$")
_SHOWN_PROBLEMS = 5
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class SubmissionError(ValueError):
    """A submission was rejected; the message says what is wrong in plain words."""


@dataclass
class Row:
    """One leaderboard row. ``scores``: the eleven metrics plus L1..L4 and macro (0-100,
    None when not computed); ``source``: ``"submitted"`` or ``"reported in paper"``;
    ``created``: False when the same content was already on the board. ``protocol``
    (``per-question`` | ``paper``) and ``scoring`` (``jiezi`` | ``reference``) say how the
    answers were asked and scored: rows differing in either are never ranked together
    (issue 13); the paper's rows are ``paper`` + ``reference``."""

    id: str
    model_name: str
    source: str
    scores: dict
    meta: dict = field(default_factory=dict)
    submitted_at: str | None = None
    details: dict = field(default_factory=dict)
    created: bool = True
    protocol: str = "per-question"
    scoring: str = "jiezi"

    def to_dict(self) -> dict:
        """The row as JSON values."""
        return asdict(self)

    @property
    def thinking(self) -> str:
        """The run's thinking setting in short (``on``, ``off``, ``on (high)``, ``unknown``;
        :mod:`harness.eval.thinking`): a model may have one row per setting."""
        return thinking_label(((self.details or {}).get("run") or {}).get("thinking"))


# ----------------------------------------------------------------------------- inputs
def check_model_name(name: str) -> str:
    """Return the name with runs of white space made one space, or raise
    :class:`SubmissionError`: 1-80 characters,
    letters, digits, spaces and ``. _ - + ( )``, starting with a letter or digit (so no
    path such as ``../x``)."""
    if re.search(r"[^\S ]", name or ""):  # tabs, newlines ...: never part of a name on the board
        raise SubmissionError(f"the model name {name!r} is not allowed: it contains a tab or line break")
    text = " ".join((name or "").split())  # runs of spaces would make look-alike names
    if not text:
        raise SubmissionError("the model name is empty")
    if not _NAME.match(text) or ".." in text:
        raise SubmissionError(
            f"the model name {text!r} is not allowed: use 1-80 letters, digits, spaces and . _ - + ( ), "
            "starting with a letter or digit (no slashes or '..')")
    return text


@lru_cache(maxsize=1)
def _confusable_representatives() -> dict[str, str]:
    """Character -> the representative of its confusable class (Unicode TR39
    ``confusables.txt`` as shipped by ``confusable_homoglyphs``): single characters linked by
    a confusable mapping, in either direction, form one class, and its lowest code point
    stands for it (``е`` Cyrillic, ``e`` Latin -> ``e``; ``1``, ``I``, ``l`` -> ``1``)."""
    parent: dict[str, str] = {}

    def find(c: str) -> str:
        while parent.get(c, c) != c:
            parent[c] = parent.get(parent[c], parent[c])
            c = parent[c]
        return c

    for char, glyphs in confusables_data.items():
        for g in glyphs:
            other = g["c"].strip("\u200e\u200f")  # the data wraps right-to-left glyphs in marks
            if len(char) == 1 and len(other) == 1:
                a, b = find(char), find(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    return {c: find(c) for c in parent}


def name_key(name: str) -> str:
    """The comparison key of a model name: NFKC (full-width ``Ｑ`` -> ``Q``), case folded,
    white space collapsed, then every character replaced by its confusable class
    (Unicode TR39 skeleton, see :func:`_confusable_representatives`), so ``Ｑwen3.5-9B``,
    ``Qwеn3.5-9B`` (Cyrillic е) and ``qwen3.5-9b`` share the key of ``Qwen3.5-9B``."""
    reps = _confusable_representatives()
    text = " ".join(unicodedata.normalize("NFKC", name).casefold().split())
    skeleton = "".join(reps.get(c, c) for c in text)
    # a second pass: case folding can turn a mapped character into another member of a class
    return "".join(reps.get(c, c) for c in skeleton.casefold())


def _lone_surrogate(value) -> str | None:
    """The first string inside ``value`` (str, list or dict, nested) that is not valid
    Unicode text (a lone UTF-16 surrogate such as ``"\\ud800"``, which JSON can escape but
    UTF-8 cannot encode), as ``repr`` of the code point and its index; else None."""
    if isinstance(value, str):
        m = _SURROGATE.search(value)
        return f"U+{ord(m.group()):04X} at character {m.start()}" if m else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        found = _lone_surrogate(k) if isinstance(k, str) else None
        found = found or _lone_surrogate(v)
        if found:
            return found
    return None


_META_FIELDS = {"organization": str, "url": str, "paper": str, "base_model": str, "params": (str, int, float),
                "license": str, "notes": str, "contact": str, "training_data": str, "date": str}


def check_meta(meta: dict | None) -> dict:
    """Validate submission metadata: a JSON object with only the keys of
    ``organization, url, paper, base_model, params, license, notes, contact,
    training_data, date`` (strings up to 500 characters; ``params`` may be a number).
    Raises :class:`SubmissionError` naming the key."""
    if meta is None:
        return {}
    if not isinstance(meta, dict):
        raise SubmissionError(f"the metadata must be a JSON object, not {type(meta).__name__}")
    for key, value in meta.items():
        if key not in _META_FIELDS:
            raise SubmissionError(f"metadata field {key!r} is not accepted; allowed: {sorted(_META_FIELDS)}")
        if not isinstance(value, _META_FIELDS[key]) or isinstance(value, bool):
            raise SubmissionError(f"metadata field {key!r} must be text{' or a number' if key == 'params' else ''}")
        if isinstance(value, str) and len(value) > 500:
            raise SubmissionError(f"metadata field {key!r} is longer than 500 characters")
        if isinstance(value, str) and _lone_surrogate(value):
            raise SubmissionError(f"metadata field {key!r} is not valid Unicode text: it holds a lone surrogate "
                                  f"({_lone_surrogate(value)})")
        if isinstance(value, float) and not math.isfinite(value):
            raise SubmissionError(f"metadata field {key!r} must be a finite number")
    return dict(meta)


def _reject_constant(name: str):
    raise ValueError(f"{name} is not plain JSON")


def _no_duplicate_keys(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"key {k!r} appears twice")
        out[k] = v
    return out


def _problems(kind: str, items: list[str]) -> str:
    shown = ", ".join(repr(i) for i in items[:_SHOWN_PROBLEMS])
    more = f" and {len(items) - _SHOWN_PROBLEMS} more" if len(items) > _SHOWN_PROBLEMS else ""
    return f"{len(items)} {kind}: {shown}{more}"


def _read_line(n: int, line: str) -> tuple[dict | None, str | None]:
    """One predictions line as ``(object, None)``, or ``(None, problem)`` naming line ``n``,
    the field and what was expected."""
    try:
        obj = json.loads(line, parse_constant=_reject_constant, object_pairs_hook=_no_duplicate_keys)
    except ValueError as exc:
        return None, f"line {n}: not plain JSON ({exc})"
    if not isinstance(obj, dict):
        return None, f"line {n}: expected a JSON object, got {type(obj).__name__}"
    unknown = [k for k in obj if k not in ALLOWED_FIELDS]
    if unknown:
        return None, f"line {n}: unknown field(s) {unknown}; allowed fields are {list(ALLOWED_FIELDS)}"
    missing = [k for k in REQUIRED_FIELDS if k not in obj]
    if missing:
        return None, f"line {n}: missing field(s) {missing}"
    if not isinstance(obj["id"], str) or not obj["id"]:
        return None, f"line {n}: field 'id' must be a non-empty string"
    if obj["output"] is not None and not isinstance(obj["output"], str):
        return None, f"line {n}: field 'output' must be a string or null"
    if obj.get("parsed") is not None and not isinstance(obj["parsed"], dict):
        return None, f"line {n}: field 'parsed' must be an object or null"
    lat = obj.get("latency_s")
    if lat is not None and (isinstance(lat, bool) or not isinstance(lat, (int, float))):
        return None, f"line {n}: field 'latency_s' must be a number or null"
    if obj.get("error") is not None and not isinstance(obj["error"], str):
        return None, f"line {n}: field 'error' must be a string or null"
    # Text decoded from UTF-8 holds no surrogate; only a JSON escape (\\uD800-\\uDFFF) can make one.
    bad = None if not _SURROGATE_ESCAPE.search(line) else next(
        ((k, found) for k in ALLOWED_FIELDS if k in obj and (found := _lone_surrogate(obj[k]))), None)
    if bad:
        # A JSON escape such as "\ud800" decodes to half a UTF-16 pair: not a character,
        # so the answer cannot be stored or hashed as UTF-8 text.
        return None, (f"line {n}: field {bad[0]!r} is not valid Unicode text: it holds a lone surrogate "
                      f"({bad[1]}); write the character itself or a full surrogate pair")
    return obj, None


def validate_predictions(data: bytes, bench_ids: list[str], *, max_bytes: int = MAX_BYTES) -> list[dict]:
    """Parse and check a submitted predictions file; returns one dict per line.

    Checks, in order: size (``max_bytes``), UTF-8, each non-empty line a plain JSON object
    (no NaN/Infinity, no duplicate keys), only :data:`ALLOWED_FIELDS` with the right types,
    every id of ``bench_ids`` exactly once and no other id. Raises
    :class:`SubmissionError` naming the line, field or ids at fault.
    """
    if len(data) > max_bytes:
        raise SubmissionError(f"the file is {len(data) / 1e6:.1f} MB; the limit is {max_bytes / 1e6:.0f} MB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise SubmissionError(f"the file is not UTF-8 text: invalid byte 0x{data[exc.start]:02x} on line {line} "
                              f"(byte offset {exc.start})") from exc
    text = text.removeprefix("\ufeff")
    rows, problems = [], []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        obj, problem = _read_line(n, line)
        if problem:
            problems.append(problem)
            continue
        rows.append(obj)
        if len(problems) > 50:
            break
    if problems:
        raise SubmissionError(_problems("bad line(s)", problems))
    if not rows:
        raise SubmissionError("the file holds no predictions")
    seen: dict[str, int] = {}
    for r in rows:
        seen[r["id"]] = seen.get(r["id"], 0) + 1
    dupes = [i for i, c in seen.items() if c > 1]
    expected = set(bench_ids)
    unknown_ids = [i for i in seen if i not in expected]
    missing_ids = [i for i in bench_ids if i not in seen]
    msgs = []
    if dupes:
        msgs.append(_problems("duplicate id(s)", dupes))
    if missing_ids:
        msgs.append(_problems("missing bench id(s)", missing_ids))
    if unknown_ids:
        msgs.append(_problems("id(s) not in the bench", unknown_ids))
    if msgs:
        raise SubmissionError("; ".join(msgs) + f" (the board expects each of its {len(bench_ids)} bench ids exactly once)")
    return rows


def content_id(rows: list[dict]) -> str:
    """SHA-256 (hex) of the (id, output) pairs sorted by id: the submission's identity."""
    h = hashlib.sha256()
    for r in sorted(rows, key=lambda r: r["id"]):
        h.update(json.dumps([r["id"], r.get("output")], ensure_ascii=False).encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()


def row_id(rows: list[dict], run: dict | None) -> str:
    """A per-question row's id: :func:`content_id`, and for a run that recorded thinking on
    or off (:mod:`harness.eval.thinking`) that setting too, so the same model may hold one row
    per setting even where two settings gave the same answers; unknown keeps the bare
    content id (rows of earlier versions keep theirs)."""
    label = thinking_label((run or {}).get("thinking"))
    if label == "unknown":
        return content_id(rows)
    return hashlib.sha256(f"thinking={label}\n{content_id(rows)}\n".encode()).hexdigest()


# ------------------------------------------------------------------------------ board
@dataclass
class Board:
    """A board folder and its fixed settings (``board.json``)."""

    path: Path
    config: dict
    # the bench split as loaded and fingerprinted by open_board, so a submission reads it once
    dataset: object = field(default=None, repr=False, compare=False)

    @property
    def bench(self) -> dict:
        return self.config["bench"]

    @property
    def scorer(self) -> dict:
        return self.config["scorer"]


def _write_exclusive(path: Path, text: str) -> bool:
    """Create ``path`` with ``text`` atomically; False (and nothing written) when it exists."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, path)  # fails if the name exists: a row is never replaced
        except FileExistsError:
            return False
        return True
    finally:
        os.unlink(tmp)


def open_board(board_dir: str | Path, *, bench: str | None = None, bertscore_model: str | None = None,
               judge: str | None = None, config: str = "all", split: str = "test",
               revision: str | None = None) -> Board:
    """Open a board, creating ``board.json`` on first use.

    On creation the bench is ``bench`` (default: the ``jiezi-bench`` folder beside the
    board folder) read at ``revision`` (a Hub repo id is pinned to the commit it resolves
    to; see ``harness.bench.resolve_revision``), and the scorer uses ``bertscore_model`` /
    ``judge``; ``board.json`` records the bench's fingerprint, revision, content
    fingerprint and image sizes. On an existing
    board those settings are fixed: a different ``bertscore_model`` or ``judge``, or a
    bench with another fingerprint, raises :class:`SubmissionError`.
    """
    path = Path(board_dir)
    cfg_path = path / "board.json"
    if cfg_path.exists():
        cfg = json.loads(cfg_path.read_text("utf-8"))
        board = Board(path, cfg)
        if bertscore_model and bertscore_model != cfg["scorer"]["bertscore_model"]:
            raise SubmissionError(f"this board scores with BERTScore model {cfg['scorer']['bertscore_model']!r}; "
                                  f"its settings are fixed, so --bertscore-model {bertscore_model!r} cannot be used")
        if judge and judge != cfg["scorer"].get("judge"):
            raise SubmissionError(f"this board scores EVOI with judge {cfg['scorer'].get('judge')!r}; "
                                  f"its settings are fixed, so --judge {judge!r} cannot be used")
        if bench:
            ds = load_bench(bench, cfg["bench"]["config"], cfg["bench"]["split"], revision=cfg["bench"].get("revision"))
            if fingerprint(ds) != cfg["bench"]["fingerprint"]:
                raise SubmissionError(f"the bench {bench!r} differs from the one this board was created for "
                                      f"({cfg['bench']['source']!r}, fingerprint {cfg['bench']['fingerprint'][:12]})")
            board.dataset = ds
        return board
    source = bench or str(path.resolve().parent / "jiezi-bench")
    pinned = resolve_revision(source, revision)
    ds = load_bench(source, config, split, revision=pinned)
    _, record = resolve_bertscore_model(bertscore_model)
    cfg = {
        "format": BOARD_FORMAT,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "bench": {**bench_identity(source, pinned), "config": config, "split": split, "fingerprint": fingerprint(ds),
                  "rows": len(ds), "image_sizes": image_sizes(ds)},
        "scorer": {"bertscore_model": bertscore_model or record["requested"], "bertscore": record, "judge": judge},
        "max_bytes": MAX_BYTES,
    }
    path.mkdir(parents=True, exist_ok=True)
    if not _write_exclusive(cfg_path, json.dumps(cfg, ensure_ascii=False, indent=1) + "\n"):
        return open_board(board_dir)  # created meanwhile by another submission
    return Board(path, cfg, dataset=ds)


_ROWS_CACHE: dict[tuple, list[dict]] = {}  # (source, config, split, fingerprint) -> rows; a few boards per process


def _bench_rows(board: Board) -> list[dict]:
    """The board's bench rows (:data:`~harness.bench.META_COLUMNS`, no images), read once per
    submission: the split :func:`open_board` already loaded and fingerprinted, else loaded
    and checked here. The rows of a fingerprint are kept for the process (a Space scores
    many submissions against one bench); callers must not change them."""
    ds = board.dataset
    if ds is None:
        ds = load_bench(board.bench["source"], board.bench["config"], board.bench["split"],
                        revision=board.bench.get("revision"))
        fp = fingerprint(ds)
    else:
        fp = board.bench["fingerprint"]  # open_board compared it already
    key = (board.bench["source"], board.bench["config"], board.bench["split"], fp)
    if key in _ROWS_CACHE:
        return _ROWS_CACHE[key]
    if fp != board.bench["fingerprint"]:
        # Rows scored against two different benches (e.g. before and after `jiezi audit
        # ingest` rebuilt it) would sit side by side on one board without being comparable.
        raise SubmissionError(
            f"the bench at {board.bench['source']} has changed since this board was created "
            f"(fingerprint {board.bench['fingerprint'][:12]} -> {fp[:12]}, rows {board.bench['rows']} -> {len(ds)}), "
            "e.g. after `jiezi audit ingest`; scores on the two would not be comparable. "
            "Start a new board for this bench (--board NEW_FOLDER).")
    rows = ds.select_columns([c for c in META_COLUMNS if c in ds.column_names]).to_list()
    if len(_ROWS_CACHE) >= 4:
        _ROWS_CACHE.pop(next(iter(_ROWS_CACHE)))
    _ROWS_CACHE[key] = rows
    return rows


def _score(board: Board, rows: list[dict], bench_rows: list[dict], progress: bool, bertscore: bool = True) -> dict:
    settings, record = scorer_settings(board.scorer["bertscore_model"], progress=progress, bertscore=bertscore)
    judge = make_judge(board.scorer.get("judge"))
    if judge is None:
        judge = False  # a board without a judge never picks one up from the environment
    result = score_rows(bench_rows, {r["id"]: r.get("output") for r in rows}, settings, judge)
    return {"result": result, "bertscore": record}


def _scored_by(result: dict) -> dict | None:
    """The BERTScore model that scored ORIM and COMI (name, folder its weights came from,
    hidden states averaged); None when they were not computed."""
    info = (result.get("settings") or {}).get("bertscore") or {}
    if not info or info.get("unavailable") or "hidden_states_used" not in info:
        return None
    return {"model": info.get("requested"), "loaded_from": info.get("loaded_from"),
            "hidden_states_used": info.get("hidden_states_used"), "bert_score": info.get("bert_score")}


RESULTS_FORMAT = "jiezi-eval-results/1"  # harness.eval.run's results.json
# Backend settings that change answers (harness.eval.run keeps the same ones in run.json).
_DECODING_KEYS = ("backend", "model", "max_tokens", "max_new_tokens", "temperature", "decoding", "dtype", "retrieval",
                  "k", "temperature_softmax", "embedder", "gallery_fingerprint", "thinking")


def run_record(results: dict | None, board: Board) -> dict:
    """What produced a submission, from the ``results.json`` that ``jiezi eval`` wrote beside
    its predictions: ``model_spec``, ``prompt_version``, ``decoding`` (the backend settings
    that change answers), ``image_size``, ``strategy``, ``thinking`` (:mod:`harness.eval.thinking`;
    unknown when the run did not record it), ``protocol``, ``bench_fingerprint``,
    ``bench_revision``, ``bench_content_fingerprint``, ``packages``. Without one,
    ``{"recorded": False}`` and the bench's image sizes. Raises :class:`SubmissionError` when
    it is not a results.json of ``jiezi eval`` or was made on another bench than the board's.
    """
    sizes = board.bench.get("image_sizes")
    if results is None:
        return {"recorded": False, "image_size": sizes,
                "note": "no results.json came with the predictions: model, prompt and decoding are not known"}
    if not isinstance(results, dict) or results.get("format") != RESULTS_FORMAT:
        raise SubmissionError(f"the run record is not a results.json written by `jiezi eval` (format {RESULTS_FORMAT!r})")
    bench = results.get("bench") or {}
    if bench.get("fingerprint") != board.bench["fingerprint"]:
        raise SubmissionError(_other_bench_message(bench, board.bench))
    model = results.get("model") or {}
    scorer = results.get("scorer") or {}
    return {
        "recorded": True,
        "model_spec": model.get("spec"),
        "prompt_version": results.get("prompt_version"),
        "decoding": {k: model[k] for k in model if k in _DECODING_KEYS or k.startswith("decod")},
        "image_size": model.get("image_size") or results.get("image_size") or sizes,
        "strategy": results.get("strategy"),
        "thinking": model.get("thinking") or {"mode": "unknown", "budget": None, "how": "not in the run's results.json"},
        "protocol": results.get("protocol") or scorer.get("protocol") or "per-question",  # issue 13 names
        "bench_fingerprint": bench.get("fingerprint"),
        "bench_revision": bench.get("revision"),
        "bench_content_fingerprint": bench.get("content_fingerprint"),
        "config": bench.get("config"), "split": bench.get("split"),
        "packages": results.get("packages"),
    }


def _other_bench_message(run: dict, board: dict) -> str:
    """Why a run's results.json does not fit the board: both benches by source, config,
    split, the run's ``--limit`` and fingerprint, and what would fit."""
    def named(b: dict) -> str:
        return (f"{b.get('source')!r} config {b.get('config') or '?'} split {b.get('split') or '?'} "
                f"(fingerprint {str(b.get('fingerprint'))[:12]})")

    limit = f", --limit {run['limit']} ({run.get('rows')} rows)" if run.get("limit") else ""
    same_split = (run.get("config"), run.get("split")) == (board.get("config"), board.get("split"))
    fix = ("the bench's content differs: rerun `jiezi eval` on the board's bench" if same_split else
           f"run `jiezi eval --config {board.get('config')} --split {board.get('split')}` for this board, or "
           f"submit to a board of config {run.get('config')} split {run.get('split')} (a new --board folder)")
    return f"the run was made on bench {named(run)}{limit}; this board scores bench {named(board)}: {fix}"


def _run_bertscore_model(results: dict | None) -> str | None:
    """The BERTScore model the run's ``results.json`` was scored with (``scorer.bertscore_model
    .requested``), or None. A new board without ``--bertscore-model`` takes it, so a run scored
    offline with e.g. ``offline-gemma3`` does not open a board on ``bert-base-chinese``, which an
    offline machine cannot load (ORIM/COMI would silently go unscored on every row)."""
    scorer = (results or {}).get("scorer") or {}
    record = scorer.get("bertscore_model")
    return record.get("requested") if isinstance(record, dict) and record.get("requested") else None


def submit(file_bytes: bytes, model_name: str, meta: dict | None, board_dir: str | Path, *,
           bench: str | None = None, bertscore_model: str | None = None, judge: str | None = None,
           progress: bool = False, results: dict | None = None, revision: str | None = None,
           bertscore: bool = True, protocol: str | None = None, scoring: str | None = None) -> Row:
    """Validate, score and store one submission; returns its :class:`Row`.

    ``protocol``: how the answers were asked (:func:`submission_protocol`: given, the run's,
    or read from the file's ids); a ``paper`` file (one reply per image) goes to
    :func:`submit_paper` and is scored in ``scoring`` (:func:`paper_scoring`); a
    per-question file is scored by this project's scorer (``scoring`` None or ``jiezi``).

    ``results``: the run's ``results.json`` (see :func:`run_record`), stored in the row as
    ``details["run"]``; ``revision``: the bench revision of a new board (:func:`open_board`);
    ``bertscore``: False scores the exact metrics only (ORIM and COMI not computed; seconds
    for a full bench, see ``benchmarks/bench_submit.py``). The row's
    ``details["bertscore"]["scored_by"]`` names the model that scored ORIM/COMI.

    ``file_bytes``: the predictions.jsonl content; ``model_name``: see
    :func:`check_model_name`; ``meta``: see :func:`check_meta`; ``board_dir``: the board
    folder (created with ``bench`` / ``bertscore_model`` / ``judge`` on first use, see
    :func:`open_board`; without ``bertscore_model`` a new board takes the model the run's
    ``results`` were scored with). The same content already on the board returns the existing row
    with ``created=False``. Raises :class:`SubmissionError` with a plain-words message.
    """
    name = _unreserved_name(model_name)
    meta = check_meta(meta)
    max_bytes = MAX_BYTES
    if len(file_bytes) > max_bytes:  # before any parsing or bench loading
        raise SubmissionError(f"the file is {len(file_bytes) / 1e6:.1f} MB; the limit is {max_bytes / 1e6:.0f} MB")
    if bertscore_model is None and not (Path(board_dir) / "board.json").exists():
        bertscore_model = _run_bertscore_model(results)
    board = open_board(board_dir, bench=bench, bertscore_model=bertscore_model, judge=judge, revision=revision)
    if submission_protocol(file_bytes, results, board, protocol) == "paper":
        return submit_paper(file_bytes, name, meta, board, results=results, scoring=scoring, progress=progress,
                            bertscore=bertscore)
    if scoring not in (None, "jiezi"):
        raise SubmissionError(f"scoring {scoring!r} applies to the paper's protocol (one reply per image); "
                              "per-question answers are scored with this project's scorer (jiezi)")
    run = run_record(results, board)
    bench_rows = _bench_rows(board)
    rows = validate_predictions(file_bytes, [r["id"] for r in bench_rows], max_bytes=board.config.get("max_bytes", max_bytes))
    if not any(r.get("output") for r in rows):
        raise SubmissionError(f"all {len(rows)} predictions are empty or failed (no 'output'); there is nothing to "
                              "score. Rerun `jiezi eval` to ask the failed questions again.")
    sid = row_id(rows, run)
    row_path = board.path / "submissions" / f"{sid}.json"
    if row_path.exists():
        existing = load_row(row_path)
        existing.created = False
        return existing
    scored = _score(board, rows, bench_rows, progress, bertscore)
    res = scored["result"]
    scores = {m: res.get(m) for m in (*labels.METRICS, *LEVEL_KEYS)}
    details = {
        "n_predictions": len(rows),
        "empty_or_failed": sum(1 for r in rows if not r.get("output")),
        "lenient": res.get("lenient"),
        "FORC_partial": res.get("FORC_partial"),
        "counts": res.get("counts"),
        "not_computed": res.get("not_computed"),
        "bench": board.bench,
        "bertscore": {**scored["bertscore"], "scored_by": _scored_by(res)},
        "scorer_settings": res.get("settings"),
        "comparable_to_paper": bool(scored["bertscore"].get("comparable_to_paper")),
        "run": run,
    }
    row = Row(id=sid, model_name=name, source="submitted", scores=scores, meta=meta,
              submitted_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), details=details)
    return _store_row(board, row, rows, row_path)


def _unreserved_name(model_name: str) -> str:
    """``model_name`` checked (:func:`check_model_name`) and not one of the paper's rows.
    The board shows those names as "reported in paper"; a submission under the same name,
    or one that only looks the same (full-width or Cyrillic letters, compared by
    :func:`name_key`), would make the comparison ambiguous. Raises :class:`SubmissionError`."""
    name = check_model_name(model_name)
    taken = {name_key(r.model_name): r.model_name for r in paper_rows()}
    if name_key(name) in taken:
        raise SubmissionError(f"the model name {name!r} is a row reported in the paper ({taken[name_key(name)]!r}) "
                              "or looks the same as one; choose a name that tells your run apart, e.g. add your "
                              "organisation or a version")
    return name


def _store_row(board, row: Row, rows: list[dict], row_path: Path) -> Row:
    """Write the stored predictions and ``row`` (each file exclusively); the row already on
    the board when the same content arrived concurrently (``created=False``)."""
    preds = "".join(json.dumps({k: r.get(k) for k in ALLOWED_FIELDS if k in r}, ensure_ascii=False) + "\n"
                    for r in rows)
    _write_exclusive(board.path / "predictions" / f"{row.id}.jsonl", preds)
    data = row.to_dict()
    data.pop("created")
    if not _write_exclusive(row_path, json.dumps(data, ensure_ascii=False, indent=1) + "\n"):
        existing = load_row(row_path)
        existing.created = False
        return existing
    return row


def submit_file(path: str | Path, model_name: str, meta_path: str | Path | None, board_dir: str | Path,
                results_path: str | Path | None = None, **kwargs) -> Row:
    """:func:`submit` for files on disk; the size limit is checked before reading.

    ``results_path``: the run's results.json (default: ``results.json`` beside the
    predictions, when there is one), stored with the row (:func:`run_record`). ``path`` may
    also be an lmms-eval ``--log_samples --output_path`` folder of the JieZi tasks
    (:mod:`harness.interop.lmms_import`), scored like predictions of the same answers."""
    p = Path(path)
    if p.is_dir():
        return _submit_lmms_log(p, model_name, _read_meta(meta_path), board_dir, results_path, **kwargs)
    if not p.is_file():
        raise SubmissionError(f"{p}: no such file")
    size = p.stat().st_size
    if size > MAX_BYTES:
        raise SubmissionError(f"{p.name} is {size / 1e6:.1f} MB; the limit is {MAX_BYTES / 1e6:.0f} MB")
    results_file = Path(results_path) if results_path else p.with_name("results.json")
    if results_path and not results_file.is_file():
        raise SubmissionError(f"{results_file}: no such file (the run's results.json)")
    if results_file.is_file() and kwargs.get("results") is None:
        try:
            kwargs["results"] = json.loads(results_file.read_text("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise SubmissionError(f"run record {results_file}: not a readable UTF-8 JSON file ({exc})") from exc
    return submit(p.read_bytes(), model_name, _read_meta(meta_path), board_dir, **kwargs)


def _read_meta(meta_path: str | Path | None) -> dict | None:
    if not meta_path:
        return None
    try:
        return json.loads(Path(meta_path).read_text("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SubmissionError(f"metadata file {meta_path}: not a readable UTF-8 JSON file ({exc})") from exc


def _submit_lmms_log(folder: Path, model_name: str, meta: dict | None, board_dir: str | Path,
                     results_path: str | Path | None, **kwargs) -> Row:
    """:func:`submit` of an lmms-eval ``--log_samples`` folder (:mod:`harness.interop.lmms_import`):
    its answers as predictions, its references checked against the board's bench, its run
    record built from the log. Raises :class:`SubmissionError`."""
    from harness.interop.lmms_import import LmmsLogError, read_lmms_log

    if results_path or kwargs.get("results") is not None:
        raise SubmissionError("--results applies to a predictions.jsonl; an lmms-eval log folder carries its own record")
    name = _unreserved_name(model_name)
    try:
        log = read_lmms_log(folder)
    except LmmsLogError as exc:
        raise SubmissionError(str(exc)) from exc
    board = open_board(board_dir, bench=kwargs.pop("bench", None), bertscore_model=kwargs.pop("bertscore_model", None),
                       judge=kwargs.pop("judge", None), revision=kwargs.pop("revision", None))
    if log.protocol == "paper":
        images = _paper_images(board)
        references, fp = dict(zip(images["ids"], images["references"])), images["fingerprint"]
    else:
        references = {r["id"]: r["answer_struct"] for r in _bench_rows(board)}
        fp = board.bench["fingerprint"]
    try:
        results = log.results(board.bench, fp, references)
    except LmmsLogError as exc:
        raise SubmissionError(str(exc)) from exc
    missing = len(set(references) - set(log.answers))
    if missing:
        limit = log.config.get("limit")
        raise SubmissionError(f"the lmms-eval run in {log.folder} answered {len(log.answers)} of the board's "
                              f"{len(references)} {'images' if log.protocol == 'paper' else 'questions'}"
                              f"{f' (lmms-eval --limit {limit:g})' if limit else ''}; a board row scores the whole "
                              "bench: run lmms-eval without --limit")
    return submit(log.predictions_bytes(), name, meta, board.path, results=results, protocol=log.protocol, **kwargs)


def load_row(path: str | Path) -> Row:
    """Read one stored row."""
    data = json.loads(Path(path).read_text("utf-8"))
    return Row(**{k: v for k, v in data.items() if k in Row.__dataclass_fields__})


def find_row(board_dir: str | Path, ref: str) -> Path:
    """The stored row file that ``ref`` names: a path to it, its id or a unique id prefix
    (at least 6 hex digits), or its exact model name. Raises :class:`SubmissionError`
    naming what matched (none, or several)."""
    if Path(ref).is_file():
        return Path(ref)
    folder = Path(board_dir) / "submissions"
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    by_id = [f for f in files if len(ref) >= 6 and f.stem.startswith(ref.lower())]
    by_name = [] if by_id else [f for f in files if _safe_name(f) == ref]
    found = by_id or by_name
    if len(found) != 1:
        what = "no row" if not found else f"{len(found)} rows ({', '.join(f.stem[:12] for f in found)})"
        raise SubmissionError(f"{what} of the board {board_dir} match {ref!r}; give a row id (or 6+ of its first "
                              "hex digits), its model name or the row file")
    return found[0]


def _safe_name(path: Path) -> str | None:
    try:
        return load_row(path).model_name
    except (OSError, ValueError, TypeError):
        return None


def score_differences(stored: dict, recomputed: dict, tolerance: float) -> dict[str, list]:
    """``{metric: [stored, recomputed]}`` for every metric of ``recomputed`` whose stored
    value differs by more than ``tolerance`` points (0-100 scale), or is None on one side
    only; ``{}`` when every score is reproduced."""
    differences = {}
    for m, new in recomputed.items():
        old = stored.get(m)
        same = (old is None and new is None) or (
            old is not None and new is not None and abs(float(old) - float(new)) <= tolerance)
        if not same:
            differences[m] = [old, new]
    return differences


def verify(board_dir: str | Path, ref: str, *, progress: bool = False, tolerance: float = 1e-4) -> dict:
    """Re-score a stored row from its stored predictions and check its stored scores.

    ``ref``: see :func:`find_row`. Checks that the predictions file still has the row's
    content id, that the bench is unchanged (fingerprint), and that each of the eleven
    metrics, L1..L4 and macro re-scored with the board's settings (a paper-protocol row: in
    its scoring mode, :func:`verify_paper`) equals the stored value
    within ``tolerance`` (points on 0-100; None must stay None). Returns ``{"row", "model_name",
    "ok", "content_ok", "checked", "differences": {metric: [stored, recomputed]},
    "scores"}``. Raises :class:`SubmissionError` when the row, its predictions or the board
    cannot be read.
    """
    path = find_row(board_dir, ref)
    row = load_row(path)
    cfg_path = Path(board_dir) / "board.json"
    if not cfg_path.is_file():
        raise SubmissionError(f"{board_dir}: no board.json (not a leaderboard folder)")
    board = Board(Path(board_dir), json.loads(cfg_path.read_text("utf-8")))
    preds = board.path / "predictions" / f"{row.id}.jsonl"
    if not preds.is_file():
        raise SubmissionError(f"row {row.id[:12]} ({row.model_name}): its predictions {preds} are missing")
    if row.protocol == "paper":
        return verify_paper(board, row, preds, progress=progress, tolerance=tolerance)
    bench_rows = _bench_rows(board)
    rows = validate_predictions(preds.read_bytes(), [r["id"] for r in bench_rows],
                                max_bytes=board.config.get("max_bytes", MAX_BYTES))
    res = _score(board, rows, bench_rows, progress)["result"]
    recomputed = {m: res.get(m) for m in (*labels.METRICS, *LEVEL_KEYS)}
    differences = score_differences(row.scores, recomputed, tolerance)
    content_ok = row_id(rows, (row.details or {}).get("run")) == row.id
    return {"row": row.id, "model_name": row.model_name, "ok": content_ok and not differences,
            "content_ok": content_ok, "checked": len(recomputed), "differences": differences, "scores": recomputed}


# ------------------------------------------------------------------------------ table
def level_scores(scores: dict) -> dict:
    """L1..L4 and macro from the eleven metric values: the mean of each level's metrics
    that are not None, and of all of them (the metric core's definition)."""
    out = {}
    for level in labels.LEVELS:
        vals = [scores[m] for m in labels.METRICS if labels.METRIC_LEVEL[m] == level and scores.get(m) is not None]
        out[level] = sum(vals) / len(vals) if vals else None
    vals = [scores[m] for m in labels.METRICS if scores.get(m) is not None]
    out["macro"] = sum(vals) / len(vals) if vals else None
    return out


def paper_rows() -> list[Row]:
    """The paper's Table 10 rows (``paper_table10.json``), source ``"reported in paper"``."""
    data = json.loads(PAPER_TABLE.read_text("utf-8"))
    rows = []
    for r in data["rows"]:
        scores = dict(zip(data["metric_order"], r["scores"]))
        scores.update(level_scores(scores))
        rows.append(Row(id="paper:" + r["model"], model_name=r["model"], source="reported in paper", scores=scores,
                        protocol="paper", scoring="reference",
                        meta={"reference": data["source"]},
                        details={"bertscore": {"requested": data["bertscore_model"], "comparable_to_paper": True},
                                 "judge": data["judge"], "comparable_to_paper": True}))
    return rows


def submitted_rows(board_dir: str | Path) -> list[Row]:
    """Every stored submission of the board. A file that cannot be read as a row is left
    out of the table and named in a logged warning (one bad file never hides the rest)."""
    folder = Path(board_dir) / "submissions"
    out = []
    for p in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            out.append(load_row(p))
        except (OSError, ValueError, TypeError) as exc:
            log.warning("leaderboard: skipping unreadable submission file %s: %s", p, exc)
    return out


PROTOCOL_ORDER = (("paper", "reference"), ("paper", "jiezi"), ("per-question", "jiezi"))


def protocol_group(row: Row) -> tuple[str, str]:
    """``(protocol, scoring)`` of a row: rows are ranked only within one such group."""
    return (row.protocol or "per-question", row.scoring or "jiezi")


def table(board_dir: str | Path | None, *, include_paper: bool = True) -> list[Row]:
    """Submitted rows plus (``include_paper``) the paper's rows, grouped by
    :func:`protocol_group` (paper+reference first, as in ``PROTOCOL_ORDER``; other groups
    after), best first within a group.

    Within a group rows are ranked by how many of the eleven metrics they have, then by
    macro: a macro over fewer metrics (no EVOI judge, say) leaves out the hardest ones and
    is not comparable with a full row, so it never outranks one. A row without a macro is
    last. Rows of different groups are never interleaved: their numbers are not comparable.
    """
    rows = (submitted_rows(board_dir) if board_dir else []) + (paper_rows() if include_paper else [])

    def rank(r: Row) -> tuple:
        group = protocol_group(r)
        order = PROTOCOL_ORDER.index(group) if group in PROTOCOL_ORDER else len(PROTOCOL_ORDER)
        computed = sum(r.scores.get(m) is not None for m in labels.METRICS)
        return (order, group, r.scores.get("macro") is None, -computed, -(r.scores.get("macro") or 0.0))

    return sorted(rows, key=rank)


# ------------------------------------------------------------- the paper's protocol (issue 13)
SCORINGS = ("reference", "jiezi")


def submission_protocol(file_bytes: bytes, results: dict | None, board: Board, protocol: str | None = None) -> str:
    """``"paper"`` or ``"per-question"``: how the submitted answers were asked.

    ``protocol`` when given; else the run's ``results.json`` (``protocol``); else read from
    the file: a first id that is a bench image id (and not a question id, which names its
    image and kind, ``<image_id>:<KIND>``) marks a ``jiezi eval --protocol paper`` file (one
    reply per image). Raises :class:`SubmissionError` for another protocol name."""
    if protocol is None and isinstance(results, dict):
        protocol = results.get("protocol")
    if protocol is None:
        protocol = "per-question"
        first = next((line for line in file_bytes[:1_000_000].splitlines() if line.strip()), b"")
        try:
            first_id = json.loads(first).get("id")
        except (ValueError, AttributeError, UnicodeDecodeError):
            first_id = None  # validation names the bad line later
        if isinstance(first_id, str) and ":" not in first_id:
            image_ids = {r["image_id"] for r in _bench_rows(board)}
            protocol = "paper" if first_id in image_ids else protocol
    if protocol not in ("paper", "per-question"):
        raise SubmissionError(f"the run's protocol {protocol!r} is not known: expected 'paper' or 'per-question'")
    return protocol


def paper_scoring(scoring: str | None, results: dict | None) -> str:
    """The scoring mode of a paper-protocol row: ``scoring`` when given, else the run's
    headline (``results.json`` ``scoring``), else ``"reference"`` (the authors' scorer, the
    paper's Table 10). Raises :class:`SubmissionError` for another name."""
    scoring = scoring or (results.get("scoring") if isinstance(results, dict) else None) or "reference"
    if scoring not in SCORINGS:
        raise SubmissionError(f"scoring {scoring!r} is not known: expected one of {list(SCORINGS)}")
    return scoring


def paper_row_id(rows: list[dict], scoring: str) -> str:
    """The id of a paper-protocol row: SHA-256 (hex) of the protocol, the scoring mode and
    :func:`content_id`, so the same replies scored both ways are two rows and never share an
    id with a per-question row."""
    return hashlib.sha256(f"protocol=paper\nscoring={scoring}\n{content_id(rows)}\n".encode()).hexdigest()


def _paper_images(board: Board) -> dict:
    """The board's bench, one row per image (``harness.eval.protocol_paper.load_paper_images`` at
    the board's revision): ``ids``, ``references`` (eight-field dicts) and ``fingerprint``
    of the image rows. Raises :class:`SubmissionError` when the bench changed since the
    board was created or has no image references."""
    _bench_rows(board)  # the per-question rows' fingerprint: the board's bench is unchanged
    try:
        ds, _ = load_paper_images(board.bench["source"], board.bench["split"], revision=board.bench.get("revision"))
    except (BenchError, ValueError, OSError) as exc:
        raise SubmissionError(f"the board's bench {board.bench['source']} cannot be read one row per image for the "
                              f"paper's protocol: {exc}") from exc
    return {"ids": ds["image_id"], "references": [json.loads(r) for r in ds["reference"]], "fingerprint": fingerprint(ds)}


def _score_paper(board: Board, rows: list[dict], images: dict, scoring: str, progress: bool,
                 bertscore: bool = True) -> dict:
    """``metrics.acce.paper.score_paper`` of the replies in bench image order with the
    board's BERTScore model and judge; the row's scores are the strict figures
    (``with_failures``: a reply without JSON counts 0, ACCE.md section 2), L1..L4 and macro
    their level means (:func:`level_scores`); ``bertscore`` False leaves ORIM and COMI out."""
    settings, record = scorer_settings(board.scorer["bertscore_model"], progress=progress, bertscore=bertscore)
    judge = make_judge(board.scorer.get("judge"))
    by_id = {r["id"]: r.get("output") for r in rows}
    res = score_paper([by_id[i] for i in images["ids"]], images["references"], mode=scoring, settings=settings,
                      judge=judge)
    scores = {m: res[m]["with_failures"] for m in labels.METRICS}
    scores.update(level_scores(scores))
    return {"result": res, "scores": scores, "bertscore": record}


def _paper_run_record(results: dict | None, board: Board, images: dict) -> dict:
    """:func:`run_record` of a paper-protocol run: its results.json must be of the board's
    bench read one row per image (the image rows' fingerprint); adds the run's ``prompt``
    record (file and SHA-256 of the prompt text) and ``scoring``."""
    view = Board(board.path, {**board.config, "bench": {**board.bench, "fingerprint": images["fingerprint"]}})
    run = run_record(results, view)
    if results is not None:
        if results.get("protocol") != "paper":
            raise SubmissionError(f"the run's results.json is of protocol {results.get('protocol')!r}, but the "
                                  "predictions hold one reply per bench image (protocol 'paper')")
        run.update(prompt=results.get("prompt"), scoring=results.get("scoring"))
    return run


def _store(board: Board, row: Row, rows: list[dict]) -> Row:
    """Write a new row and its predictions (exclusive create); the row already stored
    (same content arrived concurrently) when it exists."""
    preds = "".join(json.dumps({k: r.get(k) for k in ALLOWED_FIELDS if k in r}, ensure_ascii=False) + "\n"
                    for r in rows)
    _write_exclusive(board.path / "predictions" / f"{row.id}.jsonl", preds)
    data = row.to_dict()
    data.pop("created")
    row_path = board.path / "submissions" / f"{row.id}.json"
    if not _write_exclusive(row_path, json.dumps(data, ensure_ascii=False, indent=1) + "\n"):
        existing = load_row(row_path)
        existing.created = False
        return existing
    return row


def submit_paper(file_bytes: bytes, name: str, meta: dict, board: Board, *, results: dict | None = None,
                 scoring: str | None = None, progress: bool = False, bertscore: bool = True) -> Row:
    """Validate, score and store a ``jiezi eval --protocol paper`` submission (one reply per
    bench image, ``id`` = image id): re-scored with ``score_paper`` in ``scoring``
    (:func:`paper_scoring`) and stored as a row of ``protocol="paper"`` and that scoring,
    ranked only with rows asked and scored the same way (the paper's rows are paper +
    reference). ``name`` / ``meta`` are already checked (:func:`submit` calls this);
    ``bertscore``: as in :func:`submit` (kept in ``details["bertscore"]["computed"]`` so
    :func:`verify_paper` re-scores the same way).
    ``details`` hold the success means (``lenient``), ``FORC_partial``, the reply ``counts``
    (samples, failures = replies without a JSON object) and the image rows' fingerprint.
    Raises :class:`SubmissionError` in plain words."""
    scoring = paper_scoring(scoring, results)
    images = _paper_images(board)
    run = _paper_run_record(results, board, images)
    rows = validate_predictions(file_bytes, images["ids"], max_bytes=board.config.get("max_bytes", MAX_BYTES))
    if not any(r.get("output") for r in rows):
        raise SubmissionError(f"all {len(rows)} replies are empty or failed (no 'output'); there is nothing to score. "
                              "Rerun `jiezi eval --protocol paper` to ask the failed images again.")
    sid = paper_row_id(rows, scoring)
    row_path = board.path / "submissions" / f"{sid}.json"
    if row_path.exists():
        existing = load_row(row_path)
        existing.created = False
        return existing
    scored = _score_paper(board, rows, images, scoring, progress, bertscore)
    res = scored["result"]
    details = {
        "n_predictions": len(rows),
        "empty_or_failed": sum(1 for r in rows if not r.get("output")),
        "lenient": {m: res[m]["success_mean"] for m in labels.METRICS},
        "FORC_partial": res["FORC_partial"]["with_failures"],
        "FORC_partial_success_mean": res["FORC_partial"]["success_mean"],
        "counts": res["counts"],
        "not_computed": res["not_computed"],
        "bench": {**board.bench, "images": len(images["ids"]), "images_fingerprint": images["fingerprint"]},
        "bertscore": {**scored["bertscore"], "scored_by": _scored_by(res), "computed": bertscore},
        "scorer_settings": res.get("settings"),
        "comparable_to_paper": bool(scored["bertscore"].get("comparable_to_paper")),
        "run": run,
    }
    row = Row(id=sid, model_name=name, source="submitted", scores=scored["scores"], meta=meta,
              submitted_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), details=details,
              protocol="paper", scoring=scoring)
    return _store(board, row, rows)


def verify_paper(board: Board, row: Row, preds: Path, *, progress: bool = False, tolerance: float = 1e-4) -> dict:
    """:func:`verify` of a paper-protocol row: its replies re-scored with ``score_paper`` in
    the row's scoring mode and the board's settings; same result keys as :func:`verify`."""
    images = _paper_images(board)
    rows = validate_predictions(preds.read_bytes(), images["ids"], max_bytes=board.config.get("max_bytes", MAX_BYTES))
    bertscore = (row.details.get("bertscore") or {}).get("computed", True)
    recomputed = _score_paper(board, rows, images, row.scoring, progress, bertscore)["scores"]
    differences = score_differences(row.scores, recomputed, tolerance)
    content_ok = paper_row_id(rows, row.scoring) == row.id
    return {"row": row.id, "model_name": row.model_name, "ok": content_ok and not differences,
            "content_ok": content_ok, "checked": len(recomputed), "differences": differences, "scores": recomputed}
