"""Cache keys computed from the code a stage runs.

A stage's cache is valid only for the code that produced it. Rather than a hand-kept list of
files (which drifts: a module the stage imports is forgotten and a change to it serves a stale
build), :func:`code_digest` follows every ``import`` of the project's own packages, at module
level and inside functions, from the stage's entry module (``hub.imports.imported_modules``),
and hashes the source of each module reached.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from hub.imports import ROOT, imported_modules, module_file


@lru_cache(maxsize=None)
def code_digest(*entries: str, root: Path = ROOT) -> str:
    """SHA-256 (hex, 64 characters) over the path and bytes of every project module that
    any of ``entries`` imports, directly or not, and of the ``<module>.json`` data file beside
    a module (the tracing audit's verdicts) (a stage whose optional parts are passed in
    as objects, e.g. the QA polisher, names their modules as further entries). Computed
    once per process: the key of the code this process runs, even if the files change on
    disk later. Raises ``ModuleNotFoundError`` for an entry outside the project."""
    h = hashlib.sha256()
    mods = sorted({m for e in entries for m in imported_modules(e, root)})
    for mod in mods:
        path = module_file(mod, root)
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
        data = path.with_suffix(".json")  # a module's data file of the same name is part of its code
        if data.is_file():
            h.update(data.relative_to(root).as_posix().encode() + b"\0" + data.read_bytes() + b"\0")
    return h.hexdigest()
