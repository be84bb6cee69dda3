"""The QA stage's report (``qa/report.json``): the dataset and bench sections, and the EVOI
template-diversity figures (:func:`template_diversity`), from what :mod:`builder.qa.stage`
gathered while writing ``qa/dataset.jsonl`` (:class:`DatasetOut`) and the bench selection.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field


@dataclass
class DatasetOut:
    """Counts and sets gathered while writing ``qa/dataset.jsonl``."""

    stats: Counter = field(default_factory=Counter)
    by_kind: Counter = field(default_factory=Counter)
    by_level: Counter = field(default_factory=Counter)
    by_script_images: Counter = field(default_factory=Counter)
    chars: set = field(default_factory=set)
    pairs: set = field(default_factory=set)
    components: set = field(default_factory=set)
    # (form, component): the components the dataset's answers name on images of each form
    # (compose.glyph_form: "seal" for 篆书, "modern" for 楷书 / 简体 ...)
    form_components: set = field(default_factory=set)
    gallery: list = field(default_factory=list)
    polished: Counter = field(default_factory=Counter)
    evoi: list = field(default_factory=list)
    n_images: int = 0
    n_pairs: int = 0
    mentions: int = 0  # answers whose text names an unseen character (as a component, a variant...)


def dataset_report(ds: DatasetOut, n_records: int, polisher) -> dict:
    """The ``dataset`` section of ``qa/report.json``: counts (images, QA pairs, characters,
    records), per kind / subtask / level / script, what was not asked and why, and the EVOI
    template diversity (:func:`template_diversity`). ``polish`` is None without a polisher."""
    stats = ds.stats
    return {
        "qa_pairs": ds.n_pairs, "images": ds.n_images, "characters": len(ds.chars),
        "records": n_records,
        "qa_per_image": round(ds.n_pairs / max(1, ds.n_images), 3),
        "by_kind": dict(sorted(ds.by_kind.items())),
        "by_subtask": by_subtask(ds.by_kind),
        "by_level": dict(sorted(ds.by_level.items())),
        "by_script_images": dict(sorted(ds.by_script_images.items())),
        "components": len(ds.components),
        "not_asked": {k: v for k, v in sorted(stats.items()) if k.startswith("missing:")},
        "images_missing_level": {k.split(":", 1)[1]: v for k, v in sorted(stats.items())
                                 if k.startswith("images_missing_level:")},
        "images_below_min_pairs": stats["images_below_min"],
        "duplicate_images_removed": stats["duplicate_images_removed"],
        "images_without_qa": stats["images_without_qa"],
        "qa_dropped_naming_unseen_character": stats["qa_dropped_naming_unseen_character"],
        "qa_dropped_naming_held_out_component": stats["qa_dropped_naming_held_out_component"],
        "early_form_l2": {"images": stats["early_form_images_without_l2"],
                          "kinds_not_asked": stats["early_form_l2_kinds_dropped"]},
        "evoi_templates": template_diversity(ds.evoi),
        "polish": dict(ds.polished) if polisher else None,
    }


def script_table(plan, bench_rows: list[dict]) -> dict:
    """Per script: images asked an L2 question, L2 questions, and the shares (0..1) of its
    images in the unseen-pair and unseen-character splits."""
    out = {}
    for script in sorted({b.script for b in plan.images}):
        imgs = [b for b in plan.images if b.script == script]
        l2 = [r for r in bench_rows if r["script"] == script and r["level"] == "L2"]
        out[script] = {"images": len(imgs), "l2_images": len({r["image_id"] for r in l2}), "l2_questions": len(l2),
                       "unseen_glyph_share": round(sum(b.unseen_glyph for b in imgs) / len(imgs), 4),
                       "unseen_character_share": round(sum(b.unseen_character for b in imgs) / len(imgs), 4)}
    return out


def bench_report(plan, bench_rows: list[dict], bench_comp: set, ds: DatasetOut, early: Counter) -> dict:
    """The ``bench`` section of ``qa/report.json``: questions and images per subtask, kind and
    script (:func:`script_table`), the unseen splits, the shares (0..1) of (form, component)
    pairs no dataset answer names, and the selection's own statistics (``plan.stats``).
    ``bench_comp``: the bench's (form, component) pairs; ``early``: early-form L2 kinds not asked."""
    by_subtask_bench = Counter(r["subtask"] for r in bench_rows)
    by_kind_bench = Counter(r["kind"] for r in bench_rows)
    return {
        "questions": len(bench_rows), "images": len(plan.images),
        "characters": len({b.character for b in plan.images}),
        "by_subtask": dict(sorted(by_subtask_bench.items())),
        "by_kind": dict(sorted(by_kind_bench.items())),
        "by_script": plan.stats["by_script"],
        "by_script_questions": dict(sorted(Counter(r["script"] for r in bench_rows).items())),
        "script_table": script_table(plan, bench_rows),
        "splits": {
            "test": len(bench_rows),
            "unseen_characters": sum(r["unseen_character"] for r in bench_rows),
            "unseen_glyphs": sum(r["unseen_glyph"] for r in bench_rows),
        },
        "split_images": {
            "unseen_characters": sum(b.unseen_character for b in plan.images),
            "unseen_glyphs": sum(b.unseen_glyph for b in plan.images),
        },
        "unseen_character_share": plan.stats["unseen_character_share"],
        "unseen_glyph_share": plan.stats["unseen_glyph_share"],
        # (form, component) pairs of the bench no dataset answer on that form names, and the
        # components no dataset answer names at all, on any form
        "unseen_component_share": round(len(bench_comp - ds.form_components) / max(1, len(bench_comp)), 4),
        "unseen_component_share_any_form": round(
            len({c for _, c in bench_comp} - ds.components) / max(1, len({c for _, c in bench_comp})), 4),
        "unseen_component_share_by_form": {
            f: round(len({x for x in bench_comp if x[0] == f} - ds.form_components)
                     / max(1, len({x for x in bench_comp if x[0] == f})), 4)
            for f in sorted({f for f, _ in bench_comp})},
        "component_questions_per_image": plan.stats["component_questions_per_image"],
        "early_form_l2_not_asked": dict(sorted(early.items())),
        "evoi_templates": template_diversity([r["answer"] for r in bench_rows if r["subtask"] == "EVOI"]),
        "selection": plan.stats,
    }


