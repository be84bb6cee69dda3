"""Component matching of the paper protocol, as the authors' scorer matches names.

Names are matched by NFKC plus the reference scorer's radical alias table
(:data:`RADICAL_ALIASES`, single characters and table entries only): exact pairs first,
then one-to-one normalised Levenshtein similarity >= :data:`SIMILARITY_MIN` choosing the
most pairs, then the highest total similarity, then the smallest sorted name pairs
(:func:`pair_components`); :func:`f1` is the per-reply F1 of the component metrics.
"""

from __future__ import annotations

import unicodedata

from .paper_reply import collapse


SIMILARITY_MIN = 0.8


# The reference scorer's radical alias table: canonical form -> the variant forms and names it
# absorbs. Applied only to a name that is one character or is itself listed here.
_RADICAL_GROUPS = {
    "人": ("亻", "人字旁", "单人旁", "单立人"), "手": ("扌", "龵", "提手旁"),
    "心": ("忄", "㣺", "竖心旁", "心字底"), "言": ("讠", "言字旁"), "食": ("饣", "食字旁"),
    "金": ("钅", "釒", "金字旁"), "示": ("礻", "示字旁", "示补旁"), "糸": ("纟", "糹", "绞丝旁"),
    "水": ("氵", "氺", "三点水"), "火": ("灬", "四点底"), "犬": ("犭", "反犬旁"),
    "衣": ("衤", "衣字旁", "衣补旁"), "玉": ("王", "王字旁", "斜玉旁"), "月": ("月字旁",),
    "肉": ("⺼", "肉月旁"), "邑": ("阝(右)", "右耳旁"), "阜": ("阝(左)", "左耳旁"), "艸": ("艹", "草字头"),
    "竹": ("⺮", "竹字头"), "网": ("罒", "四字头"), "刀": ("刂", "立刀旁"), "力": ("力字旁",),
    "口": ("口字旁",), "木": ("木字旁",), "土": ("土字旁",), "女": ("女字旁",), "子": ("子字旁",),
    "目": ("目字旁",), "页": ("頁", "页字旁"), "贝": ("貝", "贝字旁"),
}
RADICAL_ALIASES = {alias: canon for canon, aliases in _RADICAL_GROUPS.items() for alias in (canon, *aliases)}


# --------------------------------------------------------------------- component matching
def name_key(name: str) -> str:
    """Matching key of a component name: collapsed whitespace, NFKC, then the radical alias
    table for a single character or a listed name (亻 -> 人, 阝(左) -> 阜, 頁 -> 页)."""
    key = unicodedata.normalize("NFKC", collapse(name))
    if key in RADICAL_ALIASES:
        return RADICAL_ALIASES[key]
    return key


def name_similarity(a: str, b: str) -> float:
    """1 - Levenshtein distance / longer length, on the texts with all whitespace removed
    (two empty texts: 1.0; one empty: 0.0)."""
    a, b = "".join(a.split()), "".join(b.split())
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    return max(0.0, 1.0 - _edit_distance(a, b) / max(len(a), len(b)))


def _edit_distance(a: str, b: str) -> int:
    if len(a) < len(b):
        a, b = b, a
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev_diag, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev_diag, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev_diag + (ca != cb))
    return row[-1]


def pair_components(gold: list[str], pred: list[str], threshold: float = SIMILARITY_MIN) -> dict[str, str]:
    """One-to-one gold -> predicted name pairs (reference scorer's matching).

    Names are taken in sorted order. Equal keys pair first (each gold name takes the first
    unused predicted name with its key). The remaining names pair by ``name_similarity`` of
    their keys >= ``threshold``: the pairing with the most pairs wins, then the highest total
    similarity (ties within 1e-12), then the smallest sorted tuple of (gold, pred) pairs.
    """
    gold, pred = sorted(gold), sorted(pred)
    keys = {n: name_key(n) for n in (*gold, *pred)}
    waiting: dict[str, list[str]] = {}
    for name in pred:
        waiting.setdefault(keys[name], []).append(name)
    pairs: dict[str, str] = {}
    left_gold = []
    for name in gold:
        same = waiting.get(keys[name])
        if same:
            pairs[name] = same.pop(0)
        else:
            left_gold.append(name)
    taken = set(pairs.values())
    left_pred = [n for n in pred if n not in taken]
    options = {}
    for g in left_gold:
        scored = [(p, name_similarity(keys[p], keys[g])) for p in left_pred]
        scored = [(p, s) for p, s in scored if s >= threshold]
        if scored:
            options[g] = sorted(scored, key=lambda o: (-o[1], o[0]))
    pairs.update(_best_fuzzy(left_gold, options))
    return pairs


def _best_fuzzy(order: list[str], options: dict[str, list[tuple[str, float]]]) -> dict[str, str]:
    """Exhaustive search over one-to-one fuzzy pairings, visiting leaves in the reference
    order (each gold name first unpaired, then its options best first); a branch that cannot
    reach the best pair count is cut, which never changes the winner."""
    best = {"count": -1, "score": -1.0, "key": (), "pairs": {}}
    chosen: dict[str, str] = {}
    used: set[str] = set()

    def visit(idx: int, count: int, total: float) -> None:
        if count + (len(order) - idx) < best["count"]:
            return
        if idx == len(order):
            key = tuple(sorted(chosen.items()))
            tie = count == best["count"] and abs(total - best["score"]) <= 1e-12
            if (count > best["count"] or (count == best["count"] and total > best["score"] + 1e-12)
                    or (tie and (not best["key"] or key < best["key"]))):
                best.update(count=count, score=total, key=key, pairs=dict(chosen))
            return
        gold = order[idx]
        visit(idx + 1, count, total)
        for pred, sim in options.get(gold, ()):
            if pred not in used:
                used.add(pred)
                chosen[gold] = pred
                visit(idx + 1, count + 1, total + sim)
                del chosen[gold]
                used.discard(pred)

    visit(0, 0, 0.0)
    return best["pairs"]


def f1(correct: float, n_pred: int, n_gold: int) -> float:
    """F1 of P = correct / n_pred and R = correct / n_gold (each 0 when its base is 0)."""
    p = correct / n_pred if n_pred > 0 else 0.0
    r = correct / n_gold if n_gold > 0 else 0.0
    return 0.0 if p + r <= 0.0 else 2.0 * p * r / (p + r)
