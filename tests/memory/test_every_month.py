"""F6: a reminder that comes back every month: its day, a short month's last day, every n-th
month, and how it is said."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from familiars.memory import every_text, next_due, offline_writes

NOW = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)


def test_the_31st_falls_on_a_short_months_last_day() -> None:
    rule = {"unit": "month", "day": 31, "at": "09:00", "tz": "UTC"}
    assert next_due(rule, NOW) == datetime(2026, 12, 31, 9, 0, tzinfo=ZoneInfo("UTC"))
    feb = next_due(rule, datetime(2027, 2, 1, tzinfo=UTC))
    assert feb == datetime(2027, 2, 28, 9, 0, tzinfo=ZoneInfo("UTC"))


def test_every_other_month_counts_from_its_start() -> None:
    rule = {"unit": "month", "day": 8, "at": "09:00", "tz": "UTC", "interval": 2,
            "start": "2026-12-08"}  # fmt: skip
    after_first = next_due(rule, datetime(2026, 12, 8, 10, 0, tzinfo=UTC))
    assert after_first == datetime(2027, 2, 8, 9, 0, tzinfo=ZoneInfo("UTC"))
    assert every_text(rule) == "every 2 months on the 8th at 09:00"


def test_a_monthly_request_is_an_open_loop_that_repeats() -> None:
    said = "remind me monthly on the 22nd at 8pm to back up the photos"
    out = offline_writes(said, existing=[], now=NOW)
    [loop] = [w.entry.open_loop for w in out.writes if w.entry.open_loop is not None]
    assert loop.every == {"unit": "month", "at": "20:00", "tz": "UTC", "day": 22}
    assert loop.due == "2026-12-22T20:00:00+00:00"
    assert every_text(loop.every) == "every month on the 22nd at 20:00"
