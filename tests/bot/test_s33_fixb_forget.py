"""Session 33 (fixb): forgetting a relative whose name is a common word, and forgetting a
time window whose preview says exactly what goes."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest

from familiars.bot import IncomingMessage
from tests.bot.test_forget_everywhere import NOW, Bot, running
from tests.fake_openai import Reply

pytestmark = pytest.mark.timeout(180)


async def _say(bot: Bot, text: str, ago: float = 0.0) -> str:
    assert bot.app.dialogues is not None
    incoming = IncomingMessage(
        "telegram", "u1", "u1", "Alice", text, ts=NOW - timedelta(seconds=ago)
    )
    reply = "".join([d async for d in bot.app.dialogues.respond(incoming)])
    await bot.app.settle()
    return reply


async def test_forgetting_may_forgets_her_not_every_may(tmp_path: Path) -> None:
    """ "forget everything about May" listed every memory and message with the word "may"."""
    async with running(tmp_path / "ws") as bot:
        for text in (
            "My sister May lives in Leeds.",
            "I may move to Bristol next year.",
            "I like green tea.",
        ):
            await _say(bot, text)
        for ask in (
            "forget everything about May",
            "forget everything about may",
            "forget my sister",
        ):
            asked = await _say(bot, ask)
            assert asked.startswith("About to forget") and "Leeds" in asked, (ask, asked)
            assert "Bristol" not in asked and "tea" not in asked, (ask, asked)
            assert (await _say(bot, "no")).startswith("Kept")


async def test_forgetting_the_last_minutes_says_first_exactly_what_goes(tmp_path: Path) -> None:
    """T12: "9 messages" asked, "1 memory and 26 messages" forgotten: the replies to them,
    and an earlier reply that repeated one, went unannounced."""
    async with running(tmp_path / "ws") as bot:
        await _say(bot, "My cat is called Marmalade.", ago=600)
        bot.script.turn(Reply.text("Your cat is called Marmalade."))
        await _say(bot, "what is my cat called?", ago=590)
        bot.script.turn(Reply.text("Noted."))
        await _say(bot, "My cat is called Marmalade.", ago=60)
        asked = await _say(bot, "forget what I said in the last 2 minutes")
        m = re.search(r"About to forget for good (.*)\. Reply yes", asked)
        assert m is not None, asked
        done = await _say(bot, "yes")
        assert done.startswith("Forgotten in the last 2 minutes: "), done
        said = done.removeprefix("Forgotten in the last 2 minutes: ")
        assert said.startswith(m[1].replace(" in the last 2 minutes", "")), (asked, done)
        assert "other message" in asked  # the earlier messages that repeated it


async def test_a_word_written_as_a_name_that_names_no_one_is_the_word(tmp_path: Path) -> None:
    async with running(tmp_path / "ws") as bot:
        await _say(bot, "I like green tea.")
        asked = await _say(bot, "forget everything about Tea")
        assert "green tea" in asked, asked
