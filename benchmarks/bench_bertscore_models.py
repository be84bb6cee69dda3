"""Which offline BERTScore model separates Chinese paraphrases: prints figures, asserts nothing.

Pairs from the source cache (Shuowen Jiezi with Duan Yucai's notes): for N characters, the
Shuowen gloss (許慎's explanation up to its 从/從 analysis) and Duan's first note on it are a
paraphrase pair (two glosses of one character's meaning); the same gloss against the Duan
note of another character (N positions away in a fixed shuffle) is an unrelated pair. Each
model scores all 2N pairs with the metric's own BERTScore stage (bert_score under it,
``all_layers=True``), and the table gives, per model:

- AUC: the probability that a paraphrase pair scores above an unrelated one (Mann-Whitney
  U / (n_pos * n_neg)); 0.5 = no separation, 1.0 = perfect;
- mean F1 of paraphrase and unrelated pairs, and of the constant answer 不知道 against the
  glosses (what a non-answer scores on ORIM);
- [UNK] share of the scored tokens; model load time; scoring time per 1,000 pairs;
- the AUC of every depth (mean F1 over hidden states 0..k-1), to see where the configured
  depth of each alias stands.

None of these models is bert-base-chinese: scores with any of them are not comparable with
the paper's ORIM / COMI.

Usage: python benchmarks/bench_bertscore_models.py [--sources DIR] [--pairs 300]
           [--models offline-minilm,offline-gemma3,offline-qwen2.5-coder]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from builder.sources.adapters import shuowen  # noqa: E402
from hub.skips import SkipLog  # noqa: E402
from metrics.acce.bertscore import OFFLINE_MODELS, BertScoreStage, BertScoreUnavailable  # noqa: E402

_ANALYSIS = re.compile(r"[从從]")


def gloss_pairs(sources: Path, n: int, seed: int = 0) -> tuple[list[str], list[str], list[int]]:
    """``(candidates, references, labels)``: n paraphrase pairs (label 1) and n unrelated (0).

    Candidate = the Shuowen gloss of a character (its explanation before the 从/從 analysis,
    at least 2 characters); reference = Duan's first note on that entry (first 80
    characters), or another character's. Characters are drawn with ``seed``. Raises
    ``ValueError`` when fewer than ``n`` entries have both.
    """
    usable = []
    for entry in shuowen.read(sources, SkipLog()):
        gloss = _ANALYSIS.split(entry.explanation, maxsplit=1)[0].strip(" 。，；")
        notes = [d.note.strip() for d in entry.duan_notes if d.note and d.note.strip()]
        if len(gloss) >= 2 and notes and len(notes[0]) >= 4:
            usable.append((gloss, notes[0][:80]))
    if len(usable) < n:
        raise ValueError(f"only {len(usable)} Shuowen entries have a gloss and a Duan note; asked for {n}")
    picked = random.Random(seed).sample(usable, n)
    shift = max(1, n // 2)
    candidates = [g for g, _ in picked] * 2
    references = [d for _, d in picked] + [picked[(i + shift) % n][1] for i in range(n)]
    return candidates, references, [1] * n + [0] * n


def auc(scores: list[float], labels: list[int]) -> float:
    """Mann-Whitney AUC with average ranks for ties (0.5 = chance)."""
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    ranks = [0.0] * len(scores)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    n_pos = sum(labels)
    n_neg = len(labels) - n_pos
    rank_sum = sum(r for r, y in zip(ranks, labels) if y)
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def measure(alias: str, candidates: list[str], references: list[str], labels: list[int]) -> dict:
    """Load ``alias``, score the pairs, return the figures (see the module docstring)."""
    stage = BertScoreStage(alias)
    t0 = time.perf_counter()
    loaded = stage.load()
    load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    f1 = stage.score_pairs(candidates, references, progress=False)
    per_1000 = (time.perf_counter() - t0) / len(candidates) * 1000
    # per-depth AUCs from bert_score's all-layer output (the same scorer, a second pass)
    _, _, by_state = loaded.scorer.score(candidates, references, batch_size=stage.batch_size)
    depth_auc = {}
    for k in range(1, by_state.shape[0] + 1):
        depth_auc[k] = auc(by_state[:k].mean(dim=0).tolist(), labels)
    glosses = sorted(set(candidates))
    idk = stage.score_pairs(["不知道"] * len(glosses), glosses, progress=False)
    pos = [s for s, y in zip(f1, labels) if y]
    neg = [s for s, y in zip(f1, labels) if not y]
    return {"model": alias, "states": loaded.states, "auc": auc(f1, labels), "para": sum(pos) / len(pos),
            "unrel": sum(neg) / len(neg), "idk": sum(idk) / len(idk), "unk": stage.unk_rate, "load_s": load_s,
            "per_1000_s": per_1000, "depth_auc": depth_auc}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=Path, default=Path(os.environ.get("JIEZI_SOURCES", "../shared/sources")))
    parser.add_argument("--pairs", type=int, default=300, help="paraphrase pairs (as many unrelated pairs)")
    parser.add_argument("--models", default=",".join(OFFLINE_MODELS))
    args = parser.parse_args()

    candidates, references, labels = gloss_pairs(args.sources, args.pairs)
    print(f"{len(candidates)} pairs ({args.pairs} Shuowen/Duan paraphrases, {args.pairs} unrelated); "
          f"e.g. {candidates[0]!r} ~ {references[0]!r}")
    rows = []
    for alias in args.models.split(","):
        try:
            rows.append(measure(alias, candidates, references, labels))
        except BertScoreUnavailable as exc:
            print(f"{alias}: not measured: {exc}")
            continue
        r = rows[-1]
        print(f"{alias}: AUC by depth (mean of states 0..k-1): "
              + " ".join(f"{k}:{v:.3f}" for k, v in r["depth_auc"].items()), flush=True)
    print()
    print("| model | hidden states | AUC | F1 paraphrase | F1 unrelated | F1 不知道 vs gloss | [UNK] share | "
          "load s | s / 1,000 pairs |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        unk = "n/a" if r["unk"] is None else f"{r['unk']:.1%}"
        print(f"| {r['model']} | 0..{r['states'] - 1} | {r['auc']:.3f} | {r['para']:.3f} | {r['unrel']:.3f} | "
              f"{r['idk']:.3f} | {unk} | {r['load_s']:.1f} | {r['per_1000_s']:.1f} |")
    print("\nNone of these is bert-base-chinese: ORIM/COMI scored with any of them are not comparable with the paper.")


if __name__ == "__main__":
    main()
