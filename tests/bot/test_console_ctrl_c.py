"""Ctrl-C at the terminal chat (a pty, real readline, the tty's own SIGINT): while a reply is
written, or waited for, it stops the reply, says "(stopped)" and gives the prompt back; at the
prompt it says how to leave, and a second one at an empty prompt (or Ctrl-D) leaves with a
goodbye. It drew "^C" and ended the chat without a word (person-tester, session 36). The
message a Ctrl-C cut off is still recorded: the runtime half is in test_runtime_lifecycle."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import subprocess
import sys
import termios
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(60)

_TERMINAL_CHAT = """
import asyncio, signal, sys
from familiars.bot._adapters.console import ConsoleAdapter, on_ctrl_c

class Lines:
    async def respond(self, message):
        if message.text == "slow":  # a reply that never ends
            yield "thinking... "
            await asyncio.Event().wait()
        if message.text == "wait":  # a reply that never starts
            await asyncio.Event().wait()
        yield f"got: {message.text!r}"

async def main():
    console = ConsoleAdapter(Lines())
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGINT, on_ctrl_c(console, stop.set))
    await console.start()
    ended = asyncio.ensure_future(console.finished.wait())
    await asyncio.wait({ended, asyncio.ensure_future(stop.wait())}, return_when="FIRST_COMPLETED")
    await console.stop()
    print("[ended]")

asyncio.run(main())
"""


def _own_terminal() -> None:
    """The child in a session of its own with the pty as its controlling terminal: a
    Ctrl-C typed there is its SIGINT, as at a real terminal."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    def __init__(self) -> None:
        self.main, child = pty.openpty()
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2]), "TERM": "xterm"}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _TERMINAL_CHAT], stdin=child, stdout=child, stderr=child,
            env=env, preexec_fn=_own_terminal,
        )  # fmt: skip
        os.close(child)
        self.shown = b""

    def read_until(self, marker: bytes, start: int = 0) -> int:
        while marker not in self.shown[start:]:
            ready, _, _ = select.select([self.main], [], [], 20)
            assert ready, self.shown[-400:]
            try:
                self.shown += os.read(self.main, 65536)
            except OSError:  # the chat ended: the pty closed
                assert marker in self.shown[start:], self.shown[-400:]
        return self.shown.index(marker, start) + len(marker)

    def type(self, keys: str) -> int:
        at = len(self.shown)
        os.write(self.main, keys.encode())
        return at


@pytest.fixture
def terminal():  # type: ignore[no-untyped-def]
    term = Terminal()
    term.read_until(b"you> ")
    yield term
    term.proc.kill()
    term.proc.wait(timeout=10)
    os.close(term.main)


def _ends(terminal: Terminal, at: int) -> str:
    terminal.read_until(b"[ended]", at)
    assert terminal.proc.wait(timeout=20) == 0
    return terminal.shown[at:].decode(errors="replace")


@pytest.mark.parametrize("what", ["slow", "wait"])
def test_ctrl_c_stops_the_reply_and_the_chat_goes_on(terminal: Terminal, what: str) -> None:
    at = terminal.type(f"{what}\r")
    terminal.read_until(b"thinking... " if what == "slow" else b"familiar> ", at)
    stopped = terminal.type("\x03")
    terminal.read_until(b"you> ", terminal.read_until(b"(stopped)", stopped))
    assert b"^C" not in terminal.shown[stopped:], terminal.shown[stopped:]
    at = terminal.type("hello\r")
    terminal.read_until(b"got: 'hello'", at)
    terminal.read_until(b"you> ", at)
    assert terminal.proc.poll() is None  # still chatting
    at = terminal.type("\x03")  # at an empty prompt: the last key was no Ctrl-C
    terminal.read_until(b"to leave", at)
    at = terminal.type("\x03")  # and again: goodbye
    shown = _ends(terminal, at)
    assert "Goodbye" in shown, shown


def test_a_ctrl_c_after_a_stopped_reply_leaves(terminal: Terminal) -> None:
    at = terminal.type("slow\r")
    terminal.read_until(b"thinking... ", at)
    at = terminal.type("\x03")
    terminal.read_until(b"you> ", terminal.read_until(b"(stopped)", at))
    shown = _ends(terminal, terminal.type("\x03"))
    assert "Goodbye" in shown, shown


def test_ctrl_c_with_words_typed_keeps_them_and_ctrl_d_leaves(terminal: Terminal) -> None:
    terminal.type("half a thou")
    terminal.read_until(b"half a thou")
    at = terminal.type("\x03")
    terminal.read_until(b"you> half a thou", terminal.read_until(b"to leave", at))
    at = terminal.type("\x03")  # words at the prompt: no leaving on Ctrl-C
    terminal.read_until(b"to leave", at)
    assert terminal.proc.poll() is None
    shown = _ends(terminal, terminal.type("\x15\x04"))  # Ctrl-U, Ctrl-D
    assert "Goodbye" in shown, shown
