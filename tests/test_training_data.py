"""JieZi-Dataset loading for training: row checks, skipped rows, nested subsets."""

from __future__ import annotations

import io

import datasets
import pytest
from tiny_vlm import build_tiny_jiezi_dataset, render_glyph

from hub.skips import SkipLog
from training.data import (
    PAPER_SUBSETS,
    check_row,
    load_jiezi_dataset,
    nested_subset_indices,
)


@pytest.fixture(scope="module")
def tiny_dataset(tmp_path_factory):
    return build_tiny_jiezi_dataset(tmp_path_factory.mktemp("jiezi-dataset"), copies=3)


def _png() -> dict:
    buf = io.BytesIO()
    render_glyph("江", 48).save(buf, format="PNG")
    return {"bytes": buf.getvalue(), "path": None}


def _row(**changes) -> dict:
    row = {
        "images": [_png()],
        "messages": [
            {"role": "user", "content": [{"type": "image", "text": None}, {"type": "text", "text": "这是什么字？"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "江"}]},
        ],
    }
    row.update(changes)
    return row


def test_nested_subsets_are_nested_deterministic_and_order_free():
    ids = [f"glyph-{i:05d}" for i in range(1000)]
    chosen = {f: {ids[i] for i in nested_subset_indices(ids, f, seed=0)} for f in PAPER_SUBSETS}
    assert [len(chosen[f]) for f in PAPER_SUBSETS] == [250, 500, 750, 1000]
    assert chosen[0.25] < chosen[0.5] < chosen[0.75] < chosen[1.0]
    # the same rows whatever the order of the dataset
    shuffled = list(reversed(ids))
    assert {shuffled[i] for i in nested_subset_indices(shuffled, 0.25, seed=0)} == chosen[0.25]
    # a random draw, not a prefix: the 25 % subset spreads over the whole id range
    picked = sorted(int(i.split("-")[1]) for i in chosen[0.25])
    assert picked[0] < 50 and picked[-1] > 950
    # another seed, another subset
    assert {ids[i] for i in nested_subset_indices(ids, 0.25, seed=1)} != chosen[0.25]


@pytest.mark.parametrize("fraction", [0, -0.5, 1.5])
def test_subset_outside_unit_interval_is_rejected(fraction):
    with pytest.raises(ValueError, match="subset must be a fraction"):
        nested_subset_indices(["a", "b"], fraction)


def test_duplicate_ids_are_rejected():
    with pytest.raises(ValueError, match="unique"):
        nested_subset_indices(["a", "a", "b"], 0.5)


def test_check_row_accepts_a_good_row():
    assert check_row(_row()) is None


@pytest.mark.parametrize(
    ("changes", "field", "reason"),
    [
        ({"images": []}, "images", "exactly one"),
        ({"images": [_png(), _png()]}, "images", "exactly one"),
        ({"images": [{"bytes": b"not a png", "path": None}]}, "images", "does not open"),
        ({"messages": []}, "messages", "non-empty"),
        ({"messages": [{"role": "narrator", "content": "x"}]}, "messages", "role"),
        ({"messages": [{"role": "user", "content": [{"type": "image", "text": None}]},
                       {"role": "assistant", "content": [{"type": "text", "text": "  "}]}]}, "messages", "empty"),
        ({"messages": [{"role": "user", "content": [{"type": "text", "text": "q"}]},
                       {"role": "assistant", "content": [{"type": "text", "text": "a"}]}]}, "messages", "image"),
        ({"messages": [{"role": "user", "content": [{"type": "image", "text": None}]}]}, "messages", "no assistant"),
        ({"messages": [{"role": "user", "content": [{"type": "image", "text": None}]},
                       {"role": "assistant", "content": [{"type": "image", "text": None},
                                                          {"type": "text", "text": "a"}]}]}, "messages", "assistant"),
    ],
)
def test_check_row_names_field_and_reason(changes, field, reason):
    problem = check_row(_row(**changes))
    assert problem is not None and problem[0] == field and reason in problem[1]