# Stage words an EVOI reference may name (dictionary order); a reference "names two or
# more stages" when two of these groups occur in it.
STAGE_WORDS: dict[str, tuple[str, ...]] = {
    "甲骨文": ("甲骨",), "金文": ("金文",), "古文": ("古文",), "籒文": ("籒文", "籀文"),
    "篆书": ("小篆", "篆文"), "隶书": ("隶书", "隸"), "俗字": ("俗字",), "今字形": ("今字", "今规范字", "今简化字", "今字形"),
    "简化": ("简化", "繁体"),
}
_SLOT = re.compile(r"「[^」]*」")


def template_diversity(texts: list[str]) -> dict:
    """Template diversity of EVOI references: ``skeletons`` (distinct texts once every 「」
    slot is blanked), ``top_skeleton_share`` (share of the most common skeleton),
    ``mean_length`` (characters), ``two_or_more_stages`` (share naming at least two of the
    stages of :data:`STAGE_WORDS`), ``by_stage`` (share naming each). Zeros for no texts."""
    if not texts:
        return {"references": 0, "skeletons": 0, "top_skeleton_share": 0.0, "mean_length": 0.0,
                "two_or_more_stages": 0.0}
    skeletons = Counter(_SLOT.sub("「」", t) for t in texts)
    named = [{s for s, words in STAGE_WORDS.items() if any(w in t for w in words)} for t in texts]
    return {
        "references": len(texts),
        "skeletons": len(skeletons),
        "top_skeleton_share": round(skeletons.most_common(1)[0][1] / len(texts), 4),
        "mean_length": round(sum(len(t) for t in texts) / len(texts), 1),
        "two_or_more_stages": round(sum(len(n) >= 2 for n in named) / len(texts), 4),
        # share of references naming each stage (the early ones are what the seal-only
        # narratives lacked)
        "by_stage": {s: round(sum(s in n for n in named) / len(texts), 4) for s in STAGE_WORDS},
    }


def by_subtask(by_kind: Counter) -> dict:
    """Counts per kind summed per subtask (``hub.templates.KINDS``), sorted by subtask."""
    from hub.templates import KINDS

    out: Counter = Counter()
    for kind, n in by_kind.items():
        out[KINDS[kind][0]] += n
    return dict(sorted(out.items()))
