"""A move to a clock time alone keeps the reminder's own day (tester s34 U11, U30: "move
the Oliver one to 3pm" sent a reminder for the 15th to today at 15:00; "move the lunches
one to 7:15" sent a weekday 07:30 reminder tonight at 19:15, its rule still at 07:30). A
bare hour is the one nearer the reminder's own ("move it to 4" beside 17:00 is 16:00); a
repeating reminder takes the new time from now on."""

from __future__ import annotations

from pathlib import Path

import pytest

from familiars.config import load_settings
from tests.bot.test_reminders_commands import SAID_AT
from tests.harness import console_bot

pytestmark = pytest.mark.timeout(180)


async def test_a_move_to_a_time_alone_keeps_the_day(workspace: Path) -> None:
    async with console_bot(
        load_settings(workspace=workspace), [SAID_AT]
    ) as bot:  # Mon 11 Nov 15:15
        await bot.command("/timezone America/New_York")
        await bot.say("remind me on 20 November at 2pm to pick up Oliver from the station")
        reply = await bot.say("move the Oliver one to 3pm")
        assert reply.startswith("Moved: pick up Oliver from the station, now Wed 20 Nov 15:00"), (
            reply
        )
        await bot.say("remind me to order parts on friday at 5pm")
        reply = await bot.say("move it to 4")
        assert reply.startswith("Moved: order parts, now Fri 15 Nov 16:00"), reply
        listed = await bot.command("/reminders")
        assert "Wed 20 Nov 15:00" in listed and "Fri 15 Nov 16:00" in listed, listed


async def test_a_repeating_reminder_moved_to_a_time_takes_it_from_now_on(
    workspace: Path,
) -> None:
    async with console_bot(load_settings(workspace=workspace), [SAID_AT]) as bot:
        await bot.command("/timezone America/New_York")
        set_ = await bot.say("remind me every weekday at 7:30am to pack the school lunches")
        assert "07:30" in set_, set_
        reply = await bot.say("move the lunches one to 7:15")
        assert "07:15" in reply and "19:15" not in reply and "Tue 12 Nov" in reply, reply
        listed = await bot.command("/reminders")
        assert "Tue 12 Nov 07:15" in listed and "07:30" not in listed, listed


async def test_scratch_that_make_it_a_time_moves_and_forget_that_one_cancels(
    workspace: Path,
) -> None:
    """U74: "scratch that, make it 5pm" deleted the reminder just set; U75: "actually no,
    forget that one" found nothing to forget."""
    async with console_bot(load_settings(workspace=workspace), [SAID_AT]) as bot:
        await bot.command("/timezone America/New_York")
        await bot.say("remind me tomorrow at 4pm to buy nappies")
        reply = await bot.say("scratch that, make it 5pm")
        assert reply.startswith("Moved: buy nappies, now Tue 12 Nov 17:00"), reply
        await bot.say("remind me on wednesday at noon to phone mama")
        reply = await bot.say("actually no, forget that one")
        assert reply.startswith("Forgotten") and "phone mama" in reply, reply
        listed = await bot.command("/reminders")
        assert "nappies" in listed and "phone mama" not in listed, listed


async def test_a_bare_number_corrects_no_reminder_and_polite_or_delete_leads_still_move(
    workspace: Path,
) -> None:
    """Review s34 F4: "sorry, I meant 2" (after "we have 3 dogs") moved the reminder just set
    to 14:00; F6: "scratch that, make it 5pm please" became a forget question and "delete
    that, make it 5pm" cancelled the reminder."""
    async with console_bot(load_settings(workspace=workspace), [SAID_AT]) as bot:
        await bot.command("/timezone America/New_York")
        await bot.say("remind me tomorrow at 4pm to buy nappies")
        await bot.say("we have 3 dogs")
        reply = await bot.say("sorry, I meant 2")
        assert not reply.startswith("Moved"), reply
        reply = await bot.say("scratch that, make it 5pm please")
        assert reply.startswith("Moved: buy nappies, now Tue 12 Nov 17:00"), reply
        reply = await bot.say("delete that, make it 6pm")
        assert reply.startswith("Moved: buy nappies, now Tue 12 Nov 18:00"), reply
        listed = await bot.command("/reminders")
        assert "Tue 12 Nov 18:00" in listed, listed


async def test_a_time_moved_from_midnight_is_the_evening_before(workspace: Path) -> None:
    """My own tmux session: "remind me at midnight to take the bins out" (00:00 the next
    day), then "move the bins one to 11pm", went to 23:00 of that next day, 23 hours on."""
    async with console_bot(
        load_settings(workspace=workspace), [SAID_AT]
    ) as bot:  # Mon 11 Nov 15:15
        await bot.command("/timezone America/New_York")
        set_ = await bot.say("remind me at midnight to take the bins out")
        assert "Tue 12 Nov 00:00" in set_, set_
        reply = await bot.say("move the bins one to 11pm")
        assert reply.startswith("Moved: take the bins out, now Mon 11 Nov 23:00"), reply
