"""Tester s39: "can you wake me at 7" was set for 19:00 and "wake me at 6:45 tmrw" for
18:45 (a bare hour 1 to 6 is after noon for a reminder). An alarm's bare hour is the
morning; an ordinary reminder's is left after noon."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.memory import offline_writes

NOW = datetime(2037, 12, 7, 10, 0, tzinfo=UTC)


def _due(text: str) -> datetime | None:
    out = offline_writes(text, existing=[], now=NOW)
    loops = [w.entry.open_loop for w in out.writes if w.entry.open_loop]
    return datetime.fromisoformat(loops[0].due) if loops and loops[0].due else None


@pytest.mark.parametrize(
    ("text", "due"),
    [
        ("can you wake me at 7", datetime(2037, 12, 8, 7, 0, tzinfo=UTC)),
        ("wake me at 6:45 tmrw", datetime(2037, 12, 8, 6, 45, tzinfo=UTC)),
        ("wake me up at 6:45 tomorrow", datetime(2037, 12, 8, 6, 45, tzinfo=UTC)),
        ("get me up at 5:30", datetime(2037, 12, 8, 5, 30, tzinfo=UTC)),
        ("wake me up tomorrow at 6", datetime(2037, 12, 8, 6, 0, tzinfo=UTC)),
        ("wake me at 7 in the evening", datetime(2037, 12, 7, 19, 0, tzinfo=UTC)),
        ("wake me up at 5pm", datetime(2037, 12, 7, 17, 0, tzinfo=UTC)),
    ],
)
def test_an_alarms_bare_hour_is_the_morning(text: str, due: datetime) -> None:
    assert _due(text) == due


def test_an_ordinary_reminders_bare_hour_stays_after_noon() -> None:
    assert _due("remind me at 6:45 tmrw to pray") == datetime(2037, 12, 8, 18, 45, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "due"),
    [
        ("set an alarm for 6", datetime(2037, 12, 8, 6, 0, tzinfo=UTC)),
        ("set an alarm for 6:30 tomorrow", datetime(2037, 12, 8, 6, 30, tzinfo=UTC)),
        ("set an alarm for 6pm", datetime(2037, 12, 7, 18, 0, tzinfo=UTC)),
        ("set an alarm to call mum at 5", datetime(2037, 12, 7, 17, 0, tzinfo=UTC)),
    ],
)
def test_an_alarm_set_for_a_bare_hour_is_the_morning(text: str, due: datetime) -> None:
    assert _due(text) == due
