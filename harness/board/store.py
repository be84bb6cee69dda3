"""The board folder: its fixed settings (:func:`open_board`), its bench rows, and the rows
stored in it.

Board folder::

    BOARD/board.json                  fixed at creation: the bench (source, fingerprint,
                                      rows) and the scorer (BERTScore model, judge)
    BOARD/submissions/<id>.json       one row per distinct submission (never rewritten)
    BOARD/predictions/<id>.jsonl      the submitted predictions, as validated

Rows are created with an exclusive link of a fully written temp file, so no row ever
overwrites another."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from harness.bench import META_COLUMNS, bench_identity, fingerprint, image_sizes, load_bench, resolve_revision
from harness.board.row import Row, SubmissionError, load_row
from harness.board.validate import MAX_BYTES
from harness.scoring import resolve_bertscore_model
from hub.atomic import atomic_create
from hub.runfiles import PREDICTION_FIELDS

log = logging.getLogger(__name__)


BOARD_FORMAT = "jiezi-leaderboard/1"


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
    if not atomic_create(cfg_path, json.dumps(cfg, ensure_ascii=False, indent=1) + "\n"):
        return open_board(board_dir)  # created meanwhile by another submission
    return Board(path, cfg, dataset=ds)


_ROWS_CACHE: dict[tuple, list[dict]] = {}  # (source, config, split, fingerprint) -> rows; a few boards per process


def bench_rows_of(board: Board) -> list[dict]:
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


def existing_row(board: Board, row_id: str) -> Row | None:
    """The stored row of id ``row_id`` (``created=False``: the same content was submitted
    before), or None when the board does not hold it."""
    path = board.path / "submissions" / f"{row_id}.json"
    if not path.exists():
        return None
    existing = load_row(path)
    existing.created = False
    return existing


def store_row(board: Board, row: Row, rows: list[dict]) -> Row:
    """Write a new ``row`` and its validated predictions ``rows`` (each file with an
    exclusive create, so nothing is ever overwritten); returns ``row``, or the row already
    stored (``created=False``) when the same content arrived concurrently."""
    preds = "".join(json.dumps({k: r.get(k) for k in PREDICTION_FIELDS if k in r}, ensure_ascii=False) + "\n"
                    for r in rows)
    atomic_create(board.path / "predictions" / f"{row.id}.jsonl", preds)
    data = row.to_dict()
    data.pop("created")
    if not atomic_create(board.path / "submissions" / f"{row.id}.json",
                            json.dumps(data, ensure_ascii=False, indent=1) + "\n"):
        return existing_row(board, row.id)
    return row


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
