"""A turn handler that stands in while the real one is still being built.

The terminal chat shows its prompt before the bot has loaded (imports, the embedding model,
the workspace): its :class:`~familiars.bot._adapters.console.ConsoleAdapter` is given a
:class:`PendingHandler`, and the runtime hands it the real handler with :meth:`ready` once
the services are up (or the error with :meth:`failed`). A turn typed before then waits; if
the wait is longer than ``notice_after_s``, the reply begins with ``notice`` ("still loading
my memory, one moment...") so the person knows why nothing happens.

This module imports nothing heavy: it is loaded before the rest of the bot.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace

from familiars.bot._adapters.base import (
    CommandInvocation,
    CommandResponse,
    CommandSpec,
    IncomingMessage,
    TurnHandler,
    closing_reply,
)

LOADING_NOTICE = "(still loading my memory, one moment...)"


class PendingHandler:
    """A :class:`TurnHandler` that forwards to the real one once it is :meth:`ready`."""

    def __init__(self, *, notice: str | None = LOADING_NOTICE, notice_after_s: float = 1.0):
        self.notice = notice
        self.notice_after_s = notice_after_s
        self._ready: asyncio.Future[TurnHandler] | None = None
        self._settle: Callable[[], Awaitable[None]] | None = None

    def _future(self) -> asyncio.Future[TurnHandler]:
        if self._ready is None:
            self._ready = asyncio.get_running_loop().create_future()
        return self._ready

    @property
    def is_ready(self) -> bool:
        return self._ready is not None and self._ready.done()

    def ready(
        self, handler: TurnHandler, *, settle: Callable[[], Awaitable[None]] | None = None
    ) -> None:
        """The real handler (and what settles its background work) is here: waiters go on."""
        self._settle = settle
        if not self._future().done():
            self._future().set_result(handler)

    def failed(self, exc: BaseException) -> None:
        """Building the handler failed: waiting turns raise ``exc``."""
        future = self._future()
        if not future.done():
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning when none waited

    async def _ready_within(self, seconds: float) -> bool:
        """Whether the real handler is here within ``seconds`` (it is not waited for longer)."""
        future = self._future()
        if future.done():
            return True
        try:
            await asyncio.wait_for(asyncio.shield(future), seconds)
        except TimeoutError:
            return False
        return True

    async def _handler(self) -> TurnHandler:
        """The real handler, waited for. Shielded: a turn cancelled while it waits (a
        Ctrl-C at the terminal) must not cancel the one future every turn waits on (the
        chat then never became ready)."""
        return await asyncio.shield(self._future())

    async def handler(self) -> tuple[TurnHandler, bool]:
        """The real handler, and whether the wait for it was long enough to tell of."""
        waited = self.notice is not None and not await self._ready_within(self.notice_after_s)
        return await self._handler(), waited

    async def respond(self, message: IncomingMessage) -> AsyncIterator[str]:
        if self.notice is not None and not await self._ready_within(self.notice_after_s):
            yield f"{self.notice}\n"  # said now, while the wait goes on
        async with closing_reply((await self._handler()).respond(message)) as deltas:
            async for delta in deltas:  # closed with this one: its turn's cleanup first
                yield delta

    async def command(self, invocation: CommandInvocation) -> CommandResponse:
        handler, waited = await self.handler()
        response = await handler.command(invocation)
        if not waited:
            return response
        return replace(response, text=f"{self.notice}\n{response.text}")

    def command_specs(self) -> list[CommandSpec]:
        return self._future().result().command_specs() if self.is_ready else []

    async def complete(self, invocation: CommandInvocation, partial: str) -> list[str]:
        if not self.is_ready:
            return []
        return await self._future().result().complete(invocation, partial)

    async def settle(self) -> None:
        """What the last turns started is done (nothing to wait for before :meth:`ready`)."""
        if self.is_ready and self._settle is not None:
            await self._settle()
