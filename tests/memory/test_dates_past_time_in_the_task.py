"""Review s34 F2: the date reader's part. A time gone by is refused only where it is said as
the reminder's time ("call Bob yesterday at 9"), not where it is part of the task ("thank Jo
for last night", "the plumber I rang last week"), nor in a future phrase ("the last friday of
the month")."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from familiars.memory import offline_writes, past_time_at, said_past

NOW = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("words", "at"),
    [
        ("call Bob yesterday at 9", 9),
        ("call Bob yesterday", 9),
        ("call Bob last friday at 9am", 9),
        ("call Bob 2 days ago", 9),
        ("call Bob yesterday evening", 9),
        ("pay back Sam for last night at 6pm", None),
        ("call the plumber I rang last week at 5pm", None),
        ("return the jacket I bought 2 weeks ago on friday", None),
        ("see the doctor about what happened last night", None),
        ("finish the last chapter", None),
        ("thank Jo for last night tomorrow at 10", None),
    ],
)
def test_a_time_gone_by_is_found_only_in_the_time_slot(words: str, at: int | None) -> None:
    assert past_time_at(words) == at


def test_the_last_of_a_month_or_year_is_ahead() -> None:
    for ahead in ("on the last friday of the month", "in the last week of december"):
        assert not said_past(ahead), ahead
    for gone in ("last friday", "last week", "yesterday at 9", "2 hours ago"):
        assert said_past(gone), gone


@pytest.mark.parametrize(
    ("text", "due"),
    [
        ("remind me to pay back Sam for last night at 6pm", datetime(2026, 12, 7, 18, 0)),
        ("remind me to thank Jo for last night tomorrow at 10", datetime(2026, 12, 8, 10, 0)),
        ("remind me to call the plumber I rang last week at 5pm", datetime(2026, 12, 7, 17, 0)),
    ],
)
def test_the_reminder_keeps_its_past_phrase_in_the_task(text: str, due: datetime) -> None:
    out = offline_writes(text, existing=[], now=NOW, timezone="Europe/London")
    [loop] = [w.entry.open_loop for w in out.writes if w.entry.open_loop]
    assert loop.due is not None
    assert datetime.fromisoformat(loop.due) == due.replace(tzinfo=ZoneInfo("Europe/London"))
    assert "last" in out.writes[0].entry.content


def test_a_time_gone_by_after_the_task_sets_nothing() -> None:
    for text in (
        "remind me to call Bob yesterday at 9",
        "remind me to call Bob last friday at 9am",
    ):
        out = offline_writes(text, existing=[], now=NOW, timezone="Europe/London")
        assert not [w for w in out.writes if w.entry.open_loop], text
