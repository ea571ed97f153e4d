"""Session 34 (fixtime): the reminder answers a person-test found wrong.

- U11: ``/reminders move 4 3pm`` sent a January reminder to today 15:00; the slash command
  and the words share one move step, so both keep the reminder's own day (and re-time a
  repeating one's rule);
- U80: "snooze that" right after a repeating reminder fired pushed the next occurrence (two
  weeks away); it reminds again from now, once, and leaves the series as it was;
- U48: "snooze that 5 mins" (no "for") and "ok done, cancel the oven one" after a firing;
- U64: "the school one" answers "Which one do you mean?" as its number does."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from familiars.config import load_settings
from tests.bot.test_reminders_commands import SAID_AT
from tests.harness import console_bot

pytestmark = pytest.mark.timeout(180)


def _number(listed: str, task: str) -> str:
    line = next(line for line in listed.splitlines() if task in line)
    return line.split(".", 1)[0]


async def test_the_slash_command_and_the_words_move_to_a_time_alike(workspace: Path) -> None:
    async with console_bot(
        load_settings(workspace=workspace), [SAID_AT]
    ) as bot:  # Mon 11 Nov 15:15
        await bot.command("/timezone America/New_York")
        await bot.say("remind me on 20 November at 2pm to pick up Oliver")
        await bot.say("remind me on 20 November at 2pm to pick up Emma")
        by_words = await bot.say("move the Oliver one to 3pm")
        n = _number(await bot.command("/reminders"), "pick up Emma")
        by_command = await bot.command(f"/reminders move {n} 3pm")
        assert by_words.replace("Oliver", "Emma") == by_command, (by_words, by_command)
        assert by_command.startswith("Moved: pick up Emma, now Wed 20 Nov 15:00"), by_command
        listed = await bot.command("/reminders")
        for task in ("pick up Oliver", "pick up Emma"):
            assert f"Wed 20 Nov 15:00 — {task}" in listed, listed

        await bot.say("remind me every weekday at 7:30am to pack the lunches")
        n = _number(await bot.command("/reminders"), "pack the lunches")
        moved = await bot.command(f"/reminders move {n} 7:15")
        assert "07:15" in moved and "19:15" not in moved and "Tue 12 Nov" in moved, moved
        listed = await bot.command("/reminders")
        assert "Tue 12 Nov 07:15 — pack the lunches" in listed and "07:30" not in listed, listed


async def test_snoozing_a_repeating_reminder_that_fired_leaves_the_series(
    workspace: Path,
) -> None:
    clock = [SAID_AT]
    async with console_bot(load_settings(workspace=workspace), clock) as bot:
        assert bot.app.scheduler is not None
        await bot.command("/timezone America/New_York")
        await bot.say("remind me every tuesday at 9am to water the orchids")
        clock[0] = SAID_AT + timedelta(hours=17, minutes=46)  # Tue 12 Nov 09:01
        await bot.app.scheduler.run_due(clock[0])
        assert "water the orchids" in bot.sent()
        reply = await bot.say("snooze that for 15 minutes")
        assert reply == "Snoozed: water the orchids, I'll remind you Tue 12 Nov 09:16.", reply
        listed = await bot.command("/reminders")
        assert "Tue 12 Nov 09:16 — water the orchids ·" in listed, listed
        assert "Tue 19 Nov 09:00 — water the orchids (every Tuesday at 09:00)" in listed, listed
        clock[0] = SAID_AT + timedelta(hours=18, minutes=2)  # 09:17
        await bot.app.scheduler.run_due(clock[0])
        assert bot.sent().count("water the orchids") == 2


async def test_the_short_replies_after_a_reminder_fired(workspace: Path) -> None:
    clock = [SAID_AT]
    async with console_bot(load_settings(workspace=workspace), clock) as bot:
        assert bot.app.scheduler is not None
        await bot.command("/timezone America/New_York")
        await bot.say("remind me in 5 minutes to check the oven")
        clock[0] = SAID_AT + timedelta(minutes=6)
        await bot.app.scheduler.run_due(clock[0])
        reply = await bot.say("snooze that 5 mins")
        assert reply == "Snoozed: check the oven, I'll remind you Mon 11 Nov 15:26.", reply
        reply = await bot.say("ok done, cancel the oven one")
        assert reply.startswith("Cancelled: check the oven"), reply
        assert "check the oven" not in await bot.command("/reminders")


async def test_a_description_answers_which_one(workspace: Path) -> None:
    async with console_bot(load_settings(workspace=workspace), [SAID_AT]) as bot:
        await bot.command("/timezone America/New_York")
        await bot.say("remind me tomorrow at 10am to call the bank")
        await bot.say("remind me on thursday at 2pm to call the school")
        asked = await bot.say("cancel the call reminder")
        assert asked.startswith("Which one do you mean?"), asked
        reply = await bot.say("the school one")
        assert reply.startswith("Cancelled: call the school"), reply
        listed = await bot.command("/reminders")
        assert "call the bank" in listed and "call the school" not in listed, listed


async def test_tonight_and_midnight_said_to_the_bot(workspace: Path) -> None:
    """U83, U84 through the whole turn: it is Mon 11 Nov 21:15 in Madrid."""
    async with console_bot(load_settings(workspace=workspace), [SAID_AT]) as bot:
        await bot.command("/timezone Europe/Madrid")
        reply = await bot.say("remind me tonight at half 9 to iron Mateo's kit")
        assert "on Mon 11 Nov 21:30" in reply, reply
        reply = await bot.say("remind me at midnight to take the bins out")
        assert "on Tue 12 Nov 00:00" in reply, reply
