"""Forgetting a time window takes every message of the person's dialogue in it, the bot's
own included: the reminder that fired inside "the last 10 minutes" stayed in
``dialogue.json`` after the window was forgotten (person-tester, session 36)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from familiars.config import load_settings
from familiars.memory import is_forgotten
from tests.bot.test_forget import files_holding
from tests.harness import ConsoleBot, console_bot

pytestmark = pytest.mark.timeout(180)

SAID_AT = datetime(2031, 5, 6, 10, 0, tzinfo=UTC)


async def _reminder_fired(bot: ConsoleBot) -> None:
    bot.clock[0] = SAID_AT
    assert "water the ferns" in await bot.say("remind me in 2 minutes to water the ferns")
    bot.clock[0] = SAID_AT + timedelta(minutes=3)
    assert bot.app.scheduler is not None
    await bot.app.scheduler.run_due(bot.clock[0])
    assert "Reminder: water the ferns" in bot.sent()
    bot.clock[0] = SAID_AT + timedelta(minutes=5)


def _kept(bot: ConsoleBot) -> list[str]:
    assert bot.app.trees is not None
    tree = bot.app.trees.get("agent_0", "dialogue_0")
    return [n.content for n in tree.node_list if n.content and not is_forgotten(n)]


@pytest.mark.parametrize(
    "ask", ["forget what I said in the last 10 minutes", "forget the last 10 minutes"]
)
async def test_forget_the_last_ten_minutes_takes_the_reminder_that_fired(
    workspace: Path, ask: str
) -> None:
    async with console_bot(load_settings(workspace=workspace), [SAID_AT]) as bot:
        await _reminder_fired(bot)
        asked = await bot.say(ask)
        assert "1 message I sent you then on my own" in asked, asked
        done = await bot.say("yes")
        assert done.startswith("Forgotten in the last 10 minutes"), done
        assert "1 message I sent you then on my own" in done, done
        assert not [t for t in _kept(bot) if "ferns" in t], _kept(bot)
        assert files_holding(workspace, "ferns") == []


async def test_the_forget_command_for_a_window_takes_it_too(workspace: Path) -> None:
    async with console_bot(load_settings(workspace=workspace), [SAID_AT]) as bot:
        await _reminder_fired(bot)
        asked = await bot.command("/memory forget last 10m")
        assert "1 message I sent you then on my own" in asked, asked
        assert (await bot.command("/memory forget last 10m confirm")).startswith("Forgotten")
        assert not [t for t in _kept(bot) if "ferns" in t], _kept(bot)
        assert files_holding(workspace, "ferns") == []


async def test_forget_the_reminder_takes_it_and_the_message_it_sent(workspace: Path) -> None:
    """ "forget the reminder to water the ferns" was answered "Oh? Tell me more.": now the
    reminder's record goes (after the question), with the message that set it and the one
    the bot sent when it fired (its ``loops`` name the record)."""
    async with console_bot(load_settings(workspace=workspace), [SAID_AT]) as bot:
        await bot.say("I live in Leeds.")
        await _reminder_fired(bot)
        asked = await bot.say("forget the reminder to water the ferns")
        assert asked.startswith("About to forget for good"), asked
        assert "ferns" in asked
        assert (await bot.say("yes")).startswith("Forgotten"), asked
        assert not [t for t in _kept(bot) if "ferns" in t], _kept(bot)
        assert [t for t in _kept(bot) if "Leeds" in t]
        assert files_holding(workspace, "ferns") == []
        assert not [
            r for r in await bot.app.memory.store.list(live_only=False) if "ferns" in r.content
        ]
