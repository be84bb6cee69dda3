"""Hub layout: every config and split loads offline, cards parse and match the files,
the publish command's dry run and its refusal to overwrite foreign folders."""

from __future__ import annotations

import fnmatch
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from datasets import load_dataset
from huggingface_hub import DatasetCard
from PIL import Image
from typer.testing import CliRunner

from builder.publish.write import MARKER, PublishError, check_target, write_hub_folder
from jiezi_cli import app
from qa_fixtures import append_text, build_fixture, copy_project, write_records

CONFIGS = {
    "jiezi-dataset": {c: ["train"] for c in ("L1", "L2", "L3", "L4", "all", "records")},
    # images: one row per bench image with its eight-field reference (the paper's protocol, issue 13)
    "jiezi-bench": {c: ["test", "unseen_characters", "unseen_glyphs"] for c in ("L1", "L2", "L3", "L4", "all", "images")},
}


@pytest.fixture(scope="module")
def built(sources_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("build")
    return out, build_fixture(sources_dir, out, bench_size=40)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_every_config_and_split_loads_offline(built, name, tmp_path):
    out, report = built
    for config, splits in CONFIGS[name].items():
        for split in splits:
            ds = load_dataset(str(out / name), config, split=split, cache_dir=str(tmp_path / "hf"))
            assert len(ds) > 0, (name, config, split)
            row = ds[0]
            img = row["images"][0] if "images" in row else row["image"]
            assert isinstance(img, Image.Image) and img.size[0] > 0
            img.load()
            if name == "jiezi-dataset" and config != "records":
                turns = row["messages"]
                assert turns[0]["role"] == "user" and turns[0]["content"][0]["type"] == "image"
                assert sum(t["role"] == "assistant" for t in turns) == len(row["subtasks"])
                assert len(json.loads(row["provenance"])) == len(row["subtasks"])
                structs = json.loads(row["answer_struct"])
                assert len(structs) == len(row["subtasks"])
                for sub, st in zip(row["subtasks"], structs):
                    if sub in ("CHAR", "SCRC", "STRC", "FORC"):
                        assert st, sub
                if config != "all":
                    from metrics.acce.labels import SUBTASKS
                    assert all(SUBTASKS[s] == config or (s == "COMR" and config == "L4") for s in row["subtasks"])
            if name == "jiezi-bench" and config == "images":
                from metrics.acce.paper_reply import REFERENCE_FIELDS
                assert tuple(json.loads(row["reference"])) == REFERENCE_FIELDS and row["question_ids"]
                assert len(set(ds["image_id"])) == len(ds)
            elif name == "jiezi-bench":
                json.loads(row["answer_struct"])
                assert row["metrics"]
                if split == "unseen_characters":
                    assert all(ds["unseen_character"])


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_card_parses_and_its_configs_match_the_files(built, name):
    out, report = built
    folder = out / name
    card = DatasetCard.load(folder / "README.md")
    data = card.data.to_dict()
    assert "visual-question-answering" in data["task_categories"]
    assert set(data["language"]) == {"zh", "en"}
    assert data["license"] and data["size_categories"]
    files = sorted(str(p.relative_to(folder)) for p in folder.rglob("*.parquet"))
    covered = set()
    declared = {c["config_name"]: {d["split"]: d["path"] for d in c["data_files"]} for c in data["configs"]}
    assert {c: sorted(s) for c, s in declared.items()} == {c: sorted(s) for c, s in CONFIGS[name].items()}
    for config, splits in declared.items():
        for split, pattern in splits.items():
            hit = fnmatch.filter(files, pattern)
            assert hit, (config, split, pattern)
            covered.update(hit)
    assert covered == set(files)
    infos = {i["config_name"]: i for i in data["dataset_info"]}
    assert set(infos) == set(declared)
    for config, info in infos.items():
        n = {s["name"]: s["num_examples"] for s in info["splits"]}
        for split, count in n.items():
            assert len(load_dataset(str(folder), config, split=split)) == count
    # counts in the text come from the data
    key = "qa_pairs" if name == "jiezi-dataset" else "questions"
    section = "dataset" if name == "jiezi-dataset" else "bench"
    assert f"**{report[section][key]:,} " in card.text


def test_publish_refuses_foreign_folders(built, tmp_path):
    out, _ = built
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    with pytest.raises(PublishError, match="not written by `jiezi publish`"):
        write_hub_folder(out, "bench", foreign, progress=False)
    assert (foreign / "notes.txt").read_text() == "keep me"
    # the other resource's folder is not ours either
    with pytest.raises(PublishError, match="holds 'dataset'"):
        check_target(out / "jiezi-dataset", "bench")
    check_target(tmp_path / "absent", "bench")


def test_cli_dry_run_writes_the_upload_folder(built, tmp_path):
    out, _ = built
    target = tmp_path / "upload"
    res = CliRunner().invoke(app, ["publish", "bench", "--output", str(out), "--folder", str(target), "--dry-run"])
    assert res.exit_code == 0, res.output
    assert (target / MARKER).exists() and (target / "README.md").exists()
    listed = {line.strip() for line in res.output.splitlines() if line.startswith("  ")}
    assert listed == {str(p.relative_to(target)) for p in target.rglob("*") if p.is_file()}
    # rewriting our own folder is allowed
    res = CliRunner().invoke(app, ["publish", "bench", "--output", str(out), "--folder", str(target), "--dry-run"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["publish", "bench", "--output", str(out)])
    assert res.exit_code != 0 and "--repo-id" in res.output


def test_jiezi_build_writes_report_and_is_cached(sources_dir, tmp_path):
    write_records(sources_dir, tmp_path / "recs")
    args = ["build", "--output", str(tmp_path / "out"), "--records", str(tmp_path / "recs"), "--bench-size", "40"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / "out" / "report.json").read_text("utf-8"))
    for key in ("qa_pairs", "images", "characters"):
        assert report["dataset"][key] > 0
    for key in ("questions", "images", "by_subtask", "splits"):
        assert report["bench"][key]
    assert report["leakage"]["bench_images_in_dataset"] == 0
    assert report["leakage"]["unseen_characters_in_dataset"] == 0
    res = CliRunner().invoke(app, args)
    again = json.loads((tmp_path / "out" / "report.json").read_text("utf-8"))
    assert again["qa_cached"] is True and all(f["cached"] for f in again["folders"].values())
    assert again["dataset"]["qa_pairs"] == report["dataset"]["qa_pairs"]


def test_publish_card_takes_the_baseline_runs_without_a_rebuild(built, tmp_path):
    """`jiezi publish card` puts a saved baseline run's per-script scores into the bench card
    and report.json in place (no second `jiezi build`, issue 23), and the card is then the
    one a full publication with those baselines writes."""
    import shutil

    out, report = built
    work = tmp_path / "out"
    shutil.copytree(out / "jiezi-bench", work / "jiezi-bench")
    (work / "report.json").write_text(json.dumps({"bench": {"questions": 1, "baselines": {}}}), "utf-8")
    before = (work / "jiezi-bench" / "README.md").read_text("utf-8")
    assert "### Baselines per script" not in before and "<!-- jiezi:baselines -->\n<!-- /jiezi:baselines -->" in before
    run = work / "eval" / "retrieval"
    run.mkdir(parents=True)
    res = {"format": "jiezi-eval-results/1", "model": {"spec": "retrieval"},
           "bench": {"config": "all", "split": "test", "rows": 3, "fingerprint": "f" * 64},
           "scores": {"CHAR": 50.0, "SCRC": 100.0},
           "breakdown": {"script": {"金文": {"CHAR": 0.0, "SCRC": 100.0}, "楷书": {"CHAR": 100.0, "SCRC": None}}}}
    (run / "results.json").write_text(json.dumps(res, ensure_ascii=False), "utf-8")

    res = CliRunner().invoke(app, ["publish", "card", "--output", str(work)])
    assert res.exit_code == 0, res.output
    card = (work / "jiezi-bench" / "README.md").read_text("utf-8")
    assert "### Baselines per script" in card and "| 金文 | 0.0 | 100.0 |" in card and "| 楷书 | 100.0 | - |" in card
    baselines = json.loads((work / "report.json").read_text("utf-8"))["bench"]["baselines"]
    assert baselines["retrieval"]["by_script"]["金文"] == {"CHAR": 0.0, "SCRC": 100.0}
    # only the section changed: the YAML header (content fingerprint) and the rest of the text stay
    head, tail = before.split("<!-- jiezi:baselines -->")[0], before.split("<!-- /jiezi:baselines -->")[1]
    assert card.startswith(head) and card.endswith(tail)
    # the same card as writing the whole folder with those baselines in the report
    full = write_hub_folder(out, "bench", tmp_path / "full",
                            report={**report, "bench": {**report["bench"], "baselines": baselines}}, progress=False)
    assert (full / "README.md").read_text("utf-8") == card
    res = CliRunner().invoke(app, ["publish", "card", "--output", str(work)])
    assert res.exit_code == 0 and "card unchanged, report unchanged" in res.output
    res = CliRunner().invoke(app, ["publish", "card", "--output", str(tmp_path / "nothing")])
    assert res.exit_code == 2, res.output


def test_push_refuses_an_unfinished_folder(tmp_path):
    from builder.publish.write import push

    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "README.md").write_text("---\n---\n")
    with pytest.raises(PublishError, match="not a finished `jiezi publish` folder"):
        push(tmp_path / "half", "someone/jiezi-bench")


