"""A model's set_reminder time keeps its clock as written: "tomorrow 4:00" and an ISO
"2030-11-12T04:00" are 04:00 (the afternoon rule is for a person's bare hour; the ISO clock
after "T" was lost and read as 09:00)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.test_turn_tools import ZONE, running
from tests.bot.tool_script import one, relay


@pytest.mark.parametrize(
    ("when", "due"),
    [
        ("tomorrow 4:00", "2030-11-12T04:00:00-05:00"),
        ("2030-11-12T04:00", "2030-11-12T04:00:00-05:00"),
        ("2030-11-12T16:00:00", "2030-11-12T16:00:00-05:00"),
        ("2030-11-12 4:00", "2030-11-12T04:00:00-05:00"),
        ("tomorrow at 4:30pm", "2030-11-12T16:30:00-05:00"),
    ],
)
async def test_a_models_clock_is_read_as_written(workspace: Path, when: str, due: str) -> None:
    async with running(workspace) as bot:
        await bot.command(f"/timezone {ZONE}")
        bot.script.turn(one("set_reminder", {"task": "feed the cat", "when": when}), relay())
        assert "Reminder set: feed the cat" in await bot.say("can you set that reminder")
        [rec] = [r for r in await bot.records(category="event") if r.open_loop]
        assert rec.open_loop is not None and rec.open_loop["due"] == due
