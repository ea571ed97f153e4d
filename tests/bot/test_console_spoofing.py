"""Nothing the bot prints in the terminal chat can pass for a prompt line: a reply, a reminder,
a notice or a command's answer holding "\\r\\nfamiliar> ..." or "you> ..." (s36: a model reply
drew a second bot line and a line the person seemed to have typed)."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator

import pytest

from familiars.bot._adapters.base import CommandInvocation, CommandResponse, IncomingMessage
from familiars.bot._adapters.console import BOT, PROMPT, ConsoleAdapter

pytestmark = pytest.mark.timeout(30)

FORGED = "Sure.\r\nfamiliar> I have sent your savings.\nyou> thanks, do it again\u2028you> ok"


class Forger:
    """A handler whose every text tries to draw prompt lines."""

    async def respond(self, message: IncomingMessage) -> AsyncIterator[str]:
        yield FORGED[:9]  # the forged line split across two deltas
        yield FORGED[9:]

    async def command(self, invocation: CommandInvocation) -> CommandResponse:
        return CommandResponse("you> /memory forget everything\nfamiliar> done")


class Screen(io.StringIO):
    """A terminal's output: a tty, so the console cuts lines at its width."""

    def isatty(self) -> bool:
        return True


def _prompt_lines(printed: str) -> list[str]:
    lines = printed.replace("\r\x1b[K", "\n").split("\n")
    return [line for line in lines if line.startswith((PROMPT.strip(), BOT.strip()))]


async def test_a_reply_a_command_a_reminder_and_a_notice_draw_no_prompt_line() -> None:
    out = io.StringIO()
    console = ConsoleAdapter(Forger(), stdin=io.StringIO(""), stdout=out, interactive=True)
    await console.handle_line("hello")
    await console.handle_line("/memory list")
    await console.send(console.chat_id, "you> cancel my reminders")
    console._reading.set()
    console.notice("(note:\nyou> yes)")
    printed = out.getvalue()
    assert _prompt_lines(printed) == [
        "familiar> Sure.",  # the reply's own line, drawn by the console
        "familiar> you> cancel my reminders",  # the reminder, on the familiar's own line
        PROMPT,  # drawn again after the notice
    ], printed
    assert "  familiar> I have sent your savings." in printed
    assert "  you> thanks, do it again\n  you> ok" in printed
    assert "  you> /memory forget everything\n  familiar> done" in printed


async def test_a_line_the_terminal_would_wrap_is_cut_before_its_edge(monkeypatch) -> None:
    """A line one character short of the width, then "you> ...": wrapped by the terminal,
    the forged prompt would start at column 0."""
    monkeypatch.setenv("COLUMNS", "30")
    out = Screen()

    class Wide(Forger):
        async def respond(self, message: IncomingMessage) -> AsyncIterator[str]:
            yield "x" * (30 - len(BOT)) + "you> forged " + "\u732b" * 20

    console = ConsoleAdapter(Wide(), stdin=io.StringIO(""), stdout=out, interactive=True)
    await console.handle_line("hi")
    lines = out.getvalue().split("\n")
    # the 24-cell word starts a line of its own, in from the margin: no prompt at column 0
    assert _prompt_lines(out.getvalue()) == [BOT]
    assert all(sum(2 if c == "\u732b" else 1 for c in line) <= 30 for line in lines), lines


async def test_the_typed_line_drawn_again_plays_no_escape_sequence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """s36 review: a reminder redrew the person's half-typed line raw, so a pasted escape
    sequence (here: clear the screen) reached the terminal."""
    readline = pytest.importorskip("readline")
    monkeypatch.setattr(readline, "get_line_buffer", lambda: "call \x1b[2Jmum\r\nyou> ok")
    out = io.StringIO()
    console = ConsoleAdapter(Forger(), stdin=io.StringIO(""), stdout=out, interactive=True)
    console._tty_mode = []  # a terminal's line is being read
    console._reading.set()
    try:
        await console.send(console.chat_id, "Time to call mum.")
    finally:
        console._tty_mode = None
    printed = out.getvalue()
    assert "\x1b[2J" not in printed and printed.endswith(f"{PROMPT}call [2Jmum you> ok"), printed


async def test_a_long_reply_is_broken_between_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """s36 tester: the crisis reply was cut mid-word at the terminal's edge ("I" at the end
    of one line, "f you might act" on the next)."""
    monkeypatch.setenv("COLUMNS", "30")
    out = Screen()
    words = "If you might act on these thoughts please call your local emergency number now"

    class Long(Forger):
        async def respond(self, message: IncomingMessage) -> AsyncIterator[str]:
            yield words + " " + "x" * 40

    console = ConsoleAdapter(Long(), stdin=io.StringIO(""), stdout=out, interactive=True)
    await console.handle_line("hi")
    shown = out.getvalue().replace("\r\x1b[K", "")  # the reply's line cleared first
    lines = [line for line in shown.split("\n") if line.strip()]
    assert all(len(line) <= 30 for line in lines), lines
    said = " ".join(line.strip() for line in lines).removeprefix(BOT.strip()).strip()
    assert said.startswith(words), lines  # every word whole, in order
    assert all(not line.endswith(" ") for line in lines[:-1]), lines


async def test_a_reply_starts_on_a_clean_line_after_a_racing_note() -> None:
    """s36, tmux: "you> familiar> (still loading...)": a note redrew the prompt just as the
    line was read, and the reply was written after it."""
    out = Screen()
    console = ConsoleAdapter(Forger(), stdin=io.StringIO(""), stdout=out, interactive=True)
    console._reading.set()  # the note comes while the prompt seems to wait
    console.notice("(note: the model)")
    console._reading.clear()  # ...but the line was already read
    await console.handle_line("hello")
    printed = out.getvalue()
    assert f"{PROMPT}\r\x1b[K{BOT}" in printed, printed
    assert f"{PROMPT}{BOT}" not in printed
