"""The terminal chat at a real terminal (a pty): a paste of several lines is one message,
and readline knows the prompt (it redraws the line with "you> " where it belongs)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

_TERMINAL_CHAT = """
import asyncio, os, sys
from familiars.bot._adapters.base import CommandResponse
from familiars.bot._adapters.console import ConsoleAdapter

class Lines:
    async def respond(self, message):
        if message.text == "slow":  # a reply still coming: until the test has typed on
            yield "thinking... "
            while not os.path.exists(sys.argv[1]):
                await asyncio.sleep(0.05)
        yield f"got {len(message.text.splitlines())} lines: {message.text!r}"

    async def command(self, inv):
        ahead = "" if inv.fresh else " (typed ahead)"
        return CommandResponse(text=f"ran /{inv.name}{ahead}")

async def main():
    console = ConsoleAdapter(Lines())
    await console.start()
    await console.finished.wait()

asyncio.run(main())
"""


class Terminal:
    """The console in a child process on a pty: keys in, what the screen got out."""

    def __init__(self, typed_on: Path) -> None:
        self.main, child = pty.openpty()
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2]), "TERM": "xterm"}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _TERMINAL_CHAT, str(typed_on)],
            stdin=child,
            stdout=child,
            stderr=child,
            env=env,
        )
        os.close(child)
        self.shown = b""

    def read_until(self, marker: bytes, start: int = 0) -> None:
        while marker not in self.shown[start:]:
            ready, _, _ = select.select([self.main], [], [], 20)
            assert ready, self.shown[-300:]
            self.shown += os.read(self.main, 65536)

    def type(self, keys: str) -> int:
        """Send ``keys`` at once (as a paste arrives); where the screen's output stood."""
        at = len(self.shown)
        os.write(self.main, keys.encode())
        return at

    def close(self) -> None:
        os.write(self.main, b"\x15\x04")  # Ctrl-U, Ctrl-D: the line cleared, the chat ends
        try:
            self.proc.wait(timeout=20)
        finally:
            self.proc.kill()
            os.close(self.main)


@pytest.fixture
def terminal(tmp_path: Path):  # type: ignore[no-untyped-def]
    term = Terminal(tmp_path / "typed")
    term.read_until(b"you> ")
    yield term
    term.close()


@pytest.mark.timeout(60)
def test_a_pasted_block_of_lines_is_one_message(terminal: Terminal) -> None:
    at = terminal.type("My shopping list:\r- milk\r- eggs\r")
    terminal.read_until(b"got ", at)
    terminal.read_until(b"you> ", terminal.shown.index(b"got ", at))
    shown = terminal.shown[at:].decode(errors="replace")
    assert "got 3 lines: 'My shopping list:\\n- milk\\n- eggs'" in shown, shown
    assert shown.count("got ") == 1, shown


@pytest.mark.timeout(60)
def test_lines_typed_one_after_another_stay_messages_of_their_own(terminal: Terminal) -> None:
    at = terminal.type("first\r")
    terminal.read_until(b"got 1 lines: 'first'", at)
    at = terminal.type("second\r")
    terminal.read_until(b"got 1 lines: 'second'", at)
    terminal.read_until(b"you> ", terminal.shown.index(b"'second'", at))


@pytest.mark.timeout(60)
def test_lines_typed_while_a_reply_is_coming_stay_apart_and_a_command_runs(
    terminal: Terminal, tmp_path: Path
) -> None:
    """Typed ahead during a slow reply, they waited together in the terminal: read as one
    paste, they became one message 'are you there?\\n/help' and /help never ran."""
    at = terminal.type("slow\r")
    terminal.read_until(b"thinking... ", at)
    terminal.type("are you there?\r/help\r")
    (tmp_path / "typed").touch()  # the reply goes on only now
    terminal.read_until(b"ran /help", at)
    terminal.read_until(b"you> ", terminal.shown.index(b"ran /help", at))
    shown = terminal.shown[at:].decode(errors="replace")
    assert "got 1 lines: 'are you there?'" in shown, shown
    # Typed before the prompt came back: no "confirm" or "yes" among such lines is taken
    # as the answer to a question the person had not seen yet.
    assert "ran /help (typed ahead)" in shown, shown


@pytest.mark.timeout(60)
def test_a_command_pasted_after_a_line_is_part_of_the_message(terminal: Terminal) -> None:
    """Tester s38: a pasted "/" line was split off and run, and the lines after it became
    messages of their own: "/memory forget everything confirm" in a copied chat log
    erased the person. The paste is one message, and the person is told so."""
    at = terminal.type(
        "look what my mate sent me, is this a virus or what:\r"
        "/memory forget everything confirm\rlol\r"
    )
    terminal.read_until(b"got ", at)
    terminal.read_until(b"not run.)", at)
    terminal.read_until(b"you> ", terminal.shown.index(b"not run.)", at))
    shown = terminal.shown[at:].decode(errors="replace")
    assert "got 3 lines: " in shown, shown  # the reply's line is wrapped at the edge
    assert "ran /" not in shown and shown.count("got ") == 1, shown


@pytest.mark.timeout(60)
def test_a_command_typed_on_its_own_runs(terminal: Terminal) -> None:
    at = terminal.type("/help\r")
    terminal.read_until(b"ran /help", at)
    terminal.read_until(b"you> ", terminal.shown.index(b"ran /help", at))
    shown = terminal.shown[at:].decode(errors="replace")
    assert "(typed ahead)" not in shown, shown


@pytest.mark.timeout(60)
def test_readline_redraws_the_line_with_its_prompt(terminal: Terminal) -> None:
    """The prompt was written beside readline, not given to it: a redraw (Ctrl-L, a wrapped
    line, history) put the typed text at column 0 over the prompt."""
    terminal.type("abc")
    terminal.read_until(b"abc")
    at = terminal.type("\x0c")  # Ctrl-L: clear the screen and draw the line again
    terminal.read_until(b"abc", at)
    assert b"you> abc" in terminal.shown[at:], terminal.shown[at:]
