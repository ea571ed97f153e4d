"""``/help``: every command's usage line and description, from the declarations."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from familiars.bot._adapters.base import CommandResponse, CommandSpec
from familiars.bot._commands._declare import Call, Command

CLOSING = (
    "Everything I remember about you is yours: list it, correct it by telling me, "
    "pin what matters, forget what should go."
)


class HelpCommand(Command):
    def __init__(self, specs: Callable[[], Sequence[CommandSpec]]) -> None:
        super().__init__("help", "What I can do and how", handler=self._help, aliases=("start",))
        self._specs = specs

    async def _help(self, call: Call) -> CommandResponse:
        lines = ["Here is what you can ask me:"]
        lines += [f"{spec.usage} — {spec.description}" for spec in self._specs()]
        lines.append(CLOSING)
        return CommandResponse("\n".join(lines))
