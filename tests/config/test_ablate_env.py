"""FAMILIARS_ABLATE_KNOB: any knob name of either kind starts the bot; an unknown one is one
clear line and exit 1 (issue 11: it used to hang `familiars chat`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from familiars.memory import FILE_KNOBS, RECALL_KNOBS

ROOT = Path(__file__).resolve().parents[2]


def _chat(tmp_path: Path, knob: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FAMILIARS_ABLATE_KNOB": knob, "FAMILIARS_WORKSPACE": str(tmp_path)}
    return subprocess.run(
        [sys.executable, "-m", "familiars", "chat", "--user", "alice"],
        input="My name is Alice.\nWhat is my name?\n",
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=240,
    )


@pytest.mark.parametrize("knob", [list(RECALL_KNOBS)[0], "recency", sorted(FILE_KNOBS)[0]])
@pytest.mark.slow
def test_a_known_knob_of_either_kind_starts_the_chat(tmp_path: Path, knob: str) -> None:
    done = _chat(tmp_path, knob)
    assert done.returncode == 0, done.stderr
    assert "Alice" in done.stdout


def test_an_unknown_knob_is_one_clear_line(tmp_path: Path) -> None:
    done = _chat(tmp_path, "bogus")
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "unknown knob(s) bogus" in lines[0]
