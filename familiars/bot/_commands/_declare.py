"""How a command is declared: :class:`Command` with its :class:`Subcommand` and typed
:class:`Argument` declarations, and what is derived from them.

A command is one object: name, description, privacy, sub-commands (each with its arguments
and handler) or arguments of its own and a handler, and completers on the arguments that
offer choices. Its services come through the concrete command's constructor. From the
declaration come the usage line (``/memory list [category] | search QUERY | ...``), the
parsing of ``args`` into named values, the "Usage: ..." answers, the completion of
sub-command names and arguments, and the :class:`CommandSpec` adapters lay out (Discord's
slash commands, Telegram's menu).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from familiars.bot._adapters.base import (
    ArgumentSpec,
    CommandInvocation,
    CommandResponse,
    CommandSpec,
    SubcommandSpec,
)


@dataclass
class Caller:
    """Who is asking, resolved by the dialogue manager."""

    user_key: str
    agent_id: str
    dialogue_id: str | None
    is_owner: bool
    platform: str
    user_id: str
    #: Asked in a group: a private home gives no zone there (the reply is for the room).
    is_group: bool = False


Completer = Callable[["Caller", str], Awaitable[list[str]]]


@dataclass(frozen=True)
class Call:
    """One parsed invocation: who, what was typed, and the argument values by name."""

    caller: Caller
    invocation: CommandInvocation
    values: Mapping[str, str] = field(default_factory=dict)

    def get(self, name: str) -> str | None:
        return self.values.get(name)

    def __getitem__(self, name: str) -> str:
        return self.values[name]


Handler = Callable[[Call], Awaitable[CommandResponse]]


@dataclass(frozen=True)
class Argument:
    """A typed argument: one word, or (``rest``) the rest of the line."""

    name: str
    description: str
    required: bool = True
    rest: bool = False
    complete: Completer | None = None

    def spec(self) -> ArgumentSpec:
        return ArgumentSpec(
            self.name, self.description, self.required, self.rest, self.complete is not None
        )


@dataclass(frozen=True)
class Subcommand:
    name: str
    description: str
    handler: Handler
    arguments: tuple[Argument, ...] = ()

    def spec(self) -> SubcommandSpec:
        return SubcommandSpec(self.name, self.description, tuple(a.spec() for a in self.arguments))


def parse(arguments: Sequence[Argument], words: Sequence[str]) -> dict[str, str] | None:
    """The values of ``arguments`` from ``words``; None when a required one is missing."""
    values: dict[str, str] = {}
    for index, argument in enumerate(arguments):
        taken = words[index:] if argument.rest else words[index : index + 1]
        if taken:
            values[argument.name] = " ".join(taken)
        elif argument.required:
            return None
    return values


class Command:
    """One slash command, declared. Subclasses call ``super().__init__`` with their
    declaration; a command has either ``subcommands`` or ``arguments`` and a ``handler``."""

    def __init__(
        self,
        name: str,
        description: str,
        *,
        subcommands: Sequence[Subcommand] = (),
        arguments: Sequence[Argument] = (),
        handler: Handler | None = None,
        private: bool = True,
        aliases: Sequence[str] = (),
    ) -> None:
        if bool(subcommands) == (handler is not None):
            raise TypeError(f"/{name}: declare either sub-commands or a handler")
        self.name = name
        self.description = description
        self.subcommands = tuple(subcommands)
        self.arguments = tuple(arguments)
        self.handler = handler
        #: Answers always private: ephemeral on Discord, a private chat on Telegram.
        self.private = private
        self.aliases = tuple(aliases)

    # ------------------------------------------------------------------ derived

    def usage(self) -> str:
        """``/memory list [category] | search QUERY | ...``, ``/find QUERY``."""
        if self.subcommands:
            return f"/{self.name} " + " | ".join(s.spec().usage for s in self.subcommands)
        return " ".join([f"/{self.name}", *(a.spec().placeholder for a in self.arguments)])

    def spec(self) -> CommandSpec:
        return CommandSpec(
            self.name,
            self.description,
            self.usage(),
            arguments=tuple(a.spec() for a in self.arguments),
            subcommands=tuple(s.spec() for s in self.subcommands),
            private=self.private,
        )

    def subcommand(self, name: str) -> Subcommand | None:
        return next((s for s in self.subcommands if s.name == name.lower()), None)

    # ------------------------------------------------------------------ running

    async def run(self, invocation: CommandInvocation, caller: Caller) -> CommandResponse:
        words = invocation.args
        if self.handler is not None:
            return await self._call(self.handler, self.arguments, words, caller, invocation)
        sub = self.subcommand(words[0]) if words else None
        if sub is None:
            return await self.without_subcommand(Call(caller, invocation))
        return await self._call(sub.handler, sub.arguments, words[1:], caller, invocation, sub)

    async def _call(
        self,
        handler: Handler,
        arguments: Sequence[Argument],
        words: Sequence[str],
        caller: Caller,
        invocation: CommandInvocation,
        sub: Subcommand | None = None,
    ) -> CommandResponse:
        values = parse(arguments, words)
        if values is None:
            usage = f"/{self.name} {sub.spec().usage}" if sub else self.usage()
            return CommandResponse(f"Usage: {usage}")
        return await handler(Call(caller, invocation, values))

    async def without_subcommand(self, call: Call) -> CommandResponse:
        """No sub-command, or an unknown one: the usage line (commands may say more)."""
        return CommandResponse(f"Usage: {self.usage()}")

    # ------------------------------------------------------------------ completion

    async def complete(
        self, invocation: CommandInvocation, caller: Caller, partial: str
    ) -> list[str]:
        """Choices for the word being typed: a sub-command name, or its argument's values."""
        words = invocation.args
        arguments = self.arguments
        if self.subcommands:
            if not words:
                return [s.name for s in self.subcommands if s.name.startswith(partial)]
            sub = self.subcommand(words[0])
            if sub is None:
                return []
            arguments, words = sub.arguments, words[1:]
        argument = _argument_at(arguments, len(words))
        if argument is None or argument.complete is None:
            return []
        return await argument.complete(caller, partial)


def _argument_at(arguments: Sequence[Argument], index: int) -> Argument | None:
    if index < len(arguments):
        return arguments[index]
    return arguments[-1] if arguments and arguments[-1].rest else None
