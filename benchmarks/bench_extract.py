"""Speed of answer extraction (metrics/acce/extract.py, components.py): prints figures.

Time per call of ``metrics.acce.core.parse_answer`` for every subtask on answers of
1K, 10K, 100K and 1M characters, in several shapes (one long unpunctuated run of Han
characters, label words repeated in one clause, echoed questions, punctuated prose,
ASCII). Caches are cleared before each call, so each figure is a cold extraction.
Target (issue 15): time per call linear in the answer length (the 1M figure about 10x the
100K one, never 100x); ``jiezi leaderboard submit`` of a file with a 100,000-character
answer under 2 s (the scoring path is the same ``parse_answer``/``score`` code).

Usage: python benchmarks/bench_extract.py [--sizes 1000,10000,100000,1000000] [--shapes han,labels]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from metrics.acce import components, extract, normalize  # noqa: E402
from metrics.acce.core import parse_answer  # noqa: E402

SHAPES = {
    "han": "江河湖海山川草木",
    "labels": "甲骨文是形声字左右结构表意保留",
    "question": "该字是形声字吗？",
    "prose": "该字是甲骨文吗？不，这是金文，左右结构，形声。从水，工声。",
    "ascii": "the character is a phono-semantic compound, not a pictograph; ",
}
SUBTASKS = ("CHAR", "SCRC", "STRC", "FORC", "COMR", "ORIM", "EVOI")


def _clear_caches() -> None:
    for fn in (extract.extract_character, extract.extract_script, extract.extract_structure,
               extract.extract_formation, extract.extract_functions, extract.extract_evolution,
               extract._index, normalize._normalize_cached, components.parse_components):
        if hasattr(fn, "cache_clear"):
            fn.cache_clear()


def time_call(text: str, subtask: str) -> float:
    """Seconds for one cold ``parse_answer(text, subtask)``."""
    _clear_caches()
    t = time.perf_counter()
    parse_answer(text, subtask)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,10000,100000,1000000", help="answer lengths in characters")
    ap.add_argument("--shapes", default=",".join(SHAPES), help=f"comma list of {list(SHAPES)}")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{'shape':10} {'chars':>9} " + " ".join(f"{s:>8}" for s in SUBTASKS) + "   (seconds per call)")
    worst: dict[int, float] = {}
    for shape in args.shapes.split(","):
        unit = SHAPES[shape]
        for n in sizes:
            text = (unit * (n // len(unit) + 1))[:n]
            times = [time_call(text, s) for s in SUBTASKS]
            worst[n] = max(worst.get(n, 0.0), max(times))
            print(f"{shape:10} {n:>9} " + " ".join(f"{t:8.3f}" for t in times), flush=True)
    print("\nslowest call per length and its ratio to the previous length (linear: ratio ~ length ratio)")
    prev = None
    for n in sizes:
        ratio = f"x{worst[n] / worst[prev]:.1f} for x{n / prev:.0f} length" if prev and worst[prev] > 0 else ""
        print(f"  {n:>9} chars: {worst[n]:.3f} s  {ratio}")
        prev = n


if __name__ == "__main__":
    main()
