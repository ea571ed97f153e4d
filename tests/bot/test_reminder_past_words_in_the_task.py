"""Review s34 F2: a past phrase that is part of the task ("pay back Sam for last night at
6pm", "finish the last chapter", "the plumber I rang last week") refused the reminder as a
time gone by; only a time gone by said as the reminder's time refuses it."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest

from familiars.bot import Application
from tests.bot.test_reminder_wordings_read_as_said import T0, _cmd, _in_london, msg
from tests.harness import say

SET = [
    # (what was said, what the reply must hold): 10:00 on Monday 7 December in London
    (
        "remind me to pay back Sam for last night at 6pm",
        "pay back Sam for last night on Mon 7 Dec 18:00",
    ),
    (
        "remind me to thank Jo for last night tomorrow at 10",
        "thank Jo for last night on Tue 8 Dec 10:00",
    ),
    (
        "remind me to call the plumber I rang last week at 5pm",
        "call the plumber you rang last week on Mon 7 Dec 17:00",
    ),
    (
        "remind me to return the jacket I bought 2 weeks ago on friday",
        "return the jacket you bought 2 weeks ago on Fri 11 Dec",
    ),
]


@pytest.mark.parametrize(("text", "reply"), SET)
async def test_a_past_phrase_of_the_task_sets_the_reminder(
    app: Application, text: str, reply: str
) -> None:
    await _in_london(app)
    said = await say(app, msg(text))
    assert reply in said, said
    assert "passed" not in said


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("remind me to finish the last chapter", "finish the last chapter"),
        ("remind me to pay the last instalment", "pay the last instalment"),
        ("remind me to read the last email from Tom", "read the last email from Tom"),
        (
            "remind me to print the photos from last christmas",
            "print the photos from last christmas",
        ),
        (
            "remind me to see the doctor about what happened last night",
            "see the doctor about what happened last night",
        ),
    ],
)
async def test_a_past_phrase_of_the_task_with_no_time_asks_when(
    app: Application, text: str, task: str
) -> None:
    await _in_london(app)
    said = await say(app, msg(text))
    assert "passed" not in said, said
    assert task in said and "When" in said, said


@pytest.mark.parametrize(
    "text",
    [
        "remind me yesterday at 9 to call Bob",
        "remind me to call Bob yesterday at 9",
        "remind me to call Bob yesterday",
        "remind me to call Bob last friday at 9am",
        "remind me to call Bob 2 days ago",
    ],
)
async def test_a_time_gone_by_in_the_time_slot_is_still_refused(
    app: Application, text: str
) -> None:
    await _in_london(app)
    early = dataclasses.replace(msg(text), ts=T0 - timedelta(hours=2))
    said = await say(app, early)
    assert "no reminder is set to call Bob" in said, said
    assert "I'll remind you" not in said
    assert app.dialogues is not None
    assert "call Bob" not in (await app.dialogues.command(_cmd("reminders"))).text


async def test_the_last_friday_of_the_month_is_not_gone_by(app: Application) -> None:
    await _in_london(app)
    said = await say(app, msg("remind me on the last friday of the month to pay rent"))
    assert "passed" not in said, said
    said = await say(app, msg("remind me in the last week of december to renew the car insurance"))
    assert "passed" not in said, said


async def test_an_answer_with_a_past_aside_is_its_time(app: Application) -> None:
    await _in_london(app)
    asked = await say(app, msg("remind me to water the plants"))
    assert "When" in asked, asked
    said = await say(app, msg("tomorrow at 9, I forgot yesterday", minutes=1))
    assert "water the plants on Tue 8 Dec 09:00" in said, said
    gone = await say(app, msg("remind me to feed the cat", minutes=2))
    said = await say(app, msg("yesterday at 9", minutes=3))
    assert "passed" in said and "feed the cat" in said, (gone, said)
