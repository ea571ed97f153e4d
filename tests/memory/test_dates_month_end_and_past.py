"""Session 34 (fixrem 2, 3): the date reader's part of the reminder wordings: "the last day
of the month", a time gone by, a day taken back at the end, a request said after its task."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from familiars.memory import parse_when, settled_request

LONDON = ZoneInfo("Europe/London")


def test_the_last_day_of_the_month() -> None:
    now = datetime(2026, 2, 10, 12, 0, tzinfo=UTC)
    assert parse_when("on the last day of the month", now=now, tz=LONDON) == datetime(
        2026, 2, 28, 9, 0, tzinfo=LONDON
    )
    assert parse_when("the end of next month at 5pm", now=now, tz=LONDON) == datetime(
        2026, 3, 31, 17, 0, tzinfo=LONDON
    )
    last_day_late = datetime(2026, 4, 30, 12, 0, tzinfo=UTC)  # its 09:00 is gone
    assert parse_when("the last day of the month", now=last_day_late, tz=LONDON) == datetime(
        2026, 5, 31, 9, 0, tzinfo=LONDON
    )


def test_a_time_gone_by_is_no_time() -> None:
    early = datetime(2026, 12, 7, 7, 0, tzinfo=UTC)  # "yesterday at 9" was today 09:00
    for said in ("yesterday at 9", "last friday", "2 hours ago"):
        assert parse_when(said, now=early, tz=LONDON) is None, said


def test_a_request_said_roundabout_is_said_plainly() -> None:
    assert (
        settled_request("every tuesday and thursday at 10 remind me to X... actually just tuesdays")
        == "every tuesday at 10 remind me to X"
    )
    assert (
        settled_request("i need my blood pressure tablets every morning at 8, can you remind me")
        == "remind me to take my blood pressure tablets every morning at 8"
    )
    assert settled_request("I need to ring Jo at 5, could you remind me?") == (
        "remind me to ring Jo at 5"
    )
    for plain in ("I need my car keys, can you remind me", "remind me at 5 to ring Jo"):
        assert settled_request(plain) == plain
