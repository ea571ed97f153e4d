"""A time-window forget names the memories it would take before the yes, as every forget's
question does, and says when the person's times will follow another zone once the home
that gave theirs goes: "forget what i said in the last 2 minutes" asked about "1 memory I
noted from them" without naming "you live in Bristol", and /reminders then read in UTC
without a word (tester s39, finding 8)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from familiars.config import load_settings
from tests.harness import console_bot

#: 2037 (2026's calendar): the scheduler runs in these tests, and never reaches it.
SAID_AT = datetime(2037, 12, 7, 18, 0, tzinfo=UTC)


async def test_the_window_question_names_the_memory_and_the_zone_it_leaves(
    workspace: Path,
) -> None:
    settings = load_settings(workspace=workspace)
    now = [SAID_AT]
    async with console_bot(settings, now, user="harold") as bot:
        await bot.say("my granddaughter is called Ellie")
        now[0] += timedelta(minutes=10)
        assert "Europe/London" in await bot.say("I live in Bristol")
        now[0] += timedelta(seconds=30)
        asked = await bot.say("forget what i said in the last 2 minutes")
        assert asked.startswith("About to forget"), asked
        assert "you live in Bristol" in asked and "Ellie" not in asked, asked
        assert "follow UTC, not Europe/London" in asked, asked
        assert "Forgotten" in await bot.say("yes")
        assert "UTC" in await bot.command("/timezone")


async def test_a_window_that_takes_no_home_says_no_zone(workspace: Path) -> None:
    settings = load_settings(workspace=workspace)
    now = [SAID_AT]
    async with console_bot(settings, now, user="harold") as bot:
        await bot.say("I live in Bristol")
        now[0] += timedelta(minutes=10)
        await bot.say("my granddaughter is called Ellie")
        now[0] += timedelta(seconds=30)
        asked = await bot.say("forget what i said in the last 2 minutes")
        assert "Ellie" in asked and "Bristol" not in asked and "zone" not in asked, asked
