"""Session 33 review item 1: a bare "a/b" date is read one way for facts and reminders, and
never lands more than about a year ahead (London "12/25" was 12 December 2125)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from familiars.memory._offline._dates import parse_when, zone
from familiars.memory._offline._writes import facts_in

# Monday 7 December 2026, 10:00 UTC.
NOW = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("tz", "said", "expected"),
    [
        # only one order is a date: that one, whatever the zone
        ("Europe/London", "on 12/25", datetime(2026, 12, 25, 9, 0)),
        ("Australia/Sydney", "on 12/25", datetime(2026, 12, 25, 9, 0)),
        ("Etc/GMT", "on 12/25", datetime(2026, 12, 25, 9, 0)),
        ("America/New_York", "on 25/12", datetime(2026, 12, 25, 9, 0)),
        # both are dates: the zone's order (month first where none was set)
        ("Europe/London", "on 3/4", datetime(2027, 4, 3, 9, 0)),
        ("America/New_York", "on 3/4", datetime(2027, 3, 4, 9, 0)),
        ("UTC", "on 12/1", datetime(2027, 12, 1, 9, 0)),
        ("America/Toronto", "on 12/1", datetime(2027, 12, 1, 9, 0)),
        ("Asia/Manila", "on 12/1", datetime(2027, 12, 1, 9, 0)),
        ("Europe/London", "on 12/1 at 5pm", datetime(2027, 1, 12, 17, 0)),
    ],
)
def test_a_bare_slash_date_is_the_next_such_day(tz, said, expected):
    due = parse_when(said, now=NOW, tz=zone(tz))
    assert due is not None
    assert due.replace(tzinfo=None) == expected


@pytest.mark.parametrize(
    "tz", ["Europe/London", "America/Toronto", "Asia/Manila", "Australia/Sydney", "UTC", "Etc/GMT"]
)
def test_no_bare_slash_date_is_more_than_a_year_ahead(tz):
    for a in range(1, 32):
        for b in range(1, 32):
            due = parse_when(f"on {a}/{b}", now=NOW, tz=zone(tz))
            assert due is None or due - NOW < timedelta(days=367), (a, b, due)


@pytest.mark.parametrize(
    ("tz", "month"),
    [("Europe/London", "April 3"), ("America/New_York", "March 4"), (None, "March 4")],
)
def test_a_birthday_on_a_slash_date_reads_it_as_a_reminder_does(tz, month):
    texts = [f.content for f in facts_in("my birthday is on 3/4", now=NOW, timezone=tz)]
    assert f"The user's birthday is on {month}." in texts, texts
