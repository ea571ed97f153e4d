"""Issue 23, second pass: reminders that come back on weekdays, weekends, every n days or
weeks and fortnightly, each occurrence counted from the first."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from familiars.memory._offline._every import every_text, next_due
from familiars.memory._offline._writes import facts_in

#: Monday 30 November 2026, 14:00 in Berlin.
NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)
BERLIN = ZoneInfo("Europe/Berlin")


def _rule(text: str) -> dict:
    (fact,) = facts_in(text, now=NOW, timezone="Europe/Berlin", dialogue_id="d")
    assert fact.open_loop is not None and fact.open_loop.every
    return dict(fact.open_loop.every)


def _dues(rule: dict, count: int) -> list[str]:
    out, after = [], NOW
    for _ in range(count):
        due = next_due(rule, after)
        assert due is not None
        out.append(f"{due:%a %d %H:%M}")
        after = due + timedelta(minutes=1)
    return out


@pytest.mark.parametrize(
    ("text", "said", "dues"),
    [
        ("remind me every weekday at 8 to take my pills", "every weekday at 08:00",
         ["Tue 01 08:00", "Wed 02 08:00", "Thu 03 08:00", "Fri 04 08:00", "Mon 07 08:00"]),
        ("remind me on weekends at 10 to go for a run", "every weekend day at 10:00",
         ["Sat 05 10:00", "Sun 06 10:00", "Sat 12 10:00"]),
        ("remind me every 3 days at 7pm to call gran", "every 3 days at 19:00",
         ["Mon 30 19:00", "Thu 03 19:00", "Sun 06 19:00"]),
        ("every other Monday remind me to put the bins out", "every 2 weeks on Monday at 09:00",
         ["Mon 07 09:00", "Mon 21 09:00"]),
        ("remind me fortnightly on Friday to pay Sam", "every 2 weeks on Friday at 09:00",
         ["Fri 04 09:00", "Fri 18 09:00"]),
        ("remind me every 2 weeks to water the cactus", "every 2 weeks on Tuesday at 09:00",
         ["Tue 01 09:00", "Tue 15 09:00"]),
    ],
)  # fmt: skip
def test_recurring_reminders_in_words(text: str, said: str, dues: list[str]) -> None:
    rule = _rule(text)
    assert every_text(rule) == said
    assert _dues(rule, len(dues)) == dues


def test_numbers_inside_the_task_stay_in_the_task() -> None:
    (fact,) = facts_in(
        "remind me to buy 2 pints of milk tomorrow at 9", now=NOW, timezone="Europe/Berlin"
    )
    assert fact.content.startswith("Remind the user to buy 2 pints of milk on Tuesday 1 December")


@pytest.mark.parametrize("interval", [10**12, -3, "lots"])
def test_a_rule_with_an_impossible_interval_has_no_next_time_and_is_logged(
    interval: object, caplog: pytest.LogCaptureFixture
) -> None:
    """A hand-edited rule ("interval": 1000000000000) neither searches for ages nor raises
    OverflowError: it has no next time, said in the log (the record itself is kept)."""
    rule = {"unit": "day", "interval": interval, "at": "09:00", "tz": "UTC", "start": "2026-11-30"}
    assert next_due(rule, NOW) is None
    assert "no next time" in caplog.text
