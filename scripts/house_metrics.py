"""Measure how easy the code is to find one's way in: import circles, imports that bypass a
package's face, long files and long functions.

    python scripts/house_metrics.py            # a summary
    python scripts/house_metrics.py --details  # every offender named
    python scripts/house_metrics.py --json

A *package* is a directory directly under ``familiars/`` (``familiars.memory`` ...). Its *face*
is its ``__init__.py``. An import from another package that names a module behind the face
(``from familiars.memory._store import X``, ``import familiars.memory.store``) bypasses it.
Circles are counted over modules and over packages, imports made inside functions included
(a lazy import hides a circle, it does not remove it); ``TYPE_CHECKING`` imports are left out.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "familiars"
FILE_LIMIT = 800
FUNCTION_LIMIT = 60


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def package_of(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else module


def is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def resolve_from(module: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_pkg:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(path: Path, known: set[str]) -> list[tuple[str, bool, int]]:
    """(target module, runs at import time, line) for each import of ``familiars``."""
    module = module_name(path)
    is_pkg = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, bool, int]] = []

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and is_type_checking(child):
                continue  # typing only: it never runs, so neither a circle nor a bypass
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                visit(child, False)
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.startswith("familiars"):
                        found.append((alias.name, top, child.lineno))
            elif isinstance(child, ast.ImportFrom):
                target = resolve_from(module, is_pkg, child)
                if not target.startswith("familiars"):
                    continue
                for alias in child.names:
                    sub = f"{target}.{alias.name}"
                    found.append((sub if sub in known else target, top, child.lineno))
            else:
                visit(child, top)

    visit(tree, True)
    return found


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in sorted(graph):
            if v not in index:
                strong(v)
    finally:
        sys.setrecursionlimit(limit)
    return cycles


def longest_functions(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            out.append((length, f"{path.relative_to(ROOT.parent)}:{node.lineno} {node.name}"))
    return out


def measure() -> dict[str, object]:
    files = sorted(ROOT.rglob("*.py"))
    known = {module_name(p) for p in files}
    graph: dict[str, set[str]] = defaultdict(set)
    packages: dict[str, set[str]] = defaultdict(set)
    bypass: list[str] = []
    cross = 0
    for path in files:
        source = module_name(path)
        for target, _top, line in imports_of(path, known):
            if target not in known:
                target = target.rsplit(".", 1)[0] if target.rsplit(".", 1)[0] in known else target
            if target in known and target != source:
                graph[source].add(target)
            if package_of(target) != package_of(source) and target.startswith("familiars."):
                packages[package_of(source)].add(package_of(target))
            if package_of(target) == package_of(source) or target == "familiars":
                continue
            cross += 1
            if target != package_of(target):
                where = f"{path.relative_to(ROOT.parent)}:{line}"
                bypass.append(f"{where} -> {target}")
    # An __init__ importing its own submodules is how a face is built, not a circle.
    cycles = [
        c
        for c in find_cycles(graph)
        if not all(m == package_of(m) or package_of(m) in c for m in c)
        or any(m != package_of(m) for m in c)
    ]
    cycles = [c for c in cycles if _real_cycle(c, graph)]
    lengths = {p: len(p.read_text(encoding="utf-8").splitlines()) for p in files}
    long_files = sorted(
        (f"{p.relative_to(ROOT.parent)} ({n})" for p, n in lengths.items() if n > FILE_LIMIT),
    )
    functions = sorted((f for p in files for f in longest_functions(p)), reverse=True)
    return {
        "modules": len(files),
        "import_cycles": cycles,
        "package_cycles": find_cycles(packages),
        "cross_package_imports": cross,
        "bypassing_face": bypass,
        "files_over_800": long_files,
        "longest_function": {"lines": functions[0][0], "where": functions[0][1]},
        "functions_over_60": [f"{w} ({n})" for n, w in functions if n > FUNCTION_LIMIT],
    }


def _real_cycle(component: list[str], graph: dict[str, set[str]]) -> bool:
    """Drop the edge package -> its own submodule (a face re-exporting) and check again."""
    members = set(component)
    pruned = {
        v: {w for w in graph.get(v, ()) if w in members and not w.startswith(v + ".")}
        for v in members
    }
    return bool(find_cycles(pruned))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--details", action="store_true")
    args = parser.parse_args()
    report = measure()
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    cycles = report["import_cycles"]
    bypass = report["bypassing_face"]
    assert isinstance(cycles, list) and isinstance(bypass, list)
    print(f"modules                         {report['modules']}")
    print(f"import circles                  {len(cycles)}")
    print(f"package circles                 {len(report['package_cycles'])}")  # type: ignore[arg-type]
    print(f"cross-package imports           {report['cross_package_imports']}")
    print(f"  of which bypass a face        {len(bypass)}")
    print(f"files over {FILE_LIMIT} lines           {len(report['files_over_800'])}")  # type: ignore[arg-type]
    longest = report["longest_function"]
    print(f"longest function                {longest}")
    print(f"functions over {FUNCTION_LIMIT} lines        {len(report['functions_over_60'])}")  # type: ignore[arg-type]
    if args.details:
        for key in (
            "import_cycles",
            "package_cycles",
            "bypassing_face",
            "files_over_800",
            "functions_over_60",
        ):
            print(f"\n{key}:")
            for item in report[key]:  # type: ignore[attr-defined]
                print(f"  {item}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
