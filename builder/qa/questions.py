"""Which questions each resource asks of a glyph image.

:func:`dataset_qa` draws 5-10 QA pairs per JieZi-Dataset image (at least one per level
when the record allows, deterministic for a seed); :func:`bench_qa` makes the JieZi-Bench
rows of an image (:func:`bench_eligible`: the kinds it needs can be asked; an early form
is asked no L2 kind). The pairs are worded by :func:`builder.qa.wording.make_qa` from the
facts of :func:`builder.qa.compose.facts_for`.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable

from builder.qa.compose import EARLY_FORM_REASON, L2_KINDS, SEAL_FORM_SCRIPTS
from builder.qa.facts import Facts, QA
from builder.qa.wording import image_missing, make_qa
from builder.schema import GlyphImage
from hub import templates as T
from metrics.acce import labels


# Kinds JieZi-Dataset draws from, in turn order.
DATASET_KINDS = ("CHAR", "SCRC", "STRC", "COMR", "COMF", "COMI", "COMP_FULL", "FORC", "ORIM",
                 "COME", "EVOI", "EXEGESIS")


# interpretation rules that say what a part does in the host (its text or Duan's note on it)
_ROLE_RULES = frozenset({"qa.comi.host_clause", "qa.comi.host_gloss", "qa.comi.relation", "qa.comi.duan_part"})
OWN_GLOSS_ROLE_REASON = "own-gloss-only:role-phrasing"


def own_gloss_only(facts: Facts) -> bool:
    """Whether some component's interpretation is only that component's own gloss
    (:func:`builder.qa.part_glosses.own_gloss`), with nothing from the host's text or Duan's
    note on it: it says what the part is, not what it does in this character."""
    for c in facts.components:
        rules = {p.rule for p in c.interpretation_provenance}
        if "qa.comi.own_gloss" in rules and not rules & _ROLE_RULES:
            return True
    return False


def phrasing(rng: random.Random, facts: Facts, kind: str) -> int | None:
    """A random phrasing of ``kind`` (one draw of ``rng``): where a component is explained by
    its own gloss only (:func:`own_gloss_only`), only the phrasings asking what each
    component means (:data:`hub.templates.MEANING_PHRASINGS`); None when ``kind`` has none
    (review of out-r5, 12-18: 乂, 贊, 采)."""
    n = len(T.TEMPLATES[kind])
    if kind not in T.MEANING_PHRASINGS or not own_gloss_only(facts):
        return rng.randrange(n)
    allowed = [i for i in T.MEANING_PHRASINGS[kind] if i < n]
    return rng.choice(allowed) if allowed else None


def dataset_qa(facts: Facts, image: GlyphImage, seed: int, stats: Counter | None = None,
               *, min_pairs: int = 5, max_pairs: int = 10) -> list[QA]:
    """Draw ``min_pairs``..``max_pairs`` QA pairs for one glyph image of a record.

    Deterministic for ``(seed, image.id)``. One kind per level first (so every level the
    record can ground is asked), then the rest at random, each with a random phrasing;
    duplicates removed. ``stats`` (a Counter) receives ``missing:<kind>:<reason>``,
    ``images_missing_level:<L>`` and ``images_below_min`` counts.
    """
    rng = random.Random(f"{seed}:{image.id}")
    missing = {**facts.missing, **image_missing(facts, image)}
    avail = [k for k in DATASET_KINDS if k not in missing]
    if stats is not None:
        for k in DATASET_KINDS:
            if k in missing:
                stats[f"missing:{k}:{missing[k]}"] += 1
    n = rng.randint(min_pairs, max_pairs)
    chosen: list[str] = []
    for level in labels.LEVELS:
        if any(T.in_level(k, level) for k in chosen):
            continue
        opts = [k for k in avail if T.in_level(k, level) and k not in chosen]
        if opts:
            chosen.append(rng.choice(opts))
        elif stats is not None:
            stats[f"images_missing_level:{level}"] += 1
    rest = [k for k in avail if k not in chosen]
    rng.shuffle(rest)
    chosen += rest[: max(0, n - len(chosen))]
    if stats is not None and len(chosen) < min_pairs:
        stats["images_below_min"] += 1
    out, seen = [], set()
    for k in sorted(chosen, key=DATASET_KINDS.index):
        index = phrasing(rng, facts, k)
        if index is None:
            if stats is not None:
                stats[f"missing:{k}:{OWN_GLOSS_ROLE_REASON}"] += 1
            continue
        item = make_qa(facts, k, index, image)
        if item is None or not item.answer.strip():
            continue
        key = (item.question, item.answer)
        if key in seen:
            continue
        seen.add(key)
        out.append(item)
    return out


BENCH_KINDS = ("CHAR", "SCRC", "STRC", "COMP_FULL", "COMP_ASPECT", "FORC", "ORIM", "EVOI")
BENCH_REQUIRED = ("CHAR", "SCRC", "STRC", "COMP_FULL", "FORC", "ORIM", "EVOI")
SEAL_L2_KINDS = ("STRC", "COMP_FULL", "FORC")


def bench_eligible(facts: Facts) -> bool:
    """True when the image can be a bench image. A modern form: every one-per-image bench
    kind can be asked (agreeing sources). An early form (甲骨文, 金文, 战国文字) is eligible
    without its L2 kinds, which no source analyses for that form (:data:`EARLY_FORM_REASON`):
    it is asked CHAR, SCRC and those of ORIM and EVOI its sources support. A seal form (篆书)
    needs CHAR, SCRC and at least one L2 kind from Shuowen's analysis of that head (STRC,
    the component question or FORC): a layout Shuowen's parts do not confirm, or a head
    whose gloss Duan rejects, drops that question, not the image (the seal drawings are the
    bench's L2 on ancient forms; the selection prefers the images with more questions)."""
    if "CHAR" in facts.missing or "SCRC" in facts.missing:
        return False
    if any(facts.missing.get(k) == EARLY_FORM_REASON for k in L2_KINDS):
        return True
    if facts.script in SEAL_FORM_SCRIPTS:
        return any(k not in facts.missing for k in SEAL_L2_KINDS)
    # a narrative that states no change drops the EVOI question, not the image; so does a
    # gloss that is no original meaning (大 「天大，地大，人亦大」: data review 12-04)
    return all(k not in facts.missing for k in BENCH_REQUIRED if k not in ("EVOI", "ORIM"))


def bench_kinds(facts: Facts) -> int:
    """How many of the one-per-image bench kinds (:data:`BENCH_REQUIRED`) ``facts`` can ask
    (the component question counts once: in full, or without evolution types)."""
    return sum(k not in facts.missing for k in BENCH_REQUIRED) + aspect_only(facts)


def aspect_only(facts: Facts) -> bool:
    """The image's component question is asked without evolution types (``COMP_ASPECT``):
    no source gives them (an early form the form audit confirmed, a component whose
    evolution no rule derives) while the components, functions and interpretations are
    grounded."""
    return "COMP_FULL" in facts.missing and "COMP_ASPECT" not in facts.missing


def l2_dropped(facts: Facts) -> list[str]:
    """The L2 kinds of ``facts`` not asked because the glyph is an early form no source
    analyses (counted in the stage report)."""
    return [k for k in L2_KINDS if facts.missing.get(k) == EARLY_FORM_REASON]


def bench_qa(facts: Facts, image: GlyphImage, seed: int, *, second_component: bool,
             dropped: Iterable[str] = ()) -> list[QA]:
    """The bench rows of one image: CHAR, SCRC, STRC, the shared component question,
    FORC, ORIM and EVOI, plus the second (function + interpretation) component question
    when ``second_component``. ``dropped``: questions the selection left out to keep a
    constant answer under its cap ("STRC", "FORC"; "COME": the component question is
    asked once, without evolution types, as COMP_ASPECT). Raises ``ValueError`` when
    ``facts`` are not :func:`bench_eligible` (the selection must not pick such an image)."""
    if not bench_eligible(facts):
        raise ValueError(f"record {facts.record_id}: not bench-eligible: "
                         f"{ {k: facts.missing[k] for k in BENCH_REQUIRED if k in facts.missing} }")
    dropped = set(dropped)
    skip = {k for k in ("STRC", "FORC") if k in dropped} | ({"COMP_FULL"} if "COME" in dropped else set())
    rng = random.Random(f"bench:{seed}:{image.id}")
    out = []
    for k in BENCH_KINDS:
        if k == "COMP_ASPECT" and not ((second_component or "COME" in dropped or aspect_only(facts))
                                       and "COMP_ASPECT" not in facts.missing):
            continue
        if k in facts.missing or k in skip:  # an early form's L2 kinds, a seal form's unconfirmed ones
            continue
        index = phrasing(rng, facts, k)
        item = make_qa(facts, k, index, image) if index is not None else None
        if item is not None:
            out.append(item)
    return out
