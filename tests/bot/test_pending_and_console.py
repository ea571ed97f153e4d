"""The terminal chat before the bot is ready (a PendingHandler), and what the console prints
for a command's file: the path and the passage, never the bytes."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator

import pytest

from familiars.bot._adapters.base import (
    CommandInvocation,
    CommandResponse,
    CommandSpec,
    IncomingMessage,
    without_file,
)
from familiars.bot._adapters.console import MARGIN, PROMPT, ConsoleAdapter, command_text
from familiars.bot._pending import LOADING_NOTICE, PendingHandler

pytestmark = pytest.mark.timeout(30)

PDF = b"%PDF-1.4\n\x00\xff\xfe binary"


class Echo:
    """The real handler, once ready: echoes messages, answers /find with a PDF."""

    def __init__(self) -> None:
        self.settled = 0

    async def respond(self, message: IncomingMessage) -> AsyncIterator[str]:
        yield f"echo: {message.text}"

    async def command(self, invocation: CommandInvocation) -> CommandResponse:
        return CommandResponse(
            "1. lease.pdf, page 2\n   \u201crent is due on the first\u201d",
            file_name="lease.pdf",
            file_data=PDF,
            file_path="/ws/users/me/files/lease.pdf",
        )

    def command_specs(self) -> list[CommandSpec]:
        return [CommandSpec("find", "Find", "/find QUERY")]

    async def complete(self, invocation: CommandInvocation, partial: str) -> list[str]:
        return ["x"]

    async def settle(self) -> None:
        self.settled += 1


def _message(text: str) -> IncomingMessage:
    return IncomingMessage("console", "console-me", "me", "me", text)


def _find() -> CommandInvocation:
    return CommandInvocation("console", "console-me", "me", "me", "find", ("lease",))


async def test_a_turn_before_ready_waits_and_says_so() -> None:
    pending = PendingHandler(notice_after_s=0)
    stream = pending.respond(_message("hi"))
    assert await anext(stream) == f"{LOADING_NOTICE}\n"
    rest = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0)
    assert not rest.done()  # still waiting for the real handler
    pending.ready(Echo())
    assert await rest == "echo: hi"


async def test_once_ready_nothing_is_said_and_all_is_forwarded() -> None:
    pending = PendingHandler(notice_after_s=0)
    assert pending.command_specs() == []
    echo = Echo()
    pending.ready(echo, settle=echo.settle)
    assert [d async for d in pending.respond(_message("hi"))] == ["echo: hi"]
    assert (await pending.command(_find())).file_name == "lease.pdf"
    assert [s.name for s in pending.command_specs()] == ["find"]
    assert await pending.complete(_find(), "") == ["x"]
    await pending.settle()
    assert echo.settled == 1


async def test_a_command_before_ready_is_answered_with_the_notice_first() -> None:
    pending = PendingHandler(notice_after_s=0)
    answer = asyncio.ensure_future(pending.command(_find()))
    await asyncio.sleep(0)
    pending.ready(Echo())
    assert (await answer).text.startswith(LOADING_NOTICE)


async def test_without_a_notice_piped_lines_just_wait() -> None:
    pending = PendingHandler(notice=None, notice_after_s=0)
    reply = asyncio.ensure_future(_collect(pending.respond(_message("hi"))))
    await asyncio.sleep(0)
    pending.ready(Echo())
    assert await reply == ["echo: hi"]


async def test_a_failed_start_reaches_the_waiting_turn() -> None:
    pending = PendingHandler(notice=None)
    reply = asyncio.ensure_future(_collect(pending.respond(_message("hi"))))
    await asyncio.sleep(0)
    pending.failed(RuntimeError("no workspace"))
    with pytest.raises(RuntimeError, match="no workspace"):
        await reply


async def _collect(stream: AsyncIterator[str]) -> list[str]:
    return [d async for d in stream]


# ---------------------------------------------------------------------- the console


def test_find_in_the_terminal_prints_path_and_passage_never_bytes() -> None:
    text = command_text(
        CommandResponse(
            "1. lease.pdf\n   \u201crent is due\u201d",
            file_name="lease.pdf",
            file_data=PDF,
            file_path="/ws/files/lease.pdf",
        )
    )
    assert "rent is due" in text and "File: /ws/files/lease.pdf" in text
    assert "%PDF" not in text and "\ufffd" not in text


def test_a_text_export_is_shown_and_binary_without_a_path_is_only_named() -> None:
    export = CommandResponse("Your memory.", file_name="memory.md", file_data=b"# me\n- hi\n")
    assert "--- memory.md ---\n# me\n- hi" in command_text(export)
    blob = CommandResponse("Here.", file_name="a.bin", file_data=PDF)
    assert "a.bin" in command_text(blob) and "%PDF" not in command_text(blob)


def test_a_file_over_the_limit_becomes_a_note_with_its_path() -> None:
    response = CommandResponse("found", file_name="big.pdf", file_data=PDF, file_path="/p/big.pdf")
    assert without_file(response, len(PDF), "Telegram") is response
    smaller = without_file(response, len(PDF) - 1, "Telegram")
    assert smaller.file_data is None
    assert "more than Telegram takes" in smaller.text and "/p/big.pdf" in smaller.text


async def test_console_find_through_a_pending_handler_prints_no_bytes() -> None:
    out = io.StringIO()
    pending = PendingHandler(notice=None)
    pending.ready(Echo())
    console = ConsoleAdapter(pending, stdin=io.StringIO("/find lease\nhello\n"), stdout=out)
    await console.start()
    await asyncio.wait_for(console.finished.wait(), 10)
    await console.start()  # a second start (the runtime's) does not read again
    await console.stop()
    printed = out.getvalue()
    assert "File: /ws/users/me/files/lease.pdf" in printed and "echo: hello" in printed
    assert "%PDF" not in printed


async def test_a_notice_is_said_above_the_prompt() -> None:
    out = io.StringIO()
    console = ConsoleAdapter(Echo(), stdin=io.StringIO(""), stdout=out, interactive=True)
    console.notice("(note: offline)")
    assert out.getvalue() == f"{MARGIN}(note: offline)\n"
    console._reading.set()  # as while waiting for a line
    console.notice("(note: again)")
    assert out.getvalue().endswith(f"\r\x1b[K{MARGIN}(note: again)\n{PROMPT}")


class Hostile(Echo):
    """A handler whose reply and command answer carry terminal escape sequences."""

    async def respond(self, message: IncomingMessage) -> AsyncIterator[str]:
        yield "\x1b[2J\x1b[31mRED\x1b[0m "
        yield "line\r\nyou> forged\rX\x07\x9b"

    async def command(self, invocation: CommandInvocation) -> CommandResponse:
        return CommandResponse("memory: \x1b]0;title\x07ok")


async def test_no_escape_sequence_of_a_reply_or_command_reaches_the_terminal() -> None:
    out = io.StringIO()
    stdin = io.StringIO("hi\n/memory list\n")
    console = ConsoleAdapter(Hostile(), stdin=stdin, stdout=out, interactive=True)
    await console.start()
    await asyncio.wait_for(console.finished.wait(), 10)
    await console.stop()
    await console.send(console.chat_id, "\x1b[2Jreminder")
    console._reading.set()
    console.notice("(note: \x1b[31mred)")
    printed = out.getvalue()
    assert "[31mRED[0m line\n  you> forged\n  X" in printed and "memory: ]0;titleok" in printed
    assert "\nfamiliar> [2Jreminder\n" in printed
    assert printed.endswith(f"\r\x1b[K  (note: [31mred)\n{PROMPT}")
    assert printed.count("\x1b") == 1  # the notice's own line clearing, nothing else
    assert "\r" not in printed.replace("\r\x1b[K", "") and "\x07" not in printed


async def test_a_reminder_while_the_prompt_waits_draws_the_prompt_again() -> None:
    """A reminder fired while "you> " waited for a line: it was written below the prompt and
    the cursor was left on an empty line, as if the chat had hung."""
    out = io.StringIO()
    console = ConsoleAdapter(Echo(), stdin=io.StringIO(""), stdout=out, interactive=True)
    console._reading.set()  # as while waiting for a line
    await console.send(console.chat_id, "⏰ Reminder: check the oven")
    assert out.getvalue() == f"\r\x1b[Kfamiliar> ⏰ Reminder: check the oven\n\n{PROMPT}"
    console._reading.clear()  # during a turn: on lines of its own, no prompt
    await console.send(console.chat_id, "⏰ Reminder: stretch")
    assert out.getvalue().endswith("\nfamiliar> ⏰ Reminder: stretch\n\n")


class _Slow(Echo):
    """Answers once ``go`` is set: a reply still being written when the stop comes."""

    def __init__(self) -> None:
        super().__init__()
        self.go = asyncio.Event()
        self.began = asyncio.Event()

    async def respond(self, message: IncomingMessage) -> AsyncIterator[str]:
        self.began.set()
        await self.go.wait()
        yield f"echo: {message.text}"


class _OneLineThenWait(io.StringIO):
    """A terminal: one typed line, then the keyboard waits (never an end of input)."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.wait = __import__("threading").Event()

    def readline(self, *args: object) -> str:  # type: ignore[override]
        line = super().readline()
        if not line:
            self.wait.wait(5)
        return line


