"""How the handler's commands look as Discord slash commands.

Commands the table below knows (``/memory``, ``/proactive``) get subcommands with named
options. Any other :class:`CommandSpec` gets its options from its usage line when that is
simple (``/find QUERY``: a required ``query``; ``/link [CODE]``: an optional ``code``), else
one free-text ``arguments`` option. Either way the handler receives the same ``args`` tuple a
typed text command would give it: the subcommand, then the option values split on whitespace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Option:
    name: str
    description: str
    required: bool = True
    autocomplete: bool = False


_ID = Option("id", "The memory's id (m_...)", autocomplete=True)

SUBCOMMANDS: dict[str, dict[str, tuple[str, tuple[Option, ...]]]] = {
    "memory": {
        "list": (
            "List your memories",
            (Option("category", "Only this category", required=False, autocomplete=True),),
        ),
        "search": ("Search your memories", (Option("query", "What to look for"),)),
        "show": ("Show one memory", (_ID,)),
        "forget": (
            "Forget one memory (asks for confirmation)",
            (_ID, Option("confirm", "Type confirm to go ahead", required=False)),
        ),
        "pin": ("Pin a memory so it is always recalled", (_ID,)),
        "unpin": ("Unpin a memory", (_ID,)),
        "export": ("Your memory as a markdown file", ()),
        "why": ("Which memories the last reply used", ()),
    },
    "proactive": {
        "on": ("Let the familiar write to you first", ()),
        "off": ("The familiar only answers", ()),
    },
}

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
