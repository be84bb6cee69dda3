"""Pinning what a run read (issue 15): bench revisions of Hub repo ids, the content
fingerprint of a bench folder, and a plain message for an empty bench split."""

from __future__ import annotations

import shutil

import datasets
import pytest
from typer.testing import CliRunner

from hub.read import content_fingerprint
from harness.bench import BenchError, bench_identity, load_bench, resolve_revision
from harness_fixtures import build_hub_folders
from hub.rows import BENCH_FEATURES as FEATURES
from jiezi_cli import app


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    root = tmp_path_factory.mktemp("pin")
    path, _ = build_hub_folders(root)
    return path


def _empty_copy(bench, tmp_path):
    copy = tmp_path / "jiezi-bench"
    shutil.copytree(bench, copy)
    empty = datasets.Dataset.from_dict({k: [] for k in FEATURES}, features=FEATURES)
    empty.to_parquet(str(copy / "L3" / "unseen_characters-00000-of-00001.parquet"))
    return copy


def test_an_empty_split_says_it_is_empty(bench, tmp_path):
    copy = _empty_copy(bench, tmp_path)
    with pytest.raises(BenchError, match=r"split 'unseen_characters' is empty \(0 rows\)"):
        load_bench(copy, "L3", "unseen_characters")
    assert len(load_bench(copy, "L3", "test")) > 0  # the other splits still load
    res = CliRunner().invoke(app, ["eval", "--model", "retrieval", "--bench", str(copy), "--config", "L3",
                                   "--split", "unseen_characters", "--output", str(tmp_path / "run"), "--no-progress"])
    assert res.exit_code == 2 and "is empty (0 rows)" in res.output and "DatasetGenerationError" not in res.output


def test_a_local_folder_is_pinned_by_its_content(bench, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(bench, copy)
    assert content_fingerprint(copy) == content_fingerprint(bench)  # same files, another place
    assert bench_identity(copy, None) == {"source": str(copy), "revision": None,
                                          "content_fingerprint": content_fingerprint(bench)}
    part = next((copy / "L1").glob("test-*.parquet"))
    part.write_bytes(part.read_bytes() + b"\0")
    assert content_fingerprint(copy) != content_fingerprint(bench)
    with pytest.raises(BenchError, match="applies to a Hub repo id"):
        resolve_revision(bench, "main")


def test_repo_id_revisions(monkeypatch):
    from huggingface_hub import constants

    commit = "0123456789abcdef0123456789abcdef01234567"
    assert resolve_revision("org/jiezi-bench", commit) == commit  # a commit needs no Hub call
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    assert resolve_revision("org/jiezi-bench", None) is None  # nothing asked: read unpinned
    with pytest.raises(BenchError, match="cannot resolve revision 'v1.0'.*40 hex digits"):
        resolve_revision("org/jiezi-bench", "v1.0")
    with pytest.raises(BenchError, match="cannot load bench 'org/jiezi-bench' config 'all' split 'test'"):
        load_bench("org/jiezi-bench", "all", "test", revision=commit)  # not in any cache: named, not a traceback


def test_eval_revision_is_refused_for_a_folder(bench, tmp_path):
    res = CliRunner().invoke(app, ["eval", "--model", "retrieval", "--bench", str(bench), "--revision", "main",
                                   "--output", str(tmp_path / "run"), "--no-progress"])
    assert res.exit_code == 2 and "applies to a Hub repo id" in res.output


def test_the_published_card_states_the_content_fingerprint(sources_dir, tmp_path):
    from huggingface_hub import DatasetCard

    from qa_fixtures import build_fixture

    build_fixture(sources_dir, tmp_path, bench_size=8)
    folder = tmp_path / "jiezi-bench"
    stated = DatasetCard.load(folder / "README.md").data["content_fingerprint"]
    assert stated == content_fingerprint(folder) == bench_identity(folder, None)["content_fingerprint"]
