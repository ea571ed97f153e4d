"""A move "to saturday at 7" is 19:00, as it was before the one afternoon rule (which reads
1 to 6 as after noon): a move reads 1 to 7 so since tester U5; "at 7am" stays 07:00."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from familiars.bot._commands._reminders import read_move_time

TZ = ZoneInfo("Europe/London")
NOW = datetime(2026, 12, 7, 16, 0, tzinfo=TZ)  # Monday


@pytest.mark.parametrize(
    ("said", "due"),
    [
        ("saturday at 7", "2026-12-12 19:00"),
        ("tomorrow at 7", "2026-12-08 19:00"),
        ("saturday at 7:30", "2026-12-12 19:30"),
        ("saturday at 7am", "2026-12-12 07:00"),
        ("saturday morning at 7", "2026-12-12 07:00"),
        ("friday at 3", "2026-12-11 15:00"),
        ("saturday at 8", "2026-12-12 08:00"),
    ],
)
def test_a_move_to_7_is_the_evening(said: str, due: str) -> None:
    when = read_move_time(said, now=NOW, zone=TZ)
    assert when is not None and when.strftime("%Y-%m-%d %H:%M") == due
