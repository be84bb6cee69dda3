"""Label balance of JieZi-Bench: the target shares, the stratified greedy pick, and the check.

:data:`TARGET_DISTRIBUTION` states the share each STRC / FORC label should approach,
:data:`COME_TARGET_SHARE` the COME majority's, :data:`SELECTION_CAPS` the hard caps of the
choice; :class:`Tally` keeps the labels chosen so far and :func:`pick_stratified` takes,
stratum by stratum, the candidate (:class:`Candidate`) that moves them closest to the
targets. :func:`balance_report` rescores the written rows with :mod:`metrics.acce`: a
constant answer must stay at or below :data:`CONSTANT_SCORE_CAPS`. Used by
:func:`builder.qa.bench_select.select`.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from builder.schema import GlyphImage, GlyphRecord
from metrics.acce import labels as acce_labels
from metrics.acce.core import score


# The stated target distribution of the stratified selection: the share each label
# should approach (labels not listed share the rest). STRC: left-right is the commonest
# layout of modern characters (about two thirds of the eligible ones) and is held to 40%,
# so top-bottom, surrounds and single-component forms get real shares; FORC: 形声 is held
# to 40%, 象形 / 指事 / 会意 get the rest where the sources have them.
TARGET_DISTRIBUTION: dict[str, dict[str, float]] = {
    "STRC": {"⿰": 0.40, "⿱": 0.25, "独体": 0.15},
    "FORC": {"形声": 0.40, "会意": 0.25, "象形": 0.20, "指事": 0.10},
}
# COME: the share of a question's components the commonest evolution label may have, on
# average (a constant answer scores that share); held under the cap of 60 with a margin.
COME_TARGET_SHARE = 0.50
# weight of that excess against the STRC / FORC distances (each 0..2): COME has no
# stratum of its own, so a larger weight lets it steer the choice among strata
COME_WEIGHT = 6.0
# Hard caps of the stratified choice (majority share of the questions asked), a margin
# under CONSTANT_SCORE_CAPS; they bind once a subtask has CAP_MIN_QUESTIONS questions.
SELECTION_CAPS: dict[str, float] = {"SCRC": 0.45, "STRC": 0.45, "FORC": 0.45, "COME": 0.55}
CAP_MIN_QUESTIONS = 10
# The highest score a constant answer may get (strict, 0..100), issue 12.
CONSTANT_SCORE_CAPS: dict[str, float] = {"SCRC": 50.0, "STRC": 50.0, "FORC": 50.0, "COME": 60.0}


@dataclass
class Candidate:
    """One image the selection may take, with the answer labels its bench rows will have
    (None where that question is not asked): ``scrc`` (简体 scored as 楷书), ``strc``,
    ``forc`` (the FORC label set joined by "+"), ``come`` (the components' evolution types)."""

    record: GlyphRecord
    image: GlyphImage
    scrc: str
    strc: str | None
    forc: str | None
    come: tuple[str, ...] | None
    richness: float
    kinds: int = 0
    # other labels the reference accepts (answer_struct "accepted"): a constant answer of
    # one of them scores on this row too (STRC, FORC)
    also: dict[str, tuple[str, ...]] = field(default_factory=dict)


class Tally:
    """Running label counts of a selection, for the stratified choice and the stats.
    ``counts``: each question's reference label; ``also``: the further labels a question
    accepts (a constant answer of one scores there too)."""

    def __init__(self) -> None:
        self.counts: dict[str, Counter] = {k: Counter() for k in ("SCRC", "STRC", "FORC")}
        self.also: dict[str, Counter] = {k: Counter() for k in ("STRC", "FORC")}
        self.come_share: Counter = Counter()  # label -> sum over questions of its share
        self.come_questions = 0

    def add(self, c: Candidate) -> None:
        """Count one candidate's labels."""
        self.counts["SCRC"][c.scrc] += 1
        for k, lab in (("STRC", c.strc), ("FORC", c.forc)):
            if lab is not None:
                self.counts[k][lab] += 1
                self.also[k].update(x for x in set(c.also.get(k, ())) if x != lab)
        if c.come:
            self.come_questions += 1
            for label, n in Counter(c.come).items():
                self.come_share[label] += n / len(c.come)

    def majority(self) -> dict[str, dict]:
        """Per subtask the majority label and the score (0..100) a constant answer of it
        gets: its share of the questions (COME: its mean share of a question's components)."""
        out = {}
        for k, c in self.counts.items():
            if c:
                also = self.also.get(k, Counter())
                label = max(set(c) | set(also), key=lambda x: (c[x] + also[x], c[x]))
                n = c[label] + also[label]
                out[k] = {"label": label, "score": round(100 * n / sum(c.values()), 1), "questions": sum(c.values())}
        if self.come_questions:
            label, v = self.come_share.most_common(1)[0]
            out["COME"] = {"label": label, "score": round(100 * v / self.come_questions, 1),
                           "questions": self.come_questions}
        return out

    def distance_with(self, c: Candidate) -> float:
        """How far the selection is from the targets once ``c`` is added: the L1 distance of
        the STRC and FORC distributions from :data:`TARGET_DISTRIBUTION` (labels not listed
        are compared as one rest share), plus the excess of the best constant COME
        answer's score over :data:`COME_TARGET_SHARE`, weighted by :data:`COME_WEIGHT`."""
        total = COME_WEIGHT * max(0.0, self._come_major_with(c) - COME_TARGET_SHARE)
        for k, lab in (("STRC", c.strc), ("FORC", c.forc)):
            counts = self.counts[k]
            n = sum(counts.values()) + (lab is not None)
            if not n:
                continue
            target = TARGET_DISTRIBUTION[k]
            rest = 0.0
            for label in set(counts) | set(target) | ({lab} if lab else set()):
                share = (counts[label] + (label == lab)) / n
                if label in target:
                    total += abs(share - target[label])
                else:
                    rest += share
            total += abs(rest - (1.0 - sum(target.values())))
        return total

    def overshoot_with(self, c: Candidate) -> float:
        """How far the majority shares would exceed :data:`SELECTION_CAPS` once ``c`` is
        added (0 when within every cap; caps apply from :data:`CAP_MIN_QUESTIONS` questions
        on, so the first picks are free). The stratified choice minimises this first."""
        over = 0.0
        for k, lab in (("SCRC", c.scrc), ("STRC", c.strc), ("FORC", c.forc)):
            counts = self.counts[k]
            n = sum(counts.values()) + (lab is not None)
            if n >= CAP_MIN_QUESTIONS and lab is not None:
                also = self.also.get(k, Counter())
                mine = {lab} | set(c.also.get(k, ()) if k != "SCRC" else ())
                top = max((counts[x] + also[x] + (x in mine) for x in set(counts) | set(also) | mine), default=0)
                over += max(0.0, top / n - SELECTION_CAPS[k])
        if self.come_questions + bool(c.come) >= CAP_MIN_QUESTIONS:
            over += max(0.0, self._come_major_with(c) - SELECTION_CAPS["COME"])
        return over

    def _come_major_with(self, c: Candidate) -> float:
        share = Counter(self.come_share)
        n = self.come_questions
        if c.come:
            n += 1
            for label, k in Counter(c.come).items():
                share[label] += k / len(c.come)
        return max(share.values()) / n if n else 0.0


def pick_stratified(pool: list[Candidate], n: int, tally: Tally, taken_sha: set[str]) -> list[Candidate]:
    """Take up to ``n`` candidates of ``pool`` (in its order within a stratum), each time
    from the (STRC, FORC, COME label mix) stratum that keeps every majority share
    within :data:`SELECTION_CAPS` (:meth:`Tally.overshoot_with`) and, among those, brings
    the selection closest to the targets (:meth:`Tally.distance_with`); within the stratum, among its first few
    candidates, the one whose components carry the current COME majority label least. Updates ``tally``
    and ``taken_sha``; skips images whose pixels are already taken."""
    strata: dict[tuple, list[Candidate]] = defaultdict(list)
    for c in pool:
        # COME enters the stratum as the candidate's label mix (how many of each label)
        strata[(c.strc or "", c.forc or "", tuple(sorted(Counter(c.come or ()).items())))].append(c)
    out: list[Candidate] = []
    while len(out) < n:
        heads = [(key, lst) for key, lst in sorted(strata.items()) if lst]
        if not heads:
            break
        # within the caps, an image asked more questions first: a seal drawing without its
        # STRC question must not win just because it adds no label to balance
        key, lst = min(heads, key=lambda kv: (tally.overshoot_with(kv[1][0]), -kv[1][0].kinds,
                                              tally.distance_with(kv[1][0])))
        come_major = tally.come_share.most_common(1)[0][0] if tally.come_share else None

        def come_load(c: Candidate) -> float:
            return (c.come.count(come_major) / len(c.come)) if (c.come and come_major) else 0.0

        best = min(range(min(8, len(lst))), key=lambda i: (come_load(lst[i]), i))
        c = lst.pop(best)
        if c.image.sha256 in taken_sha:
            continue
        taken_sha.add(c.image.sha256)
        tally.add(c)
        out.append(c)
    return out


def _constant_prediction(subtask: str, label: str, struct: dict) -> str:
    if subtask == "COME":
        comps = [{"name": c["name"], "evolution_type": label} for c in struct.get("components", [])]
        return json.dumps(comps, ensure_ascii=False)
    return label.replace("+", "、") if subtask == "FORC" else label


def balance_report(bench_rows: list[dict]) -> dict:
    """Label distributions and constant-answer scores of the written bench rows.

    ``bench_rows``: the stage's bench rows (``subtask``, ``metrics``, ``script``,
    ``answer_struct``). Returns ``{"by_script": images per script, "label_distributions":
    {SCRC|STRC|FORC|COME: {label: count}}, "constant_majority": {subtask: {"label",
    "score" (0..100), "questions", "cap", "ok"}}}``, where each score is what answering
    every question with that subtask's majority label (COME: every gold component with
    that evolution label) gets from :func:`metrics.acce.core.score`, strict (failures
    count 0), no BERTScore, no judge. SCRC labels count 简体 as 楷书, as the scorer does.
    """
    dist: dict[str, Counter] = {k: Counter() for k in ("SCRC", "STRC", "FORC", "COME")}
    rows: dict[str, list[dict]] = {k: [] for k in dist}
    images: dict[str, str] = {}
    for r in bench_rows:
        st = r.get("answer_struct") or {}
        images[r.get("image_id", r.get("id"))] = r.get("script")
        if r["subtask"] == "SCRC":
            dist["SCRC"][acce_labels.scoring_script(st["script"])] += 1
        elif r["subtask"] == "STRC":
            dist["STRC"][st["structure"]] += 1
        elif r["subtask"] == "FORC":
            dist["FORC"]["+".join(st["formation"])] += 1
        elif "COME" in r.get("metrics", []) and st.get("components"):
            dist["COME"].update(c.get("evolution_type") or "" for c in st["components"])
        else:
            continue
        rows["COME" if r["subtask"] not in dist else r["subtask"]].append(r)
    majority = {}
    for k, c in dist.items():
        if not c:
            continue
        scored = []
        for label in [x for x, _ in c.most_common(3) if x]:  # the commonest labels: the best constant is among them
            preds = [_constant_prediction(k, label, r["answer_struct"]) for r in rows[k]]
            res = score(preds, [r["answer_struct"] for r in rows[k]], [[k]] * len(preds),
                        settings={"bertscore": False, "progress": False}, judge=False)
            scored.append((res[k] if res[k] is not None else 0.0, label))
        best, label = max(scored)
        majority[k] = {"label": label, "score": round(best, 1), "questions": len(rows[k]),
                       "cap": CONSTANT_SCORE_CAPS[k], "ok": best <= CONSTANT_SCORE_CAPS[k]}
    return {"by_script": dict(sorted(Counter(images.values()).items())),
            "label_distributions": {k: dict(c.most_common()) for k, c in dist.items() if c},
            "constant_majority": majority}
