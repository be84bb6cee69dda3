"""JieZi-Bench selection and generalisation splits.

The paper's bench (ACCE.md section 3): 1,024 glyph images (金文 252, 篆书 342, 楷书 219 ...),
one CHAR, SCRC, STRC, FORC, ORIM and EVOI question per image plus the shared component
question (1,852 for 1,024 images, about 1.8 per image), references from dictionaries other
than the training data's, and three splits: every row (``test``), rows whose character
never occurs in JieZi-Dataset (``unseen_characters``, 12.5% of the characters) and rows
whose (character, script) pair never occurs in it (``unseen_glyphs``, 25% of the images).

Here an image is eligible when its record grounds every one-per-image question under the
bench profile (:func:`builder.qa.questions.bench_eligible`). The selection (issue 12):

1. **Real ancient images, per script.** Traced glyphs (style ``tracing``: the Commons
   drawings of ``commons-ancient`` and ``commons-acc-png``, or a user's) whose (character,
   script) pair has no real scan: per script its quota of :data:`SCRIPT_QUOTAS` (near the
   paper's per-image mix), at most :data:`TRACED_BENCH_SHARE` of the script's eligible
   traced pairs, so the rest (and their augmented copies) stay in JieZi-Dataset and every
   script is trained; a bench tracing's pair is an unseen pair by construction. Only
   drawings the tracing audit found right are candidates (:func:`reviewed`);
   :func:`review_list` names the ones to review next. Scans (style ``scan``: Oracle-MNIST
   or a user's): :data:`SCANS_PER_RECORD` per eligible record, so every class is there;
   they count towards 甲骨文's quota. Other user images of an ancient script: one per
   eligible record. Images asked more questions come first (a seal drawing with its
   structure, component and formation questions before one without; of a record's
   drawings, one the form audit found drawn as Shuowen analyses the seal,
   :mod:`builder.qa.form_audit`, which is asked them too).
2. **Regular script, at most** :data:`MAX_MODERN_SHARE` **of the bench** (楷书 and 简体
   together), chosen first: its 简体 images carry the simplified components that keep the
   COME labels balanced once the seal drawings' retained ones come in; a build with no
   eligible ancient image falls back to regular script only, and says so.
3. **Balanced labels** (``builder.qa.bench_balance``), by stratified greedy selection towards :data:`TARGET_DISTRIBUTION`
   (the stated target shares of STRC and FORC labels; COME answers are balanced by
   preferring, within a stratum, images whose component labels are least like the
   current majority). The bench must keep a constant answer at or below
   :data:`CONSTANT_SCORE_CAPS` (SCRC, STRC, FORC 50, COME 60, strict scorer): where an
   image's label would push a majority further over its cap, that question is left out of
   the image (STRC, FORC, or the component question's evolution types:
   ``bench_balance.trimmed``, ``BenchImage.dropped``), not the image; the plan's
   ``stats["constant_majority"]`` states the shares the selection reached, and
   ``bench_balance.balance_report`` rescores the written rows with :mod:`metrics.acce`.

LXGW Seal renderings (either style) and augmented tracings are never bench images. The
shared component question is asked once per image; a second component question is added
for images whose record has at least two components, until the ratio reaches
:data:`COMPONENT_RATIO` (the paper's 1,852 / 1,024).

Unseen characters are drawn among bench characters that have no ancient-script record (so
the scarce ancient-script images stay in training); each withholds every image of that
character from JieZi-Dataset. Unseen (character, script) pairs are the bench tracings'
pairs, the unseen characters' pairs, the pairs whose only image is the bench image, and
further 楷书 / 简体 pairs drawn until :data:`UNSEEN_GLYPH_SHARE` of the images; each
withholds every image of that pair. Bench images are never in the dataset, nor is any
image with a bench image's pixels, made from a bench image (``derived_from``) or from the
same source file (``origin``: a bench tracing reaches JieZi-Dataset in no form).

A small build cannot fill every split: :func:`select` says so in ``plan.stats["warnings"]``
(the stage report carries them, ``jiezi build`` prints them and the card repeats them), and
an empty split is left out of the published bench (``builder/publish/write.py``).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from builder.glyphs.commons_acc_png import audit_verdict
from builder.qa.bench_balance import (
    CONSTANT_SCORE_CAPS,
    Candidate,
    TARGET_DISTRIBUTION,
    Tally,
    pick_stratified,
)
from builder.qa.facts import Facts
from builder.qa.questions import bench_eligible, bench_kinds
from builder.schema import GlyphImage, GlyphRecord
from hub.runfiles import RunFileError, read_results
from metrics.acce import labels as acce_labels

TARGET_IMAGES = 1024
# Bench images wanted per ancient script (issue 20), near the paper's per-image mix (篆书 342,
# 金文 252 of 1,024): 甲骨文 counts the Oracle-MNIST scans (SCANS_PER_RECORD per class) first.
# Regular script fills the rest up to MAX_MODERN_SHARE: its images carry every question, so
# with the early forms' structure questions (the form audit) the bench reaches the paper's
# 6,000-8,000 questions.
SCRIPT_QUOTAS: dict[str, int] = {"篆书": 330, "金文": 255, "甲骨文": 120, "战国文字": 90}
# At most this share of a script's eligible traced (character, script) pairs goes to the
# bench; the rest (and their augmented copies) stay in JieZi-Dataset, so every script trains.
TRACED_BENCH_SHARE = 0.75
SCANS_PER_RECORD = 4
MAX_MODERN_SHARE = 0.25
# ... and at least this share where the build has regular-script candidates (the paper's
# bench: 楷书 219 of 1,024 images, 21%)
MIN_MODERN_SHARE = 0.15
# The tracing audit reviews this many times each script's quota (``review_pool=True``), so
# that the drawings it rejects can be replaced from reviewed ones.
AUDIT_MARGIN = 1.4
UNSEEN_CHARACTER_SHARE = 0.125
UNSEEN_GLYPH_SHARE = 0.25
COMPONENT_RATIO = 1852 / 1024
# image styles that never make a bench image: a modern seal-style typeface (issue 12: its
# glyphs are no authority on the small seal) and augmented copies (training only)
NOT_BENCH_STYLES = frozenset({"seal-style-font", "modern-seal-style-font", "tracing-augmented"})


def _h(seed: int, *parts: str) -> str:
    return hashlib.sha256("|".join((str(seed),) + parts).encode("utf-8")).hexdigest()


@dataclass
class BenchImage:
    """One selected bench image and its split flags."""

    record_id: str
    image_id: str
    character: str
    script: str
    unseen_character: bool = False
    unseen_glyph: bool = False
    second_component: bool = False
    # questions left out of this image to keep a constant answer under its cap
    # (``bench_balance.trimmed``): "STRC", "FORC", "COME" (the component question is then
    # asked without evolution types, as COMP_ASPECT)
    dropped: list[str] = field(default_factory=list)


@dataclass
class BenchPlan:
    """The selection: bench images, split sets, and what JieZi-Dataset must withhold.

    ``withheld_images``: image ids kept out of JieZi-Dataset (bench images, every image of
    an unseen character or unseen pair, any image whose pixels equal a bench image's, and
    any image made from a bench image or its source file). ``reserved_characters``: every
    bench character (the dataset uses no Shuowen text for them). ``stats``: counts for the
    report.
    """

    images: list[BenchImage] = field(default_factory=list)
    unseen_characters: set[str] = field(default_factory=set)
    unseen_glyphs: set[tuple[str, str]] = field(default_factory=set)
    withheld_images: set[str] = field(default_factory=set)
    reserved_characters: set[str] = field(default_factory=set)
    stats: dict = field(default_factory=dict)
    review: list[dict] = field(default_factory=list)
    held_out: set[tuple[str, str]] = field(default_factory=set)

    def to_json(self) -> dict:
        """JSON-ready form (``bench_plan.json``)."""
        return {
            "images": [vars(b) for b in self.images],
            "unseen_characters": sorted(self.unseen_characters),
            "unseen_glyphs": sorted(f"{c}_{s}" for c, s in self.unseen_glyphs),
            "reserved_characters": sorted(self.reserved_characters),
            "withheld_images": len(self.withheld_images),
            "stats": self.stats,
        }


def labels_of(facts: Facts) -> tuple[str, str | None, str | None, tuple[str, ...] | None]:
    """``(scrc, strc, forc, come)`` answer labels of one record's bench rows, read the way
    :func:`builder.qa.wording.make_qa` writes them and :mod:`metrics.acce` scores them."""
    scrc = acce_labels.scoring_script(facts.script)
    strc = facts.structure[0] if facts.structure and "STRC" not in facts.missing else None
    forc = ("+".join(facts.formation[0].label_set())
            if facts.formation and "FORC" not in facts.missing else None)
    come = None
    if "COMP_FULL" not in facts.missing and facts.components:
        come = tuple(c.evolution_type or "" for c in facts.components)
    return scrc, strc, forc, come


def accepted_of(facts: Facts) -> dict[str, tuple[str, ...]]:
    """The further STRC and FORC labels the rows of ``facts`` accept (FORC label sets
    joined by "+"), as :func:`builder.qa.wording.make_qa` writes ``answer_struct["accepted"]``."""
    acc = getattr(facts, "accepted", {}) or {}
    return {"STRC": tuple(acc.get("STRC", ())), "FORC": tuple("+".join(x) for x in acc.get("FORC", ()))}


def reviewed(im: GlyphImage) -> bool:
    """Whether a tracing may be a bench image: a Wikimedia Commons drawing (``origin``
    ``commons:<title>``) only once the tracing audit found it right (every ``commons-ancient``
    SVG was reviewed: those left in are right; a ``commons-acc-png`` drawing needs the
    ``"ok"`` of :mod:`builder.glyphs.commons_acc_audit`). Other images need no review."""
    origin = im.origin or ""
    if im.style != "tracing" or not origin.startswith("commons:"):
        return True
    return im.source == "commons-ancient" or audit_verdict(origin[len("commons:"):]) == "ok"


def _is_bench_image(im: GlyphImage, review_pool: bool = False) -> bool:
    return (im.style not in NOT_BENCH_STYLES and not im.source.startswith("lxgw-seal")
            and (review_pool or reviewed(im)))


def candidates(records: list[GlyphRecord], bench_facts: dict[str, Facts], seed: int,
               review_pool: bool = False, image_facts: dict[str, Facts] | None = None) -> dict[str, list[Candidate]]:
    """The images the selection may take, by pool: ``tracing`` (one traced image per
    eligible record of an ancient script with no scan; only reviewed drawings, see
    :func:`reviewed`, unless ``review_pool``; the one asked most questions), ``scan`` (up
    to :data:`SCANS_PER_RECORD` scans per eligible record), ``ancient`` (one other image
    per eligible record of another ancient script) and ``modern`` (one image per eligible
    楷书 / 简体 record). ``image_facts``: image id -> the facts of that one image where they
    differ from its record's (an early-form drawing the form audit confirmed,
    :mod:`builder.qa.form_audit`). Each list is ordered by the number of questions the
    image can be asked, then richness, then a seeded hash."""
    image_facts = image_facts or {}
    pools: dict[str, list[Candidate]] = {"tracing": [], "scan": [], "ancient": [], "modern": []}
    for r in records:
        if not r.images or r.id not in bench_facts or not bench_eligible(bench_facts[r.id]):
            continue
        images = sorted((im for im in r.images if _is_bench_image(im, review_pool)), key=lambda im: _h(seed, im.id))
        if not images:
            continue

        def cand(im: GlyphImage) -> Candidate:
            facts = image_facts.get(im.id) or bench_facts[r.id]
            return Candidate(r, im, *labels_of(facts), facts.richness, bench_kinds(facts), accepted_of(facts),
                             aspect="COMP_ASPECT" not in facts.missing)

        scans = [im for im in images if im.style == "scan"]
        traced = sorted((cand(im) for im in images if im.style == "tracing"), key=lambda c: -c.kinds)
        if r.script in acce_labels.REGULAR_SCRIPTS:
            pools["modern"].append(cand(images[0]))
        elif scans:
            # the pair is trained from its other scans: a tracing of it stays in training
            pools["scan"].extend(cand(im) for im in scans[:SCANS_PER_RECORD])
        elif traced:
            pools["tracing"].append(traced[0])
        else:
            pools["ancient"].append(cand(images[0]))
    for pool in pools.values():
        pool.sort(key=lambda c: (-c.kinds, -c.richness, _h(seed, c.image.id)))
    return pools


def _quotas(pools: dict[str, list[Candidate]], cap: int, margin: float) -> tuple[dict[str, int], int, int]:
    """Per script the traced images wanted, the scans and the other ancient images:
    :data:`SCRIPT_QUOTAS` (x ``margin``; 甲骨文's quota counts the scans first), each at most
    :data:`TRACED_BENCH_SHARE` of the script's traced pairs (rounded up), all scaled down
    together when they exceed ``cap``."""
    traced = Counter(c.record.script for c in pools["tracing"])
    scans = Counter(c.record.script for c in pools["scan"])
    quotas = {}
    for script, n in traced.items():
        want = max(0, round(SCRIPT_QUOTAS.get(script, 0) * margin) - scans[script])
        quotas[script] = min(want, math.ceil(TRACED_BENCH_SHARE * n))
    n_scan, n_other = len(pools["scan"]), len(pools["ancient"])
    total = sum(quotas.values()) + n_scan + n_other
    scale = min(1.0, cap / total) if total else 1.0
    return ({s: math.floor(q * scale) for s, q in quotas.items()},
            math.floor(n_scan * scale), math.floor(n_other * scale))


def _pick_ancient(pools: dict[str, list[Candidate]], cap: int, tally: Tally,
                  taken_sha: set[str], margin: float = 1.0) -> tuple[list[Candidate], dict]:
    """The ancient part of the bench: per script its quota of traced pairs
    (:func:`_quotas`), the scans, one image per other ancient record. Returns the picks
    and the traced split shares per script (``{script: {"traced_pairs", "bench",
    "dataset", "bench_share"}}``)."""
    traced_by_script: dict[str, list[Candidate]] = defaultdict(list)
    for c in pools["tracing"]:
        traced_by_script[c.record.script].append(c)
    quotas, n_scan, n_other = _quotas(pools, cap, margin)
    picks: list[Candidate] = []
    shares = {}
    for script in sorted(traced_by_script):
        lst = traced_by_script[script]
        got = pick_stratified(lst, quotas[script], tally, taken_sha)
        picks += got
        shares[script] = {"traced_pairs": len(lst), "bench": len(got), "dataset": len(lst) - len(got),
                          "bench_share": round(len(got) / len(lst), 4)}
    # scans: every record's few scans, records round-robin so a cut keeps every class
    by_rec: dict[str, list[Candidate]] = defaultdict(list)
    for c in pools["scan"]:
        by_rec[c.record.id].append(c)
    for i in range(SCANS_PER_RECORD):
        for rid in sorted(by_rec):
            if i < len(by_rec[rid]) and n_scan > 0:
                got = pick_stratified([by_rec[rid][i]], 1, tally, taken_sha)
                picks += got
                n_scan -= len(got)
    picks += pick_stratified(pools["ancient"], n_other, tally, taken_sha)
    return picks, shares


def select(records: list[GlyphRecord], bench_facts: dict[str, Facts], *, seed: int = 0,
           target: int = TARGET_IMAGES, review_pool: bool = False,
           image_facts: dict[str, Facts] | None = None) -> BenchPlan:
    """Choose the bench images and splits (see the module docstring for the rules).

    ``records``: all records (their images are the candidates); ``bench_facts``: record id
    -> :class:`~builder.qa.facts.Facts` under the bench profile (records without an entry are
    not eligible); ``target``: the most images the bench may have (its size otherwise
    follows from the composition rules). ``review_pool``: select the drawings the tracing
    audit must review instead (unreviewed drawings allowed, each quota x
    :data:`AUDIT_MARGIN`). ``image_facts``: see :func:`candidates`. Deterministic for
    ``seed``. Raises nothing.
    """
    image_facts = image_facts or {}
    plan = BenchPlan()
    pools = candidates(records, bench_facts, seed, review_pool=review_pool, image_facts=image_facts)
    margin = AUDIT_MARGIN if review_pool else 1.0
    tally, taken_sha = Tally(), set()
    n_ancient_pool = len(pools["tracing"]) + len(pools["scan"]) + len(pools["ancient"])
    size = round(target * margin)
    # regular script keeps at least MIN_MODERN_SHARE where it has candidates (a small build
    # would otherwise be ancient only), so the ancient quotas are scaled into the rest
    cap = size - min(len(pools["modern"]), math.ceil(size * MIN_MODERN_SHARE))
    quotas, n_scan, n_other = _quotas(pools, cap, margin)
    planned = sum(quotas.values()) + n_scan + n_other
    if planned:
        n_modern = min(size - planned, math.floor(planned * MAX_MODERN_SHARE / (1 - MAX_MODERN_SHARE)))
    else:
        n_modern = target  # no ancient image at all: a regular-script bench (warned)
    # regular script first: its 简体 images bring the simplified components (COME 简化) that
    # let the seal drawings' mostly retained components (保留) in under the COME cap
    modern = pick_stratified(pools["modern"], max(0, n_modern), tally, taken_sha)
    ancient, traced_split = _pick_ancient(pools, cap, tally, taken_sha, margin)
    chosen = [(c.record, c.image) for c in ancient + modern]
    n_unseen_chars, n_char_pool = _splits(plan, records, chosen, seed)
    dropped = {c.image.id: list(c.dropped) for c in ancient + modern}
    for b in plan.images:
        b.dropped = dropped.get(b.image_id, [])
    n_components = _second_component(plan, bench_facts, image_facts, seed)
    plan.withheld_images = _withheld(plan, records, chosen)
    plan.stats = _stats(plan, target, pools, chosen, tally, traced_split, n_ancient_pool)
    n_second = plan.stats["second_component_questions"]
    plan.stats["component_questions_per_image"] = round((n_components + n_second) / max(1, len(chosen)), 3)
    plan.stats["warnings"] = _warnings(plan, target, pools, n_unseen_chars, n_char_pool)
    return plan


def review_list(records: list[GlyphRecord], bench_facts: dict[str, Facts], *, seed: int = 0,
                target: int = TARGET_IMAGES) -> list[dict]:
    """The drawings the tracing audit should review next: those a selection with every
    quota x :data:`AUDIT_MARGIN` would take (:func:`select` with ``review_pool=True``) that
    have no verdict yet, as ``{"title", "character", "script", "image_id", "path"}`` (path
    relative to the records folder), in selection order. Empty once every such drawing was
    reviewed; reviewing them lets rejected drawings be replaced from reviewed ones."""
    pool = select(records, bench_facts, seed=seed, target=target, review_pool=True)
    by_id = {im.id: im for r in records for im in r.images}
    out = []
    for b in pool.images:
        im = by_id[b.image_id]
        if not reviewed(im):
            out.append({"title": (im.origin or "")[len("commons:"):], "character": b.character,
                        "script": b.script, "image_id": im.id, "path": im.path})
    return out


def _splits(plan: BenchPlan, records: list[GlyphRecord], chosen: list[tuple[GlyphRecord, GlyphImage]],
            seed: int) -> tuple[int, int]:
    """Fill ``plan.images`` (without the second-component flag), the unseen characters
    and the unseen pairs. Returns (unseen characters wanted, candidates for them)."""
    bench_chars = {r.character for r, _ in chosen}
    plan.reserved_characters = set(bench_chars)
    records_by_char: dict[str, list[GlyphRecord]] = defaultdict(list)
    used_elsewhere: Counter = Counter()
    for r in records:
        records_by_char[r.character].append(r)
        used_elsewhere.update(c.name for c in r.components if c.name != r.character)
        used_elsewhere.update(v.form for v in r.variants if v.form != r.character)
    # unseen characters: bench characters without ancient-script records, preferring those
    # fewest other records name as a component or variant (each such mention drops a
    # JieZi-Dataset answer: an unseen 马 would take every 马 component answer with it)
    n_unseen_chars = round(len(bench_chars) * UNSEEN_CHARACTER_SHARE)
    pool = sorted((c for c in bench_chars
                   if not any(r.script in acce_labels.ANCIENT_SCRIPTS for r in records_by_char[c])),
                  key=lambda c: (used_elsewhere[c], _h(seed, "unseen-char", c)))
    plan.unseen_characters = set(pool[:n_unseen_chars])
    # unseen pairs: bench tracings' pairs, unseen characters' pairs, single-image pairs, drawn pairs
    pairs_in_bench = Counter((r.character, r.script) for r, _ in chosen)
    bench_ids = {im.id for _, im in chosen}
    for r, im in chosen:
        if (im.style == "tracing" or r.character in plan.unseen_characters
                or all(x.id in bench_ids for x in r.images if x.style != "tracing-augmented")):
            plan.unseen_glyphs.add((r.character, r.script))
    n_unseen = sum(pairs_in_bench[p] for p in plan.unseen_glyphs)
    drawable = sorted((k for k in pairs_in_bench if k not in plan.unseen_glyphs and k[1] in acce_labels.REGULAR_SCRIPTS),
                      key=lambda k: _h(seed, "unseen-glyph", *k))
    for k in drawable:
        if n_unseen >= math.ceil(len(chosen) * UNSEEN_GLYPH_SHARE):
            break
        plan.unseen_glyphs.add(k)
        n_unseen += pairs_in_bench[k]
    for r, im in chosen:
        plan.images.append(BenchImage(
            record_id=r.id, image_id=im.id, character=r.character, script=r.script,
            unseen_character=r.character in plan.unseen_characters,
            unseen_glyph=(r.character, r.script) in plan.unseen_glyphs))
    return n_unseen_chars, len(pool)


def _second_component(plan: BenchPlan, bench_facts: dict[str, Facts], image_facts: dict[str, Facts],
                      seed: int) -> int:
    """Flag images for the second component question, so that the bench has about
    :data:`COMPONENT_RATIO` component questions per image where its images allow (an
    image without the shared component question, e.g. an early form no source analyses,
    gets none; one whose evolution types the selection left out asks its component
    question once, without them). Returns the number of first component questions."""
    def facts(b: BenchImage) -> Facts:
        return image_facts.get(b.image_id) or bench_facts[b.record_id]

    def full(b: BenchImage) -> bool:
        return "COMP_FULL" not in facts(b).missing and "COME" not in b.dropped

    def aspect(b: BenchImage) -> bool:
        return "COMP_ASPECT" not in facts(b).missing

    n_first = sum(1 for b in plan.images if full(b) or aspect(b))
    n_second = max(0, round(len(plan.images) * COMPONENT_RATIO) - n_first)
    ok = sorted((b.image_id for b in plan.images if full(b) and aspect(b)), key=lambda i: _h(seed, "second", i))
    second = set(ok[:n_second])
    for b in plan.images:
        b.second_component = b.image_id in second
    return n_first


def _withheld(plan: BenchPlan, records: list[GlyphRecord], chosen) -> set[str]:
    """Image ids JieZi-Dataset must not have: bench images; every image of an unseen
    character or pair; any image with a bench image's pixels, made from a bench image
    (``derived_from``) or from a bench image's source file (``origin``)."""
    withheld = {im.id for _, im in chosen}
    bench_sha = {im.sha256 for _, im in chosen}
    bench_origins = {im.origin for _, im in chosen if im.origin}
    for r in records:
        whole = r.character in plan.unseen_characters or (r.character, r.script) in plan.unseen_glyphs
        for im in r.images:
            if (whole or im.sha256 in bench_sha or im.derived_from in withheld
                    or (im.origin is not None and im.origin in bench_origins)):
                withheld.add(im.id)
    return withheld


def source_tracing_leakage(plan: BenchPlan, records: list[GlyphRecord], dataset_image_ids: set[str]) -> dict:
    """The leakage counts of the source-tracing rule, for the stage report: JieZi-Dataset
    images made from a bench image (``derived_from``) or from a bench image's source file
    (``origin``), and JieZi-Dataset images of a bench tracing's (character, script) pair.
    All must be 0."""
    bench_ids = {b.image_id for b in plan.images}
    images = {im.id: (r, im) for r in records for im in r.images}
    bench = [images[i][1] for i in bench_ids if i in images]
    origins = {im.origin for im in bench if im.origin}
    traced_pairs = {(images[i][0].character, images[i][0].script) for i in bench_ids
                    if i in images and images[i][1].style == "tracing"}
    in_ds = [images[i] for i in dataset_image_ids if i in images]
    return {
        "dataset_images_derived_from_a_bench_image": sum(im.derived_from in bench_ids for _, im in in_ds),
        "dataset_images_from_a_bench_source_file": sum(bool(im.origin) and im.origin in origins for _, im in in_ds),
        "dataset_images_of_a_bench_tracing_pair": sum((r.character, r.script) in traced_pairs for r, _ in in_ds),
    }


def _stats(plan: BenchPlan, target: int, pools, chosen, tally: Tally, traced_split: dict,
           n_ancient_pool: int) -> dict:
    """The selection's counts for the report (``bench.selection``)."""
    n = len(plan.images)
    by_script = Counter(b.script for b in plan.images)
    modern = sum(by_script[s] for s in acce_labels.REGULAR_SCRIPTS)
    n_traced = sum(v["traced_pairs"] for v in traced_split.values())
    return {
        "requested_images": target,
        "eligible_by_pool": {k: len(v) for k, v in pools.items()},
        "eligible_records": len({c.record.id for v in pools.values() for c in v}),
        "images": n,
        "characters": len(plan.reserved_characters),
        "by_script": dict(sorted(by_script.items())),
        "by_style": dict(sorted(Counter(im.style for _, im in chosen).items())),
        "by_source": dict(sorted(Counter(im.source.split(":", 1)[0] for _, im in chosen).items())),
        "modern_share": round(modern / max(1, n), 4),
        "max_modern_share": MAX_MODERN_SHARE,
        "traced_split": traced_split,
        "traced_bench_share": round(sum(v["bench"] for v in traced_split.values()) / max(1, n_traced), 4),
        "scan_classes": len({r.character for r, im in chosen if im.style == "scan"}),
        "label_distributions": {k: dict(c.most_common()) for k, c in tally.counts.items()},
        "come_label_share": {k: round(v / max(1, tally.come_questions), 4) for k, v in tally.come_share.most_common()},
        "constant_majority": tally.majority(),
        "target_distribution": TARGET_DISTRIBUTION,
        "constant_score_caps": CONSTANT_SCORE_CAPS,
        "unseen_characters": len(plan.unseen_characters),
        "unseen_character_share": round(len(plan.unseen_characters) / max(1, len(plan.reserved_characters)), 4),
        "unseen_glyph_images": sum(b.unseen_glyph for b in plan.images),
        "unseen_glyph_share": round(sum(b.unseen_glyph for b in plan.images) / max(1, n), 4),
        "second_component_questions": sum(b.second_component for b in plan.images),
        "component_questions_per_image": round((n + sum(b.second_component for b in plan.images)) / max(1, n), 3),
        "withheld_images": len(plan.withheld_images),
        "ancient_pool": n_ancient_pool,
    }


def _warnings(plan: BenchPlan, target: int, pools: dict[str, list[Candidate]],
              n_unseen_chars: int, n_candidates: int) -> list[str]:
    """Plain-language warnings about a bench smaller than requested, without ancient
    images, over a constant-answer cap, or with empty splits."""
    out: list[str] = []
    n = len(plan.images)
    eligible = ", ".join(f"{k} {len(v)}" for k, v in pools.items()) or "none"
    if n == 0:
        out.append(f"JieZi-Bench is empty: no record is eligible (each needs every one-per-image question "
                   f"answerable from agreeing bench sources); requested {target} images")
        return out
    if n < target:
        out.append(f"JieZi-Bench has {n} images, fewer than the {target} requested (--bench-size): its size "
                   f"follows from the real ancient images (eligible candidates by pool: {eligible}), with regular "
                   f"script at most {MAX_MODERN_SHARE:.0%} of the bench; build over more characters or add "
                   f"ancient-script images for a larger bench")
    if not (pools["tracing"] or pools["scan"] or pools["ancient"]):
        out.append("JieZi-Bench has no ancient-script image: no eligible tracing or scan; it is regular script only")
    for k, v in plan.stats.get("constant_majority", {}).items():
        if v["score"] > CONSTANT_SCORE_CAPS[k]:
            out.append(f"a constant {k} answer ({v['label']}) scores {v['score']}, above the cap of "
                       f"{CONSTANT_SCORE_CAPS[k]:.0f}: the eligible labels are too skewed to balance")
    if not plan.unseen_characters:
        why = (f"{len(plan.reserved_characters)} bench characters x {UNSEEN_CHARACTER_SHARE:.1%} rounds to 0"
               if n_unseen_chars == 0
               else "every bench character has an ancient-script record, which stays in training"
               if n_candidates == 0 else "no candidate")
        out.append(f"split unseen_characters is empty ({why}); it is left out of the published bench")
    if not plan.unseen_glyphs:
        out.append("split unseen_glyphs is empty; it is left out of the published bench")
    return out


def baseline_results(out_dir) -> dict:
    """Per-script scores of the baseline runs of ``jiezi eval`` saved in a build folder:
    every ``OUT/eval/<name>/results.json`` (format ``jiezi-eval-results/1``) whose model is
    a baseline (``retrieval``) and that scored the ``all`` config's ``test`` split. Returns
    ``{name: {"spec", "rows", "metrics": [metric keys], "overall": {metric: 0..100 | None},
    "by_script": {script: {metric: 0..100 | None}}}}`` (``{}`` when there is none; a file
    that is not a valid results.json, ``hub.runfiles.Results``, is left out). Read only: the
    runs are the harness's output."""
    out: dict[str, dict] = {}
    for path in sorted(Path(out_dir).glob("eval/*/results.json")):
        try:
            res = read_results(path)
        except RunFileError:
            continue
        spec = str((res.get("model") or {}).get("spec", ""))
        bench = res.get("bench") or {}
        if spec != "retrieval" or bench.get("config", "all") != "all" or bench.get("split", "test") != "test":
            continue
        scores = res.get("scores") if isinstance(res.get("scores"), dict) else res
        # results.json keeps the breakdown beside the scores (older files: inside them)
        by_script = (res.get("breakdown") or scores.get("breakdown") or {}).get("script") or {}
        metrics = [m for m in acce_labels.METRICS if scores.get(m) is not None]
        out[path.parent.name] = {
            "spec": spec, "rows": bench.get("rows"), "metrics": metrics,
            "overall": {m: scores.get(m) for m in metrics},
            "by_script": {s: {m: cells.get(m) for m in metrics} for s, cells in sorted(by_script.items())},
        }
    return out
