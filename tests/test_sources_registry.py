"""The source registry: URL and hash construction, verification, and a real pooch fetch
from a loopback HTTP server serving copies of a few real upstream files."""

from __future__ import annotations

import hashlib
import io
import shutil
import tarfile
import threading
import zipfile
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from builder.sources import registry as reg


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_registry_declares_every_source_once_with_pinned_urls_and_licences():
    assert set(reg.REGISTRY) == {"shuowen", "makemeahanzi", "cjkvi-ids", "unihan", "oracle-mnist", "lxgw-seal",
                                 "commons-ancient", "commons-acc-png", "jiezi-official-samples"}
    for name, src in reg.REGISTRY.items():
        assert src.licence and src.url
        assert src.commit or src.archive_url, name
        for f in src.files:
            assert len(f.sha256) == 64 and int(f.sha256, 16) >= 0
    om = reg.REGISTRY["oracle-mnist"]
    assert om.raw_url(om.files[0]) == ("https://raw.githubusercontent.com/wm-bupt/oracle-mnist/"
                                       "b6cb263f84d39a8bbb94c5b806d846b600068924/data/oracle/t10k-images-idx3-ubyte.gz")
    assert reg.REGISTRY["shuowen"].repo_archive_url() == "https://codeload.github.com/shuowenjiezi/shuowen/tar.gz/6553a350"
    assert reg.mirrored("https://files.pythonhosted.org/a/b.whl", "http://127.0.0.1:9") == \
        "http://127.0.0.1:9/files.pythonhosted.org/a/b.whl"
    # the Shuowen manifest lists the 9,833 entry files and is itself pinned
    listed = reg.REGISTRY["shuowen"].manifest_files()
    assert len(listed) == 9833 and listed[0].path == "data/1.json" and listed[-1].path == "data/9833.json"
    assert "jiezi-official-samples" not in reg.BUILD_SOURCES


def test_cache_resolution_order(monkeypatch, tmp_path):
    monkeypatch.setenv("JIEZI_SOURCES", str(tmp_path / "env"))
    assert reg.resolve_sources_dir(tmp_path / "flag") == tmp_path / "flag"
    assert reg.resolve_sources_dir(None) == tmp_path / "env"
    monkeypatch.delenv("JIEZI_SOURCES")
    assert reg.resolve_sources_dir(None) == Path("~/.cache/jiezi/sources").expanduser()


def test_real_cache_verifies(sources_dir):
    result = reg.check(sources_dir, ["makemeahanzi", "cjkvi-ids", "oracle-mnist", "lxgw-seal", "unihan"])
    assert result.ok, [p.message() for p in result.problems]
    assert reg.require(sources_dir, ["shuowen"], hashes=False) == sources_dir


def _copy_source(sources_dir: Path, tmp: Path, name: str) -> Path:
    root = tmp / "cache"
    shutil.copytree(sources_dir / name, root / name)
    return root


def test_missing_and_corrupt_files_stop_with_source_file_checksum_and_command(sources_dir, tmp_path):
    root = _copy_source(sources_dir, tmp_path, "makemeahanzi")
    (root / "makemeahanzi" / "COPYING").unlink()
    with (root / "makemeahanzi" / "dictionary.txt").open("ab") as fh:
        fh.write(b"corrupted\n")
    with pytest.raises(reg.SourceError) as exc:
        reg.require(root, ["makemeahanzi"])
    msg = str(exc.value)
    src = reg.REGISTRY["makemeahanzi"]
    assert "'makemeahanzi'" in msg and "COPYING" in msg and "dictionary.txt" in msg
    assert src.files[0].sha256 in msg and src.files[1].sha256 in msg
    assert "jiezi sources fetch" in msg
    # a source whose folder is absent is reported the same way
    result = reg.check(root, ["oracle-mnist"])
    assert {p.problem for p in result.problems} == {"missing"} and len(result.problems) == 4


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output clean
        pass


