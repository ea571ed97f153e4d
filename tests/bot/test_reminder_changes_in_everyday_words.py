"""Tester s36 (offline, Mon 7 Dec 2026): a negated request ("dont remind me about X") is a
cancel, never a new reminder; cancels and moves in everyday words ("I no longer need the
reminder about X; please cancel it", "postpone ... until", "move this Tuesday's X reminder
to ...", "..., just this once", "tues this week"); a snooze of a repeating reminder not come
yet pushes that one; a weekly occurrence moved to a weekday stays in its own week."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from familiars.config import load_settings
from tests.harness import console_bot

pytestmark = pytest.mark.timeout(180)

AT = datetime(2026, 12, 7, 15, 50, tzinfo=UTC)  # Monday


@pytest.mark.parametrize(
    "said",
    [
        "dont remind me about the chem revision",
        "you don't have to remind me about the chem revision",
        "no need to remind me about the chem revision, I did it",
        "please don't remind me about chem revision anymore",
        "actually you needn't remind me about the chem revision",
        "don't bother reminding me about the chem revision",
    ],
)
async def test_dont_remind_me_cancels(workspace: Path, said: str) -> None:
    async with console_bot(load_settings(workspace=workspace), [AT]) as bot:
        await bot.say("remind me on friday at 5pm about the chem revision")
        reply = await bot.say(said)
        assert reply.startswith("Cancelled: the chem revision"), reply
        assert "chem" not in await bot.command("/reminders")


async def test_dont_remind_me_of_what_is_not_set_says_so(workspace: Path) -> None:
    async with console_bot(load_settings(workspace=workspace), [AT]) as bot:
        await bot.say("remind me on friday at 5pm to call mum")
        reply = await bot.say("dont remind me about the chem revision")
        assert reply.startswith("I can't find a reminder about 'chem revision'"), reply
        assert "When should" not in reply
        listed = await bot.command("/reminders")
        assert "call mum" in listed and "chem" not in listed, listed


async def test_no_i_meant_cancel_it(workspace: Path) -> None:
    async with console_bot(load_settings(workspace=workspace), [AT]) as bot:
        await bot.say("remind me on friday at 5pm about the chem revision")
        reply = await bot.say("no i meant cancel it")
        assert reply.startswith("Cancelled: the chem revision"), reply


async def test_cancels_and_moves_in_everyday_words(workspace: Path) -> None:
    async with console_bot(load_settings(workspace=workspace), [AT]) as bot:
        await bot.say("remind me on wednesday at 3pm to call the solicitor")
        await bot.say("remind me to txt bella on wednesday at 10am")
        await bot.say("remind me on thursday at 9am to renew the passport")
        await bot.say("remind me tomorrow at 6pm to water the orchid")
        await bot.say("remind me tomorrow at 8pm to repot the fern")
        reply = await bot.say(
            "I no longer need the reminder about the solicitor; please cancel it."
        )
        assert reply.startswith("Cancelled: call the solicitor"), reply
        reply = await bot.say("nvm dont need the bella txt reminder")
        assert reply.startswith("Cancelled: txt bella"), reply
        reply = await bot.say("Please postpone the passport reminder until the 12th at noon.")
        assert reply.startswith("Moved: renew the passport, now Sat 12 Dec 12:00"), reply
        reply = await bot.say(
            "Hi, could you move this Tuesday's orchid reminder to Wednesday at 10 o'clock?"
        )
        assert reply.startswith("Moved: water the orchid, now Wed 9 Dec 10:00"), reply
        reply = await bot.say("move the fern reminder to Thursday at 10am, just this once.")
        assert reply.startswith("Moved: repot the fern, now Thu 10 Dec 10:00"), reply
        reply = await bot.say("please put off the dentist reminder until friday")
        assert reply.startswith("I can't find a reminder about 'dentist'"), reply


async def test_a_weekly_one_moved_to_a_weekday_stays_in_its_week(workspace: Path) -> None:
    async with console_bot(load_settings(workspace=workspace), [AT]) as bot:
        await bot.say("remind me every monday at 7am to put the bins out")
        reply = await bot.say("move the bins reminder to tuesday at 7")
        assert reply.startswith("Moved: put the bins out, now Tue 15 Dec 07:00"), reply
        assert "after it, every Monday at 07:00 again" in reply, reply
        reply = await bot.say("move bins to tues this week")
        assert reply.startswith("Moved: put the bins out, now Tue 8 Dec 07:00"), reply


async def test_snoozing_a_repeating_one_not_come_yet_pushes_it(workspace: Path) -> None:
    async with console_bot(load_settings(workspace=workspace), [AT]) as bot:
        await bot.say("remind me every wednesday at 9am to take the meds")
        reply = await bot.say("snooze number 1 by an hour")
        assert reply.startswith("Snoozed: take the meds, I'll remind you Wed 9 Dec 10:00"), reply
        listed = await bot.command("/reminders")
        assert listed.count("take the meds") == 1, listed
        assert "Wed 9 Dec 10:00" in listed, listed


@pytest.mark.parametrize(
    ("said", "task"),
    [
        ("remind me the monday at 8 that I must go to the Ausländerbehörde", "go to the Aus"),
        ("remind me that I must go to the Ausländerbehörde the monday at 8", "go to the Aus"),
        ("remind me that i need to pay rent on monday at 8", "pay rent"),
        ("remind me to get vitamin a on monday at 8", "get vitamin a"),
    ],
)
async def test_that_i_must_is_the_task_said_plainly(workspace: Path, said: str, task: str) -> None:
    async with console_bot(load_settings(workspace=workspace), [AT]) as bot:
        reply = await bot.say(said)
        assert f"remind you to {task}" in reply and "Mon 14 Dec 08:00" in reply, reply
        assert " the on " not in reply and "to you must" not in reply, reply
        listed = await bot.command("/reminders")
        assert f"— {task}" in listed and "they must" not in listed, listed
