"""``/find QUERY``: a document the person sent or the familiar watches."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from familiars.bot._adapters.base import CommandResponse
from familiars.bot._commands._declare import Argument, Call, Caller, Command

Finder = Callable[[str, Caller], Awaitable[CommandResponse]]


class FindCommand(Command):
    def __init__(self, find: Finder) -> None:
        super().__init__(
            "find",
            "Find a document you sent or I watch",
            arguments=(Argument("query", "What to look for", rest=True),),
            handler=self._find,
        )
        self._find_document = find

    async def _find(self, call: Call) -> CommandResponse:
        return await self._find_document(call["query"], call.caller)
