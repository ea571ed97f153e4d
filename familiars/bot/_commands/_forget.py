"""``/forget``: the short way to forget (s33 U13: typing it said "Unknown command"). An id,
``last 10m``, ``today`` or ``everything`` goes to ``/memory forget``; other words go to
forgetting by words ("/forget my allergy" is "forget my allergy"), which the dialogue hands
in as :attr:`ForgetCommand.by_words`. Both ask first and end in the one Forgetter."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Awaitable, Callable

from familiars.bot._adapters.base import CommandInvocation, CommandResponse
from familiars.bot._commands._declare import Argument, Call, Caller, Command

#: Forgetting by words: (the words, who asks, the invocation) -> the reply, None when the
#: words name nothing to forget.
ByWords = Callable[[str, Caller, CommandInvocation], Awaitable[str | None]]

USAGE = (
    "Usage: /forget ID (an id from /memory list, m_...), /forget last 10m, /forget today, "
    "/forget everything, or /forget and what to forget in your own words "
    "(/forget my old address). I ask before anything goes."
)
NOTHING = "I found nothing to forget for that. /memory list shows what I keep."
#: What ``/memory forget`` takes: an id; "today" or "everything" alone; "last" and a span.
#: Other words after them go by words ("/forget everything about my sister" was read as an
#: id: review s33-2 item 12).
_BY_ID = re.compile(
    r"^(?:(?:m_|node:|file:)\S+|today|everything|last\s+\d+\s*[a-z]*)(?:\s+(?:confirm|yes))?$",
    re.IGNORECASE,
)


class ForgetCommand(Command):
    def __init__(self, memory: Command) -> None:
        super().__init__(
            "forget",
            "Forget a memory or what you said, by its id or in your words (asks first)",
            arguments=(
                Argument(
                    "what",
                    "An id, last 10m, today, everything, or words",
                    required=False,
                    rest=True,
                ),
            ),  # fmt: skip
            handler=self._forget,
        )
        self._memory = memory
        self.by_words: ByWords | None = None

    async def _forget(self, call: Call) -> CommandResponse:
        words = call.invocation.args
        if words[:1] == ("forget",):  # a "yes" replays /memory's own confirm words
            words = words[1:]
        if not words:
            return CommandResponse(USAGE)
        if _BY_ID.match(" ".join(words)) or self.by_words is None:
            asked = dataclasses.replace(call.invocation, name="memory", args=("forget", *words))
            return await self._memory.run(asked, call.caller)
        said = await self.by_words(" ".join(words), call.caller, call.invocation)
        return CommandResponse(said or NOTHING)
