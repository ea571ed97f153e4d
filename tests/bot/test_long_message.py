"""F15: a message over the one input limit is not cut silently: the reply says it was too
long and what was kept, on every road in (console, Discord, Telegram share one path)."""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from familiars.bot import Application
from familiars.bot._adapters.console import ConsoleAdapter
from familiars.bot._dialogue import MAX_MESSAGE_CHARS
from tests.harness import say, speaker

T0 = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)


msg = speaker(user="alice", name="Alice", at=T0)


@pytest.mark.parametrize("platform", ["console", "discord", "telegram"])
async def test_an_over_long_message_is_said_to_be_too_long(app: Application, platform: str) -> None:
    reply = await say(
        app, msg("My name is Alice. " + "x" * (MAX_MESSAGE_CHARS + 3000), platform=platform)
    )
    assert "too long" in reply
    assert f"first {MAX_MESSAGE_CHARS:,} characters" in reply  # what was kept
    assert "left out the last 3,018" in reply  # and how much was not


async def test_an_over_long_message_is_answered_but_never_mined(app: Application) -> None:
    """Tester s36: a 100 KB word salad, cut, still gave five memories ("your dog is called
    Fluffy", "Your lazy the is called I Fluffy") that buried the real dog in answers."""
    salad = " ".join(["my dog is called Fluffy and I live in Leeds."] * 600)
    assert len(salad) > MAX_MESSAGE_CHARS
    reply = await say(app, msg(salad, platform="telegram"))
    assert "I noted nothing from it" in reply, reply
    assert "Fluffy" not in reply.split("\n\n", 1)[1], reply
    assert await app.memory.store.list() == []
    short = await say(app, msg("my dog is called Rex", minutes=1, platform="telegram"))
    assert "Rex" in short and "too long" not in short, short
    [dog] = [r.content for r in await app.memory.store.list()]
    assert "Rex" in dog, dog


async def test_a_message_within_the_limit_gets_no_note(app: Application) -> None:
    reply = await say(app, msg("x" * (MAX_MESSAGE_CHARS - 10), platform="telegram"))
    assert "too long" not in reply


async def test_the_console_says_it_too(app: Application) -> None:
    out = io.StringIO()
    line = "hello " + "y" * MAX_MESSAGE_CHARS
    console = ConsoleAdapter(app.dialogues, stdin=io.StringIO(""), stdout=out)
    await console.handle_line(line)
    await app.settle()
    assert "Your message was too long for me" in out.getvalue()


async def test_the_note_is_not_kept_as_part_of_the_message(
    app: Application, workspace: Path
) -> None:
    await say(app, msg("z" * (MAX_MESSAGE_CHARS + 5), platform="telegram"))
    kept = "\n".join(p.read_text() for p in workspace.rglob("*.md"))
    assert "Your message was too long" not in kept


_TERMINAL_CHAT = """
import asyncio
from familiars.bot._adapters.console import ConsoleAdapter

class Length:
    async def respond(self, message):
        yield f"read {len(message.text)} characters"

async def main():
    console = ConsoleAdapter(Length())
    await console.start()
    await console.finished.wait()

asyncio.run(main())
"""


def _chat_in_a_terminal(line: str) -> str:
    """What the terminal shows after ``line`` is typed (pasted) into the console."""
    main, child = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2]), "TERM": "xterm"}
    proc = subprocess.Popen(
        [sys.executable, "-c", _TERMINAL_CHAT], stdin=child, stdout=child, stderr=child, env=env
    )
    os.close(child)
    shown = b""

    def read_until(marker: bytes) -> None:
        nonlocal shown
        while marker not in shown:
            ready, _, _ = select.select([main], [], [], 20)
            assert ready, shown[-300:]
            shown += os.read(main, 65536)

    try:
        read_until(b"you> ")
        data = (line + "\r").encode()
        for at in range(0, len(data), 1024):  # as a paste arrives; the echo is read meanwhile
            os.write(main, data[at : at + 1024])
            while select.select([main], [], [], 0.05)[0]:
                shown += os.read(main, 65536)
        read_until(b"characters")
        read_until(b"characters\r\n\r\nyou> ")  # readline reads again (Ctrl-D is EOF now)
        os.write(main, b"\x04")  # Ctrl-D: the chat ends
        proc.wait(timeout=20)
    finally:
        proc.kill()
        os.close(main)
    return shown.decode(errors="replace")


@pytest.mark.timeout(60)
def test_the_terminal_hands_over_a_line_longer_than_its_own_4095() -> None:
    """The terminal's line discipline keeps 4,095 characters of a line and drops the rest
    without a word: the console reads past it, so the limit and its note are the chat's."""
    shown = _chat_in_a_terminal("w" * 6000)
    assert "read 6000 characters" in shown
