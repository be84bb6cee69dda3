"""Stage 3 runner: ``OUT/records`` -> ``OUT/qa`` (JieZi-Dataset QA turns, JieZi-Bench rows).

Files written (each to a temporary name, then renamed, so a crash never leaves a file
that looks complete):

- ``qa/dataset.jsonl``: one line per glyph image of JieZi-Dataset:
  ``{"id", "image", "record_id", "character", "script", "qa": [QA dicts]}`` (``image`` is
  relative to ``OUT/records``; QA dicts are :meth:`builder.qa.facts.QA.to_dict` with
  ``provenance`` and ``answer_struct`` stored pre-serialised as ``provenance_json`` and
  ``answer_struct_json``).
- ``qa/bench.jsonl``: one line per JieZi-Bench question (the columns of ARCHITECTURE.md
  plus ``kind``, ``record_id``, ``question_en``, ``answer_en``, ``fields``, ``template``).
- ``qa/records_gallery.jsonl``: one line per image of the ``records`` config (image id and
  path, record id, character, script) and ``qa/gallery_records.jsonl`` the GlyphRecord JSON
  of each of those records (bench characters stripped of bench-source text, see
  :func:`builder.qa.gallery.gallery_record`).
- ``qa/bench_plan.json``: the bench selection (:class:`builder.qa.bench_select.BenchPlan`).
- ``qa/report.json``: counts (see :func:`build_qa`); ``qa/skipped.jsonl``: bad input lines.
- ``qa/fingerprint.json``: what the outputs were made from; a rerun with the same
  records, options, audit decisions and code returns the cached report at once.

Audit decisions (``OUT/audit/decisions.jsonl``, written by ``jiezi audit ingest``) are
applied here (``builder.qa.decisions``): rejected record fields are removed before QA generation, corrected ones
replaced; rejected QA pairs / bench rows are dropped, corrected ones rewritten.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Callable

from tqdm.auto import tqdm

from builder.codekey import code_digest
from builder.qa import bench_balance, form_audit
from builder.qa import bench_select as bench_mod
from builder.qa import part_glosses, script_neutral, soundgloss
from builder.qa.component_names import canonical_component
from builder.qa.compose import facts_for, glyph_form
from builder.qa.decisions import _apply_qa_decision, apply_record_decisions, load_decisions
from builder.qa.evidence import EvidenceIndex, ModernForms, cjkvi_links, strip_inherited
from builder.qa.facts import BENCH, DATASET
from builder.qa.gallery import gallery_record
from builder.qa.questions import bench_qa, dataset_qa, l2_dropped
from builder.qa.stage_report import DatasetOut, bench_report, dataset_report
from builder.qa.wording import image_missing
from builder.qa.unseen_components import held_out, names_held_out
from builder.schema import GlyphRecord
from builder.sources import registry
from builder.sources.adapters import shuowen
from hub.atomic import atomic_open, atomic_path
from hub.skips import SkipLog
from metrics.acce import labels
from metrics.acce.variants import read_variants

STAGE_VERSION = "1"


class QAStageError(RuntimeError):
    """The stage cannot run at all (missing records file)."""


def _atomic_write(path: Path, write: Callable) -> None:
    """Call ``write(fh)`` on a text file (UTF-8) that becomes ``path`` atomically."""
    with atomic_open(path) as fh:
        write(fh)


def _sha_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _hash_code() -> str:
    # every project module this stage imports (computed, see builder.codekey), so an edit to
    # the alias table, a label or the schema invalidates the QA cache too
    h = hashlib.sha256(STAGE_VERSION.encode())
    h.update(code_digest(__name__, "builder.qa.polish").encode())
    return h.hexdigest()[:16]


# taken at import: the hash of the code this process runs, even if the files change later
_CODE_HASH = _hash_code()


def _code_hash() -> str:
    return _CODE_HASH


def load_records(records_dir: Path, skips: SkipLog, *, progress: bool = True) -> list[GlyphRecord]:
    """Read ``records_dir/records.jsonl``; a line that does not validate is skipped and
    logged (kind ``bad-record``). Raises :class:`QAStageError` when the file is missing."""
    path = Path(records_dir) / "records.jsonl"
    if not path.exists():
        raise QAStageError(f"{path}: no records file; run `jiezi build records --output {Path(records_dir)}` first")
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(tqdm(fh, desc="read records", unit=" rec", disable=not progress), 1):
            if not line.strip():
                continue
            try:
                out.append(GlyphRecord.model_validate_json(line))
            except ValueError as exc:
                first = str(exc).splitlines()[0:3]
                skips.add("records", f"records.jsonl:{n}", " ".join(first), kind="bad-record")
    return out


# --- the stage --------------------------------------------------------------------------

def load_duan(sources_dir: Path | None, skips: SkipLog) -> dict[str, str]:
    """Duan's notes of every Shuowen entry (``entry id -> "引\t...\n注\t..." text``): the
    first half of :func:`load_shuowen`."""
    return load_shuowen(sources_dir, skips)[0]


def load_shuowen(sources_dir: Path | None, skips: SkipLog) -> tuple[dict[str, str], dict[str, str]]:
    """(Duan's notes, Shuowen's texts) of every Shuowen entry, each ``entry id -> raw
    text`` (the notes as ``引\t...\n注\t...`` lines, the texts as the records' ``字頭`` /
    ``說解`` lines), read with the records stage's Shuowen adapter from the source cache
    (``sources_dir``, else ``$JIEZI_SOURCES`` / the default cache). ``({}, {})`` when no
    cache is found: then only the entries the records cite are used (logged)."""
    try:
        path = registry.resolve_sources_dir(sources_dir)
        entries = shuowen.read(path, skips)
    except Exception as exc:  # no cache here: the records' own raw texts still serve
        skips.add("shuowen", str(sources_dir or "default cache"), f"Duan notes not loaded: {exc}", kind="no-duan-notes")
        return {}, {}
    return ({e.entry_id: e.duan.raw for e in entries if e.duan is not None},
            {e.entry_id: e.raw for e in entries})


def load_modern_forms(sources_dir: Path | None, skips: SkipLog) -> ModernForms | None:
    """The 通用规范汉字表 characters (Unihan ``kTGH``, Unihan_OtherMappings.txt) and the
    one-to-one simplified variants (``kSimplifiedVariant``, Unihan_Variants.txt) from the
    source cache, for the modern-form statements of the evolution rules (鎌 -> 镰). None
    when the cache or a file is missing (logged; the rules then take Unihan's links as
    they are)."""
    try:
        root = registry.resolve_sources_dir(sources_dir) / "unihan"
        standard, simp, elsewhere, trad, same_word = set(), {}, set(), {}, set()
        with open(root / "Unihan_OtherMappings.txt", encoding="utf-8") as fh:
            for line in fh:
                if "\tkTGH\t" in line:
                    standard.add(chr(int(line.split("\t", 1)[0][2:], 16)))
        links: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for ch, fld, forms, line in read_variants(root / "Unihan_Variants.txt",
                                                  ("kSimplifiedVariant", "kSemanticVariant", "kZVariant",
                                                   "kTraditionalVariant")):
            if fld == "kTraditionalVariant":
                trad[ch] = frozenset(f for f in forms if f != ch)  # 极 -> 極
                if trad[ch]:
                    elsewhere.add(ch)  # 鼹 -> 鼴, 厘 -> 釐: another traditional form, not 繁简同形
                continue
            if fld != "kSimplifiedVariant":
                same_word |= {(ch, f) for f in forms} | {(f, ch) for f in forms}
            if fld == "kSimplifiedVariant" and any(f != ch for f in forms):
                elsewhere.add(ch)
            if fld == "kSimplifiedVariant" and len(forms) == 1 and forms[0] != ch:
                simp[ch] = (forms[0], line)
            elif fld != "kSimplifiedVariant":  # a many-to-one simplification (後 -> 后) is no variant
                links[ch] += [(f, line) for f in forms if f != ch and _variant_attested(fld, line, f)]
        cjkvi = cjkvi_links(registry.resolve_sources_dir(sources_dir) / "cjkvi-ids" / "ids-analysis.txt")
        links.update({k: links[k] + v for k, v in cjkvi.items()})
    except (OSError, ValueError, registry.SourceError) as exc:
        skips.add("unihan", str(sources_dir or "default cache"), f"modern forms not loaded: {exc}",
                  kind="no-modern-forms")
        return None
    variants = {ch: [(f, line) for f, line in v if f in standard] for ch, v in links.items() if ch not in standard}
    return ModernForms(frozenset(standard), simp, {k: v for k, v in variants.items() if v}, frozenset(elsewhere),
                       _merged_words(trad, same_word))


def _merged_words(trad: dict[str, frozenset[str]], same_word: set[tuple[str, str]]) -> dict[str, frozenset[str]]:
    """Character -> the other characters it is also the simplified form of (Unihan
    ``kTraditionalVariant``: 极 -> 極), where Unihan links none of them to it as a
    kSemanticVariant / kZVariant (从 / 從, 并 / 並 are one word in two forms; 极 / 極 are two)."""
    return {ch: others for ch, others in trad.items()
            if others and not any((ch, t) in same_word for t in others)}


# Unihan's source tags of the Chinese-English / Cantonese-English / Japanese-English learners'
# dictionaries: a kSemanticVariant resting on them alone links words of like English gloss
# (侚 -> 殉 by Matthews; 關 -> 寡 by Lau), not two forms of one character
BILINGUAL_GLOSS_DICTIONARIES = frozenset({"kMatthews", "kLau", "kMeyerWempe", "kFenn", "kFennIndex", "kNelson"})


def _variant_attested(field: str, line: str, form: str) -> bool:
    """Whether a Unihan variant link of ``form`` stands on a dictionary outside
    :data:`BILINGUAL_GLOSS_DICTIONARIES` (data review 12-04: 侚 -> 殉; review of out-r6,
    12-21: 關 -> 寡, kLau alone)."""
    if field != "kSemanticVariant":
        return True
    m = re.search(rf"U\+{ord(form):04X}(?:<(\S+))?", line)
    tags = {t.split(":")[0] for t in (m.group(1) or "").split(",")} if m else set()
    return not tags or bool(tags - BILINGUAL_GLOSS_DICTIONARIES)


def _fingerprint(rec_file: Path, records_dir: Path, decisions: dict, polisher, sources_dir, **opts) -> dict:
    return {
        "records_sha256": _sha_file(rec_file), "records_dir": str(records_dir.resolve()), **opts,
        "polish": polisher.describe() if polisher else None, "code": _code_hash(),
        "sources_dir": str(sources_dir) if sources_dir else None,
        "decisions": hashlib.sha256(json.dumps(decisions, sort_keys=True).encode()).hexdigest(),
    }


def _bench_rows(records, index, decisions, seed, bench_size, progress, qa_counts: Counter):
    """Select the bench and compose its rows. Returns (plan, rows, early-form L2 drops)."""
    bench_facts = {}
    for r in tqdm(records, desc="bench facts", unit=" rec", disable=not progress):
        if r.images:
            bench_facts[r.id] = facts_for(r, BENCH, index)
    # early-form drawings the form audit found drawn as Shuowen analyses the seal
    drawings = form_audit.confirmed_drawings(records, bench_facts)
    plan = bench_mod.select(records, bench_facts, seed=seed, target=bench_size, image_facts=drawings)
    plan.review = bench_mod.review_list(records, bench_facts, seed=seed, target=bench_size)
    plan.stats["tracings_to_review"] = len(plan.review)
    plan.stats["form_audit"] = {"confirmed_drawings": len(drawings),
                                "bench_images": sum(b.image_id in drawings for b in plan.images)}
    by_id = {r.id: r for r in records}
    rows, early = [], Counter()
    for b in plan.images:
        rec = by_id[b.record_id]
        image = next(im for im in rec.images if im.id == b.image_id)
        facts = drawings.get(image.id) or bench_facts[rec.id]
        for k in l2_dropped(facts):
            early[k] += 1
        for k, why in image_missing(facts, image).items():
            qa_counts[f"bench_not_asked:{k}:{why}"] += 1  # 二 drawn as bars: no SCRC
        for q in bench_qa(facts, image, seed, second_component=b.second_component, dropped=b.dropped):
            row_id = f"{image.id}:{q.kind}"
            d = _apply_qa_decision(q.to_dict(), decisions.get(f"bench:{row_id}"))
            if d is None:
                qa_counts["bench_rejected"] += 1
                continue
            rows.append({
                "id": row_id, "image_id": image.id, "image": image.path, "record_id": rec.id,
                "character": rec.character, "script": rec.script,
                "unseen_character": b.unseen_character, "unseen_glyph": b.unseen_glyph,
                "unseen_components": [], **d,
            })
    plan.held_out = held_out(rows, records, seed)  # the unseen-component split (issue 20)
    plan.stats["held_out_components"] = len(plan.held_out)
    return plan, rows, early


# The label vocabulary a template writes into answers (结构 names, scripts, formations,
# functions, evolution types): 围 in 「包围结构」 names no character, so an unseen 围 must
# not drop every surround-structure answer of JieZi-Dataset.
_LABEL_WORDS = re.compile("|".join(sorted(
    (re.escape(w) for w in (*labels.STRUCTURE_ZH.values(), *labels.SCRIPTS, *labels.FORMATIONS,
                            *labels.FUNCTIONS, *labels.EVOLUTION_TYPES)), key=len, reverse=True)))


def names_in(d: dict) -> set[str]:
    """The characters a QA dict's answer (``answer``, ``answer_en``) may name: every
    character of its text once the label vocabulary (:data:`_LABEL_WORDS`) is taken out."""
    return set(_LABEL_WORDS.sub("", d["answer"])) | set(_LABEL_WORDS.sub("", d.get("answer_en") or ""))


def _image_turns(facts, im, seed, opts, decisions, unseen_chars, out: DatasetOut, qa_counts: Counter, polisher,
                 held: set | frozenset = frozenset()):
    """The QA dicts of one dataset image (polished, audited, unseen-character and
    held-out-component filtered)."""
    qas = []
    for q in dataset_qa(facts, im, seed, out.stats, min_pairs=opts["min_pairs"], max_pairs=opts["max_pairs"]):
        d = q.to_dict()
        if polisher is not None:
            d, status = polisher.polish_item(d)
            out.polished[status] += 1
        d = _apply_qa_decision(d, decisions.get(f"dataset:{im.id}:{q.kind}"))
        if d is None:
            qa_counts["dataset_rejected"] += 1
            continue
        if unseen_chars and unseen_chars & names_in(d):
            # an unseen character must not appear in JieZi-Dataset at all, not even
            # named in another character's answer (as a component, variant, gloss)
            out.stats["qa_dropped_naming_unseen_character"] += 1
            continue
        if names_held_out(d, im.script, held):
            out.stats["qa_dropped_naming_held_out_component"] += 1
            continue
        qas.append(d)
    return qas


def _reserved(rec: GlyphRecord, bench_chars: set[str]) -> bool:
    """Whether the dataset may not state Shuowen's text for ``rec``: its character is in the
    bench, or its traditional / simplified partner is (业 states 業's gloss, the reference of
    a bench 業)."""
    partners = {rec.character, rec.traditional, rec.simplified} | {
        v.form for v in rec.variants if v.kind in ("繁體", "簡体")}
    return bool(partners & bench_chars)


def _dataset_rows(records, index, plan, decisions, seed, opts, polisher, progress, tmp: Path,
                  qa_counts: Counter, held: set | frozenset = frozenset()) -> DatasetOut:
    """Write ``dataset.jsonl`` (to ``tmp``): every image not withheld, deduplicated by pixels."""
    out = DatasetOut()
    seen_sha: set[str] = set()
    unseen_chars = set(plan.unseen_characters)
    with open(tmp, "w", encoding="utf-8") as fh:
        for rec in tqdm(records, desc="dataset QA", unit=" rec", disable=not progress):
            images = [im for im in rec.images if im.id not in plan.withheld_images]
            if not images:
                continue
            facts = facts_for(rec, DATASET, index, reserved=_reserved(rec, plan.reserved_characters))
            for im in images:
                if im.sha256 in seen_sha:
                    out.stats["duplicate_images_removed"] += 1
                    continue
                seen_sha.add(im.sha256)
                qas = _image_turns(facts, im, seed, opts, decisions, unseen_chars, out, qa_counts, polisher, held)
                if not qas:
                    out.stats["images_without_qa"] += 1
                    continue
                out.stats["early_form_l2_kinds_dropped"] += len(l2_dropped(facts))
                out.stats["early_form_images_without_l2"] += bool(l2_dropped(facts))
                _count_turns(qas, unseen_chars, out, glyph_form(rec.script))
                fh.write(json.dumps({"id": im.id, "image": im.path, "record_id": rec.id,
                                     "character": rec.character, "script": rec.script, "qa": qas},
                                    ensure_ascii=False) + "\n")
                out.n_images += 1
                out.n_pairs += len(qas)
                out.by_script_images[rec.script] += 1
                out.chars.add(rec.character)
                out.pairs.add((rec.character, rec.script))
                out.gallery.append((rec.id, im.id, im.path))
    return out


def _count_turns(qas: list[dict], unseen_chars: set, out: DatasetOut, form: str = "modern") -> None:
    """Tally one image's turns (``form``: the image's :func:`glyph_form`) and pre-serialise
    their provenance and structured answers."""
    for d in qas:
        if unseen_chars & names_in(d):
            out.mentions += 1
        out.by_kind[d["kind"]] += 1
        out.by_level[d["level"]] += 1
        if d["kind"] == "EVOI":
            out.evoi.append(d["answer"])
        for c in (d["answer_struct"] or {}).get("components", []) or []:
            out.components.add(canonical_component(c["name"]))
            out.form_components.add((form, canonical_component(c["name"])))
    for d in qas:  # pre-serialised: the builders copy them into the row as they are
        d["provenance_json"] = json.dumps(d.pop("provenance"), ensure_ascii=False)
        d["answer_struct_json"] = json.dumps(d.pop("answer_struct"), ensure_ascii=False)


def _leakage(qa_dir: Path, plan, bench_rows: list[dict], ds: DatasetOut) -> tuple[dict, set]:
    """Fill each bench row's unseen components; the leakage counts and the bench's components."""
    # a component is unseen when no dataset answer names it on an image of the same form:
    # the seal form of 水 is not learnt from 楷书 renderings of 氵 (issue 20)
    for row in bench_rows:
        form = glyph_form(row["script"])
        names = [c["name"] for c in (row["answer_struct"] or {}).get("components", []) or []]
        row["unseen_components"] = sorted({n for n in names
                                           if (form, canonical_component(n)) not in ds.form_components})
    bench_comp = {(glyph_form(row["script"]), canonical_component(c["name"])) for row in bench_rows
                  for c in (row["answer_struct"] or {}).get("components", []) or []}
    dataset_ids = {row["id"] for row in read_jsonl(qa_dir / "dataset.jsonl")}
    leakage = {
        "bench_images_in_dataset": len({b.image_id for b in plan.images} & dataset_ids),
        "unseen_characters_in_dataset": len(plan.unseen_characters & ds.chars),
        "unseen_glyph_pairs_in_dataset": len(plan.unseen_glyphs & ds.pairs),
        "dataset_answers_naming_an_unseen_character": ds.mentions,
    }
    return leakage, bench_comp


def _write_gallery(qa_dir: Path, records, plan, ds: DatasetOut) -> tuple[int, int]:
    """``records_gallery.jsonl`` and ``gallery_records.jsonl``. Returns (records in the
    dataset, gallery records quoting an unseen character)."""
    by_id = {r.id: r for r in records}
    records_in_dataset = sorted({g[0] for g in ds.gallery})
    unseen_chars = set(plan.unseen_characters)

    def write_gallery(fh):
        for rid, image_id, path in ds.gallery:
            rec = by_id[rid]
            fh.write(json.dumps({"id": image_id, "image": path, "record_id": rid, "character": rec.character,
                                 "script": rec.script}, ensure_ascii=False) + "\n")

    quoting = 0

    def write_gallery_records(fh):
        nonlocal quoting
        for rid in records_in_dataset:
            rec = by_id[rid]
            text = gallery_record(rec, rec.character in plan.reserved_characters)
            quoting += bool(unseen_chars & set(text))
            fh.write(json.dumps({"record_id": rid, "record": text}, ensure_ascii=False) + "\n")
    _atomic_write(qa_dir / "records_gallery.jsonl", write_gallery)
    _atomic_write(qa_dir / "gallery_records.jsonl", write_gallery_records)
    return len(records_in_dataset), quoting


def _evidence_index(records, records_dir: Path, sources_dir: Path | None, skips: SkipLog,
                    duan_notes: bool) -> EvidenceIndex:
    """The cross-record evidence of the stage: Duan's notes and every Shuowen entry, Unihan's
    modern forms, definitions and readings (from the source cache unless ``duan_notes`` is
    off), and the drawings that show no script (:mod:`builder.qa.script_neutral`)."""
    duan, entries = load_shuowen(sources_dir, skips) if duan_notes else ({}, {})
    modern = load_modern_forms(sources_dir, skips) if duan_notes else None
    definitions = part_glosses.load_definitions(sources_dir, skips) if duan_notes else {}
    index = EvidenceIndex(records, duan=duan, modern=modern, entries=entries, definitions=definitions)
    index.readings = soundgloss.load_source_readings(sources_dir, skips) if duan_notes else None
    index.script_neutral = script_neutral.script_neutral_images(records, records_dir)
    return index


def build_qa(records_dir: Path, out_dir: Path, *, seed: int = 0, bench_size: int = bench_mod.TARGET_IMAGES,
             min_pairs: int = 5, max_pairs: int = 10, polisher=None, progress: bool = True,
             force: bool = False, sources_dir: Path | None = None, duan_notes: bool = True) -> dict:
    """Run stage 3: read the records, select the bench, write ``out_dir/qa``.

    ``records_dir`` holds ``records.jsonl`` and ``images/``; ``out_dir`` is the build
    folder (``qa/`` and ``audit/`` live under it); ``sources_dir``: the source cache, for
    Duan's notes of every Shuowen entry (see :func:`load_duan`; ``duan_notes=False`` uses
    only the notes the records cite) and Unihan's modern forms (:func:`load_modern_forms`,
    loaded with the notes). ``polisher``: an optional :class:`builder.qa.polish.Polisher`
    for the reasoning answers of JieZi-Dataset. Returns the stage report (also
    ``qa/report.json``): ``dataset`` {images, qa_pairs, characters, by_subtask, by_level,
    by_script, missing, early_form_l2, evoi_templates ...}, ``bench`` {questions, images,
    by_subtask, by_script, splits, early_form_l2_not_asked, evoi_templates ...},
    ``leakage`` {...}, ``skipped``. Cached: returns the previous report when nothing it
    depends on changed.
    """
    records_dir, out_dir = Path(records_dir), Path(out_dir)
    qa_dir = out_dir / "qa"
    qa_dir.mkdir(parents=True, exist_ok=True)
    rec_file = records_dir / "records.jsonl"
    if not rec_file.exists():
        raise QAStageError(f"{rec_file}: no records file; run `jiezi build records` first")
    decisions = load_decisions(out_dir)
    opts = {"seed": seed, "bench_size": bench_size, "min_pairs": min_pairs, "max_pairs": max_pairs}
    fingerprint = _fingerprint(rec_file, records_dir, decisions, polisher, sources_dir, duan_notes=duan_notes, **opts)
    fp_path = qa_dir / "fingerprint.json"
    if not force and fp_path.exists() and (qa_dir / "report.json").exists():
        if json.loads(fp_path.read_text("utf-8")) == fingerprint:
            report = json.loads((qa_dir / "report.json").read_text("utf-8"))
            report["cached"] = True
            return report
    fp_path.unlink(missing_ok=True)  # outputs are being rewritten: not valid until the end

    t0 = time.perf_counter()
    skips = SkipLog()
    records = load_records(records_dir, skips, progress=progress)
    audit_counts = apply_record_decisions(records, decisions, skips)
    inherited = strip_inherited(records)
    index = _evidence_index(records, records_dir, sources_dir, skips, duan_notes)

    qa_counts: Counter = Counter()
    plan, bench_rows, early = _bench_rows(records, index, decisions, seed, bench_size, progress, qa_counts)
    index.reserved = frozenset(plan.reserved_characters)  # no dataset gloss of a bench character's Shuowen text
    with atomic_path(qa_dir / "dataset.jsonl") as tmp:
        ds = _dataset_rows(records, index, plan, decisions, seed, opts, polisher, progress, tmp, qa_counts,
                           plan.held_out)
    leakage, bench_comp = _leakage(qa_dir, plan, bench_rows, ds)
    leakage.update(bench_mod.source_tracing_leakage(
        plan, records, {row["id"] for row in read_jsonl(qa_dir / "dataset.jsonl")}))
    _atomic_write(qa_dir / "bench.jsonl",
                  lambda fh: [fh.write(json.dumps(r, ensure_ascii=False) + "\n") for r in bench_rows])
    n_records, quoting = _write_gallery(qa_dir, records, plan, ds)
    # the gallery keeps other characters' source texts whole (raw entries, spans), which
    # may quote an unseen character; counted, not hidden
    leakage["gallery_records_quoting_an_unseen_character"] = quoting
    # the drawings the tracing audit should look at next (``jiezi audit tracings``)
    _atomic_write(qa_dir / "tracing_review.jsonl",
                  lambda fh: [fh.write(json.dumps(r, ensure_ascii=False) + "\n") for r in plan.review])
    _atomic_write(qa_dir / "bench_plan.json",
                  lambda fh: json.dump(plan.to_json(), fh, ensure_ascii=False, indent=1))
    skips.write(qa_dir / "skipped.jsonl")
    report = {
        "dataset": dataset_report(ds, n_records, polisher),
        "bench": bench_report(plan, bench_rows, bench_comp, ds, early),
        "leakage": leakage,
        "audit": dict(audit_counts) | dict(qa_counts),
        "skipped": skips.counts(),
        "records": {"records": len(records), "characters": len(index.by_char),
                    "duan_entries_loaded": len(index.duan_notes), "inherited_values_removed": inherited},
        "seconds": round(time.perf_counter() - t0, 1),
    }
    report["bench"]["balance"] = bench_balance.balance_report(bench_rows)
    _atomic_write(qa_dir / "report.json", lambda fh: json.dump(report, fh, ensure_ascii=False, indent=1))
    _atomic_write(fp_path, lambda fh: json.dump(fingerprint, fh, indent=1))
    report["cached"] = False
    return report


def read_jsonl(path: Path):
    """Yield the JSON objects of a JSON Lines file."""
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def group_bench(rows: list[dict]) -> dict[str, list[dict]]:
    """Bench rows by image id (for the audit sheet)."""
    out: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        out[r["image_id"]].append(r)
    return out
