"""Reminders that come back ("every Monday at 8 remind me to put the bins out", "remind me
every day at 9pm to take my pills"): set in words, listed with their rule, each occurrence
fired once (the next one written when it fires, kept across a restart), and cancelling
stops all later ones. An old ledger without rules still loads."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from familiars.config import load_settings
from familiars.memory import open_state_home
from familiars.scheduler import SchedulerLedger, ledger_path
from tests.bot.test_reminders_commands import SAID_AT
from tests.harness import console_bot


async def test_a_weekly_and_a_daily_reminder(workspace: Path, memory_home: str) -> None:
    settings = load_settings(workspace=workspace)
    clock = [SAID_AT]  # Monday 11 Nov 2030, 20:15 UTC
    async with console_bot(settings, clock) as bot:
        assert bot.app.scheduler is not None
        reply = await bot.say("every Monday at 8 remind me to put the bins out")
        assert "put the bins out every Monday at 08:00, first on Mon 18 Nov 08:00" in reply, reply
        reply = await bot.say("remind me every day at 9pm to take my pills")
        assert "take your pills every day at 21:00, first on Mon 11 Nov 21:00" in reply, reply
        listed = await bot.command("/reminders")
        assert "Mon 11 Nov 21:00 — take your pills (every day at 21:00)" in listed, listed
        assert "Mon 18 Nov 08:00 — put the bins out (every Monday at 08:00)" in listed

        # Each evening's pills fire once; the next evening's is set when one fires.
        for day in (0, 1, 2):
            clock[0] = datetime(2030, 11, 11 + day, 21, 1, tzinfo=UTC)
            await bot.app.scheduler.run_due(clock[0])
            await bot.app.scheduler.run_due(clock[0] + timedelta(minutes=1))
        assert bot.sent().lower().count("pills") == 3
        listed = await bot.command("/reminders")
        assert "Thu 14 Nov 21:00 — take your pills (every day at 21:00)" in listed, listed
        assert listed.count("pills") == 1

    # The rule outlives a restart; cancelling stops all later ones.
    async with console_bot(settings, clock) as bot:
        assert bot.app.scheduler is not None
        listed = await bot.command("/reminders")
        assert "Thu 14 Nov 21:00 — take your pills (every day at 21:00)" in listed, listed
        reply = await bot.say("cancel the pills reminder")
        assert reply == (
            "Cancelled: take your pills (Thu 14 Nov 21:00; it was every day at 21:00, "
            "none will come now)."
        ), reply
        for day in (14, 15):
            clock[0] = datetime(2030, 11, day, 21, 5, tzinfo=UTC)
            await bot.app.scheduler.run_due(clock[0])
        assert "pills" not in bot.sent().lower()
        assert "pills" not in await bot.command("/reminders")
    home = open_state_home(settings)  # the ledger's file, or its rows in the database
    try:
        loops = SchedulerLedger(ledger_path(workspace), home).loops()
    finally:
        await home.close()
    rules = [e.get("every") for e in loops.values()]
    assert {"unit": "day", "tz": "UTC", "at": "21:00"} in rules


def test_an_old_ledger_without_rules_loads(tmp_path: Path) -> None:
    path = ledger_path(tmp_path)
    path.parent.mkdir(parents=True)
    old = {"version": 1, "loops": {"r1": {"status": "sent", "task": "x", "due": None}}}
    path.write_text(json.dumps(old), encoding="utf-8")
    assert SchedulerLedger(path).loop_status("r1") == "sent"