def test_load_reads_every_config_and_counts_turns(tiny_dataset):
    full, summary = load_jiezi_dataset(str(tiny_dataset), "all", progress=False)
    assert summary.rows == summary.total_rows == 24 and summary.skipped == 0
    assert summary.qa_turns == 24 * 6
    assert len(summary.image_sizes) == 24 and all(w > 0 and h > 0 for w, h in summary.image_sizes)
    for config, turns in (("L1", 2), ("L2", 2), ("L3", 1), ("L4", 1)):
        ds, s = load_jiezi_dataset(str(tiny_dataset), config, progress=False)
        assert s.qa_turns == 24 * turns
        assert ds[0]["messages"][0]["content"][0]["type"] == "image"


def test_load_subsets_are_nested_on_real_parquet(tiny_dataset):
    ids = {}
    for fraction in PAPER_SUBSETS:
        ds, summary = load_jiezi_dataset(str(tiny_dataset), "all", subset=fraction, progress=False)
        ids[fraction] = set(ds["id"])
        assert summary.rows == round(24 * fraction) and summary.subset == fraction
        assert summary.qa_turns == 6 * summary.rows
    assert ids[0.25] < ids[0.5] < ids[0.75] < ids[1.0]


def test_bad_rows_are_skipped_recorded_and_the_rest_kept(tiny_dataset, tmp_path):
    good = datasets.load_dataset(str(tiny_dataset), "all", split="train")
    rows = good.cast_column("images", datasets.List(datasets.Image(decode=False))).to_list()
    rows[3]["images"] = [{"bytes": b"\x89PNG broken", "path": None}]
    rows[5]["messages"] = rows[5]["messages"][:1]  # question without an answer
    folder = tmp_path / "with-bad-rows"
    (folder / "all").mkdir(parents=True)
    features = good.features.copy()
    features["images"] = datasets.List(datasets.Image(decode=False))
    datasets.Dataset.from_list(rows, features=features).to_parquet(str(folder / "all" / "train-00000-of-00001.parquet"))
    (folder / "README.md").write_text("---\nconfigs:\n- config_name: all\n  data_files:\n  - split: train\n"
                                      "    path: all/train-*.parquet\n---\n", encoding="utf-8")
    skips = SkipLog()
    ds, summary = load_jiezi_dataset(str(folder), "all", skips=skips, progress=False)
    assert summary.skipped == 2 and summary.rows == 22 and len(ds) == 22
    assert {item.item for item in skips.items} == {rows[3]["id"], rows[5]["id"]}
    assert {item.field for item in skips.items} == {"images", "messages"}
    assert skips.counts() == {"jiezi-dataset-row": 2}
    assert rows[3]["id"] not in set(ds["id"])


def test_missing_folder_and_bad_subset_fail_clearly(tmp_path, tiny_dataset, monkeypatch):
    with pytest.raises(FileNotFoundError, match="jiezi build"):
        load_jiezi_dataset(str(tmp_path / "nope"), progress=False)
    monkeypatch.chdir(tmp_path)  # the default folder is relative to the working directory
    with pytest.raises(FileNotFoundError, match="out/jiezi-dataset"):
        load_jiezi_dataset(progress=False)
    with pytest.raises(ValueError, match="subset"):
        load_jiezi_dataset(str(tiny_dataset), subset=2, progress=False)


def test_a_rebuilt_folder_is_read_again_not_from_a_stale_cache(tmp_path):
    import shutil

    folder = build_tiny_jiezi_dataset(tmp_path / "rebuilt", copies=3)
    assert load_jiezi_dataset(str(folder), progress=False)[1].rows == 24
    shutil.rmtree(folder)
    build_tiny_jiezi_dataset(folder, copies=1)  # same paths, fewer rows (datasets #2956)
    assert load_jiezi_dataset(str(folder), progress=False)[1].rows == 8
