"""Check the code layout rules of ARCHITECTURE.md (issues 11 and 23), from the source alone (ast).

Usage: python benchmarks/check_layout.py [--max-lines 80] [--max-module-lines 600] [--hidden]

Prints, per project folder (builder, hub, harness, metrics, space, training), the longest
function; then every function longer than ``--max-lines`` lines (``def`` line to last
line, decorators excluded, nested functions counted inside their parent and listed on
their own too); every module longer than ``--max-module-lines`` lines; every import of ``builder``
from a module outside it (the consumers read the published data through ``hub``; the
``jiezi`` CLI composition, ``jiezi_cli`` and the stages' ``cli`` modules, is exempt); then
every import cycle among the project's modules (strongly connected components of the
import graph, imports at module level and inside functions alike, since an import moved
into a function to dodge a cycle is still one); then every import from a later stage into
an earlier one (sources -> glyphs -> records -> qa -> publish -> consumers; ``hub``,
``metrics`` and the ``builder`` root modules are the shared base). With ``--hidden``, also
lists project imports made inside a function (allowed only for optional heavy
dependencies, so they are listed, not failed).

Exit status 1 when a function or module is too long, a module outside ``builder`` imports
it, a cycle exists, or a stage imports a later one; 0 otherwise. Nothing is imported or
run: the files are only parsed.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FOLDERS = ("builder", "hub", "harness", "metrics", "space", "training")
ROOT_MODULES = ("jiezi_bench", "jiezi_dataset", "jiezi_cli")
#: stage rank of a module prefix: a module may import modules of its own rank or lower.
#: hub/ (the published-data contract), metrics/ and the builder/ root modules (schema, ids,
#: aliases, codekey) are shared base (rank 0).
STAGE_RANK = (
    ("builder.sources", 1), ("builder.glyphs", 2), ("builder.records", 3), ("builder.qa", 4),
    ("builder.publish", 5), ("jiezi_bench", 5), ("jiezi_dataset", 5), ("builder.cli", 6),
    ("harness", 6), ("training", 6), ("space", 7), ("jiezi_cli", 8),
)



def project_files(root: Path = REPO) -> dict[str, Path]:
    """Module name -> source file, for every project module under ``root``."""
    out: dict[str, Path] = {}
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            rel = path.relative_to(root).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    for name in ROOT_MODULES:
        if (root / f"{name}.py").is_file():
            out[name] = root / f"{name}.py"
    return out


def functions(tree: ast.AST) -> list[tuple[str, int, int]]:
    """(qualified name, first line, length in lines) of every function in ``tree``."""
    found = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                found.append((name, child.lineno, child.end_lineno - child.lineno + 1))
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def imports(tree: ast.AST, name: str, is_pkg: bool, modules: dict[str, Path]) -> list[tuple[str, bool, int]]:
    """(imported project module, inside a function?, line) for every import in ``tree``;
    ``from pkg import mod`` counts as an import of ``pkg.mod`` when that is a module, and
    imports under ``if TYPE_CHECKING:`` are left out (they never run)."""
    out = []

    def resolve(mod: str) -> str | None:
        while mod and mod not in modules:
            mod = mod.rpartition(".")[0]
        return mod or None

    def visit(node: ast.AST, in_func: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                continue
            inner = in_func or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                for a in child.names:
                    m = resolve(a.name)
                    if m:
                        out.append((m, in_func, child.lineno))
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parts = name.split(".")
                    parts = parts[: len(parts) - child.level + (1 if is_pkg else 0)]
                    base = ".".join(parts + ([base] if base else []))
                for a in child.names:
                    m = resolve(f"{base}.{a.name}") if f"{base}.{a.name}" in modules else resolve(base)
                    if m:
                        out.append((m, in_func, child.lineno))
            visit(child, inner)

    visit(tree, False)
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (or a self-import), sorted
    (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1 or v in graph.get(v, ()):
                    out.append(sorted(comp))
    return sorted(out)


def stage_rank(module: str) -> int:
    """The stage rank of ``module`` (see ``STAGE_RANK``); 0 for shared base modules
    (builder/ root, metrics)."""
    for prefix, rank in STAGE_RANK:
        if module == prefix or module.startswith(prefix + "."):
            return rank
    return 0


def imports_builder(importer: str, imported: str) -> bool:
    """Whether ``importer`` (outside ``builder``) imports a ``builder`` module; the ``jiezi``
    CLI composition (``jiezi_cli`` and the stages' ``cli`` modules) may."""
    if importer.split(".")[0] == "builder" or imported.split(".")[0] != "builder":
        return False
    return not (importer == "jiezi_cli" or importer.endswith(".cli"))


def long_modules(modules: dict[str, Path], limit: int) -> list[tuple[int, str]]:
    """(lines, path) of every module over ``limit`` lines, longest first."""
    out = []
    for path in modules.values():
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > limit:
            out.append((n, path.relative_to(REPO).as_posix()))
    return sorted(out, reverse=True)


def _print_list(title: str, items: list[str]) -> None:
    print(f"\n{title}: {len(items)}")
    for line in items:
        print("  " + line)


def scan(modules: dict[str, Path], max_lines: int) -> dict:
    """One pass over the parsed modules: ``longest`` (folder -> (lines, where)), ``too_long``
    functions, the import ``graph``, ``hidden`` (imports inside functions), ``backwards``
    (later-stage imports) and ``builder_imports`` (imports of builder from outside it)."""
    out: dict = {"longest": {}, "too_long": [], "graph": defaultdict(set), "hidden": set(), "backwards": [],
                 "builder_imports": set()}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        rel = path.relative_to(REPO).as_posix()
        folder = rel.split("/")[0] if "/" in rel else "(root)"
        for qual, line, n in functions(tree):
            where = f"{rel}:{line} {qual}"
            if n > out["longest"].get(folder, (0, ""))[0]:
                out["longest"][folder] = (n, where)
            if n > max_lines:
                out["too_long"].append((n, where))
        for mod, in_func, line in imports(tree, name, path.name == "__init__.py", modules):
            if mod == name:
                continue
            out["graph"][name].add(mod)
            if in_func:
                out["hidden"].add(f"{rel}:{line} imports {mod}")
            if stage_rank(mod) > stage_rank(name):
                out["backwards"].append(f"{rel}:{line} ({name}) imports later stage {mod}")
            if imports_builder(name, mod):
                out["builder_imports"].add(f"{rel}:{line} ({name}) imports {mod}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-lines", type=int, default=80)
    ap.add_argument("--max-module-lines", type=int, default=600)
    ap.add_argument("--hidden", action="store_true", help="list project imports made inside functions")
    args = ap.parse_args(argv)
    modules = project_files()
    found = scan(modules, args.max_lines)
    print("longest function per folder:")
    for folder in sorted(found["longest"]):
        n, where = found["longest"][folder]
        print(f"  {folder:10s} {n:4d} lines  {where}")
    _print_list(f"functions over {args.max_lines} lines",
                [f"{n:4d}  {where}" for n, where in sorted(found["too_long"], reverse=True)])
    failing = long_modules(modules, args.max_module_lines)
    _print_list(f"modules over {args.max_module_lines} lines", [f"{n:5d}  {rel}" for n, rel in failing])
    _print_list("imports of builder from outside it", sorted(found["builder_imports"]))
    loops = cycles({m: found["graph"].get(m, set()) for m in modules})
    _print_list("import cycles among project modules", [" <-> ".join(comp) for comp in loops])
    _print_list("imports from a later stage into an earlier one", sorted(found["backwards"]))
    if args.hidden:
        _print_list("project imports inside functions", sorted(found["hidden"]))
    return 1 if (found["too_long"] or failing or found["builder_imports"] or loops or found["backwards"]) else 0


if __name__ == "__main__":
    sys.exit(main())
