"""How the handler's commands look as Discord slash commands, derived from their
:class:`CommandSpec` declarations.

A spec with sub-commands becomes a group of subcommands with named options; a spec with
arguments gets one option per argument. A spec that declares neither gets its options from
its usage line when that is simple (``/find QUERY``: a required ``query``; ``/link [CODE]``:
an optional ``code``), else one free-text ``arguments`` option. Either way the handler
receives the same ``args`` tuple a typed text command would give it: the subcommand, then
the option values split on whitespace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from familiars.bot._adapters.base import ArgumentSpec, CommandSpec


@dataclass(frozen=True)
class Option:
    name: str
    description: str
    required: bool = True
    autocomplete: bool = False

    @classmethod
    def of(cls, argument: ArgumentSpec) -> Option:
        return cls(argument.name, argument.description, argument.required, argument.autocomplete)


def subcommands_of(spec: CommandSpec) -> dict[str, tuple[str, tuple[Option, ...]]]:
    """``{subcommand: (description, options)}``; empty for a command without any."""
    return {
        sub.name: (sub.description, tuple(Option.of(a) for a in sub.arguments))
        for sub in spec.subcommands
    }


def options_of(spec: CommandSpec) -> tuple[Option, ...]:
    """The options of a command without subcommands."""
    if spec.arguments:
        return tuple(Option.of(a) for a in spec.arguments)
    return options_from_usage(spec.usage)


FREE_TEXT = Option("arguments", "Arguments", required=False, autocomplete=True)
_PLACEHOLDER = re.compile(r"(\[)?([A-Z][A-Z0-9_]{0,31})(?(1)\])")


def options_from_usage(usage: str) -> tuple[Option, ...]:
    """``/find QUERY [LIMIT]`` -> (query required, limit optional); a usage line that is not
    that simple (alternatives, literals) -> one free-text ``arguments`` option."""
    words = usage.split()[1:]
    matches = [_PLACEHOLDER.fullmatch(word) for word in words]
    if not all(matches):
        return (FREE_TEXT,)
    options = tuple(
        Option(m.group(2).lower(), m.group(2).replace("_", " ").capitalize(), not m.group(1))
        for m in matches
        if m is not None
    )
    required = [o.required for o in options]
    names = {o.name for o in options}
    if required != sorted(required, reverse=True) or len(names) != len(options):
        return (FREE_TEXT,)  # Discord wants required options first, names unique
    return options


def args_of(subcommand: str | None, values: list[str | None]) -> tuple[str, ...]:
    """The handler's ``args``: the subcommand, then every given value split on whitespace."""
    head = (subcommand,) if subcommand else ()
    return head + tuple(word for value in values if value for word in value.split())


def short(text: str, limit: int = 100) -> str:
    """Discord caps descriptions and choice names at 100 characters."""
    text = " ".join(text.split()) or "…"
    return text if len(text) <= limit else text[: limit - 1] + "…"
