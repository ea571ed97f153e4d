"""How the handler's commands look as Discord slash commands.

Commands the table below knows (``/memory``, ``/proactive``) get subcommands with named,
typed options; any other :class:`CommandSpec` becomes one command with a free-text
``arguments`` option. Either way the handler receives the same ``args`` tuple a typed text
command would give it: the subcommand, then the option values split on whitespace.
"""

from __future__ import annotations

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
            (_ID, Option("confirm", "The confirmation the bot asked for", required=False)),
        ),
        "pin": ("Pin a memory so it is always recalled", (_ID,)),
        "export": ("Your memory as a markdown file", ()),
        "why": ("Which memories the last reply used", ()),
    },
    "proactive": {
        "on": ("Let the familiar write to you first", ()),
        "off": ("The familiar only answers", ()),
    },
}

FREE_TEXT = Option("arguments", "Arguments", required=False, autocomplete=True)


def args_of(subcommand: str | None, values: list[str | None]) -> tuple[str, ...]:
    """The handler's ``args``: the subcommand, then every given value split on whitespace."""
    head = (subcommand,) if subcommand else ()
    return head + tuple(word for value in values if value for word in value.split())


def short(text: str, limit: int = 100) -> str:
    """Discord caps descriptions and choice names at 100 characters."""
    text = " ".join(text.split()) or "…"
    return text if len(text) <= limit else text[: limit - 1] + "…"
