"""s33 U9: a terminal left without echo (a chat killed while readline held it) is given its
echo and line mode back when the console starts, and the mode it had is put back at stop."""

from __future__ import annotations

import io
import os
import termios

import pytest

from familiars.bot._adapters.console import ConsoleAdapter
from familiars.bot._pending import PendingHandler

pytestmark = pytest.mark.timeout(30)


def _mode(fd: int) -> int:
    return int(termios.tcgetattr(fd)[3])


async def test_a_blind_terminal_gets_its_echo_back_while_the_chat_runs() -> None:
    main, side = os.openpty()
    blind = termios.tcgetattr(side)
    blind[3] &= ~(termios.ECHO | termios.ICANON)
    termios.tcsetattr(side, termios.TCSANOW, blind)  # as `stty -echo -icanon` leaves it
    stdin = open(side, encoding="utf-8", closefd=False)  # noqa: SIM115 - closed below
    try:
        console = ConsoleAdapter(PendingHandler(notice=None), stdin=stdin, stdout=io.StringIO())
        assert console.interactive
        await console.start()
        assert _mode(side) & termios.ECHO and _mode(side) & termios.ICANON
        os.write(main, b"/quit\n")
        await console.stop()
        assert not _mode(side) & termios.ECHO  # found blind, left as found
    finally:
        stdin.close()
        os.close(main)
        os.close(side)


async def test_a_pipe_is_left_alone() -> None:
    console = ConsoleAdapter(
        PendingHandler(notice=None), stdin=io.StringIO(""), stdout=io.StringIO()
    )
    await console.start()
    await console.stop()
    assert console._started_mode is None


async def test_the_mode_found_is_what_is_left_after_the_chats_two_stops(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """s34 fixrem 5: ``stty -echo; familiars chat`` left echo on at exit: the chat stops its
    console twice (the runtime's shutdown, then the chat's own end), and the second stop put
    back the mode readline had found (echo on, as the start made it), not the one found."""
    import asyncio

    main, side = os.openpty()
    blind = termios.tcgetattr(side)
    blind[3] &= ~termios.ECHO
    termios.tcsetattr(side, termios.TCSANOW, blind)  # as `stty -echo` leaves it
    stdin = open(side, encoding="utf-8", closefd=False)  # noqa: SIM115 - closed below
    monkeypatch.setattr("sys.stdin", stdin)  # the keyboard: read through readline's path
    try:
        console = ConsoleAdapter(PendingHandler(notice=None), stdin=stdin, stdout=io.StringIO())
        await console.start()
        assert _mode(side) & termios.ECHO
        while console._tty_mode is None:  # the first read has begun
            await asyncio.sleep(0.01)
        os.write(main, b"/quit\n")
        await console.stop()
        await console.stop()
        assert not _mode(side) & termios.ECHO  # found blind, left as found
    finally:
        stdin.close()
        os.close(main)
        os.close(side)
