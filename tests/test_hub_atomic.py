"""hub.atomic: a file is complete under its final name or absent, whatever happens while writing."""

from __future__ import annotations

import json
import os

import pytest

from hub.atomic import atomic_create, atomic_open, atomic_path, atomic_write, atomic_write_json


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "sub" / "a.json"
    atomic_write_json(path, {"a": 1})
    assert json.loads(path.read_text("utf-8")) == {"a": 1} and path.read_text("utf-8").endswith("\n")
    with pytest.raises(RuntimeError):
        with atomic_open(path) as fh:
            fh.write('{"a": 2')  # half written, then the writer dies
            raise RuntimeError("interrupted")
    assert json.loads(path.read_text("utf-8")) == {"a": 1}
    assert sorted(p.name for p in path.parent.iterdir()) == ["a.json"]


def test_writers_agree_and_follow_the_umask(tmp_path):
    atomic_write(tmp_path / "t.txt", "江\n")
    atomic_write(tmp_path / "b.bin", b"\x00\x01", fsync=True)
    with atomic_path(tmp_path / "p.txt") as tmp:
        assert tmp.exists() and tmp.parent == tmp_path  # created empty, beside the target
    assert (tmp_path / "t.txt").read_text("utf-8") == "江\n" and (tmp_path / "b.bin").read_bytes() == b"\x00\x01"
    assert (tmp_path / "p.txt").read_bytes() == b""
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "t.txt").stat().st_mode & 0o777 == 0o666 & ~umask


def test_create_never_overwrites(tmp_path):
    path = tmp_path / "row.json"
    assert atomic_create(path, "first") is True
    assert atomic_create(path, "second") is False
    assert path.read_text("utf-8") == "first"
    assert [p.name for p in tmp_path.iterdir()] == ["row.json"]
