"""Tester s38 (offline, Mon 7 Dec 2026), finding 11: reminders asked for as a wish ("I
should very much like to be reminded the day before ...") are set, counted from the event
said with them; a short follow-up with only a new time moves the one just set; a reason after
a move is no part of its time; "do I have any reminders set?" lists them; "the earlier
vitamin one" picks by when it was set; the same reminder asked for twice is not set twice;
a bare hour for a task plainly done in the morning is the morning's."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from familiars.bot._reminder_event import before_the_event, wish_as_request
from familiars.bot._turn_actions import in_the_morning, plan_actions
from familiars.config import load_settings
from tests.harness import console_bot

pytestmark = pytest.mark.timeout(180)

AT = datetime(2026, 12, 7, 15, 50, tzinfo=UTC)  # Monday


def _set(text: str) -> list[tuple[str, str, str]]:
    actions = plan_actions(
        text, existing=[], now=AT, timezone="UTC", dialogue_id=None, grace_s=3600.0
    )
    return [(r.task, f"{r.due:%d %H:%M}", r.rule) for r in actions.reminders]


@pytest.mark.parametrize(
    ("said", "task", "due"),
    [
        ("I'd like to be reminded to call the bank tomorrow at 10", "call the bank", "08 10:00"),
        (
            "it would be good to get a reminder to water the plants on friday at 9",
            "water the plants",
            "11 09:00",
        ),
        ("make sure I remember to bring the cake on saturday at 11", "bring the cake", "12 11:00"),
        ("I should very much like a reminder about the vet on friday at 4", "the vet", "11 16:00"),
        ("could you remind me to ring Joan at 4", "ring Joan", "07 16:00"),
    ],
)
def test_a_reminder_asked_for_as_a_wish_is_set(said: str, task: str, due: str) -> None:
    assert _set(said) == [(task, due, "")]


def test_the_day_before_counts_from_the_event_said_with_it() -> None:
    said = (
        "My granddaughter Eleanor has a cello recital on the 18th of December at 2 in the "
        "afternoon, and I should very much like to be reminded the day before at ten in the "
        "morning."
    )
    [(task, due, _)] = _set(said)
    assert due == "17 10:00" and task.startswith("your granddaughter Eleanor has a cello recital")
    assert _set("my MOT is on the 20th of December, remind me a week before")[0][1] == "13 09:00"


def test_no_event_date_or_no_offset_is_left_as_said() -> None:
    for said in (
        "I'd like to be reminded the day before at 10",
        "Eleanor has a recital at the church, remind me the day before",
        "the bins go out on friday, remind me to do it at 7pm",
    ):
        assert before_the_event(said, now=AT, tz=UTC) == wish_as_request(said)  # type: ignore[arg-type]
    assert wish_as_request("I'd like to be reminded the day before") == "remind me the day before"


@pytest.mark.parametrize(
    ("said", "at"),
    [
        ("Remind me every weekday at 6 to wake up for the bakery run", "06:00"),
        ("remind me at 5 to get up for the early shift", "05:00"),
        ("every day at 6 remind me to eat breakfast", "06:00"),
        ("remind me at 6 to feed the cat", "18:00"),
        ("remind me at 6 in the evening to wake up dad", "18:00"),
        ("remind me at 4 to set my alarm for tonight", "16:00"),
    ],
)
def test_a_bare_hour_for_a_morning_task_is_the_morning(said: str, at: str) -> None:
    assert _set(said)[0][1].endswith(at), in_the_morning(said)


async def test_a_short_follow_up_with_a_new_time_moves_the_one_just_set(workspace: Path) -> None:
    async with console_bot(load_settings(workspace=workspace), [AT]) as bot:
        await bot.say("remind me 2moro at 4 to text sofia happy bday")
        reply = await bot.say("actually make it 5")
        assert reply.startswith("Moved: text sofia happy bday, now Tue 8 Dec 17:00"), reply
        reply = await bot.say("hmm make it 6 actually")
        assert reply.startswith("Moved: text sofia happy bday, now Tue 8 Dec 18:00"), reply
        await bot.say("remind me every weekday at 6 to take my vitamin D")
        await bot.say("Remind me every weekday at 6 to wake up for the bakery run")
        await bot.say("remind me every weekday at 6 to walk the dog")
        reply = await bot.say("that should be 7:30 in the morning actually, not 6")
        assert reply.startswith("Moved: walk the dog, now every weekday at 07:30"), reply
        assert (await bot.say("it's 5pm not 4pm")).startswith("Moved") is False


async def test_a_move_with_a_reason_and_the_list_asked_for(workspace: Path) -> None:
    async with console_bot(load_settings(workspace=workspace), [AT]) as bot:
        await bot.say(
            "Please remind me on the 18th of December at 10 in the morning to telephone Eleanor"
        )
        reply = await bot.say(
            "Move the Eleanor one to the 17th, please; I shall be at the hairdresser on the 18th."
        )
        assert reply.startswith("Moved: telephone Eleanor, now Thu 17 Dec 10:00"), reply
        reply = await bot.say("move it to 9 because I'm out at 10")
        assert reply.startswith("Moved: telephone Eleanor, now Thu 17 Dec 09:00"), reply
        for asked in (
            "Do I have any reminders set?",
            "what reminders have I got",
            "any reminders?",
        ):
            listed = await bot.say(asked)
            assert listed.startswith("Your reminders") and "telephone Eleanor" in listed, listed


async def test_the_earlier_one_and_the_same_one_twice(workspace: Path) -> None:
    async with console_bot(load_settings(workspace=workspace), [AT]) as bot:
        await bot.say("remind me every weekday at 6 to take my vitamin D before I leave")
        reply = await bot.say("remind me every weekday at 6 to take my vitamin D before I leave")
        assert reply.startswith("You already have that one: take your vitamin D"), reply
        await bot.say("remind me every weekday at 6 to take my vitamin D")
        reply = await bot.say(
            "cancel the earlier vitamin one, the one with before I leave, I've got two now"
        )
        assert reply.startswith("Cancelled: take your vitamin D before"), reply
        listed = await bot.command("/reminders")
        assert listed.count("vitamin") == 1, listed
        await bot.say("remind me tomorrow at 9 to call mum")
        await bot.say("cancel the call mum reminder")
        reply = await bot.say("remind me tomorrow at 9 to call mum")
        assert reply.startswith("Okay, I'll remind you to call mum"), reply
        assert "call mum" in await bot.command("/reminders")
