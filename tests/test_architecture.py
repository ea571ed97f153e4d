"""The house rules, checked: no import circles (lazy imports included), other packages reach a
package only through its face, and no file or function grows past what a newcomer can read.

The layers and faces are also an import-linter contract (``pyproject.toml``, run by
``make lint``); this test measures with the same script the figures are reported with.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _metrics() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "house_metrics", ROOT / "scripts" / "house_metrics.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["house_metrics"] = module
    spec.loader.exec_module(module)
    return module


REPORT = _metrics().measure()


def test_no_import_circles() -> None:
    assert REPORT["import_cycles"] == []
    assert REPORT["package_cycles"] == []


def test_no_file_over_800_lines_and_no_function_over_60() -> None:
    assert REPORT["files_over_800"] == []
    assert REPORT["functions_over_60"] == []


def test_other_packages_import_only_faces() -> None:
    assert REPORT["bypassing_face"] == []


_PRIVATE = re.compile(r"^familiars\.(?P<pkg>\w+)\.(?P<mod>_\w+)")
#: Calls whose first argument names a module to import or patch: ``importlib.import_module``,
#: ``monkeypatch.setattr("familiars.x._y.NAME", ...)``, ``mock.patch(...)``.
_REACHING_CALLS = {"import_module", "__import__", "setattr", "delattr", "patch"}


def _private_reaches(tree: ast.AST) -> list[tuple[int, str]]:
    """Each place ``tree`` reaches a private module of ours: an import of one, a private name
    imported from a face (``from familiars.memory import _forget``), a dotted ``familiars.x._y``
    in code, or a string naming one handed to an import or a patch. (A logger's name is no
    reach: it is only compared.)"""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("familiars."):
            module = str(node.module)
            names = [module] + [f"{module}.{a.name}" for a in node.names if a.name[0] == "_"]
        elif isinstance(node, ast.Attribute):
            names = [ast.unparse(node)]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in _REACHING_CALLS and isinstance(node.args[0].value, str):
                names = [node.args[0].value]
        found += [(node.lineno, n) for n in names if _PRIVATE.match(n)]
    return found


def test_tests_use_other_packages_only_through_their_faces() -> None:
    """A test of package X (under ``tests/X/``) may reach X's private modules; any other
    package it uses through that package's ``__init__`` (issue 20), so a refactor behind a
    face breaks no test. Shared helpers at the top of ``tests/`` reach none."""
    reached: list[str] = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        parts = rel.split("/")
        own = parts[1] if len(parts) > 2 else ""
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, name in _private_reaches(tree):
            match = _PRIVATE.match(name)
            if match is not None and match["pkg"] != own:
                reached.append(f"{rel}:{line}: {name}")
    assert sorted(set(reached)) == []


def test_the_private_reach_check_sees_every_way_in() -> None:
    """The check above finds each way a test has reached past a face before."""
    source = """
import familiars.memory._atomic as atomic
from familiars.memory._store import MemoryStore
from familiars.memory import _forget, load_embedder
importlib.import_module("familiars.memory._embedder_loading")
monkeypatch.setattr("familiars.memory._reader.OFFLINE_FANOUT", True)
familiars.memory._atomic._write_all
logging.getLogger("familiars.memory._store")
"""
    found = {name for _, name in _private_reaches(ast.parse(source))}
    assert found == {
        "familiars.memory._atomic",
        "familiars.memory._store",
        "familiars.memory._forget",
        "familiars.memory._embedder_loading",
        "familiars.memory._reader.OFFLINE_FANOUT",
        "familiars.memory._atomic._write_all",
    }


def test_every_face_exports_what_it_names() -> None:
    """Each package's ``__all__`` is unique and every name in it resolves (lazy ones too)."""
    import importlib

    faces = sorted(p.parent.name for p in (ROOT / "familiars").glob("*/__init__.py"))
    assert {"bot", "cli", "config", "llm", "memory", "scheduler", "terminal"} <= set(faces)
    for face in faces:
        module = importlib.import_module(f"familiars.{face}")
        names = list(getattr(module, "__all__", []))
        assert len(names) == len(set(names)), face
        for name in names:
            assert getattr(module, name, None) is not None, f"familiars.{face}.{name}"
