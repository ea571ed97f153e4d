"""A full disk is said plainly (issue 19: the chat ended with exit 1 and raw tracebacks, and
the message that hit it got no reply). The message that hit it is answered "My disk is full,
so I may not have kept what you just said ...", the chat goes on, what was acknowledged before is
kept, and once there is space again the next message is a normal turn. On a real full
filesystem (a small tmpfs) the terminal chat does the same and exits 0 with no traceback.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from familiars.bot._dialogue import DISK_FULL_AFTER, DISK_FULL_NOT_DONE, DISK_FULL_REPLY
from familiars.config import load_settings
from tests.bot.test_reminders_e2e import SAID_AT
from tests.harness import console_bot

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

pytestmark = pytest.mark.timeout(120)


class Disk:
    """The workspace's disk, full while ``full``: a write of any file under the workspace
    fails as a full disk does (``ENOSPC``), through ``os.write``, which every workspace file
    the bot writes itself goes through (SQLite writes in C and is not stopped)."""

    def __init__(self, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.full = False
        real = os.write
        inside = str(workspace.resolve()) + os.sep

        def write(fd: int, data: ReadableBuffer) -> int:
            if self.full and os.readlink(f"/proc/self/fd/{fd}").startswith(inside):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return real(fd, data)

        monkeypatch.setattr(os, "write", write)


async def test_the_message_that_hits_a_full_disk_is_answered_plainly(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    disk = Disk(workspace, monkeypatch)
    async with console_bot(load_settings(workspace=workspace), [SAID_AT]) as bot:

        async def say(text: str, n: int) -> str:
            bot.clock[0] = SAID_AT + timedelta(minutes=n)
            return await bot.say(text)

        assert "Alice" in await say("My name is Alice.", 0)
        disk.full = True
        assert await say("I live in Denver.", 1) == DISK_FULL_REPLY
        assert await say("I have a cat.", 2) == DISK_FULL_REPLY  # the chat goes on
        # A forget that finds the disk full says so plainly too (it raised out of the chat).
        assert await say("forget that", 3) == DISK_FULL_NOT_DONE
        disk.full = False
        assert DISK_FULL_REPLY not in await say("I have a dog called Rex.", 3)
        texts = [r.content for r in await bot.app.memory.store.list(scope="user")]
        assert any("Alice" in t for t in texts)
        assert not any("Denver" in t for t in texts)  # not acknowledged, not half-kept
        disk.full = True  # the stop's own writes (folding, counters, snapshot) are said


async def test_a_forget_the_full_disk_stopped_leaves_nothing_to_note_later(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review s35 R4: "scratch that, <statement>", yes on a full disk: "could not finish
    that", yet the statement stayed waiting and came out after an unrelated later forget."""
    disk = Disk(workspace, monkeypatch)
    async with console_bot(load_settings(workspace=workspace), [SAID_AT]) as bot:

        async def say(text: str, n: int) -> str:
            bot.clock[0] = SAID_AT + timedelta(minutes=n)
            return await bot.say(text)

        assert "pizza" in await say("My favourite food is pizza.", 0)
        assert "Reply yes" in await say("scratch that, my favourite food is sushi", 1)
        disk.full = True
        assert await say("yes", 2) == DISK_FULL_NOT_DONE
        disk.full = False
        later = await say("forget that", 3)
        assert "sushi" not in later, later


@pytest.mark.slow
def test_the_terminal_chat_on_a_really_full_disk(small_disk: Path) -> None:
    ws = small_disk / "ws"
    env = {**os.environ, "FAMILIARS_WORKSPACE": str(ws), "FAMILIARS_EMBEDDING__MODEL": "bundled"}
    env.pop("FAMILIARS_CONFIG", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "familiars", "chat", "--user", "bea"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=env,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None

    def reply() -> list[str]:
        assert proc.stdout is not None
        lines = []
        while (got := proc.stdout.readline()) not in ("\n", ""):
            lines.append(got.strip())
        return lines

    def say(line: str) -> list[str]:
        assert proc.stdin is not None
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        return reply()

    def kept() -> str:
        return "".join(p.read_text(encoding="utf-8") for p in ws.glob("users/*/*.md"))

    try:
        assert any("Bea" in x for x in say("My name is Bea."))
        # What follows the reply (the writer's turn, the reply's node) runs once the reply is
        # out: the disk fills only after it, so the next message is the one that meets it.
        deadline = time.monotonic() + 60
        while "Bea" not in kept() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
        filler = small_disk / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            with pytest.raises(OSError) as full:
                while True:
                    os.write(fd, b"\0" * 4096)
            assert full.value.errno == errno.ENOSPC
        finally:
            os.close(fd)
        said = say("I live in Denver.")
        if said == [DISK_FULL_AFTER]:  # the last exchange's end met the full disk first
            said = reply()
        assert said == [DISK_FULL_REPLY]
        filler.unlink()
        assert DISK_FULL_REPLY not in say("I have a dog called Rex.")
        out, err = proc.communicate("", timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert "Bea" in kept() and "Denver" not in kept()
