"""Sub-commands loaded on demand, so ``familiars --help`` imports none of them.

A :class:`LazyGroup` lists its lazy entries with the one-line help of a static table and
imports an entry's module only when the entry is run (or its own help or completion is
asked for): until then ``get_command`` answers with a stub that carries the help text.
``familiars memory ...`` imports the memory commands, and only those.

    group = lazy_group(name, help, [LazyEntry("memory", "Read, edit ...", load_memory)])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup


@dataclass(frozen=True)
class LazyEntry:
    """``name`` and its help, and how to build its click command when it is needed."""

    name: str
    help: str
    load: Callable[[], Any]


class LazyGroup(TyperGroup):
    """A typer group whose :attr:`lazy` entries are imported when first resolved."""

    lazy: dict[str, LazyEntry]

    def __init__(self, *args: Any, lazy: Sequence[LazyEntry] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = {entry.name: entry for entry in lazy}

    def add_lazy(self, entries: Sequence[LazyEntry]) -> None:
        for entry in entries:
            self.lazy[entry.name] = entry

    def list_commands(self, ctx: Any) -> list[str]:
        return [*super().list_commands(ctx), *(n for n in self.lazy if n not in self.commands)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """The loaded command, or (for listing in help) a stub with the static help."""
        if cmd_name in self.commands or cmd_name not in self.lazy:
            return super().get_command(ctx, cmd_name)
        text = self.lazy[cmd_name].help
        return TyperCommand(name=cmd_name, help=text, short_help=text)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        """Running ``name``: its module is imported now, and the real command used."""
        if args and args[0] in self.lazy:
            self.load(args[0])
        return super().resolve_command(ctx, args)

    def load(self, name: str) -> Any:
        """Import and register the command ``name`` (once)."""
        if name not in self.commands:
            command = self.lazy[name].load()
            command.name = name
            self.add_command(command, name)
        return self.commands[name]


def click_command(app: typer.Typer) -> Any:
    """The click command typer builds for ``app`` (a group, or a single command)."""
    return typer.main.get_command(app)


def click_group(app: typer.Typer) -> Any:
    """The click group of a command group (``familiars reminders list``): typer would fold
    an app with a single command into that command, and ``list`` would be an extra argument."""
    return typer.main.get_group(app)
