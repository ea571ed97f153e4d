"""Commands as declarations: usage, completion, the adapters' specs and the error rule all
come from one object per command."""

from __future__ import annotations

import logging
from typing import Any, cast

import pytest

from familiars.bot._adapters.base import CommandInvocation, CommandResponse
from familiars.bot._adapters.discord._layout import options_of, subcommands_of
from familiars.bot._adapters.telegram._layout import CommandMenu
from familiars.bot._commands import (
    Argument,
    Call,
    Caller,
    Command,
    CommandSet,
    Subcommand,
    default_commands,
)
from familiars.bot._errors import SOMETHING_WENT_WRONG
from familiars.config import UserFacingError

CALLER = Caller("p_1", "agent_0", "dialogue_0", False, "telegram", "1")
NO_SERVICE: Any = cast(Any, None)  # specs and usage never touch a command's services


def inv(name: str, *args: str) -> CommandInvocation:
    return CommandInvocation("telegram", "1", "1", "Ann", name, args)


async def no_find(query: str, caller: Caller) -> CommandResponse:
    return CommandResponse(f"found {query}")


def bot_commands() -> CommandSet:
    return CommandSet(default_commands(NO_SERVICE, NO_SERVICE, find=no_find, forgetter=NO_SERVICE))


def test_usage_lines_are_derived_from_the_declarations() -> None:
    usage = {spec.name: spec.usage for spec in bot_commands().specs()}
    assert usage == {
        "help": "/help",
        "memory": "/memory list [category] | search QUERY | show ID | forget ID [confirm]"
        " | edit ID TEXT | pin ID | unpin ID | export | why | people | web [off]",
        "forget": "/forget [what]",
        "link": "/link [code]",
        "proactive": "/proactive on | off",
        "reminders": "/reminders list | cancel REMINDER | move REMINDER WHEN"
        " | snooze REMINDER [duration]",
        "timezone": "/timezone [zone]",
        "find": "/find QUERY",
    }
    assert all(spec.private for spec in bot_commands().specs())


def test_the_platform_layouts_are_derived_from_the_same_declarations() -> None:
    specs = {spec.name: spec for spec in bot_commands().specs()}
    memory = subcommands_of(specs["memory"])
    assert list(memory) == [
        "list",
        "search",
        "show",
        "forget",
        "edit",
        "pin",
        "unpin",
        "export",
        "why",
        "people",
        "web",
    ]
    (record_id,) = memory["show"][1]
    assert (record_id.name, record_id.required, record_id.autocomplete) == ("id", True, True)
    assert [(o.name, o.required) for o in options_of(specs["find"])] == [("query", True)]
    menu = CommandMenu.from_specs(specs.values())
    assert [c.command for c in menu.commands] == list(specs)
    assert menu.private == set(specs)


async def test_missing_arguments_get_the_derived_usage() -> None:
    commands = bot_commands()
    assert (await commands.run(inv("memory", "show"), CALLER)).text == "Usage: /memory show ID"
    assert (await commands.run(inv("find"), CALLER)).text == "Usage: /find QUERY"
    assert (await commands.run(inv("find", "the", "lease"), CALLER)).text == "found the lease"
    assert (await commands.run(inv("nope"), CALLER)).text == "Unknown command /nope. Try /help."


async def test_completion_offers_sub_commands_then_argument_values() -> None:
    commands = bot_commands()
    assert await commands.complete(inv("memory"), CALLER, "s") == ["search", "show"]
    assert await commands.complete(inv("memory", "list"), CALLER, "pre") == ["preference"]
    assert await commands.complete(inv("proactive"), CALLER, "o") == ["on", "off"]
    assert await commands.complete(inv("find"), CALLER, "x") == []


class Remind(Command):
    """A new command: one declaration, its service through the constructor."""

    def __init__(self, fail_with: Exception | None = None) -> None:
        super().__init__(
            "remind",
            "Remind me of something",
            subcommands=(
                Subcommand(
                    "add",
                    "A new reminder",
                    self._add,
                    (Argument("when", "When"), Argument("text", "What", rest=True)),
                ),
            ),
        )
        self._fail_with = fail_with

    async def _add(self, call: Call) -> CommandResponse:
        if self._fail_with is not None:
            raise self._fail_with
        return CommandResponse(f"at {call['when']}: {call['text']}")


async def test_a_new_command_is_one_declaration_everywhere() -> None:
    commands = CommandSet([Remind()])
    (_, spec) = commands.specs()
    assert spec.usage == "/remind add WHEN TEXT"
    assert [o.name for o in subcommands_of(spec)["add"][1]] == ["when", "text"]
    help_text = (await commands.run(inv("help"), CALLER)).text
    assert "/remind add WHEN TEXT — Remind me of something" in help_text
    answer = await commands.run(inv("remind", "add", "9am", "call", "Bo"), CALLER)
    assert (answer.text, answer.private) == ("at 9am: call Bo", True)


async def test_user_facing_errors_are_shown_as_is_and_other_errors_are_bugs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    told = CommandSet([Remind(UserFacingError("That time is in the past."))])
    answer = await told.run(inv("remind", "add", "yesterday", "x"), CALLER)
    assert answer.text == "That time is in the past."
    bug = CommandSet([Remind(ValueError("invalid literal for int()"))])
    with caplog.at_level(logging.ERROR, logger="familiars.bot._commands"):
        answer = await bug.run(inv("remind", "add", "9am", "x"), CALLER)
    assert answer.text == SOMETHING_WENT_WRONG
    assert "invalid literal" not in answer.text
    assert any(r.exc_info and "/remind" in r.getMessage() for r in caplog.records)
