"""Session 33 (fixb): forgetting a relative whose name is a common word, and forgetting a
time window whose preview says exactly what goes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.bot.test_forget_everywhere import running
from tests.fake_openai import Reply

pytestmark = pytest.mark.timeout(180)


async def test_forgetting_may_forgets_her_not_every_may(tmp_path: Path) -> None:
    """ "forget everything about May" listed every memory and message with the word "may"."""
    async with running(tmp_path / "ws") as bot:
        for text in (
            "My sister May lives in Leeds.",
            "I may move to Bristol next year.",
            "I like green tea.",
        ):
            await bot.say(text)
        for ask in (
            "forget everything about May",
            "forget everything about may",
            "forget my sister",
        ):
            asked = await bot.say(ask)
            assert asked.startswith("About to forget") and "Leeds" in asked, (ask, asked)
            assert "Bristol" not in asked and "tea" not in asked, (ask, asked)
            assert (await bot.say("no")).startswith("Kept")


async def test_forgetting_the_last_minutes_says_first_exactly_what_goes(tmp_path: Path) -> None:
    """T12: "9 messages" asked, "1 memory and 26 messages" forgotten: the replies to them,
    and an earlier reply that repeated one, went unannounced."""
    async with running(tmp_path / "ws") as bot:
        await bot.say("My cat is called Marmalade.", ago=600)
        bot.script.turn(Reply.text("Your cat is called Marmalade."))
        await bot.say("what is my cat called?", ago=590)
        bot.script.turn(Reply.text("Noted."))
        await bot.say("My cat is called Marmalade.", ago=60)
        asked = await bot.say("forget what I said in the last 2 minutes")
        m = re.search(r"About to forget for good (.*)\. Reply yes", asked)
        assert m is not None, asked
        done = await bot.say("yes")
        assert done.startswith("Forgotten in the last 2 minutes: "), done
        said = done.removeprefix("Forgotten in the last 2 minutes: ")
        assert said.startswith(m[1].replace(" in the last 2 minutes", "")), (asked, done)
        assert "other message" in asked  # the earlier messages that repeated it


async def test_a_word_written_as_a_name_that_names_no_one_is_the_word(tmp_path: Path) -> None:
    async with running(tmp_path / "ws") as bot:
        await bot.say("I like green tea.")
        asked = await bot.say("forget everything about Tea")
        assert "green tea" in asked, asked
