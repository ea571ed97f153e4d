"""A move to "5pm" is 17:00 whatever the reminder's own time (tester s37: after "/timezone
America/Denver", "remind me tomorrow at 8 to feed the fish", then "move the fish one to
5pm", "scratch that, make it 5pm", "/reminders move 6 5pm" and even "/reminders move 6
17:00" went to 05:00: "5pm" said no half of the day to the move, which took the reading
nearer 08:00). A bare hour from 1 to 6 is after noon, as everywhere else."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from familiars.bot._commands._reminders import move_reminder, read_move_time
from familiars.config import load_settings
from familiars.scheduler import Reminder
from tests.harness import console_bot

pytestmark = pytest.mark.timeout(180)

DENVER = ZoneInfo("America/Denver")
NOW = datetime(2026, 12, 7, 17, 50, tzinfo=UTC)  # Mon 7 Dec 10:50 in Denver


class _Book:
    """Moves a reminder and nothing else (the one move step needs no more)."""

    async def move(
        self, reminder: Reminder, due: datetime, now: datetime, *, every: Any = None
    ) -> Reminder:
        assert due > now
        return replace(reminder, due=due, every=every or reminder.every)


async def _moved(old: str, said: str) -> str:
    hour, minute = map(int, old.split(":"))
    due = datetime(2026, 12, 8, hour, minute, tzinfo=DENVER)  # Tue 8 Dec
    reminder = Reminder("r_1", "feed the fish", due, "open", "console:dave", number=6)
    when = read_move_time(said, now=NOW, zone=DENVER)
    return await move_reminder(_Book(), reminder, when, said, zone=DENVER, now=NOW)


_OLD = ("08:00", "09:00", "15:00", "23:00")
#: A clock alone keeps the reminder's day (the reading nearest its own moment).
_ALONE = {
    "5pm": "Tue 8 Dec 17:00",
    "5 pm": "Tue 8 Dec 17:00",
    "5p.m.": "Tue 8 Dec 17:00",
    "17:00": "Tue 8 Dec 17:00",
    "5": "Tue 8 Dec 17:00",
    "at 5": "Tue 8 Dec 17:00",
    "5 in the afternoon": "Tue 8 Dec 17:00",
    "noon": "Tue 8 Dec 12:00",
    "half 5": "Tue 8 Dec 17:30",
}


@pytest.mark.parametrize("old", _OLD)
@pytest.mark.parametrize(("said", "due"), sorted(_ALONE.items()))
async def test_a_clock_alone_is_read_the_same_from_any_time_of_day(
    old: str, said: str, due: str
) -> None:
    reply = await _moved(old, said)
    assert reply.startswith(f"Moved: feed the fish, now {due} "), (old, said, reply)


@pytest.mark.parametrize(("old", "due"), [(o, "Tue 8 Dec 05:00") for o in _OLD[:3]])
async def test_5am_alone_is_the_morning(old: str, due: str) -> None:
    reply = await _moved(old, "5am")
    assert reply.startswith(f"Moved: feed the fish, now {due} "), reply
    # from 23:00 the nearest 05:00 is the next morning, as 11pm from midnight is the evening
    # before
    reply = await _moved("23:00", "5am")
    assert reply.startswith("Moved: feed the fish, now Wed 9 Dec 05:00 "), reply


_WITH_A_DAY = {
    "wednesday at 5pm": "Wed 9 Dec 17:00",
    "wednesday 17:00": "Wed 9 Dec 17:00",
    "wednesday at 5": "Wed 9 Dec 17:00",
    "wednesday at 5am": "Wed 9 Dec 05:00",
    "wednesday at noon": "Wed 9 Dec 12:00",
    "wednesday at half 5": "Wed 9 Dec 17:30",
    "tomorrow 5pm": "Tue 8 Dec 17:00",
}


@pytest.mark.parametrize("old", _OLD)
@pytest.mark.parametrize(("said", "due"), sorted(_WITH_A_DAY.items()))
async def test_a_clock_with_a_day_is_that_clock(old: str, said: str, due: str) -> None:
    reply = await _moved(old, said)
    assert reply.startswith(f"Moved: feed the fish, now {due} "), (old, said, reply)


@pytest.mark.parametrize(
    ("old", "said", "due"),
    [
        ("05:30", "6", "Tue 8 Dec 06:00"),  # a reminder in the morning's small hours
        ("05:00", "wednesday at 5", "Wed 9 Dec 05:00"),  # its own clock reading
        ("05:00", "wednesday 17:00", "Wed 9 Dec 17:00"),  # a 24-hour clock is as said
        ("07:30", "7:15", "Tue 8 Dec 07:15"),
        ("17:00", "4", "Tue 8 Dec 16:00"),
        ("17:00", "8", "Tue 8 Dec 20:00"),
        ("08:00", "9", "Tue 8 Dec 09:00"),
    ],
)
async def test_a_bare_hour_beside_the_reminders_own(old: str, said: str, due: str) -> None:
    reply = await _moved(old, said)
    assert reply.startswith(f"Moved: feed the fish, now {due} "), (old, said, reply)


async def test_the_testers_moves_in_words_and_by_command(workspace: Path) -> None:
    async with console_bot(load_settings(workspace=workspace), [NOW]) as bot:
        await bot.command("/timezone America/Denver")
        set_ = await bot.say("remind me tomorrow at 8 to feed the fish")
        assert "feed the fish on Tue 8 Dec 08:00" in set_, set_
        reply = await bot.say("move the fish one to 5pm")
        assert reply == "Moved: feed the fish, now Tue 8 Dec 17:00 (was Tue 8 Dec 08:00).", reply
        await bot.say("remind me tmrw at 8 to ring Susan")
        reply = await bot.say("scratch that, make it 5pm")
        assert reply == "Moved: ring Susan, now Tue 8 Dec 17:00 (was Tue 8 Dec 08:00).", reply
        await bot.say("remind me tomorrow at 8am to water plants")
        listed = await bot.command("/reminders")
        n = next(line for line in listed.splitlines() if "water plants" in line).split(".")[0]
        for said, due in (("5pm", "17:00"), ("08:00", "08:00"), ("17:00", "17:00")):
            reply = await bot.command(f"/reminders move {n} {said}")
            assert f"now Tue 8 Dec {due} " in reply, (said, reply)
        reply = await bot.command(f"/reminders move {n} 8am")
        reply = await bot.command(f"/reminders move {n} 3pm")
        assert "now Tue 8 Dec 15:00 (was Tue 8 Dec 08:00)" in reply, reply
        await bot.say("remind me every day at 8am to feed the cat")
        reply = await bot.say("move the cat one to 5pm")
        assert reply.startswith("Moved: feed the cat, now every day at 17:00;"), reply
        listed = await bot.command("/reminders")
        for line in (
            "Tue 8 Dec 15:00 — water plants",
            "Tue 8 Dec 17:00 — ring Susan",
            "Tue 8 Dec 17:00 — feed the fish",
        ):
            assert line in listed, listed
