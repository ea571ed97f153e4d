"""``memory.max_record_chars`` on the command line: ``memory add`` refuses a longer text in
one line; ``memory check`` names a longer hand-written entry, ``memory show`` shows it cut."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from familiars.cli import app
from familiars.memory import MemoryStore, make_record

runner = CliRunner()


def _run(ws: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["--workspace", str(ws), *args])
    return result.exit_code, result.output


def test_add_refuses_a_text_over_the_limit_in_one_line(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    code, out = _run(ws, "memory", "add", "-s", "user", "-C", "profile", "-u", "al", "x" * 2001)
    assert code == 1
    assert len(out.strip().splitlines()) == 1
    assert "too long: 2,001 characters; the limit is 2,000 (memory.max_record_chars)" in out
    assert _run(ws, "memory", "list", "--json") == (0, "")  # nothing stored
    code, _ = _run(ws, "memory", "add", "-s", "user", "-C", "profile", "-u", "al", "x" * 2000)
    assert code == 0


def test_check_names_a_long_hand_written_entry_and_show_cuts_it(tmp_path: Path) -> None:
    ws = tmp_path / "ws"

    async def hand_write() -> str:  # as a hand edit would: the store takes what files hold
        async with MemoryStore(ws, max_record_chars=10**6) as store:
            rec = make_record("y" * 5000, scope="user", category="profile", user_key="al")
            return (await store.append(rec)).id

    rid = asyncio.run(hand_write())
    code, out = _run(ws, "memory", "check")
    assert code == 1
    assert f"{rid} is 5,000 characters, over the limit of 2,000" in out
    assert "profile.md" in out  # the file it is in
    code, out = _run(ws, "memory", "show", rid)
    assert code == 0 and "...[cut, 3,000 more characters]" in out
    assert "y" * 2001 not in out.replace("\n", "")


@pytest.mark.slow
def test_check_says_each_broken_entry_once(tmp_path: Path) -> None:
    """``memory check`` lists a broken hand edit with its file and line, once: not a second
    time as a log warning of the store that read it."""
    ws = tmp_path / "ws"
    assert _run(ws, "memory", "add", "-s", "user", "-C", "profile", "-u", "al", "Al bakes")[0] == 0
    path = ws / "users" / "al" / "profile.md"
    path.write_text(path.read_text(encoding="utf-8").replace("<!-- {", "<!-- {BROKEN", 1))
    done = subprocess.run(
        [str(Path(sys.executable).parent / "familiars"), "--workspace", str(ws), "memory", "check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    said = done.stdout + done.stderr
    assert said.count("profile.md:1: broken memory entry") == 1, said
