"""The terminal: talk to a familiar without any platform token.

Interactive, it shows a prompt and streams replies; a paste of several lines (lines that
arrive within :data:`PASTE_GAP_S` of each other) is one message. With stdin not a terminal,
each line is one message and each reply is printed followed by a blank line (so scripts can
pipe in a conversation). A line starting with ``/`` is a command when it is an input of its
own, never inside a pasted block (that block is one message: a copied chat log must not run
"/memory forget everything confirm"). A command's file is never dumped
into the terminal: the answer names where it lies (``/find``); only a text export is shown.
:meth:`ConsoleAdapter.notice` writes a line above the prompt (warnings that matter to the
person), redrawing the prompt after it.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import select
import shutil
import sys
import termios
import threading
import unicodedata
from collections.abc import Awaitable, Callable
from typing import Any, TextIO

from familiars.bot._adapters.base import (
    PASTED_COMMAND,
    CommandInvocation,
    CommandResponse,
    IncomingMessage,
    PlatformAdapter,
    TurnHandler,
    closing_reply,
    has_command_line,
    is_one_line,
)

PROMPT = "you> "
#: A stop (SIGTERM, Ctrl-C) lets the message being answered finish for up to this long: a
#: normal stop a moment after Enter dropped the reply the person was waiting for.
STOP_GRACE_S = 20.0
#: Lines that follow a line within this many seconds were pasted with it: one message
#: (no one types the next line this quickly after Enter; a paste's lines come at once).
PASTE_GAP_S = 0.1
#: A text file a command hands back (an export) is shown inline up to this size.
INLINE_TEXT_MAX = 64 * 1024


#: Control characters but the line end and the tab (C0, DEL, C1: escape sequences start here),
#: and the bidirectional overrides and isolates (they draw text in another order than sent).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: What the bot says starts this much in from the left when it is not on the familiar's own
#: line: column 0 belongs to the two prompts, so no line of a reply, a reminder, a notice or a
#: command's answer can look like "you> " or "familiar> " (s36: a reply holding
#: "\r\nfamiliar> ..." drew a second bot line).
MARGIN = "  "
BOT = "familiar> "


def shown(text: str) -> str:
    """``text`` as the terminal may show it: line ends and tabs, no other control character
    (a carriage return, alone or before a line end, is a line end)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", text.replace("\u2028", "\n").replace("\u2029", "\n"))


#: What a line is broken between: a line end, one blank, or a run of anything else.
_PIECES = re.compile(r"\n|[^\S\n]|[^\s]+")


def _cells(char: str) -> int:
    """How many terminal columns ``char`` takes (wide East Asian and emoji take two)."""
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def command_text(response: CommandResponse) -> str:
    """A command's answer for the terminal: its text, then where its file lies (``/find``),
    or a text export inline; never a file's raw bytes."""
    text = response.text
    if response.file_path:
        return f"{text}\n\nFile: {response.file_path}"
    data = response.file_data
    if data is None:
        return text
    name = response.file_name or "file"
    try:
        inline = data.decode("utf-8") if len(data) <= INLINE_TEXT_MAX else None
    except UnicodeDecodeError:
        inline = None
    if inline is None:
        return f"{text}\n\n({name}, {len(data):,} bytes: not shown in the terminal)"
    return f"{text}\n\n--- {name} ---\n{inline}"


#: Said where a reply stopped at a Ctrl-C (the message stays recorded).
STOPPED = "(stopped)"
#: Said at a Ctrl-C at the prompt: how to leave.
LEAVE_HINT = "(Ctrl-C again at an empty prompt, or Ctrl-D, to leave)"
GOODBYE = "Goodbye: everything you said is kept."


def echo_on(stream: TextIO) -> list[Any] | None:
    """Turn the terminal's echo and line mode on when they are off (a chat killed while
    readline held the terminal leaves it blind: typed text never showed, s33 U9); the mode
    it had, to put back at the end, or None when ``stream`` is no terminal."""
    try:
        fd = stream.fileno()
        if not stream.isatty():
            return None
        found = termios.tcgetattr(fd)
    except (termios.error, OSError, ValueError):
        return None
    wanted = termios.ECHO | termios.ICANON
    # No "^C" drawn in the middle of a reply: a Ctrl-C there says "(stopped)" in words.
    if found[3] & wanted != wanted or found[3] & termios.ECHOCTL:
        mode = list(found)
        mode[3] |= wanted | termios.ECHOE | termios.ECHOK
        mode[3] &= ~termios.ECHOCTL
        with contextlib.suppress(termios.error):
            termios.tcsetattr(fd, termios.TCSANOW, mode)
    return found


