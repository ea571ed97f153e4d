"""The terminal: talk to a familiar without any platform token.

Interactive, it shows a prompt and streams replies. With stdin not a terminal, each line is
one message and each reply is printed followed by a blank line (so scripts can pipe in a
conversation). Lines starting with ``/`` are commands.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable
from typing import TextIO

from familiars.bot._adapters.base import (
    CommandInvocation,
    IncomingMessage,
    PlatformAdapter,
    TurnHandler,
)


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

    @property
    def chat_id(self) -> str:
        return f"console-{self.user}"

    async def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="console-adapter")

    async def stop(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._task = None

    async def send(self, chat_id: str, text: str, *, thread_id: str | None = None) -> str:
        self._write(f"\n{text}\n\n" if self.interactive else f"{text}\n\n")
        self._n += 1
        return f"console-{self._n}"

    def _write(self, text: str) -> None:
        self.stdout.write(text)
        self.stdout.flush()

    async def _readline(self) -> str:
        return await asyncio.to_thread(self.stdin.readline)

    async def _loop(self) -> None:
        try:
            while True:
                if self.interactive:
                    self._write("you> ")
                line = await self._readline()
                if not line:
                    break
                text = line.rstrip("\r\n")
                if not text.strip():
                    continue
                if text.strip().lower() in ("/quit", "/exit") and self.interactive:
                    break
                await self.handle_line(text)
                if self.settle is not None and not self.interactive:
                    await self.settle()
        finally:
            self.finished.set()

    async def handle_line(self, text: str) -> None:
        if text.startswith("/"):
            parts = text[1:].split()
            name = parts[0] if parts else "help"
            inv = CommandInvocation(
                platform="console",
                chat_id=self.chat_id,
                user_id=self.user,
                display_name=self.display_name,
                name=name,
                args=tuple(parts[1:]),
            )
            response = await self.handler.command(inv)
            body = response.text
            if response.file_name and response.file_data is not None:
                body += f"\n\n--- {response.file_name} ---\n" + response.file_data.decode(
                    "utf-8", "replace"
                )
            self._write(body + "\n\n")
            return
        msg = IncomingMessage(
            platform="console",
            chat_id=self.chat_id,
            user_id=self.user,
            display_name=self.display_name,
            text=text,
        )
        if self.interactive:
            self._write("familiar> ")
        wrote = False
        async for delta in self.handler.respond(msg):
            self._write(delta)
            wrote = True
        if wrote:
            self._write("\n\n")
