"""A reply streamed into Telegram messages: the first text is sent at once, later growth
edits the last message at most once per ``interval`` (time from an injected clock), and text
beyond 4,096 characters continues in new messages."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from familiars.bot._adapters.base import split_message
from familiars.bot._adapters.telegram._retry import Clock, Sleep
from familiars.bot._adapters.telegram._sending import MESSAGE_LIMIT


class ReplyStream:
    """Accumulates reply deltas and mirrors them into Telegram messages."""

    def __init__(
        self,
        send: Callable[[str, bool], Awaitable[int]],
        edit: Callable[[int, str], Awaitable[None]],
        *,
        clock: Clock,
        sleep: Sleep,
        interval: float,
    ) -> None:
        self._send = send
        self._edit = edit
        self._clock = clock
        self._sleep = sleep
        self._interval = interval
        self._text = ""
        self._shown: list[tuple[int, str]] = []  # (message id, text shown)
        self._last_edit: float | None = None

    @property
    def message_ids(self) -> list[int]:
        return [mid for mid, _ in self._shown]

    @property
    def text(self) -> str:
        return self._text

    async def add(self, delta: str) -> None:
        self._text += delta
        if not self._shown or self._edit_due():
            await self._flush()

    async def finish(self) -> None:
        if self._needs_edit() and not self._edit_due():
            assert self._last_edit is not None  # _needs_edit implies a shown message
            await self._sleep(self._interval - (self._clock() - self._last_edit))
        await self._flush()

    def _edit_due(self) -> bool:
        return self._last_edit is None or self._clock() - self._last_edit >= self._interval

    def _needs_edit(self) -> bool:
        pieces = self._pieces()
        return any(
            i < len(self._shown) and self._shown[i][1] != piece for i, piece in enumerate(pieces)
        )

    def _pieces(self) -> list[str]:
        return split_message(self._text, MESSAGE_LIMIT) if self._text.strip() else []

    async def _flush(self) -> None:
        for i, piece in enumerate(self._pieces()):
            if i >= len(self._shown):
                self._shown.append((await self._send(piece, i == 0), piece))
            elif self._shown[i][1] != piece:
                await self._edit(self._shown[i][0], piece)
                self._shown[i] = (self._shown[i][0], piece)
                self._last_edit = self._clock()
        if self._last_edit is None and self._shown:
            self._last_edit = self._clock()
