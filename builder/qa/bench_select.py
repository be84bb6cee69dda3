"""JieZi-Bench selection and generalisation splits.

The paper's bench (ACCE.md section 3): 1,024 glyph images, one CHAR, SCRC, STRC, FORC,
ORIM and EVOI question per image plus the shared component question (1,852 for 1,024
images, about 1.8 per image), references from dictionaries other than the training
data's, only entries whose explanations are rich and mutually confirming, and three
splits: every row (``test``), rows whose character never occurs in JieZi-Dataset
(``unseen_characters``, 12.5% of the characters) and rows whose (character, script) pair
never occurs in it (``unseen_glyphs``, 25% of the images).

Here: an image is eligible when its record grounds every one-per-image question under
the bench profile (:func:`builder.qa.compose.bench_eligible`: Shuowen + Duan + Unihan references
confirmed by an independent source). Eligible records are ranked by richness (length of
the Shuowen/Duan entry, variants, evolution statements, components) and taken per script
up to a quota, so the bench spreads over the scripts the build has images for:
甲骨文 (scans, several images per character, at most :data:`OBI_SHARE` of the bench),
篆书 (seal-style font renderings, at most :data:`SEAL_SHARE`), the rest 楷书 / 简体
(one font rendering per record).

The shared component question is asked once per image; a second component question
(components with function and interpretation, scored on COMR/COMF/COMI) is added for
images whose record has at least two components, until the ratio reaches
:data:`COMPONENT_RATIO` (the paper's 1,852 / 1,024), so the component metrics average
over about 1.8 questions per image as in the paper.

Unseen characters are drawn among bench characters that have no 甲骨文 / 篆书 record (so
the scarce ancient-script images stay in training); each withholds every image of that
character from JieZi-Dataset. Unseen (character, script) pairs are the unseen characters'
pairs, the pairs whose only image is the bench image (e.g. a character's single seal
rendering), and further 楷书 / 简体 pairs drawn until :data:`UNSEEN_GLYPH_SHARE` of the
images; each withholds every image of that pair. Bench images are never in the dataset.

A small build (a few ``--characters``, or few eligible records) cannot fill the requested
size or every split: :func:`select` says so in ``plan.stats["warnings"]`` (the stage
report carries them, ``jiezi build`` prints them and the card repeats them), and an empty
split is left out of the published bench (``builder/publish/write.py``).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from builder.qa.compose import Facts, bench_eligible
from builder.schema import GlyphImage, GlyphRecord

TARGET_IMAGES = 1024
OBI_SHARE = 0.08
SEAL_SHARE = 0.125
MAX_OBI_PER_CHARACTER = 12
UNSEEN_CHARACTER_SHARE = 0.125
UNSEEN_GLYPH_SHARE = 0.25
COMPONENT_RATIO = 1852 / 1024
ANCIENT_SCRIPTS = ("甲骨文", "金文", "战国文字", "篆书", "隶书", "草书")


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


@dataclass
class BenchPlan:
    """The selection: bench images, split sets, and what JieZi-Dataset must withhold.

    ``withheld_images``: image ids kept out of JieZi-Dataset (bench images, every image of
    an unseen character or unseen pair, and any image whose pixels equal a bench image's).
    ``reserved_characters``: every bench character (the dataset uses no Shuowen text for
    them). ``stats``: counts for the report.
    """

    images: list[BenchImage] = field(default_factory=list)
    unseen_characters: set[str] = field(default_factory=set)
    unseen_glyphs: set[tuple[str, str]] = field(default_factory=set)
    withheld_images: set[str] = field(default_factory=set)
    reserved_characters: set[str] = field(default_factory=set)
    stats: dict = field(default_factory=dict)

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


def select(records: list[GlyphRecord], bench_facts: dict[str, Facts], *, seed: int = 0,
           target: int = TARGET_IMAGES) -> BenchPlan:
    """Choose the bench images and splits.

    ``records``: all records (their images are the candidates); ``bench_facts``: record id
    -> :class:`~builder.qa.compose.Facts` under the bench profile (records without an entry are
    not eligible). Deterministic for ``seed``. When fewer eligible images exist than
    ``target`` the bench is smaller (the report says so). Raises nothing.
    """
    plan = BenchPlan()
    by_id = {r.id: r for r in records}
    eligible = [r for r in records if r.images and r.id in bench_facts and bench_eligible(bench_facts[r.id])]
    by_script: dict[str, list[GlyphRecord]] = defaultdict(list)
    for r in eligible:
        by_script[r.script].append(r)
    for lst in by_script.values():
        lst.sort(key=lambda r: (-bench_facts[r.id].richness, _h(seed, r.id)))

    chosen: list[tuple[GlyphRecord, GlyphImage]] = []
    # identical pixels under two code points (a seal font drawing 鳴 and 鸣 alike) would
    # make two bench items of one image: an image whose pixels are taken is skipped
    seen_sha: set[str] = set()

    def take(r: GlyphRecord, im: GlyphImage) -> bool:
        if im.sha256 in seen_sha:
            return False
        seen_sha.add(im.sha256)
        chosen.append((r, im))
        return True

    def first_image(r: GlyphRecord) -> GlyphImage:
        return min(r.images, key=lambda im: _h(seed, im.id))

    # 甲骨文: several scans per character, characters round-robin by richness
    obi = by_script.get("甲骨文", [])
    obi_quota = min(int(target * OBI_SHARE), sum(min(len(r.images), MAX_OBI_PER_CHARACTER) for r in obi))
    per = {r.id: sorted(r.images, key=lambda im: _h(seed, im.id))[:MAX_OBI_PER_CHARACTER] for r in obi}
    n_obi, i = 0, 0
    while n_obi < obi_quota and any(i < len(v) for v in per.values()):
        for r in obi:
            if i < len(per[r.id]) and n_obi < obi_quota:
                n_obi += take(r, per[r.id][i])
        i += 1
    # the other ancient scripts (篆书 and any user-supplied ones): one image per record
    for script in ANCIENT_SCRIPTS[1:]:
        quota = int(target * SEAL_SHARE) if script == "篆书" else int(target * SEAL_SHARE / 2)
        n = 0
        for r in by_script.get(script, []):
            if n >= quota:
                break
            n += take(r, first_image(r))
    # regular script and simplified: the rest, richest first, in proportion to what is eligible
    rest = target - len(chosen)
    modern = [by_script.get("楷书", []), by_script.get("简体", [])]
    modern_total = sum(len(x) for x in modern)
    if modern_total:
        first = round(rest * len(modern[0]) / modern_total)
        quotas = [first, rest - first]
        for lst, q in zip(modern, quotas):
            n = 0
            for r in lst:
                if n >= q:
                    break
                n += take(r, first_image(r))
    chosen = chosen[:target]

    bench_chars = {r.character for r, _ in chosen}
    plan.reserved_characters = set(bench_chars)
    records_by_char: dict[str, list[GlyphRecord]] = defaultdict(list)
    for r in records:
        records_by_char[r.character].append(r)

    # unseen characters: bench characters without ancient-script records, preferring
    # those no other record names as a component or variant (so they do not surface in
    # training answers either)
    used_elsewhere: Counter = Counter()
    for r in records:
        for c in r.components:
            if c.name != r.character:
                used_elsewhere[c.name] += 1
        for v in r.variants:
            if v.form != r.character:
                used_elsewhere[v.form] += 1
    n_unseen_chars = round(len(bench_chars) * UNSEEN_CHARACTER_SHARE)
    candidates = sorted(
        (c for c in bench_chars if not any(r.script in ANCIENT_SCRIPTS for r in records_by_char[c])),
        key=lambda c: (used_elsewhere[c] > 0, _h(seed, "unseen-char", c)))
    plan.unseen_characters = set(candidates[:n_unseen_chars])

    # unseen pairs: those of unseen characters, single-image pairs, then drawn pairs
    pairs_in_bench = Counter((r.character, r.script) for r, _ in chosen)
    bench_image_ids = {im.id for _, im in chosen}
    for r, im in chosen:
        key = (r.character, r.script)
        if r.character in plan.unseen_characters:
            plan.unseen_glyphs.add(key)
        elif all(x.id in bench_image_ids for x in r.images):
            plan.unseen_glyphs.add(key)
    n_target = math.ceil(len(chosen) * UNSEEN_GLYPH_SHARE)
    drawable = sorted(
        (k for k in pairs_in_bench if k not in plan.unseen_glyphs and k[1] in ("楷书", "简体")),
        key=lambda k: _h(seed, "unseen-glyph", *k))
    n_unseen = sum(pairs_in_bench[p] for p in plan.unseen_glyphs)
    for k in drawable:
        if n_unseen >= n_target:
            break
        plan.unseen_glyphs.add(k)
        n_unseen += pairs_in_bench[k]

    # the second component question, ~COMPONENT_RATIO per image
    n_second = round(len(chosen) * (COMPONENT_RATIO - 1))
    second_ok = sorted((im.id for r, im in chosen if "COMP_ASPECT" not in bench_facts[r.id].missing),
                       key=lambda i: _h(seed, "second", i))
    second = set(second_ok[:n_second])

    for r, im in chosen:
        plan.images.append(BenchImage(
            record_id=r.id, image_id=im.id, character=r.character, script=r.script,
            unseen_character=r.character in plan.unseen_characters,
            unseen_glyph=(r.character, r.script) in plan.unseen_glyphs,
            second_component=im.id in second))

    # withheld from the dataset
    withheld = set(bench_image_ids)
    bench_sha = {im.sha256 for _, im in chosen}
    for r in records:
        if r.character in plan.unseen_characters or (r.character, r.script) in plan.unseen_glyphs:
            withheld.update(im.id for im in r.images)
        else:
            withheld.update(im.id for im in r.images if im.sha256 in bench_sha)
    plan.withheld_images = withheld

    n = len(plan.images)
    plan.stats = {
        "requested_images": target,
        "eligible_records": len(eligible),
        "eligible_by_script": {s: len(v) for s, v in sorted(by_script.items())},
        "images": n,
        "characters": len(bench_chars),
        "by_script": dict(sorted(Counter(b.script for b in plan.images).items())),
        "unseen_characters": len(plan.unseen_characters),
        "unseen_character_share": round(len(plan.unseen_characters) / max(1, len(bench_chars)), 4),
        "unseen_glyph_images": sum(b.unseen_glyph for b in plan.images),
        "unseen_glyph_share": round(sum(b.unseen_glyph for b in plan.images) / max(1, n), 4),
        "second_component_questions": len(second),
        "component_questions_per_image": round((n + len(second)) / max(1, n), 3),
        "withheld_images": len(withheld),
        "records_considered": len(by_id),
    }
    plan.stats["warnings"] = _warnings(plan, target, by_script, n_unseen_chars, len(candidates))
    return plan


def _warnings(plan: BenchPlan, target: int, by_script: dict[str, list[GlyphRecord]],
              n_unseen_chars: int, n_candidates: int) -> list[str]:
    """Plain-language warnings about a bench smaller than requested or with empty splits."""
    out: list[str] = []
    n = len(plan.images)
    eligible = ", ".join(f"{s} {len(v)}" for s, v in sorted(by_script.items())) or "none"
    if n == 0:
        out.append(f"JieZi-Bench is empty: no record is eligible (each needs every one-per-image question "
                   f"answerable from agreeing bench sources); requested {target} images")
        return out
    if n < target:
        out.append(f"JieZi-Bench has {n} images, fewer than the {target} requested (--bench-size): "
                   f"{sum(len(v) for v in by_script.values())} records are eligible (by script: {eligible}) and "
                   f"the ancient scripts are capped (甲骨文 {OBI_SHARE:.0%}, 篆书 {SEAL_SHARE:.1%}, each other "
                   f"{SEAL_SHARE / 2:.2%} of the requested size); build over more characters for a larger bench")
    if not plan.unseen_characters:
        why = (f"{len(plan.reserved_characters)} bench characters x {UNSEEN_CHARACTER_SHARE:.1%} rounds to 0"
               if n_unseen_chars == 0
               else "every bench character has an ancient-script record, which stays in training"
               if n_candidates == 0 else "no candidate")
        out.append(f"split unseen_characters is empty ({why}); it is left out of the published bench")
    if not plan.unseen_glyphs:
        out.append("split unseen_glyphs is empty; it is left out of the published bench")
    return out