def test_size_category_uses_the_hub_bins():
    import datasets

    from builder.publish.write import size_category

    hub_bins = json.loads((Path(datasets.__file__).parent / "utils" / "resources" / "size_categories.json")
                          .read_text("utf-8"))
    cases = {0: "n<1K", 999: "n<1K", 1_000: "1K<n<10K", 7_996: "1K<n<10K", 10_000: "10K<n<100K",
             505_867: "100K<n<1M", 20_000_000: "10M<n<100M", 5 * 10 ** 12: "n>1T"}
    for n, label in cases.items():
        assert size_category(n) == label and label in hub_bins


@pytest.mark.parametrize("name", ["bench", "dataset"])
def test_card_size_category_counts_each_row_once(built, name, tmp_path, monkeypatch):
    """The bench's unseen splits are subsets of `test` and every config a subset of `all`:
    the size is the row count of the largest split, not a sum over splits."""
    import builder.publish.write as publish

    out, _ = built
    seen = []
    real = publish.size_category
    monkeypatch.setattr(publish, "size_category", lambda n: seen.append(n) or real(n))
    folder = write_hub_folder(out, name, tmp_path / name, progress=False)
    split = "test" if name == "bench" else "train"
    config = "all" if name == "bench" else max(CONFIGS["jiezi-dataset"],
                                               key=lambda c: len(load_dataset(str(folder), c, split="train")))
    rows = len(load_dataset(str(folder), config, split=split, cache_dir=str(tmp_path / "hf")))
    assert seen == [rows]
    assert DatasetCard.load(folder / "README.md").data.to_dict()["size_categories"] == [real(rows)]


