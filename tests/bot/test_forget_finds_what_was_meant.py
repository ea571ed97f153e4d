"""A forget in words finds the memory the person meant when it says it another way: "forget
about my tablets" listed only the reminder (and as a one-off, though daily), and "/forget my
blood pressure medicine" found nothing, while "The user takes amlodipine 5mg every morning."
(a medication, noted from "The doctor says my blood pressure is too high, I'm on amlodipine
5mg every morning") was what harold meant (tester s39, finding 4). What else a message said
is still never proposed for its words alone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from familiars.config import load_settings
from tests.harness import console_bot

#: 2037 (2026's calendar): the scheduler runs in these tests, and never reaches it.
SAID_AT = datetime(2037, 12, 7, 18, 0, tzinfo=UTC)
DOCTOR = "The doctor says my blood pressure is too high, I'm on amlodipine 5mg every morning"
NOTE = "you take amlodipine 5mg every morning"


async def test_a_forget_finds_the_medication_and_says_the_reminder_repeats(
    workspace: Path,
) -> None:
    settings = load_settings(workspace=workspace)
    now = [SAID_AT]
    async with console_bot(settings, now, user="harold") as bot:
        assert NOTE in await bot.say(DOCTOR)
        await bot.say("I work at Tesco and my cat is called Mochi")
        await bot.say("remind me every day at 8am to take my tablets")
        now[0] += timedelta(minutes=1)

        asked = await bot.say("forget about my tablets")
        assert NOTE in asked and "repeating every day at 08:00" in asked, asked
        assert "Tesco" not in asked and "Mochi" not in asked
        assert "Kept" in await bot.say("no")

        asked = await bot.command("/forget my blood pressure medicine")
        assert NOTE in asked and "tablets" not in asked and "Tesco" not in asked, asked
        assert "Kept" in await bot.say("no")

        # The message's words alone ("blood pressure") take the message, not the note.
        asked = await bot.say("forget my blood pressure")
        assert f"Kept, though said in the same message: {NOTE}" in asked, asked
        assert "Kept" in await bot.say("no")
        asked = await bot.say("forget about my cat")
        assert "Mochi" in asked and "Kept, though said in the same message: you work" in asked
