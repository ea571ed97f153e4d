"""Session 34 (fixtime, tester U83, U84): an hour said with "tonight", "this evening" or
"this afternoon" is after noon, and midnight is 00:00 of the next day, never noon."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from familiars.memory import parse_when

MADRID = ZoneInfo("Europe/Madrid")
MONDAY_10_05 = datetime(2026, 12, 7, 9, 5, tzinfo=UTC)  # 10:05 in Madrid


def _at(said: str) -> datetime | None:
    return parse_when(said, now=MONDAY_10_05, tz=MADRID)


def test_an_hour_said_with_an_evening_word_is_after_noon_today() -> None:
    today = {
        "tonight at half 9": (21, 30),
        "this evening at 7": (19, 0),
        "at 6 tonight": (18, 0),
        "this afternoon at 4": (16, 0),
        "tonight at 10:45": (22, 45),
    }
    for said, (hour, minute) in today.items():
        assert _at(said) == datetime(2026, 12, 7, hour, minute, tzinfo=MADRID), said


def test_an_evening_of_another_day_is_after_noon_on_that_day() -> None:
    assert _at("tomorrow evening at 7") == datetime(2026, 12, 8, 19, 0, tzinfo=MADRID)
    assert _at("friday evening at 8") == datetime(2026, 12, 11, 20, 0, tzinfo=MADRID)


def test_a_morning_or_a_plain_hour_is_read_as_before() -> None:
    assert _at("tomorrow morning at 8") == datetime(2026, 12, 8, 8, 0, tzinfo=MADRID)
    assert _at("at 3") == datetime(2026, 12, 7, 15, 0, tzinfo=MADRID)
    assert _at("tonight at 21:30") == datetime(2026, 12, 7, 21, 30, tzinfo=MADRID)
    assert _at("tonight at 9pm") == datetime(2026, 12, 7, 21, 0, tzinfo=MADRID)


def test_midnight_is_the_start_of_the_next_day() -> None:
    for said in ("at midnight", "midnight", "tonight at midnight"):
        assert _at(said) == datetime(2026, 12, 8, 0, 0, tzinfo=MADRID), said
    assert _at("at 00:30") == datetime(2026, 12, 8, 0, 30, tzinfo=MADRID)
