"""The official JieZi release's layouts, read as a user holding them would (issue 13).

The release's licence forbids shipping it, so nothing here carries its files; tests build
fixtures in these exact layouts from this project's own data.

- Bench layout of the authors' runner (``JieZi-bench/runners/run_eval.py``): one folder per
  character, ``<root>/<slug>/entry.json`` with ``character``, ``group``, ``difficulty`` and
  ``image_records: [{"local_path", "category"}]``; each image's eight-field ground truth is
  the JSON file at ``<root>/<slug>/<local_path with .json suffix>``; the headword scored is
  the entry's ``character``. :func:`read_official_bench` reads it (``jiezi eval --bench ROOT
  --protocol paper`` runs on it directly); :func:`import_official_bench` writes it as a
  JieZi-Bench Hub folder (configs ``images`` and ``all``).
- VQA rows (the release's ``vqa_data.json``): ``{"levels": [{"id", "tasks", "examples":
  [{"id", "image", "character", "script", "task", "question", "answer"}]}]}``;
  :func:`import_official_dataset` turns them into TRL-ready JieZi-Dataset rows (one row per
  image, its questions as user/assistant turns).
- The metadata layout (``meta_samples.json``) has ``jiezi records import-official`` /
  ``export-official`` already.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import defaultdict
from pathlib import Path

import datasets
import yaml

import jiezi_dataset
from harness import render
from hub import templates
from hub.atomic import atomic_write_json
from hub.rows import BENCH_FEATURES, BENCH_IMAGE_FEATURES, QA_FEATURES
from metrics.acce import labels
from metrics.acce.core import parse_answer
from metrics.acce.paper import FORMATION_SHORT, REFERENCE_FIELDS

# vqa_data.json task names -> this project's subtask codes (the bench template kinds).
VQA_TASKS = {"headword": "CHAR", "script": "SCRC", "structure": "STRC", "components": "COMR", "function": "COMF",
             "etymology": "FORC", "meaning": "ORIM", "evolution": "EVOI", "analysis": "EVOI"}
OFFICIAL_SCRIPT = {"古文": "战国文字"}  # official label -> this project's


class OfficialLayoutError(ValueError):
    """A folder or file is not in the official layout (message names it and what was expected)."""


def is_official_bench(root: str | Path) -> bool:
    """True when ``root`` is a folder holding ``<slug>/entry.json`` files (the runner layout)."""
    path = Path(str(root))
    return path.is_dir() and next(path.glob("*/entry.json"), None) is not None


def read_official_bench(root: str | Path) -> tuple[list[dict], list[dict]]:
    """The images of an official bench folder, in the runner's order (slugs sorted, records
    as listed): ``(rows, problems)``.

    Each row: ``image_id`` (``<slug>__<category>__<file stem>``, the runner's sample id),
    ``image_path``, ``character``, ``script`` (the record's category), ``group``,
    ``difficulty``, ``reference`` (the ground truth with its headword set to the entry's
    character). A bad entry or record is left out and listed in ``problems`` with the file
    and the reason. Raises :class:`OfficialLayoutError` when ``root`` has no entry at all.
    """
    root = Path(str(root))
    entries = sorted(root.glob("*/entry.json"))
    if not entries:
        raise OfficialLayoutError(f"{root}: no <slug>/entry.json found (the official bench layout)")
    rows, problems = [], []
    for entry_path in entries:
        try:
            entry = json.loads(entry_path.read_text("utf-8"))
            character, records = str(entry["character"]), entry.get("image_records") or []
        except (ValueError, KeyError, TypeError) as exc:
            problems.append({"file": str(entry_path), "reason": f"entry.json unreadable or without 'character': {exc}"})
            continue
        for rec in records:
            row = _official_row(entry_path.parent, entry, character, rec, problems)
            if row is not None:
                rows.append(row)
    return rows, problems


def _official_row(folder: Path, entry: dict, character: str, rec: object, problems: list) -> dict | None:
    if not isinstance(rec, dict) or not rec.get("local_path"):
        problems.append({"file": str(folder / "entry.json"), "reason": f"image record {rec!r} has no local_path"})
        return None
    image_path = folder / rec["local_path"]
    truth_path = image_path.with_suffix(".json")
    try:
        truth = json.loads(truth_path.read_text("utf-8"))
        if not isinstance(truth, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as exc:
        problems.append({"file": str(truth_path), "reason": f"ground truth unreadable: {exc}"})
        return None
    if not image_path.is_file():
        problems.append({"file": str(image_path), "reason": "image file missing"})
        return None
    category = str(rec.get("category", ""))
    return {"image_id": f"{folder.name}__{category}__{image_path.stem}", "image_path": str(image_path),
            "character": character, "script": category, "group": str(entry.get("group", "")),
            "difficulty": str(entry.get("difficulty", "")),
            "reference": {**{k: truth.get(k, "") for k in REFERENCE_FIELDS}, "现代字典字头": character}}


def answer_structs(reference: dict) -> dict[str, dict]:
    """This project's per-question ``answer_struct`` of each bench kind from one eight-field
    reference (the inverse of ``metrics.acce.paper.official_reference``); a kind whose field
    is empty is left out."""
    out: dict[str, dict] = {"CHAR": {"character": str(reference.get("现代字典字头") or "")}}
    script = str(reference.get("字形") or "").strip()
    if script:
        out["SCRC"] = {"script": OFFICIAL_SCRIPT.get(script, script)}
    if reference.get("结构"):
        out["STRC"] = {"structure": str(reference["结构"]).strip()}
    forms = reference.get("造字法") or []
    forms = [forms] if isinstance(forms, str) else list(forms)
    short = [f[:-1] if f.endswith("字") and f[:-1] in FORMATION_SHORT else f for f in map(str, forms)]
    if short:
        out["FORC"] = {"formation": short, "yisheng": {"形声", "会意"} <= set(short)}
    comps = reference.get("构件") if isinstance(reference.get("构件"), dict) else {}
    if comps:
        out["COMP_FULL"] = {"components": [
            {"name": name, "functions": list(a.get("功能") or []) if isinstance(a.get("功能"), list) else
             [x for x in [a.get("功能")] if x], "interpretation": str(a.get("解释") or ""),
             "evolution_type": a.get("演变类型") or None}
            for name, a in comps.items() if isinstance(a, dict)]}
    for key, field in (("ORIM", "本义"), ("EVOI", "历代字形演变")):
        if str(reference.get(field) or "").strip():
            out[key] = {"original_meaning" if key == "ORIM" else "evolution": str(reference[field])}
    return out


_KIND_METRICS = {"CHAR": ["CHAR"], "SCRC": ["SCRC"], "STRC": ["STRC"], "FORC": ["FORC"], "ORIM": ["ORIM"],
                 "EVOI": ["EVOI_FAC", "EVOI_SCE"], "COMP_FULL": ["COMR", "COMF", "COMI", "COME"]}


def _answer_text(kind: str, struct: dict) -> str:
    if kind == "STRC":
        return render.structure_text(struct["structure"])
    if kind == "FORC":
        return render.formation_text(struct["formation"])
    if kind == "COMP_FULL":
        return render.components_text(struct["components"])
    return str(next(iter(struct.values())))


def _question_rows(row: dict, image: dict) -> list[dict]:
    """Per-question bench rows (``hub.rows.BENCH_FEATURES``) of one official image."""
    out = []
    for kind, struct in answer_structs(row["reference"]).items():
        code = "COMR" if kind == "COMP_FULL" else kind
        out.append({
            "id": f"{row['image_id']}::{kind}", "image": image, "image_id": row["image_id"],
            "question": templates.question(kind, 0)[0], "answer": _answer_text(kind, struct),
            "answer_struct": json.dumps(struct, ensure_ascii=False), "subtask": code, "metrics": _KIND_METRICS[kind],
            "level": labels.SUBTASKS[code], "character": row["character"],
            "script": OFFICIAL_SCRIPT.get(row["script"], row["script"]), "unseen_character": False,
            "unseen_glyph": False, "unseen_components": [],
            "provenance": json.dumps({"source": "official-bench", "image_id": row["image_id"]}, ensure_ascii=False),
            "question_en": "", "answer_en": "", "kind": kind})
    return out


def _write_hub(out: Path, tables: dict[str, tuple[datasets.Dataset, str]], title: str) -> None:
    """Parquet per config/split plus a README with the YAML ``configs:`` the loaders read."""
    configs = []
    for config, (ds, split) in tables.items():
        (out / config).mkdir(parents=True, exist_ok=True)
        ds.to_parquet(str(out / config / f"{split}-00000-of-00001.parquet"))
        configs.append({"config_name": config, "data_files": [{"split": split, "path": f"{config}/{split}-*"}]})
    card = yaml.safe_dump({"configs": configs}, allow_unicode=True, sort_keys=False)
    (out / "README.md").write_text(f"---\n{card}---\n\n# {title}\n\nConverted from the official JieZi layout by "
                                   "`jiezi import`; not for redistribution (the release's licence applies).\n", "utf-8")


def _fresh_output(out: Path, overwrite: bool) -> Path:
    out = Path(out)
    if out.exists() and any(out.iterdir()) and not overwrite:
        raise FileExistsError(f"{out} exists and is not empty; pass --overwrite or choose another -o folder")
    tmp = out.with_name(out.name + ".partial")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    return tmp


def _commit(tmp: Path, out: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    os.replace(tmp, out)


def import_official_bench(root: str | Path, out: str | Path, *, overwrite: bool = False) -> dict:
    """Convert an official bench folder into a JieZi-Bench Hub folder at ``out``.

    Writes config ``images`` (one row per image: ``hub.rows.BENCH_IMAGE_FEATURES``, the
    reference in the eight official fields) and config ``all`` (one row per question, this
    project's bench columns), split ``test``. The folder is written under a ``.partial``
    name and renamed when complete. Returns a report (images, questions, problems).
    Raises :class:`OfficialLayoutError` or ``FileExistsError``.
    """
    rows, problems = read_official_bench(root)
    if not rows:
        raise OfficialLayoutError(f"{root}: no readable image ({len(problems)} problem(s), first: {problems[:1]})")
    tmp = _fresh_output(Path(out), overwrite)
    image_rows, question_rows = [], []
    for row in rows:
        image = {"bytes": Path(row["image_path"]).read_bytes(), "path": Path(row["image_path"]).name}
        questions = _question_rows(row, image)
        question_rows.extend(questions)
        image_rows.append({"image_id": row["image_id"], "image": image, "character": row["character"],
                           "script": row["script"], "reference": json.dumps(row["reference"], ensure_ascii=False),
                           "unseen_character": False, "unseen_glyph": False,
                           "question_ids": [q["id"] for q in questions]})
    _write_hub(tmp, {"images": (datasets.Dataset.from_list(image_rows, features=BENCH_IMAGE_FEATURES), "test"),
                     "all": (datasets.Dataset.from_list(question_rows, features=BENCH_FEATURES), "test")},
               "JieZi-Bench (imported from the official layout)")
    report = {"source": str(root), "images": len(image_rows), "questions": len(question_rows), "problems": problems}
    atomic_write_json(tmp / "import-report.json", report)
    _commit(tmp, Path(out))
    return report


def read_vqa_data(path: str | Path) -> list[dict]:
    """The examples of a ``vqa_data.json`` file, each with its level id added (``level``).
    Raises :class:`OfficialLayoutError` naming the file and what was expected."""
    try:
        data = json.loads(Path(path).read_text("utf-8"))
        levels = data["levels"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise OfficialLayoutError(f"{path}: expected a JSON object with 'levels' ({exc})") from exc
    out = []
    for level in levels:
        for ex in (level.get("examples") or []) if isinstance(level, dict) else []:
            if isinstance(ex, dict):
                out.append({**ex, "level": level.get("id")})
    return out


def id_character(example_id: object) -> str | None:
    """The character an official VQA id names: the part before the first ``_`` of the part
    before ``::`` (``山_隶书_3::vqa::script`` -> ``山``), when that is one character; else None."""
    head = str(example_id or "").split("::", 1)[0].split("_", 1)[0]
    return head if len(head) == 1 else None


def gbk_mojibake_repair(text: str) -> str | None:
    """``text`` read back as GBK when it is GBK bytes that were decoded as UTF-8 (the
    release's ``'ɽ'`` U+027D for 山, ``'ˮ'`` U+02EE for 水, ``'¹'`` U+00B9 for 鹿), else None."""
    try:
        return text.encode("utf-8").decode("gbk")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return None


def check_character(example: dict) -> tuple[str | None, str | None]:
    """``(character, note)`` of one VQA example, its ``character`` checked against its id.

    The id's prefix (:func:`id_character`) is the authors' own key for the row; a
    ``character`` that disagrees with it is repaired when the GBK round trip
    (:func:`gbk_mojibake_repair`) gives the prefix's character (``note`` says so), else the
    example is unusable: ``(None, reason)``. An id without a one-character prefix leaves the
    field as written (``note`` None)."""
    written = str(example.get("character") or "")
    prefix = id_character(example.get("id"))
    if prefix is None or written == prefix:
        return written, None
    fixed = gbk_mojibake_repair(written)
    if fixed == prefix:
        return fixed, (f"character {written!r} (U+{ord(written[0]):04X}) is GBK bytes read as UTF-8; "
                       f"repaired to {fixed!r}, the id's prefix")
    return None, (f"character {written!r} disagrees with the id's prefix {prefix!r} and is not its GBK "
                  "mojibake; skipped")


def _dataset_row(image_path: Path, examples: list[dict]) -> dict:
    """One TRL-ready JieZi-Dataset row (``hub.rows.QA_FEATURES``) from the examples
    sharing one image: their questions and answers as turns, the image on the first."""
    turns = [{"question": ex["question"], "answer": ex["answer"]} for ex in examples]
    structs = []
    for ex in examples:
        code = VQA_TASKS.get(str(ex.get("task")), "EVOI")
        try:
            structs.append(parse_answer(str(ex["answer"]), code))
        except ValueError:
            structs.append(None)
    first = examples[0]
    return {"id": str(first.get("id", image_path.stem)).split("::")[0],
            "images": [{"bytes": image_path.read_bytes(), "path": image_path.name}],
            "messages": jiezi_dataset.to_messages(turns, "zh"), "messages_en": [],
            "character": str(first.get("character", "")), "script": str(first.get("script", "")),
            "subtasks": [VQA_TASKS.get(str(ex.get("task")), str(ex.get("task"))) for ex in examples],
            "provenance": json.dumps([{"source": "official-vqa", "id": ex.get("id"), "task": ex.get("task")}
                                      for ex in examples], ensure_ascii=False),
            "answer_struct": json.dumps(structs, ensure_ascii=False)}


def import_official_dataset(vqa_file: str | Path, out: str | Path, *, images_root: str | Path | None = None,
                            overwrite: bool = False) -> dict:
    """Convert ``vqa_data.json`` rows into a JieZi-Dataset Hub folder (config ``all``, split
    ``train``; TRL conversational rows: ``images`` + ``messages``).

    Examples are grouped by image (in file order); an image path is resolved against
    ``images_root`` (default: the JSON file's folder). An example's ``character`` is
    checked against its id (:func:`check_character`: the release's GBK mojibake is
    repaired and listed under ``repaired``, any other disagreement is skipped). An example
    without question, answer or a readable image is skipped and reported. Returns a report
    (``rows``, ``turns``, ``repaired``, ``problems``); raises
    :class:`OfficialLayoutError` when nothing is readable, ``FileExistsError`` as above.
    """
    vqa_file = Path(vqa_file)
    base = Path(images_root) if images_root else vqa_file.parent
    groups: dict[str, list[dict]] = defaultdict(list)
    problems, repaired = [], []
    for ex in read_vqa_data(vqa_file):
        character, note = check_character(ex)
        if character is None:
            problems.append({"id": ex.get("id"), "field": "character", "reason": note})
            continue
        if note:
            repaired.append({"id": ex.get("id"), "field": "character", "reason": note})
            ex = {**ex, "character": character}
        if not ex.get("question") or not ex.get("answer") or not ex.get("image"):
            problems.append({"id": ex.get("id"), "reason": "example without question, answer or image"})
        elif not (base / str(ex["image"])).is_file():
            problems.append({"id": ex.get("id"), "reason": f"image {base / str(ex['image'])} missing"})
        else:
            groups[str(ex["image"])].append(ex)
    if not groups:
        raise OfficialLayoutError(f"{vqa_file}: no usable example ({len(problems)} problem(s))")
    rows = [_dataset_row(base / image, exs) for image, exs in groups.items()]
    tmp = _fresh_output(Path(out), overwrite)
    _write_hub(tmp, {"all": (datasets.Dataset.from_list(rows, features=QA_FEATURES), "train")},
               "JieZi-Dataset (imported from the official VQA rows)")
    report = {"source": str(vqa_file), "rows": len(rows), "turns": sum(len(v) for v in groups.values()),
              "repaired": repaired, "problems": problems}
    atomic_write_json(tmp / "import-report.json", report)
    _commit(tmp, Path(out))
    return report
