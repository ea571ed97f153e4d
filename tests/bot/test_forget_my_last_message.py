""" "forget my last message", "delete what I just said", "forget the last thing I told you"
and ``/forget last message`` forget the person's previous message (never the request itself)
through the one forgetting path: its turn, the memory written from it, the reply that said
it back, every file and the index. They were read as a description, matched nothing and
forgot nothing (person-tester, session 36)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from familiars.bot._forgetting import LAST_GONE
from familiars.config import load_settings
from familiars.memory import is_forgotten
from tests.bot.test_forget import files_holding
from tests.harness import ConsoleBot, console_bot

pytestmark = pytest.mark.timeout(180)

NOW = datetime(2031, 5, 6, 10, 0, tzinfo=UTC)


def _kept(bot: ConsoleBot) -> list[str]:
    assert bot.app.trees is not None
    tree = bot.app.trees.get("agent_0", "dialogue_0")
    return [n.content for n in tree.node_list if n.content and not is_forgotten(n)]


async def _forgets_the_last(bot: ConsoleBot, ask: str, workspace: Path) -> None:
    await bot.say("I live in Leeds.")
    bot.clock[0] += timedelta(minutes=1)
    assert "wensleydale" in (await bot.say("my favourite cheese is wensleydale")).lower()
    bot.clock[0] += timedelta(minutes=1)
    if ask.startswith("/"):
        done = await bot.command(ask)
    else:
        done = await bot.say(ask)
    assert done.startswith("Forgotten"), done
    assert not [t for t in _kept(bot) if "wensleydale" in t.lower()], _kept(bot)
    assert [t for t in _kept(bot) if "Leeds" in t], "only the last message goes"
    assert not [t for t in _kept(bot) if "forget" in t.lower() or "delete" in t.lower()]
    listing = await bot.command("/memory list")
    assert "wensleydale" not in listing.lower() and "Leeds" in listing
    assert files_holding(workspace, "wensleydale") == []


@pytest.mark.parametrize(
    "ask",
    [
        "forget my last message",
        "delete what I just said",
        "forget the last thing I told you",
        "please forget my previous message",
        "/forget last message",
    ],
)
async def test_forget_my_last_message_forgets_it_everywhere(workspace: Path, ask: str) -> None:
    async with console_bot(load_settings(workspace=workspace), [NOW]) as bot:
        await _forgets_the_last(bot, ask, workspace)


async def test_my_last_message_is_the_last_even_when_a_question(workspace: Path) -> None:
    """ "forget that" reaches back past a question to a statement; "forget my last message"
    names the question itself."""
    async with console_bot(load_settings(workspace=workspace), [NOW]) as bot:
        await bot.say("my favourite cheese is wensleydale")
        bot.clock[0] += timedelta(minutes=1)
        await bot.say("is stilton nicer than brie?")
        bot.clock[0] += timedelta(minutes=1)
        done = await bot.say("forget my last message")
        assert done.startswith("Forgotten"), done
        assert not [t for t in _kept(bot) if "stilton" in t.lower()], _kept(bot)
        assert [t for t in _kept(bot) if "wensleydale" in t.lower()]
        # Asked again: the last message is gone, and nothing further back goes.
        again = await bot.command("/forget last message")
        assert again == LAST_GONE, again
        assert [t for t in _kept(bot) if "wensleydale" in t.lower()]