def test_bench_card_states_the_label_skew_from_the_data(built):
    from collections import Counter

    out, _ = built
    text = DatasetCard.load(out / "jiezi-bench" / "README.md").text
    counts = {k: Counter() for k in ("SCRC", "STRC", "FORC", "COME")}
    for line in (out / "qa" / "bench.jsonl").read_text("utf-8").splitlines():
        r = json.loads(line)
        st = r["answer_struct"]
        if r["subtask"] == "SCRC":
            counts["SCRC"]["楷书" if st["script"] == "简体" else st["script"]] += 1
        elif r["subtask"] == "STRC":
            counts["STRC"][st["structure"]] += 1
        elif r["subtask"] == "FORC":
            counts["FORC"]["+".join(st["formation"])] += 1
        elif r["kind"] == "COMP_FULL":
            counts["COME"].update(c["evolution_type"] for c in st["components"] if c.get("evolution_type"))
    units = {"SCRC": "questions", "STRC": "references", "FORC": "references", "COME": "component labels"}
    for subtask, c in counts.items():
        label, k = c.most_common(1)[0]
        assert f"{100 * k / sum(c.values()):.1f}% of the {subtask} {units[subtask]} are {label}" in text
    assert "majority label" in text and "retrieval baseline" in text and "not comparable" in text