async def test_a_stop_during_a_reply_lets_the_reply_finish() -> None:
    """SIGTERM a moment after Enter (T33): the reply the person waits for is written, and
    the stop then ends the chat; a stop at the prompt ends it at once."""
    slow, out = _Slow(), io.StringIO()
    stdin = _OneLineThenWait("My favourite season is autumn.\n")
    console = ConsoleAdapter(slow, stdin=stdin, stdout=out, interactive=False)
    await console.start()
    await asyncio.wait_for(slow.began.wait(), 5)
    stop = asyncio.ensure_future(console.stop())
    await asyncio.sleep(0.2)
    assert not stop.done()  # waiting for the reply, not cutting it off
    slow.go.set()
    await asyncio.wait_for(stop, 5)
    stdin.wait.set()
    assert "echo: My favourite season is autumn." in out.getvalue()


async def test_a_hurried_stop_waits_for_no_reply() -> None:
    """A second Ctrl-C during the stop's grace: the reply being written is no longer
    waited for (the application then drains the writer, bounded, and says so)."""
    slow, out = _Slow(), io.StringIO()
    stdin = _OneLineThenWait("My favourite season is autumn.\n")
    console = ConsoleAdapter(slow, stdin=stdin, stdout=out, interactive=False)
    await console.start()
    await asyncio.wait_for(slow.began.wait(), 5)
    stop = asyncio.ensure_future(console.stop())
    await asyncio.sleep(0.1)
    assert not stop.done()  # the grace: waiting for the reply
    console.hurry()
    await asyncio.wait_for(stop, 5)  # without the reply's go
    stdin.wait.set()
    assert "echo:" not in out.getvalue()


