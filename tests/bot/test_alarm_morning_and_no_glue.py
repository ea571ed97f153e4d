"""Tester s39 (offline): an alarm's bare hour read as pm ("can you wake me at 7" set for
19:00); the previous message glued onto the next reminder ("remind me that my passport
expires in march" read "... that got a dentist appt thursday at 3"); an alarm described
("I want an alarm that doesn't wake the baby at 6") stored as a garbled reminder."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.bot import Application
from tests.harness import say, speaker

T0 = datetime(2037, 12, 7, 10, 0, tzinfo=UTC)  # 2037: the scheduler fires in real time
msg = speaker(platform="console", chat="console-dev", user="dev", name="Dev", at=T0)


@pytest.mark.parametrize(
    ("text", "due"),
    [
        ("can you wake me at 7", "Tue 8 Dec 07:00"),
        ("wake me at 6:45 tmrw", "Tue 8 Dec 06:45"),
        ("wake me up at 6:45 tomorrow", "Tue 8 Dec 06:45"),
        ("get me up at 5:30", "Tue 8 Dec 05:30"),
    ],
)
async def test_an_alarms_bare_hour_is_the_morning(app: Application, text: str, due: str) -> None:
    reply = await say(app, msg(text))
    assert f"remind you to wake up on {due}" in reply, reply


async def test_an_ordinary_reminders_bare_hour_stays_after_noon(app: Application) -> None:
    reply = await say(app, msg("remind me at 6:45 tmrw to pray"))
    assert "18:45" in reply, reply


async def test_the_previous_message_is_never_glued_onto_a_request(app: Application) -> None:
    first = await say(app, msg("got a dentist appt thursday at 3. remind me the day before"))
    assert "remind you on Wed 9 Dec 09:00 that you have a dentist appt" in first, first
    reply = await say(app, msg("remind me that my passport expires in march", 1))
    assert "dentist" not in reply, reply


async def test_the_day_before_alone_still_counts_from_the_message_before(
    app: Application,
) -> None:
    await say(app, msg("it's my sister's birthday on Saturday"))
    reply = await say(app, msg("remind me the day before", 1))
    assert "remind you on Fri 11 Dec 09:00" in reply, reply


@pytest.mark.parametrize(
    "text",
    [
        "I want an alarm that doesn't wake the baby at 6",
        "I have a reminder on my phone for 6pm",
        "I get a reminder from the dentist every year",
    ],
)
async def test_an_alarm_described_is_no_request(app: Application, text: str) -> None:
    reply = await say(app, msg(text))
    assert "I'll remind" not in reply and "no reminder is set" not in reply, reply


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("I want an alarm for 6", "to get the nudge asked for on Tue 8 Dec 06:00"),
        ("set an alarm for 7", "to get the nudge asked for on Tue 8 Dec 07:00"),
        ("I need a reminder to call mum at 5", "to call mum on Mon 7 Dec 17:00"),
        ("can you set a reminder to call mum at 5", "to call mum on Mon 7 Dec 17:00"),
    ],
)
async def test_an_alarm_or_reminder_asked_for_is_set(
    app: Application, text: str, said: str
) -> None:
    reply = await say(app, msg(text))
    assert f"remind you {said}" in reply, reply
