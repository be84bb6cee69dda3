"""What the Space reads: JieZi-Bench, JieZi-Dataset and the leaderboard folder, loaded
lazily, with a plain-words message instead of a crash when something is missing.

Loading goes through the harness's documented loaders (``harness.bench.load_bench``,
``load_gallery``, ``load_training_turns``), which call ``datasets.load_dataset`` on a
folder in Hub layout or a Hub repo id. Filtering for the explorer is done on a small
pandas index of the text columns only (no image is decoded), and only the rows of the
requested page are fetched with ``Dataset.select``, so the browser never receives more
than one page.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

from metrics.acce import labels

DEFAULT_BENCH = "jiezi/bench"
DEFAULT_DATASET = "jiezi/dataset"
# Hub Spaces mount persistent storage at /data when it is enabled.
SPACE_STORAGE = Path("/data")
PAGE_SIZE = 12

BENCH_SPLITS = labels.SPLITS
DATASET_SPLITS = ("train",)
ALL = "全部 all"


def default_board() -> Path:
    """The leaderboard folder when none is given: ``/data/jiezi-leaderboard`` on a Space
    with persistent storage, else ``leaderboard/`` beside this package."""
    if SPACE_STORAGE.is_dir() and os.access(SPACE_STORAGE, os.W_OK):
        return SPACE_STORAGE / "jiezi-leaderboard"
    return Path(__file__).resolve().parent.parent / "leaderboard"


DEFAULT_BACKEND = "fused"


@dataclass
class SpaceConfig:
    """Where the Space reads its data and which model backends it offers.

    ``bench`` / ``dataset``: a folder in Hub layout or a Hub repo id; ``board``: the
    leaderboard folder; ``backends``: model specs offered in the exegesis tab after the
    two offline baselines, :data:`DEFAULT_BACKEND` (``fused``: PP-OCR and retrieval, the
    default) and ``retrieval``, which are always offered; ``max_upload_mb``: the largest
    upload accepted, in MiB (enforced by Gradio and again by the app);
    ``bertscore_model`` / ``judge``: the scorer of a leaderboard created by this Space
    (``harness.board.store.open_board``; an existing board keeps its own settings).
    """

    bench: str = DEFAULT_BENCH
    dataset: str = DEFAULT_DATASET
    board: Path = field(default_factory=default_board)
    backends: list[str] = field(default_factory=lambda: ["retrieval"])
    max_upload_mb: int = 50
    bertscore_model: str | None = None
    judge: str | None = None

    def __post_init__(self):
        self.bench, self.dataset, self.board = str(self.bench), str(self.dataset), Path(self.board)
        specs = [s.strip() for s in self.backends if s and s.strip()]
        # The fused baseline (PP-OCR + retrieval) is the default; both offline baselines are
        # always offered, the given specs after them.
        self.backends = list(dict.fromkeys([DEFAULT_BACKEND, "retrieval", *specs]))
        if self.max_upload_mb <= 0:
            raise ValueError(f"max_upload_mb must be positive, got {self.max_upload_mb}")

    @classmethod
    def from_env(cls, **overrides) -> "SpaceConfig":
        """Read ``JIEZI_BENCH``, ``JIEZI_DATASET``, ``JIEZI_BOARD``, ``JIEZI_BACKENDS``
        (comma-separated model specs, e.g. ``openai:qwen-vl@http://127.0.0.1:8000/v1``),
        ``JIEZI_MAX_UPLOAD_MB``, ``JIEZI_BERTSCORE_MODEL`` and ``JIEZI_JUDGE``; keyword
        arguments that are not None win."""
        env = os.environ
        values = {
            "bench": env.get("JIEZI_BENCH") or DEFAULT_BENCH,
            "dataset": env.get("JIEZI_DATASET") or DEFAULT_DATASET,
            "board": Path(env["JIEZI_BOARD"]) if env.get("JIEZI_BOARD") else default_board(),
            "backends": [s for s in env.get("JIEZI_BACKENDS", "").split(",") if s.strip()],
            "max_upload_mb": int(env.get("JIEZI_MAX_UPLOAD_MB") or 50),
            "bertscore_model": env.get("JIEZI_BERTSCORE_MODEL") or None,
            "judge": env.get("JIEZI_JUDGE") or None,
        }
        for key, value in overrides.items():
            if value is not None and value != []:
                values[key] = value
        return cls(**values)


class DataUnavailable(RuntimeError):
    """A resource could not be loaded; the message is shown in the UI as is."""


class Resources:
    """Lazily loaded, cached datasets of one :class:`SpaceConfig` (thread-safe).

    Every getter raises :class:`DataUnavailable` with a message naming the resource, the
    config/split and the cause; the failure is cached too, so a missing resource does not
    cost a new load attempt on every click.
    """

    def __init__(self, config: SpaceConfig):
        self.config = config
        self._cache: dict[tuple, object] = {}
        self._lock = threading.RLock()  # re-entrant: the index loader loads its dataset

    def _get(self, key: tuple, load):
        with self._lock:
            if key not in self._cache:
                try:
                    self._cache[key] = load()
                except Exception as exc:  # any loader failure becomes a message
                    self._cache[key] = DataUnavailable(_explain(key, exc))
            value = self._cache[key]
        if isinstance(value, DataUnavailable):
            raise value
        return value

    def bench(self, config: str = "all", split: str = "test"):
        """JieZi-Bench ``config``/``split`` (a ``datasets.Dataset``)."""
        from harness.bench import load_bench

        return self._get(("bench", config, split), lambda: load_bench(self.config.bench, config, split))

    def gallery(self):
        """JieZi-Dataset ``records`` (one row per glyph image, the retrieval gallery)."""
        from harness.bench import load_gallery

        return self._get(("dataset", "records", "train"), lambda: load_gallery(self.config.dataset))

    def dataset(self, config: str = "all", split: str = "train"):
        """JieZi-Dataset QA config ``config`` (``L1``..``L4`` or ``all``)."""
        from harness.bench import load_training_turns

        return self._get(("dataset", config, split), lambda: load_training_turns(self.config.dataset, config, split))

    def index(self, kind: str, split: str):
        """A pandas frame of the text columns used for filtering (``character``,
        ``script``, ``subtask`` or ``subtasks``, ``id``), row-aligned with the dataset."""
        def build():
            ds = self.bench("all", split) if kind == "bench" else self.dataset("all", split)
            cols = ["id", "character", "script", "subtask" if kind == "bench" else "subtasks"]
            return ds.select_columns(cols).to_pandas()
        return self._get(("index", kind, split), build)

    def coverage(self) -> dict:
        """What the retrieval gallery (JieZi-Dataset ``records``) holds, per script:
        ``{"scripts": {script: {"images": n, "characters": m}}, "missing": [...]}`` in
        :data:`metrics.acce.labels.SCRIPTS` order (the shape of
        ``harness.baselines.gallery.Gallery.coverage``); read from the text columns only."""
        def build():
            frame = self.gallery().select_columns(["character", "script"]).to_pandas()
            return coverage_of(frame)
        return self._get(("coverage", "records", "train"), build)

    def script_counts(self, kind: str, split: str) -> dict[str, int]:
        """Rows per script of the explorer index of ``kind`` / ``split``."""
        return {str(k): int(v) for k, v in self.index(kind, split)["script"].value_counts().items()}

    def status(self) -> str:
        """A markdown line per resource: loaded (with its size) or why not."""
        lines = []
        for name, getter in (("JieZi-Bench", lambda: self.bench("all", "test")),
                             ("JieZi-Dataset", lambda: self.gallery())):
            try:
                ds = getter()
                lines.append(f"- **{name}**: `{self._source(name)}` ({len(ds):,} rows)")
            except DataUnavailable as exc:
                lines.append(f"- **{name}**: not available. {exc}")
        return "\n".join(lines)

    def _source(self, name: str) -> str:
        return self.config.bench if name == "JieZi-Bench" else self.config.dataset


def _explain(key: tuple, exc: Exception) -> str:
    what = {"bench": "JieZi-Bench", "dataset": "JieZi-Dataset", "index": "the explorer index",
            "coverage": "the gallery coverage (JieZi-Dataset)"}[key[0]]
    hint = ("Start the Space with `jiezi space --bench out/jiezi-bench --dataset out/jiezi-dataset` "
            "or set JIEZI_BENCH / JIEZI_DATASET.")
    if "jiezi build" not in str(exc):
        hint = "Build it with `jiezi build --output out`. " + hint
    return f"{what} ({'/'.join(key[1:])}) could not be loaded: {exc}. {hint}"


def coverage_of(frame) -> dict:
    """Coverage dict (see :meth:`Resources.coverage`) of a frame with ``character`` and
    ``script`` columns, one row per glyph image."""
    images = frame["script"].value_counts()
    chars = frame.drop_duplicates(["character", "script"])["script"].value_counts()
    order = [s for s in labels.SCRIPTS if s in images] + sorted(s for s in images.index if s not in labels.SCRIPTS)
    return {"scripts": {s: {"images": int(images[s]), "characters": int(chars.get(s, 0))} for s in order},
            "missing": [s for s in labels.SCRIPTS if s not in images]}


def coverage_line(coverage: dict) -> str:
    """One markdown line stating which scripts the gallery holds (with counts) and which
    it lacks; glyphs of a missing script cannot be read by the retrieval baseline."""
    held = " · ".join(f"{s} {c['images']:,} images / {c['characters']:,} characters"
                      for s, c in coverage["scripts"].items())
    line = f"**Gallery coverage** (what the retrieval baseline can match): {held or 'nothing'}."
    if coverage["missing"]:
        line += (f" **No data** for {'、'.join(coverage['missing'])}: a glyph in these scripts cannot be read here "
                 "(the baseline abstains or names a look-alike of another script).")
    return line


# ---------------------------------------------------------------- explorer queries
@dataclass
class Page:
    """One page of explorer results.

    ``images``: ``(PIL image, caption)`` pairs for a gallery; ``rows``: table rows (list
    of lists, columns :attr:`columns`); ``items``: the full rows of the page (for the
    detail view); ``total``: matching rows; ``page`` / ``pages``: 1-based page number
    and count.
    """

    images: list
    rows: list
    columns: list
    items: list
    total: int
    page: int
    pages: int


BENCH_COLUMNS = ["#", "字 character", "书体 script", "子任务 subtask", "问题 question", "参考答案 answer"]
DATASET_COLUMNS = ["#", "字 character", "书体 script", "子任务 subtask", "问题 question", "答案 answer"]


def _matches(frame, character: str, script: str, subtask: str, kind: str):
    mask = frame["id"].notna()
    character = (character or "").strip()
    if character:
        mask &= frame["character"].isin(list(dict.fromkeys(character)))
    if script and script != ALL:
        mask &= frame["script"] == script
    if subtask and subtask != ALL:
        if kind == "bench":
            # the shared component question answers COMF/COMI/COME too
            want = "COMR" if subtask in labels.COMPONENT_SUBTASKS else subtask
            mask &= frame["subtask"] == want
        else:
            mask &= frame["subtasks"].map(lambda s: subtask in list(s))
    return mask


def query(resources: Resources, kind: str, split: str, character: str = "", script: str = ALL,
          subtask: str = ALL, page: int = 1, page_size: int = PAGE_SIZE) -> Page:
    """Rows of JieZi-Bench (``kind="bench"``) or JieZi-Dataset (``"dataset"``) matching
    the filters, one page of them.

    ``character``: one or more characters (any of them matches; empty = all);
    ``script``: a script label or :data:`ALL`; ``subtask``: an ACCE code or :data:`ALL`
    (a dataset row matches when one of its turns has that subtask, and only those turns
    are listed); ``page``: 1-based, clamped to the available pages. Raises
    :class:`DataUnavailable` when the resource cannot be loaded and ``ValueError`` on an
    unknown kind or split. A bench glyph asked several questions on the page gets one
    thumbnail (caption: the table rows it belongs to) and one item whose ``questions``
    lists those rows.
    """
    if kind not in ("bench", "dataset"):
        raise ValueError(f"kind must be 'bench' or 'dataset', got {kind!r}")
    splits = BENCH_SPLITS if kind == "bench" else DATASET_SPLITS
    if split not in splits:
        raise ValueError(f"split {split!r} of {kind}: expected one of {list(splits)}")
    frame = resources.index(kind, split)
    hits = frame.index[_matches(frame, character, script, subtask, kind)].tolist()
    total = len(hits)
    pages = max(1, -(-total // page_size))
    page = min(max(1, int(page or 1)), pages)
    chosen = hits[(page - 1) * page_size: page * page_size]
    ds = resources.bench("all", split) if kind == "bench" else resources.dataset("all", split)
    rows_ds = ds.select(chosen) if chosen else []
    images, rows, items = [], [], []
    glyph_at: dict[str, int] = {}  # bench image id -> its thumbnail: one per glyph, not per question
    for n, row in enumerate(rows_ds, start=(page - 1) * page_size + 1):
        item = {k: v for k, v in row.items() if k not in ("image", "images")}
        if kind == "bench":
            rows.append([n, row["character"], row["script"], row["subtask"], row["question"], row["answer"]])
            at = glyph_at.get(row["image_id"])
            if at is None:
                glyph_at[row["image_id"]] = len(images)
                images.append((row["image"], f"{row['character']} · {row['script']} · #{n}"))
                items.append({**item, "questions": [item]})
            else:
                items[at]["questions"].append(item)
                images[at] = (images[at][0], images[at][1] + f", #{n}")
            continue
        images.append((row["images"][0], f"{n} · {row['character']} · {row['script']}"))
        for code, question, answer in qa_turns(row):
            if subtask in (None, "", ALL) or code == subtask:
                rows.append([n, row["character"], row["script"], code, question, answer])
        items.append(item)
    return Page(images, rows, BENCH_COLUMNS if kind == "bench" else DATASET_COLUMNS, items, total, page, pages)


def _text(content) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text") or "" for part in content or [] if part.get("type") == "text")


def qa_turns(row: dict) -> list[tuple[str, str, str]]:
    """``(subtask, question, answer)`` for each assistant turn of a JieZi-Dataset row
    (``messages`` + ``subtasks``, ARCHITECTURE.md)."""
    out, question = [], ""
    codes = list(row.get("subtasks") or [])
    k = 0
    for turn in row.get("messages") or []:
        if turn["role"] == "user":
            question = _text(turn["content"])
        elif turn["role"] == "assistant":
            code = codes[k] if k < len(codes) else "?"
            out.append((code, question, _text(turn["content"])))
            k += 1
    return out


def provenance_list(value) -> list:
    """A provenance JSON string (or list) parsed to a list; ``[]`` when empty or unreadable."""
    if not value:
        return []
    if isinstance(value, list):
        return value
    try:
        parsed = json.loads(value)
    except ValueError:
        return []
    return parsed if isinstance(parsed, list) else []
