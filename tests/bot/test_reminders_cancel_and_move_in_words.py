"""Session 33 tester finding U5 (fixe): cancelling and moving a reminder by description in
more wordings ("I don't need the invoices reminder anymore", "stop reminding me about my
tablets, Claire has set up a pill box", "make the Susan one saturday instead"), "at 3" for a
reminder being the afternoon, and "forget that, it's friday not thursday" moving the
reminder just set instead of deleting it."""

from __future__ import annotations

from pathlib import Path

import pytest

from familiars.config import load_settings
from tests.bot.test_reminders_commands import SAID_AT
from tests.harness import console_bot

pytestmark = pytest.mark.timeout(180)


async def test_cancel_and_move_in_everyday_words(workspace: Path) -> None:
    async with console_bot(load_settings(workspace=workspace), [SAID_AT]) as bot:
        await bot.command("/timezone America/New_York")
        await bot.say("remind me on thursday at 10am to do the invoices")
        await bot.say("remind me on friday at 9am to take my tablets")
        await bot.say("remind me on sunday at 3pm to ring Susan")
        await bot.say("remind me on tuesday at 8am to feed the fish")
        reply = await bot.say("i don't need the invoices reminder anymore")
        assert reply.startswith("Cancelled: do the invoices"), reply
        reply = await bot.say("stop reminding me about my tablets, Claire has set up a pill box")
        assert reply.startswith("Cancelled: take your tablets"), reply
        reply = await bot.say("actually make the Susan one saturday instead")
        assert reply.startswith("Moved: ring Susan, now Sat 16 Nov 15:00"), reply
        reply = await bot.say("move the susan reminder to sunday at 3")
        assert reply.startswith("Moved: ring Susan, now Sun 17 Nov 15:00"), reply
        reply = await bot.say("move the fish reminder to wednesday at 7 in the morning")
        assert reply.startswith("Moved: feed the fish, now Wed 13 Nov 07:00"), reply
        listed = await bot.command("/reminders")
        assert "invoices" not in listed and "tablets" not in listed, listed


async def test_its_friday_not_thursday_moves_the_reminder_just_set(workspace: Path) -> None:
    async with console_bot(load_settings(workspace=workspace), [SAID_AT]) as bot:
        await bot.command("/timezone America/New_York")
        set_ = await bot.say("remind me thursday to pick up the radiator valves from screwfix")
        assert "Thu 14 Nov" in set_, set_
        reply = await bot.say("oh wait, forget that, it's friday not thursday")
        assert reply.startswith(
            "Moved: pick up the radiator valves from screwfix, now Fri 15 Nov"
        ), reply
        listed = await bot.command("/reminders")
        assert "Fri 15 Nov" in listed and "valves" in listed, listed


@pytest.mark.parametrize("text", ["its sunday", "it's friday!", "it's tomorrow", "it is saturday"])
async def test_its_a_day_alone_does_not_move_a_reminder(workspace: Path, text: str) -> None:
    """Review s33-2 item 7: "its sunday" said just after a reminder was set moved it ("Moved:
    call the bank, now Sun ..."); only a correction ("sorry", "forget that", "I meant", "not
    thursday") moves it."""
    async with console_bot(load_settings(workspace=workspace), [SAID_AT]) as bot:
        await bot.command("/timezone America/New_York")
        set_ = await bot.say("remind me thursday at 10am to call the bank")
        assert "Thu 14 Nov" in set_, set_
        reply = await bot.say(text)
        assert not reply.startswith("Moved"), reply
        listed = await bot.command("/reminders")
        assert "Thu 14 Nov" in listed and "call the bank" in listed, listed


@pytest.mark.parametrize(
    "text", ["sorry, it's saturday", "i meant saturday", "it's saturday not thursday"]
)
async def test_a_corrected_day_still_moves_the_reminder(workspace: Path, text: str) -> None:
    async with console_bot(load_settings(workspace=workspace), [SAID_AT]) as bot:
        await bot.command("/timezone America/New_York")
        await bot.say("remind me thursday at 10am to call the bank")
        reply = await bot.say(text)
        assert reply.startswith("Moved: call the bank, now Sat 16 Nov 10:00"), reply


@pytest.mark.parametrize(
    ("text", "task", "when"),
    [
        ("remind me tmrw at 6:30am to load the van", "load the van", "Tue 8 Dec 06:30"),
        ("nudge me at half 7 tomorrow to call the merchants", "call the merchants", "Tue 8 Dec"),
    ],
)
def test_phone_and_british_times_are_read(text: str, task: str, when: str) -> None:
    """U11: "tmrw" and "half 7" (7:30) got "I couldn't read a time in that"."""
    from tests.bot.test_reminder_when_answered_by_a_clock import _plan

    [reminder] = _plan(text).reminders
    assert reminder.task == task and reminder.when_text().startswith(when), reminder
    if "half 7" in text:
        assert reminder.due.minute == 30 and reminder.due.hour in (7, 19), reminder


async def test_moving_a_reminder_to_yesterday_is_refused(workspace: Path) -> None:
    """U11: "/reminders move 1 yesterday" quietly moved it to today 09:00."""
    async with console_bot(load_settings(workspace=workspace), [SAID_AT]) as bot:
        await bot.command("/timezone America/New_York")
        await bot.say("remind me on friday at 9am to stretch")
        reply = await bot.command("/reminders move 1 yesterday")
        assert "has passed" in reply and "Moved" not in reply, reply
        reply = await bot.say("move the stretch reminder to yesterday")
        assert "has passed" in reply and "Moved" not in reply, reply
        assert "Fri 15 Nov 09:00" in await bot.command("/reminders")


async def test_next_saturday_in_a_fact_about_someone_is_pinned_to_its_date(
    tmp_path: Path,
) -> None:
    """U12: "my mum Jean turns 80 next Saturday" was kept as words, wrong a week later."""
    from tests.bot.test_forget_everywhere import offline  # Tuesday 6 May 2031

    async with offline(tmp_path / "ws") as bot:
        noted = await bot.say("My mum Jean turns 80 next Saturday")
        assert "on Saturday 10 May 2031" in noted and "next Saturday" not in noted, noted
