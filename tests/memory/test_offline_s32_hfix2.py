"""Session 32 tester findings fixed in the offline writer (hfix2)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.memory._offline._dates import parse_when, zone
from familiars.memory._offline._writes import facts_in

# Monday 7 December 2026, 10:00 in London.
NOW = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)
LONDON = zone("Europe/London")


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("on the 1st at 9am", datetime(2027, 1, 1, 9, 0)),
        ("on the 2nd", datetime(2027, 1, 2, 9, 0)),
        ("the 5th at 9am", datetime(2027, 1, 5, 9, 0)),
        ("on the 15th at 10am", datetime(2026, 12, 15, 10, 0)),
        ("on Friday the 11th", datetime(2026, 12, 11, 9, 0)),
        ("on the 3rd of next month", datetime(2027, 1, 3, 9, 0)),
        ("on the 31st", datetime(2026, 12, 31, 9, 0)),
        ("on the 7th at 11am", datetime(2026, 12, 7, 11, 0)),
        ("on the 7th at 9am", datetime(2027, 1, 7, 9, 0)),
        ("on 1 January at 9am", datetime(2027, 1, 1, 9, 0)),
        ("on the 2nd of January", datetime(2027, 1, 2, 9, 0)),
        ("the 1st of March at 8am", datetime(2027, 3, 1, 8, 0)),
    ],
)
def test_a_day_of_the_month_is_the_next_such_day_never_a_month(said, expected):
    due = parse_when(said, now=NOW, tz=LONDON)
    assert due is not None
    assert due.replace(tzinfo=None) == expected


def test_a_weekday_with_a_day_that_is_not_it_looks_for_the_month_where_it_is():
    # Saturday the 2nd: 2 January 2027 is a Saturday.
    due = parse_when("on Saturday the 2nd", now=NOW, tz=LONDON)
    assert due is not None and due.replace(tzinfo=None) == datetime(2027, 1, 2, 9, 0)


@pytest.mark.parametrize(
    ("said", "task", "due"),
    [
        ("remind me on the 1st at 9am to pay rent", "pay rent", "2027-01-01T09:00:00+00:00"),
        ("remind me on Friday the 11th to buy flowers", "buy flowers", "2026-12-11T09:00:00+00:00"),
        ("remind me to water the garden on the 5th", "water the garden", "2027-01-05T09:00:00+00:00"),
    ],
)
def test_a_reminder_on_a_day_of_the_month_is_due_that_day(said, task, due):
    (fact,) = [
        f for f in facts_in(said, now=NOW, timezone="Europe/London") if f.open_loop is not None
    ]
    assert fact.open_loop.due == due
    assert f"Remind the user to {task} on" in fact.content
