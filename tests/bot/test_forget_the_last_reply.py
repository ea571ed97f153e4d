""" "What did you just say?" after a forget: the bot's last reply, kept in memory for that
question, went with the forget when it held the forgotten words. It was said again, and
written back into the dialogue, after "forget that" had taken the statement and the reply
that repeated it (reviewer, session 37).

A forget once begun runs to its end when its turn is cancelled: a Ctrl-C at the console
during the "yes" took the record but left the message, and "what did I say?" then said it
(the rest was done only at the next start, from the forget's intent)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from familiars.bot._adapters.console import STOPPED
from familiars.config import load_settings
from familiars.memory import is_forgotten
from tests.bot.test_forget import files_holding
from tests.harness import console_bot

pytestmark = pytest.mark.timeout(180)

NOW = datetime(2031, 5, 6, 10, 0, tzinfo=UTC)


async def test_what_did_you_just_say_does_not_repeat_a_forgotten_reply(workspace: Path) -> None:
    async with console_bot(load_settings(workspace=workspace), [NOW]) as bot:
        assert "Leeds" in await bot.say("I live in Leeds.")
        bot.clock[0] += timedelta(minutes=1)
        assert (await bot.say("forget that")).startswith("Forgotten")
        bot.clock[0] += timedelta(minutes=1)
        again = await bot.say("what did you just say?")
        assert "leeds" not in again.lower(), again
        bot.clock[0] += timedelta(minutes=1)
        assert "leeds" not in (await bot.say("what did I say?")).lower()
        assert files_holding(workspace, "Leeds") == []


async def test_ctrl_c_during_a_confirmed_forget_does_not_cut_it_short(workspace: Path) -> None:
    async with console_bot(load_settings(workspace=workspace), [NOW]) as bot:
        await bot.say("I live in Leeds.")
        bot.clock[0] += timedelta(minutes=1)
        assert (await bot.say("forget that I live in Leeds")).startswith("About to forget")
        bot.clock[0] += timedelta(minutes=1)
        assert bot.app.dialogues is not None
        forgetter = bot.app.dialogues.forget_words.forgetter
        halfway, go_on = asyncio.Event(), asyncio.Event()
        turns = forgetter._forget_turn_refs

        async def slowly(*args: object, **kwargs: object) -> None:
            halfway.set()  # the record is gone, the turns not yet
            await go_on.wait()
            await turns(*args, **kwargs)  # type: ignore[arg-type]

        forgetter._forget_turn_refs = slowly  # type: ignore[method-assign]
        line = asyncio.create_task(bot.adapter._answer_line("yes"))
        await asyncio.wait_for(halfway.wait(), 30)
        bot.adapter.interactive = True  # at a terminal: Ctrl-C stops the running turn
        assert bot.adapter.interrupt()
        go_on.set()
        await asyncio.wait_for(line, 30)
        bot.adapter.interactive = False
        assert bot.sent().rstrip().endswith(STOPPED), bot.sent()  # the turn was cancelled
        assert bot.app.trees is not None
        tree = bot.app.trees.get("agent_0", "dialogue_0")
        kept = [n.content for n in tree.node_list if n.content and not is_forgotten(n)]
        assert not [t for t in kept if "leeds" in t.lower()], kept
        bot.clock[0] += timedelta(minutes=1)
        assert "leeds" not in (await bot.say("what did I say?")).lower()
        assert "leeds" not in (await bot.say("what did you just say?")).lower()
        assert files_holding(workspace, "Leeds") == []
