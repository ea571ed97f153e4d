"""The run fails, naming the test, when a test leaves a non-daemon thread running (it used to
hang pytest at exit after every test had passed: an Application stopped, not shut down)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

LEAKS = """
import threading

def test_leaves_a_thread() -> None:
    threading.Thread(target=threading.Event().wait, name="left-behind").start()

def test_ends_its_thread() -> None:
    done = threading.Event()
    threading.Thread(target=done.wait, name="joined").start()
    done.set()
"""


@pytest.mark.slow
def test_a_thread_left_running_fails_the_run_with_the_tests_name(tmp_path: Path) -> None:
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_leaks.py").write_text(LEAKS, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "2 passed" in done.stdout, done.stdout
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, (done.stdout, done.stderr)
    assert "left-behind: started during test_leaks.py::test_leaves_a_thread" in done.stderr
    assert "joined" not in done.stderr
