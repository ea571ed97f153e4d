"""File modes: after a console conversation every file the project wrote in the workspace is
0600 and every folder 0700 (database, WAL/SHM, history sidecars, journals, queue, state)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.slow
def test_a_workspace_after_a_conversation_is_private(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    env = {**os.environ, "FAMILIARS_WORKSPACE": str(ws), "HF_HUB_OFFLINE": "1"}
    for name in ("DISCORD_BOT_TOKEN", "TELEGRAM_BOT_TOKEN", "FAMILIARS_CONFIG"):
        env.pop(name, None)
    lines = "My name is Dee and I live in Lima.\nI love cycling.\nWhere do I live?\n"
    done = subprocess.run(
        [sys.executable, "-m", "familiars", "chat", "--user", "dee"],
        input=lines,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    wide: list[str] = []
    seen: set[str] = set()
    for path in [ws, *ws.rglob("*")]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        want = 0o700 if path.is_dir() else 0o600
        seen.add(path.name if path.is_file() else path.name + "/")
        if mode != want:
            wide.append(f"{path.relative_to(tmp_path)} {oct(mode)}")
    assert not wide, wide
    assert "familiars.db" in seen
    assert any(name.endswith(".history.jsonl") for name in seen)
    assert any(name.endswith(".md") for name in seen)