async def test_a_notice_after_the_stop_draws_no_prompt() -> None:
    """The stop's own words (a hurried stop, what is left for the next start) come after the
    console stopped reading: no "you> " is drawn below them as if the chat went on."""
    out = io.StringIO()
    stdin = _OneLineThenWait("hello\n")
    console = ConsoleAdapter(Echo(), stdin=stdin, stdout=out, interactive=True)
    await console.start()
    while not (console._reading.is_set() and "echo: hello" in out.getvalue()):
        await asyncio.sleep(0.01)
    await console.stop()
    stdin.wait.set()
    console.notice("Stopped.")
    assert out.getvalue().endswith("Stopped.\n"), out.getvalue()


class Noisy(Echo):
    """A reply during which the bot warns (a provider cut the answer, cooled down)."""

    def __init__(self, console_notice: list[ConsoleAdapter]) -> None:
        super().__init__()
        self.console = console_notice

    async def respond(self, message: IncomingMessage) -> AsyncIterator[str]:
        yield "la la la ...(cut off)"
        self.console[0].notice("(note: fake: the answer ran past its max_tokens)")
        self.console[0].notice("(note: fake: the answer ran past its max_tokens)")
        yield " more"


@pytest.mark.parametrize("interactive", [True, False])
async def test_a_notice_during_a_reply_is_not_glued_to_it(interactive, capsys) -> None:
    """A tester saw "la ...(cut off)(note: fake: the answer ran past ..." on one line: a
    notice that comes while a reply is written is said after it, once, on its own line."""
    out = io.StringIO()
    holder: list[ConsoleAdapter] = []
    console = ConsoleAdapter(
        Noisy(holder), stdin=io.StringIO(""), stdout=out, interactive=interactive
    )
    holder.append(console)
    await console.handle_line("sing")
    note = "(note: fake: the answer ran past its max_tokens)"
    if interactive:
        assert out.getvalue() == f"familiar> la la la ...(cut off) more\n\n{MARGIN}{note}\n"
    else:
        assert out.getvalue() == "la la la ...(cut off) more\n\n"
        assert capsys.readouterr().err == f"{note}\n"


async def test_a_note_once_the_line_is_read_draws_no_prompt_before_the_reply() -> None:
    """Seen in a terminal: "you> familiar> (still loading...)": a note that came after the
    reading thread had the line, before the loop heard of it, redrew the prompt, and the reply
    was written after that prompt."""
    out = io.StringIO()
    console = ConsoleAdapter(Echo(), stdin=io.StringIO(""), stdout=out, interactive=True)
    console._reading.set()  # the loop waits for the line...
    console._line_taken = True  # ...the reading thread has it (its Enter moved past the prompt)
    console.notice("(note: model)")
    assert out.getvalue() == f"{MARGIN}(note: model)\n"
    console._line_taken = False  # the prompt waits again: the note is said above it
    console.notice("(note: again)")
    assert out.getvalue().endswith(f"\r\x1b[K{MARGIN}(note: again)\n{PROMPT}")
