"""Night hours and the afternoon rule's reading: "night"/"tonight" with 12 or 1 to 4 is the
small hours, a bare hour said at night is the next time the clock shows it, and whether
the morning was said is read from the time phrase only, on both roads."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from familiars.memory import parse_when
from familiars.memory._offline._asked_reminders import settled_request
from familiars.memory._offline._dates import match_reminder

TZ = ZoneInfo("Europe/London")


def _at(hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 12, 7, hour, minute, tzinfo=TZ)  # Monday


@pytest.mark.parametrize(
    ("said", "due"),
    [
        ("at 12 at night", "2026-12-08 00:00"),
        ("at 1 at night", "2026-12-08 01:00"),
        ("tonight at 1", "2026-12-08 01:00"),
        ("at 1 tonight", "2026-12-08 01:00"),
        ("tonight at 12:30", "2026-12-08 00:30"),
        ("at 2 in the night", "2026-12-08 02:00"),
        ("at 7 at night", "2026-12-08 19:00"),
        ("at 11 tonight", "2026-12-07 23:00"),
        ("tonight at half 9", "2026-12-07 21:30"),
    ],
)
def test_night_with_12_or_1_to_4_is_the_small_hours(said: str, due: str) -> None:
    when = parse_when(said, now=_at(21), tz=TZ)
    assert when is not None and when.strftime("%Y-%m-%d %H:%M") == due


@pytest.mark.parametrize(
    ("now", "said", "due"),
    [
        (_at(23, 30), "at 1", "2026-12-08 01:00"),
        (_at(23, 30), "at 5", "2026-12-08 05:00"),
        (_at(2, 30), "at 3", "2026-12-07 03:00"),
        (_at(2, 30), "at 6", "2026-12-07 06:00"),
        (_at(16), "at 5", "2026-12-07 17:00"),
        (_at(10), "at 4", "2026-12-07 16:00"),
        (_at(23, 30), "tomorrow at 5", "2026-12-08 17:00"),
    ],
)
def test_a_bare_hour_said_at_night_is_the_next_time_the_clock_shows_it(
    now: datetime, said: str, due: str
) -> None:
    when = parse_when(said, now=now, tz=TZ)
    assert when is not None and when.strftime("%Y-%m-%d %H:%M") == due


@pytest.mark.parametrize(
    ("said", "at"),
    [
        ("every night at 1 remind me to take my pill", "01:00"),
        ("every night at 12 remind me to take my pill", "00:00"),
        ("every night at 10 remind me to take my pill", "22:00"),
        ("every friday at 5 remind me to put the bins out for the early collection", "17:00"),
        ("every tuesday at 2 remind me to call the am radio show", "14:00"),
        ("every day at 6 remind me to eat breakfast", "18:00"),
        ("every morning at 6 remind me to run", "06:00"),
    ],
)
def test_a_repeating_time_is_read_from_its_phrase_not_its_task(said: str, at: str) -> None:
    found = match_reminder(
        settled_request(said), now=_at(16), tz=TZ, grace_s=3600, dialogue_id=None
    )
    assert found is not None and found.open_loop is not None
    assert found.open_loop.every is not None and found.open_loop.every["at"] == at


def test_breakfast_in_the_task_is_read_the_same_once_and_every_day() -> None:
    once = match_reminder(
        settled_request("remind me to eat breakfast at 6"),
        now=_at(16), tz=TZ, grace_s=3600, dialogue_id=None,
    )  # fmt: skip
    assert once is not None and "18:00" in once.content


def test_a_clock_with_a_leading_zero_is_a_24_hour_one() -> None:
    when = parse_when("at 05:00", now=_at(16), tz=TZ)
    assert when is not None and when.strftime("%Y-%m-%d %H:%M") == "2026-12-08 05:00"
