"""A British dot between the hour and the minutes ("7.15", "at 12.30", "8.45pm") is a clock
time: it was read as a date at 09:00, or as the moment it was said, or not at all."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from familiars.memory import parse_when
from familiars.memory._offline._dates import match_reminder

LONDON = ZoneInfo("Europe/London")
MONDAY_11 = datetime(2026, 12, 7, 11, 0, tzinfo=UTC)


def _at(said: str) -> datetime | None:
    return parse_when(said, now=MONDAY_11, tz=LONDON)


def test_a_dotted_time_is_a_clock_time() -> None:
    said = {
        "at 12.30": datetime(2026, 12, 7, 12, 30, tzinfo=LONDON),
        "7.15": datetime(2026, 12, 7, 19, 15, tzinfo=LONDON),  # 07:15 has gone by: the evening
        "tomorrow at 7.15": datetime(2026, 12, 8, 7, 15, tzinfo=LONDON),
        "at 8.45pm": datetime(2026, 12, 7, 20, 45, tzinfo=LONDON),
        "tonight at 9.30": datetime(2026, 12, 7, 21, 30, tzinfo=LONDON),
        "friday at 18.05": datetime(2026, 12, 11, 18, 5, tzinfo=LONDON),
    }
    for words, when in said.items():
        assert _at(words) == when, words


def test_a_price_or_a_weight_in_a_reminder_stays_in_its_task() -> None:
    asked = {
        "remind me to pay the £12.30 fee tomorrow": ("pay the £12.30 fee", (8, 9, 0)),
        "remind me to buy 2.5 kg of flour at 6pm": ("buy 2.5 kg of flour", (7, 18, 0)),
        "remind me to call mum at 7.15": ("call mum", (7, 19, 15)),
        "remind me in 1.30 hours to check the oven": ("check the oven", (7, 12, 18)),
    }
    for words, (task, (day, hour, minute)) in asked.items():
        fact = match_reminder(words, now=MONDAY_11, tz=LONDON, grace_s=60, dialogue_id=None)
        assert fact is not None and fact.open_loop is not None, words
        assert f"to {task} on" in fact.content, fact.content
        due = datetime(2026, 12, day, hour, minute, tzinfo=LONDON)
        assert datetime.fromisoformat(fact.open_loop.due) == due, words
