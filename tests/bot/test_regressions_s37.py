"""Three regressions of s37's merges, through the console bot (reviewer s37): a weekend after
"after", "before" or "for"; a reminder that names the Samaritans; a pronoun in the second of
two questions."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from familiars.config import load_settings
from tests.harness import console_bot

NOW = datetime(2026, 12, 7, 14, 40, tzinfo=UTC)  # a Monday


async def test_after_before_and_for_the_weekend(workspace: Path) -> None:
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW]) as bot:
        await bot.say("hi")
        after = await bot.say("remind me to call Bob after the weekend")
        on_monday = await bot.say("remind me to call Di on Monday")
        before = await bot.say("remind me to call Ann before the weekend")
        for_it = await bot.say("remind me to call Cy for the weekend")
    assert "call Bob on Mon 14 Dec 09:00" in after, after
    assert "Mon 14 Dec 09:00" in on_monday  # the same default hour as a day alone
    assert "call Ann on Fri 11 Dec 09:00" in before, before
    assert "Sat" not in for_it and "call Cy for on" not in for_it, for_it
    assert "when" in for_it.lower(), for_it  # no time: asked, as before


async def test_a_reminder_that_names_the_samaritans_is_set(workspace: Path) -> None:
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW]) as bot:
        await bot.say("hi")
        cold = await bot.say(
            "remind me to call the samaritans office about my volunteer shift at 3pm tomorrow"
        )
        named = await bot.say("I volunteer at the Samaritans on Tuesdays")
        await bot.say("some days I don't see the point of going on")
        after_care = await bot.say("remind me to ring the samaritans office at 5pm tomorrow")
        again = await bot.say("what was that number again?")
    assert "116 123" not in cold and "Tue 8 Dec 15:00" in cold, cold
    assert "call the samaritans office about your volunteer shift" in cold, cold
    assert "116 123" not in named, named
    assert "116 123" not in after_care and "Tue 8 Dec 17:00" in after_care, after_care
    assert "116 123" in again, again  # the number asked for after a crisis reply