def test_jiezi_build_warns_about_a_small_bench_and_counts_skips(sources_dir, tmp_path):
    recs = tmp_path / "recs"
    write_records(sources_dir, recs)
    # what the records stage reports about bad user glyphs (the fixture records have none)
    (recs / "report.json").write_text(json.dumps({"skipped": {"user-bad-style": 2, "user-blank-image": 1}}))
    res = CliRunner().invoke(app, ["build", "--output", str(tmp_path / "out"), "--records", str(recs)])
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / "out" / "report.json").read_text("utf-8"))
    n = report["bench"]["images"]
    assert n < 1024
    assert any(f"JieZi-Bench has {n} images, fewer than the 1024 requested" in w for w in report["warnings"])
    assert f"warning: JieZi-Bench has {n} images, fewer than the 1024 requested" in res.output
    assert "records skipped: user-bad-style 2, user-blank-image 1" in res.output
    assert report["records"]["skipped"] == {"user-bad-style": 2, "user-blank-image": 1}
    card = (tmp_path / "out" / "jiezi-bench" / "README.md").read_text("utf-8")
    assert "**Warning:** JieZi-Bench has" in card and "(1,024 images requested)" in card


_JIEZI_BUILD = "import sys, jiezi_cli; sys.argv = ['jiezi', 'build', *sys.argv[1:]]; jiezi_cli.main()"


def _jiezi_build_in(root: Path, args: list[str], sources_dir: Path) -> dict:
    """``jiezi build ARGS`` run by the project copy at ``root``; returns the build's report.json."""
    env = {**os.environ, "PYTHONPATH": str(root), "JIEZI_SOURCES": str(sources_dir)}
    res = subprocess.run([sys.executable, "-c", _JIEZI_BUILD, *args], cwd=root, env=env, capture_output=True,
                         text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads((Path(args[args.index("--output") + 1]) / "report.json").read_text("utf-8"))


def test_the_publication_key_follows_its_imports():
    from builder.publish.write import PUBLISH_ENTRIES
    from hub.imports import imported_modules

    reached = {m for e in PUBLISH_ENTRIES for m in imported_modules(e)}
    # the bench images config's reference column comes from metrics/acce/paper.py (official_reference)
    assert {"jiezi_bench", "jiezi_dataset", "hub.rows", "hub.templates", "hub.layout", "metrics.acce.paper"} <= reached


@pytest.mark.subprocess
def test_editing_the_paper_protocol_republishes_the_bench(sources_dir, tmp_path):
    """Issue 23: the hand-kept list of the publication key missed metrics/acce/paper.py, so an
    edit there served a stale bench ``images`` config. On a copy of the project: a second
    build reuses the Hub folders; after an edit of paper.py the QA stage is still cached (it
    does not import paper.py) and the bench is written again."""
    root = copy_project(tmp_path / "copy")
    write_records(sources_dir, tmp_path / "recs")
    args = ["--output", str(tmp_path / "out"), "--records", str(tmp_path / "recs"), "--bench-size", "40"]
    assert not _jiezi_build_in(root, args, sources_dir)["folders"]["bench"]["cached"]
    assert _jiezi_build_in(root, args, sources_dir)["folders"]["bench"]["cached"]
    append_text(root / "metrics" / "acce" / "paper.py", "\n# edited\n")
    edited = _jiezi_build_in(root, args, sources_dir)
    assert edited["qa_cached"] is True
    assert edited["folders"]["bench"]["cached"] is False


def test_publish_bench_keeps_the_saved_baselines_on_the_card(built, tmp_path):
    # fresh-user trial of c09a032: `publish card` then `publish bench --dry-run` wrote the card
    # from the QA report again, without the "Baselines per script" section `make main` had filled
    import shutil

    out, _ = built
    work = tmp_path / "out"
    shutil.copytree(out, work)
    run = work / "eval" / "retrieval"
    run.mkdir(parents=True, exist_ok=True)
    res = {"format": "jiezi-eval-results/1", "model": {"spec": "retrieval"},
           "bench": {"config": "all", "split": "test", "rows": 3, "fingerprint": "f" * 64},
           "scores": {"CHAR": 50.0}, "breakdown": {"script": {"金文": {"CHAR": 0.0}}}}
    (run / "results.json").write_text(json.dumps(res, ensure_ascii=False), "utf-8")
    target = tmp_path / "upload"
    res = CliRunner().invoke(app, ["publish", "bench", "--output", str(work), "--folder", str(target), "--dry-run"])
    assert res.exit_code == 0, res.output
    assert "### Baselines per script" in (target / "README.md").read_text("utf-8")
