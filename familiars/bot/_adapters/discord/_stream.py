"""A reply streamed into chat messages: sent on the first text, then edited as more text
arrives, at most once per ``min_interval_s`` (time comes from an injected clock), split into
several messages at the platform limit without breaking code blocks."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from familiars.bot._adapters.base import split_message

M = TypeVar("M")


class MessageSink(Protocol[M]):
    """Where the pieces go: a new message per piece, edits to pieces already shown."""

    async def send(self, text: str) -> M: ...

    async def edit(self, message: M, text: str) -> None: ...


class ReplyStream(Generic[M]):
    def __init__(
        self,
        sink: MessageSink[M],
        *,
        limit: int = 2000,
        min_interval_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._sink = sink
        self._limit = limit
        self._min_interval_s = min_interval_s
        self._clock = clock
        self._text = ""
        self._shown: list[tuple[M, str]] = []
        self._last_push: float | None = None

    @property
    def text(self) -> str:
        return self._text

    @property
    def messages(self) -> list[M]:
        return [message for message, _ in self._shown]

    async def feed(self, delta: str) -> None:
        """Add ``delta``; show the text so far unless the last update was too recent."""
        self._text += delta
        now = self._clock()
        if self._last_push is not None and now - self._last_push < self._min_interval_s:
            return
        if await self._push():
            self._last_push = now

    async def finish(self) -> list[M]:
        """Show the whole text (ignoring the interval) and return the messages holding it."""
        await self._push()
        return self.messages

    async def _push(self) -> bool:
        """Bring the shown messages up to date; False when there was nothing to show."""
        if not self._text.strip():
            return False
        # Pieces other than the last never change as text is appended (split_message is
        # prefix-stable), so earlier messages are only ever edited to their final form.
        for index, piece in enumerate(split_message(self._text, self._limit)):
            if index >= len(self._shown):
                self._shown.append((await self._sink.send(piece), piece))
            elif self._shown[index][1] != piece:
                message = self._shown[index][0]
                await self._sink.edit(message, piece)
                self._shown[index] = (message, piece)
        return True
