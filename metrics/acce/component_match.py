"""One-to-one matching of component names and the P/R/F1 of the component metrics.

Exact matches of ``normalize.component_key`` are paired first; the remaining names are
paired one-to-one by normalised Levenshtein similarity >= :data:`SIMILARITY_THRESHOLD`,
choosing the pairing with the most pairs, then the highest total similarity (ties: the
lexicographically smallest sorted list of name pairs, as in the reference code);
:func:`f1_from_counts` is the F1 of each component metric (ACCE.md section 2).
"""

from __future__ import annotations

from .component_record import Component
from .normalize import similarity


SIMILARITY_THRESHOLD = 0.8  # ACCE.md section 2
# Exhaustive pairing search visits at most this many states; beyond it (only possible for
# answers listing dozens of long, mutually similar names) a greedy pairing is used.
_SEARCH_LIMIT = 200_000


# -------------------------------------------------------------------------- matching
def match_components(gold: list[Component], pred: list[Component],
                     threshold: float = SIMILARITY_THRESHOLD) -> list[tuple[int, int, float]]:
    """One-to-one pairs ``(gold index, pred index, similarity)`` (ACCE.md section 2).

    Exact matches of ``component_key`` first (names in sorted order, as the reference code
    does); then, among the rest, the pairing with similarity >= ``threshold`` that has the
    most pairs, then the highest total similarity, then the smallest sorted name pairs.
    A reference component with other accepted names (``Component.also``: 萬 or 蠆 for the
    省 part of 癘) matches a predicted name equal to any of them, its own name first, and
    its similarity is the best over them.
    """
    g_order = sorted(range(len(gold)), key=lambda i: gold[i].name)
    p_order = sorted(range(len(pred)), key=lambda j: pred[j].name)
    g_keys = {i: gold[i].keys for i in g_order}
    p_keys = {j: pred[j].key for j in p_order}
    buckets: dict[str, list[int]] = {}
    for j in p_order:
        buckets.setdefault(p_keys[j], []).append(j)
    pairs: list[tuple[int, int, float]] = []
    left_gold = []
    for rank in range(max((len(k) for k in g_keys.values()), default=1)):
        for i in (left_gold if rank else g_order):
            bucket = buckets.get(g_keys[i][rank]) if rank < len(g_keys[i]) else None
            if bucket:
                pairs.append((i, bucket.pop(0), 1.0))
            elif not rank:
                left_gold.append(i)
        left_gold = [i for i in left_gold if all(i != g for g, _, _ in pairs)]
    used = {j for _, j, _ in pairs}
    left_pred = [j for j in p_order if j not in used]
    candidates: dict[int, list[tuple[int, float]]] = {}
    for i in left_gold:
        opts = [(j, s) for j in left_pred
                if (s := max(similarity(p_keys[j], k) for k in g_keys[i])) >= threshold]
        if opts:
            candidates[i] = sorted(opts, key=lambda o: (-o[1], pred[o[0]].name))
    if candidates:
        pairs.extend(_best_pairing(gold, pred, [i for i in left_gold if i in candidates], candidates))
    return sorted(pairs)


def _best_pairing(gold, pred, order, candidates):
    best: dict = {"count": -1, "score": -1.0, "key": None, "pairs": []}
    visits = 0

    def key_of(current):
        return tuple(sorted((gold[i].name, pred[j].name) for i, j, _ in current))

    def dfs(idx, used, current, score):
        nonlocal visits
        visits += 1
        if visits > _SEARCH_LIMIT:
            raise _SearchTooLarge
        if len(current) + (len(order) - idx) < best["count"]:
            return
        if idx == len(order):
            count = len(current)
            if (count > best["count"] or (count == best["count"] and score > best["score"] + 1e-12)
                    or (count == best["count"] and abs(score - best["score"]) <= 1e-12
                        and (best["key"] is None or key_of(current) < best["key"]))):
                best.update(count=count, score=score, key=key_of(current), pairs=list(current))
            return
        i = order[idx]
        dfs(idx + 1, used, current, score)
        for j, s in candidates[i]:
            if j not in used:
                used.add(j)
                current.append((i, j, s))
                dfs(idx + 1, used, current, score + s)
                current.pop()
                used.discard(j)

    try:
        dfs(0, set(), [], 0.0)
    except _SearchTooLarge:
        edges = sorted(((s, gold[i].name, pred[j].name, i, j) for i in order for j, s in candidates[i]),
                       key=lambda e: (-e[0], e[1], e[2]))
        taken_g, taken_p, greedy = set(), set(), []
        for s, _, _, i, j in edges:
            if i not in taken_g and j not in taken_p:
                taken_g.add(i)
                taken_p.add(j)
                greedy.append((i, j, s))
        return greedy
    return best["pairs"]


class _SearchTooLarge(Exception):
    pass


def f1_from_counts(correct: float, n_pred: int, n_gold: int) -> float:
    """F1 of P = correct / n_pred and R = correct / n_gold, in [0, 1] (0 when undefined)."""
    if n_pred <= 0 or n_gold <= 0 or correct <= 0:
        return 0.0
    p, r = correct / n_pred, correct / n_gold
    return 2 * p * r / (p + r)