def on_ctrl_c(console: ConsoleAdapter | None, stop: Callable[[], None]) -> Callable[[], None]:
    """What a Ctrl-C (SIGINT) does: at the terminal chat it stops the reply, or at the
    prompt says how to leave (:meth:`ConsoleAdapter.interrupt`); else, and at a second
    Ctrl-C at an empty prompt, ``stop``."""

    def ctrl_c() -> None:
        if console is None or not console.interrupt():
            stop()

    return ctrl_c


class ConsoleAdapter(PlatformAdapter):
    name = "console"

    def __init__(
        self,
        handler: TurnHandler,
        *,
        user: str = "me",
        display_name: str | None = None,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        interactive: bool | None = None,
        settle: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        super().__init__(handler)
        self.user = user
        self.display_name = display_name or user
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.interactive = self.stdin.isatty() if interactive is None else interactive
        #: Awaited between piped lines so each line sees what the previous one taught.
        self.settle = settle
        self._task: asyncio.Task[None] | None = None
        self.finished = asyncio.Event()
        self._n = 0
        #: Set while waiting for a line ("you> " is shown, the line not yet read): no turn
        #: is under way.
        self._reading = asyncio.Event()
        # Set by the reading thread the moment a line is read, before the loop hears of it:
        # from then on the prompt is no longer on the screen (the Enter moved past it).
        self._line_taken = False
        self._ended = False  # the keyboard's Ctrl-D came in the middle of a paste
        #: Whether the line read last was typed at the prompt (False: it was waiting
        #: before the prompt came, typed ahead or pasted while a reply was coming).
        self._fresh = True
        self._hurry = asyncio.Event()  # a second Ctrl-C: the stop waits for no reply
        #: The terminal's mode before readline first read (a stop mid-read restores it).
        self._tty_mode: list[Any] | None = None
        #: The terminal's mode when the console started, put back at stop.
        self._started_mode: list[Any] | None = None
        #: Notices that came while a reply was being written: said once it ends, on lines
        #: of their own (one glued to the reply read "...remember it.(note: ...").
        self._held_notices: list[str] | None = None
        #: Where the cursor is on its line, as far as this adapter wrote it.
        self._column = 0
        #: Whether what was written last ended in a blank or a line end (or nothing).
        self._after_blank = True
        #: The line being answered (a message or a command): a Ctrl-C cancels it.
        self._turn: asyncio.Task[None] | None = None
        #: The turn a Ctrl-C stopped (its end says so), and whether the last key at the
        #: prompt was a Ctrl-C (a second one at an empty prompt leaves).
        self._stopped: asyncio.Task[None] | None = None
        self._ctrl_c = False

    @property
    def chat_id(self) -> str:
        return f"console-{self.user}"

    def reaches(self, chat_id: str) -> bool:
        """Only the chat of the person at this terminal (``--user``): each is a person."""
        return chat_id == self.chat_id

    async def start(self) -> None:
        """Begin reading lines; a second call changes nothing, even once the input has ended
        (the terminal chat starts its console before the runtime does)."""
        if self._task is not None:
            return
        if self.interactive and self._started_mode is None:
            self._started_mode = echo_on(self.stdin)
        self._task = asyncio.create_task(self._loop(), name="console-adapter")

    async def stop(self) -> None:
        """Stop reading; a message being answered is finished first (up to
        :data:`STOP_GRACE_S`), so its reply is shown and kept."""
        task = self._task
        if task is not None and not task.done() and not self._reading.is_set():
            reading = asyncio.ensure_future(self._reading.wait())
            hurry = asyncio.ensure_future(self._hurry.wait())
            await asyncio.wait(
                {reading, hurry, task}, timeout=STOP_GRACE_S, return_when=asyncio.FIRST_COMPLETED
            )
            reading.cancel()
            hurry.cancel()
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._task = None
        self._reading.clear()  # no prompt waits now: a later notice draws none again
        self._line_taken = False
        self.put_back_terminal()

    def put_back_terminal(self) -> None:
        """The terminal's modes as the console found them (also when the process ends at
        once, with no stop: a last Ctrl-C while it shuts down)."""
        if self._tty_mode is not None:  # a read left waiting in readline: echo comes back
            with contextlib.suppress(termios.error):
                termios.tcsetattr(sys.stdin.fileno(), termios.TCSANOW, self._tty_mode)
            # Once: the chat stops its console twice, and a second time here put back
            # readline's mode (echo on, as the start made it) over the one found (s34).
            self._tty_mode = None
        if self._started_mode is not None:  # the terminal as it was found (s33 U9)
            with contextlib.suppress(termios.error, OSError, ValueError):
                termios.tcsetattr(self.stdin.fileno(), termios.TCSANOW, self._started_mode)
            self._started_mode = None

    def interrupt(self) -> bool:
        """A Ctrl-C at the terminal. During a reply (or the wait for one) the reply stops,
        :data:`STOPPED` is said and the prompt comes back (the message stays recorded); at
        the prompt, how to leave is said, and a second Ctrl-C at an empty prompt says
        goodbye and returns False: the chat ends. Not at a terminal: False (a stop, as
        SIGTERM is)."""
        if not self.interactive:
            return False
        turn = self._turn
        if turn is not None and not turn.done():
            self._stopped, self._ctrl_c = turn, True
            turn.cancel()
            return True
        if self._ctrl_c and not self._typed().strip():
            self.goodbye()
            return False
        self._ctrl_c = True
        self.notice(LEAVE_HINT)
        return True

    def goodbye(self) -> None:
        """The chat's last line, where the prompt was."""
        if self._prompt_waits():
            self._clear_line()
        elif self._column:
            self._own("\n")
        self._own(BOT)
        self._say(f"{GOODBYE}\n")

    def hurry(self) -> None:
        """A stop under way waits no longer for the reply being written (a second Ctrl-C)."""
        self._hurry.set()

    async def send(self, chat_id: str, text: str, *, thread_id: str | None = None) -> str:
        """A message the person did not just ask for (a reminder, a check-in), on the
        familiar's own line. While the prompt waits for a line it takes the prompt's place,
        and the prompt is drawn again below it (else the cursor sat on an empty line, as if
        the chat had hung). Only into this terminal's own chat: another person's message
        is never shown here (it waits for their chat, :meth:`reaches`)."""
        if not self.reaches(chat_id):
            raise ValueError(f"not this terminal's chat: {chat_id!r} (this is {self.chat_id!r})")
        if not self.interactive:
            self._say(f"{text}\n\n")
        elif self._prompt_waits():
            self._clear_line()
            self._own(BOT)
            self._say(f"{text}\n\n")
            self._own(PROMPT + self._typed())
        else:
            self._own("\n" + BOT)
            self._say(f"{text}\n\n")
        self._n += 1
        return f"console-{self._n}"

    def _prompt_waits(self) -> bool:
        """The prompt is on the screen, waiting for a line. Not once the reading thread has
        the line, though the loop has not heard yet: a note drawn then redrew the prompt, and
        the reply was written after it ("you> familiar> ...")."""
        return self._reading.is_set() and not self._line_taken

    def _clear_line(self) -> None:
        """Take the prompt's line back: the cursor to column 0, the line cleared."""
        self.stdout.write("\r\x1b[K")
        self._column = 0

    def _own(self, words: str) -> None:
        """The adapter's own words (a prompt), as they are: only these start at column 0."""
        self._after_blank = True  # "familiar> ", "you> "
        for char in words:
            self._column = 0 if char in "\r\n" else self._column + _cells(char)
        self.stdout.write(words)
        self.stdout.flush()

    def _say(self, text: str) -> None:
        """Every character of what the bot says passes here: ``text`` without control
        characters (a reply, a memory or a file name could carry escape sequences that clear
        the screen or forge the prompt), and at a terminal each of its lines in from the
        margin, broken before the terminal's edge (a line the terminal wrapped would start at
        column 0): between words, so a word is not cut in two ("I" at one edge, "f you"
        below), unless it is longer than a line. A word streamed in two parts may still be cut
        at its join."""
        if text:
            self._after_blank = text[-1].isspace()
        if not self.interactive:
            self.stdout.write(shown(text))
            self.stdout.flush()
            return
        width = shutil.get_terminal_size().columns if self.stdout.isatty() else 0
        out: list[str] = []
        for piece in _PIECES.findall(shown(text)):
            if piece == "\n":
                out.append(piece)
                self._column = 0
                continue
            cells = sum(map(_cells, piece))
            if width and self._column + cells > width:
                if piece.isspace():  # the line is broken at this space
                    out.append("\n")
                    self._column = 0
                    continue
                if self._column > len(MARGIN) and cells <= width - len(MARGIN):
                    if out and out[-1] == " ":  # no blank left at the line's end
                        out.pop()
                    out.append("\n")  # a word that would cross the edge starts the next line
                    self._column = 0
            for char in piece:  # a word longer than a line is cut where it must be
                cells = _cells(char)
                if width and self._column + cells > width and self._column > len(MARGIN):
                    out.append("\n")
                    self._column = 0
                if self._column == 0:
                    out.append(MARGIN)
                    self._column = len(MARGIN)
                out.append(char)
                self._column += cells
        self.stdout.write("".join(out))
        self.stdout.flush()

    def notice(self, text: str) -> None:
        """Say ``text`` on a line of its own above the prompt (the prompt is drawn again);
        during a reply, after it."""
        if self._held_notices is not None:
            self._held_notices.append(text)
            return
        if not self.interactive:
            sys.stderr.write(shown(text) + "\n")
            sys.stderr.flush()
            return
        if self._prompt_waits():
            self._clear_line()
            self._say(f"{text}\n")
            self._own(PROMPT + self._typed())
        else:
            if self._reading.is_set():  # the line is read: the cursor is past its Enter
                self._column = 0
            self._say(f"{text}\n")

    def _typed(self) -> str:
        """What the person has typed at the prompt so far (readline's line), drawn again
        after a reminder took the prompt's place (T28: it looked lost, and was typed twice),
        without control characters or line ends: a pasted escape sequence is not played back
        to the terminal, and the prompt stays one line."""
        if self._tty_mode is None:
            return ""
        try:
            import readline
        except ImportError:
            return ""
        return shown(readline.get_line_buffer()).replace("\n", " ").replace("\t", " ")

    async def _readline(self) -> str:
        """The next line, read in a daemon thread: a read still waiting for the keyboard when
        the chat stops must not keep the process from exiting."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str] = loop.create_future()

        def settle(line: str | None, exc: BaseException | None) -> None:
            if future.done():
                return
            if exc is not None:
                future.set_exception(exc)
            else:
                future.set_result(line or "")

        def read() -> None:
            try:
                line, exc = self._read_line(), None
            except Exception as error:  # noqa: BLE001 - handed to the reader as is
                line, exc = None, error
            self._line_taken = True
            with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits
                loop.call_soon_threadsafe(settle, line, exc)

        threading.Thread(target=read, name="console-stdin", daemon=True).start()
        return await future

    def _keyboard(self) -> bool:
        """Lines come from the keyboard through GNU readline (it draws the prompt)."""
        if not (self.interactive and self.stdin is sys.stdin and sys.stdin.isatty()):
            return False
        try:
            import readline  # noqa: F401 - importing it is what makes input() use it
        except ImportError:
            return False
        return True

    def _read_line(self) -> str:
        """One message's text and its line end ("" at the input's end). From the keyboard,
        through GNU readline when it is there: the terminal's own line discipline keeps at
        most 4,095 characters of a line and drops the rest without a word (F15: a long paste
        was cut silently before the familiar could say so); readline reads it whole. Lines
        that follow at once (a paste) are read with it: a paste of several lines is one
        message, a line starting with "/" in it too (tester s38: a pasted chat log ran
        "/memory forget everything confirm"), but not lines typed ahead while a reply was
        coming (they waited before the prompt: each its own, and not fresh). Readline is
        given the prompt, so that it redraws the line where it is."""
        self._fresh = True
        if not self._keyboard():
            if self.interactive and self.stdin is sys.stdin and sys.stdin.isatty():
                self._fresh = not self._waiting(0)  # a terminal without readline
            return self.stdin.readline()
        if self._ended:
            return ""
        if self._tty_mode is None:  # readline changes it while it reads: restored at stop
            with contextlib.suppress(termios.error):
                self._tty_mode = termios.tcgetattr(sys.stdin.fileno())
        typed_ahead = self._waiting(0)  # typed while a reply came: each line its own
        self._fresh = not typed_ahead
        try:
            lines = [input(PROMPT)]
        except EOFError:
            return ""
        while not typed_ahead and self._waiting(PASTE_GAP_S):
            try:
                line = input()
            except EOFError:  # Ctrl-D right after a paste: the paste, then the end
                self._ended = True
                break
            lines.append(line)
        return "\n".join(lines) + "\n"

    @staticmethod
    def _waiting(seconds: float) -> bool:
        """Whether keys wait to be read (within ``seconds``)."""
        return bool(select.select([sys.stdin.fileno()], [], [], seconds)[0])

    async def _loop(self) -> None:
        try:
            while True:
                if self.interactive and not self._keyboard():
                    self._own(PROMPT)
                self._line_taken = False
                self._reading.set()
                line = await self._readline()
                self._reading.clear()
                self._column = 0  # the line's Enter
                if not line or (line.strip().lower() in ("/quit", "/exit") and self.interactive):
                    if self.interactive:
                        if not line:  # Ctrl-D: no Enter took the cursor past the prompt
                            self._own("\n")
                        self.goodbye()
                    break
                text = line.rstrip("\r\n")
                if not text.strip():
                    continue
                self._ctrl_c = False
                await self._answer_line(text, fresh=self._fresh)
                if self.settle is not None and not self.interactive:
                    await self.settle()
        finally:
            self.finished.set()

    async def _answer_line(self, text: str, *, fresh: bool = True) -> None:
        """:meth:`handle_line` as a task of its own, which a Ctrl-C may cancel
        (:meth:`interrupt`) while this loop goes on to the prompt; a stop of the loop
        cancels it too."""
        turn = asyncio.ensure_future(self.handle_line(text, fresh=fresh))
        self._turn = turn
        try:
            await turn
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if turn is not self._stopped or (task is not None and task.cancelling()):
                raise
        finally:
            self._turn = None
            self._stopped = None

    async def handle_line(self, text: str, *, fresh: bool = True) -> None:
        """Answer one input: a command when it is one line starting with "/", else a
        message (a pasted block of lines is one message, a "/" line in it too). ``fresh``:
        typed at the prompt, not typed ahead while a reply was coming."""
        if text.startswith("/") and is_one_line(text):
            parts = text[1:].split()
            name = parts[0] if parts else "help"
            inv = CommandInvocation(
                platform="console",
                chat_id=self.chat_id,
                user_id=self.user,
                display_name=self.display_name,
                name=name,
                args=tuple(parts[1:]),
                fresh=fresh,
            )
            response = await self.handler.command(inv)
            self._say(command_text(response) + "\n\n")
            return
        msg = IncomingMessage(
            platform="console",
            chat_id=self.chat_id,
            user_id=self.user,
            display_name=self.display_name,
            text=text,
            fresh=fresh,
        )
        # Said after the reply: a "/" line in a paste was read, not run.
        self._held_notices = [PASTED_COMMAND] if has_command_line(text) else []
        try:
            await self._reply(msg)
        finally:
            held, self._held_notices = self._held_notices, None
            for text in dict.fromkeys(held):
                self.notice(text)

    async def _reply(self, msg: IncomingMessage) -> None:
        if self.interactive:
            if self.stdout.isatty():
                # The reply's line starts clean: a note that raced the line's Enter (the
                # reading thread had the line, the note did not know yet) may have drawn the
                # prompt again, and "familiar> " was written after it (s36, tmux).
                self._clear_line()
            self._own(BOT)
        wrote = False
        try:
            async with closing_reply(self.handler.respond(msg)) as deltas:
                async for delta in deltas:
                    self._say(delta)
                    wrote = True
        finally:
            if self._stopped is not None and self._stopped is asyncio.current_task():
                self._say(STOPPED if self._after_blank else f" {STOPPED}")
                wrote = True
            if wrote or self.interactive:  # the notices held meanwhile start a line
                self._say("\n\n" if wrote else "\n")
