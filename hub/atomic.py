"""The one atomic file writer: a file is complete under its final name, or absent.

Every writer of the project (builder stages, harness runs and caches, the board, training
cards, the Space) writes through here: the content goes to a temporary name in the same
folder (so the rename cannot cross file systems), which is renamed onto the final name only
when the write succeeded; on any error, including Ctrl-C, the temporary file is removed and
an earlier file under the final name is left as it was.

- :func:`atomic_path` yields the temporary path for a callee that opens it itself;
- :func:`atomic_open` yields an open file;
- :func:`atomic_write` writes a ``str`` (UTF-8) or ``bytes``; :func:`atomic_write_json` a
  JSON value;
- :func:`atomic_create` writes a file that must not exist yet (a hard link of the finished
  temporary file: it fails, without writing, when the name exists).

``fsync=True`` also flushes the data to disk before the rename (a power cut then loses
neither the old nor the new file); it costs a disk round trip per file, so it is for run
records (predictions, results), not for the thousands of files a build writes.

Temporary names are ``.<name>.<pid>.<random>.tmp``: hidden, unique per writer, and created
with the process umask like any other file (``tempfile.mkstemp`` would make them 0600).
"""

from __future__ import annotations

import json
import os
import secrets
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator


def _temp_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def atomic_path(path: str | os.PathLike, *, fsync: bool = False) -> Iterator[Path]:
    """Yield a temporary path beside ``path`` (its folder is created; the file exists,
    empty, so a block that writes nothing leaves an empty file); when the block ends
    without an exception the file is renamed onto ``path``, else it is removed. Raises
    what the block or the rename raise."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temp_name(path)
    try:
        open(tmp, "xb").close()
        yield tmp
        if fsync:
            _fsync_file(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


@contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", *, encoding: str | None = "utf-8",
                newline: str | None = None, fsync: bool = False) -> Iterator[IO]:
    """:func:`atomic_path` with the file opened: ``mode`` ``"w"`` (text, ``encoding``,
    ``newline`` as for :func:`open`) or ``"wb"``. The file is closed before the rename."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open: mode {mode!r}; expected 'w' or 'wb'")
    with atomic_path(path, fsync=fsync) as tmp:
        with open(tmp, mode, **({} if mode == "wb" else {"encoding": encoding, "newline": newline})) as fh:
            yield fh


def atomic_write(path: str | os.PathLike, data: str | bytes, *, encoding: str = "utf-8",
                 fsync: bool = False) -> Path:
    """Write ``data`` (``str``: encoded with ``encoding``; ``bytes`` as they are) to
    ``path`` atomically; returns ``Path(path)``."""
    raw = data.encode(encoding) if isinstance(data, str) else bytes(data)
    with atomic_open(path, "wb", fsync=fsync) as fh:
        fh.write(raw)
    return Path(path)


def atomic_write_json(path: str | os.PathLike, obj, *, indent: int | None = 1, newline: bool = True,
                      fsync: bool = False, **dumps_kwargs) -> Path:
    """Write ``obj`` as UTF-8 JSON (``ensure_ascii=False``, ``indent``; a final newline
    unless ``newline`` is False; other :func:`json.dumps` arguments such as ``default`` or
    ``sort_keys`` pass through) to ``path`` atomically; returns ``Path(path)``."""
    text = json.dumps(obj, ensure_ascii=False, indent=indent, **dumps_kwargs)
    return atomic_write(path, text + ("\n" if newline else ""), fsync=fsync)


def atomic_create(path: str | os.PathLike, data: str | bytes, *, encoding: str = "utf-8",
                  fsync: bool = True) -> bool:
    """Create ``path`` with ``data``, fully written, only if no file has that name: True
    when created, False (nothing written) when the name exists. The finished temporary
    file is hard-linked to ``path`` (``os.link`` fails when the name exists), so two
    writers racing for one name never overwrite each other."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temp_name(path)
    try:
        with open(tmp, "xb") as fh:
            fh.write(data.encode(encoding) if isinstance(data, str) else bytes(data))
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        return True
    finally:
        tmp.unlink(missing_ok=True)
