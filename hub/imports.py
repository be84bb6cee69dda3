"""The project's import graph, read from the source (nothing is imported or run).

:func:`imported_modules` follows every ``import`` of the project's own packages, at module
level and inside functions, from an entry module. Two users: the stage cache keys
(``builder.codekey.code_digest`` hashes the modules a stage reaches) and the Space bundle
(``space.bundle`` copies the modules the app reaches).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: top-level names whose modules belong to this project (the rest is third-party)
PROJECT_PACKAGES = ("builder", "hub", "metrics", "harness", "training", "space", "jiezi_bench", "jiezi_dataset", "jiezi_cli")


def module_file(name: str, root: Path = ROOT) -> Path | None:
    """The source file of project module ``name`` (``a.b.c``) under ``root``, or None when
    ``name`` is not a project module (third-party, or a name inside a module)."""
    if name.split(".")[0] not in PROJECT_PACKAGES:
        return None
    base = root.joinpath(*name.split("."))
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def _imports(path: Path, name: str, root: Path) -> set[str]:
    """Project module names imported anywhere in ``path`` (module ``name``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_pkg = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".")[: len(name.split(".")) - node.level + (1 if is_pkg else 0)]
                base = ".".join(parts + ([base] if base else []))
            found.add(base)
            # `from pkg import mod` imports a module too
            found.update(f"{base}.{a.name}" for a in node.names)
    out = set()
    for mod in found:
        # a package's __init__ runs whenever one of its modules is imported
        parts = mod.split(".")
        for i in range(1, len(parts) + 1):
            if module_file(".".join(parts[:i]), root) is not None:
                out.add(".".join(parts[:i]))
    return out


def imported_modules(entry: str, root: Path = ROOT) -> list[str]:
    """Every project module reachable by imports from module ``entry``, ``entry`` included,
    sorted. Raises ``ModuleNotFoundError`` when ``entry`` is not a project module."""
    if module_file(entry, root) is None:
        raise ModuleNotFoundError(f"{entry!r} is not a module of this project under {root}")
    seen: set[str] = set()
    todo = [entry]
    while todo:
        mod = todo.pop()
        if mod in seen:
            continue
        seen.add(mod)
        todo.extend(_imports(module_file(mod, root), mod, root) - seen)
    return sorted(seen)