@pytest.fixture
def mirror(tmp_path):
    """A real HTTP server on 127.0.0.1 serving tmp_path/'mirror' (host/path layout)."""
    root = tmp_path / "mirror"
    root.mkdir()
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.server
def test_fetch_with_pooch_from_a_loopback_mirror(sources_dir, tmp_path, mirror):
    root, url = mirror
    # 1. raw files at the pinned commit (makemeahanzi: real files, real hashes)
    mm = reg.REGISTRY["makemeahanzi"]
    small = reg.Source(name="makemeahanzi", url=mm.url, licence=mm.licence, repo=mm.repo, commit=mm.commit,
                       files=tuple(f for f in mm.files if f.path in ("COPYING", "README.md")))
    for f in small.files:
        dest = root / "raw.githubusercontent.com" / mm.repo / mm.commit / f.upstream_path
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(sources_dir / "makemeahanzi" / f.path, dest)
    # 2. manifest-listed files from the GitHub archive of the commit (three real Shuowen entries)
    manifest = tmp_path / "shuowen-test.sha256.txt"
    picked = ["data/6955.json", "data/4304.json", "data/3293.json"]
    manifest.write_text("".join(f"{sha(sources_dir / 'shuowen' / p)}  {p}\n" for p in picked))
    sw = reg.Source(name="shuowen", url="x", licence="Apache-2.0", repo="shuowenjiezi/shuowen", commit="6553a350",
                    files=(), manifest=str(manifest), manifest_sha256=sha(manifest))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for p in picked:
            tar.add(sources_dir / "shuowen" / p, arcname=f"shuowen-6553a350full/{p}")
    archive = root / "codeload.github.com" / "shuowenjiezi/shuowen/tar.gz/6553a350"
    archive.parent.mkdir(parents=True)
    archive.write_bytes(buf.getvalue())
    # 3. files inside a pinned release archive (a zip, like the Unihan wheel)
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w") as z:
        z.write(sources_dir / "unihan" / "Unihan_RadicalStrokeCounts.txt", "pkg/data/Unihan_RadicalStrokeCounts.txt")
    wheel = root / "files.pythonhosted.org" / "packages" / "uh.whl"
    wheel.parent.mkdir(parents=True)
    wheel.write_bytes(zbuf.getvalue())
    uh_file = next(f for f in reg.REGISTRY["unihan"].files if f.path == "Unihan_RadicalStrokeCounts.txt")
    uh = reg.Source(name="unihan", url="x", licence="Unicode-3.0", archive_url="https://files.pythonhosted.org/packages/uh.whl",
                    archive_sha256=hashlib.sha256(zbuf.getvalue()).hexdigest(),
                    files=(reg.SourceFile(uh_file.path, uh_file.sha256, "pkg/data/Unihan_RadicalStrokeCounts.txt"),))
    registry = {"makemeahanzi": small, "shuowen": sw, "unihan": uh}

    cache = tmp_path / "cache"
    result = reg.fetch(cache, registry=registry, mirror=url)
    assert result.ok, [p.message() for p in result.problems]
    for f in small.files:
        assert (cache / "makemeahanzi" / f.path).read_bytes() == (sources_dir / "makemeahanzi" / f.path).read_bytes()
    for p in picked:
        assert (cache / "shuowen" / p).read_bytes() == (sources_dir / "shuowen" / p).read_bytes()
    assert sha(cache / "unihan" / "Unihan_RadicalStrokeCounts.txt") == uh_file.sha256
    # a second fetch downloads nothing (files verified in place); a corrupted file is re-fetched
    (cache / "shuowen" / "data/4304.json").write_text("{}")
    assert not reg.check(cache, ["shuowen"], registry=registry).ok
    assert reg.fetch(cache, registry=registry, mirror=url).ok

    # the mirror serves a wrong file: pooch's hash check refuses it, naming the expected hash
    bad = root / "raw.githubusercontent.com" / mm.repo / mm.commit / "COPYING"
    bad.write_text("not the licence")
    (cache / "makemeahanzi" / "COPYING").unlink()
    with pytest.raises(reg.SourceError) as exc:
        reg.fetch(cache, ["makemeahanzi"], registry=registry, mirror=url)
    assert "'makemeahanzi'" in str(exc.value) and "COPYING" in str(exc.value)
    assert small.files[0].sha256 in str(exc.value)
    assert not (cache / "makemeahanzi" / "COPYING").exists()
    # and a bad member of an archive is named by the registry's own check
    with tarfile.open(archive, "w:gz") as tar:
        info = tarfile.TarInfo("shuowen-6553a350full/data/4304.json")
        data = b'{"id": 4304}'
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    (cache / "shuowen" / "data/4304.json").unlink()
    with pytest.raises(reg.SourceError, match="4304.json"):
        reg.fetch(cache, ["shuowen"], registry=registry, mirror=url)
