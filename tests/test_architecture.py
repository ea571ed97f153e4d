"""The house rules, checked: no import circles (lazy imports included), other packages reach a
package only through its face, and no file or function grows past what a newcomer can read.

The layers and faces are also an import-linter contract (``pyproject.toml``, run by
``make lint``); this test measures with the same script the figures are reported with.
"""

from __future__ import annotations

import importlib.util
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
