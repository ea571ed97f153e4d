"""``/proactive on | off``: may the familiar message a person first."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable

from familiars.bot._adapters.base import CommandResponse
from familiars.bot._commands._declare import Call, Caller, Command, Subcommand
from familiars.bot._state import BotState

ON = "I may message you first (reminders, follow-ups, the odd check-in)."
OFF = (
    "I won't message you first any more (no check-ins or follow-ups). "
    "Reminders you explicitly ask for still arrive."
)


class ProactiveCommand(Command):
    def __init__(
        self,
        state: BotState,
        *,
        on_change: Callable[[Caller, bool], Awaitable[None] | None] | None = None,
    ) -> None:
        super().__init__(
            "proactive",
            "Let me (not) message you first",
            subcommands=(
                Subcommand("on", "Let the familiar write to you first", self._on),
                Subcommand("off", "The familiar only answers", self._off),
            ),
        )
        self._state = state
        #: Told of each switch (the scheduler keeps its own per-dialogue switch).
        self._on_change = on_change

    async def without_subcommand(self, call: Call) -> CommandResponse:
        person = await self._state.person(call.caller.user_key)
        state = "on" if person is None or person.proactive else "off"
        return CommandResponse(f"Proactive messages are {state}. Usage: {self.usage()}")

    async def _on(self, call: Call) -> CommandResponse:
        await self._switch(call.caller, True)
        return CommandResponse(ON)

    async def _off(self, call: Call) -> CommandResponse:
        await self._switch(call.caller, False)
        return CommandResponse(OFF)

    async def _switch(self, caller: Caller, enabled: bool) -> None:
        await self._state.set_proactive(caller.user_key, enabled)
        if self._on_change is not None:
            told = self._on_change(caller, enabled)
            if inspect.isawaitable(told):  # the scheduler saves off the event loop
                await told
