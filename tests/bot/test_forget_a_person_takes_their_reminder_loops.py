"""A person's wipe takes their reminder loops from the scheduler's state: after "delete all
my data" + yes, a cancelled repeating reminder's loop (its due time and its schedule with
the time zone "America/Chicago") stayed in ``scheduler/state.json``, and the log said
"0 repeating reminder(s) of dwayne follow America/Chicago" (tester s35 U15)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner

from familiars.cli import app as cli_app
from familiars.config import load_settings
from familiars.memory import open_state_home
from familiars.scheduler import SchedulerLedger, ledger_path
from tests.bot.test_forget import files_holding
from tests.bot.test_reminders_commands import SAID_AT
from tests.harness import console_bot

ZONE = "America/Chicago"


@pytest.mark.parametrize("door", ["words", "cli"])
async def test_delete_all_my_data_takes_their_loops_and_never_logs_their_zone(
    workspace: Path, memory_home: str, caplog: pytest.LogCaptureFixture, door: str
) -> None:
    settings = load_settings(workspace=workspace)
    clock = [SAID_AT]
    caplog.set_level(logging.INFO)
    async with console_bot(settings, clock) as bot:
        await bot.command(f"/timezone {ZONE}")
        reply = await bot.say("every Monday at 8 remind me to put the bins out")
        assert "every Monday at 08:00" in reply, reply
        await bot.command("/timezone America/New_York")
        await bot.command(f"/timezone {ZONE}")
        assert "Cancelled" in await bot.say("cancel the bins reminder")
        assert bot.app.scheduler is not None
        [key] = {e["user_key"] for e in bot.app.scheduler.ledger.loops().values()}
        if door == "words":
            asked = await bot.say("delete all my data")
            assert asked.startswith("About to forget everything about you"), asked
            done = await bot.say("yes")
            assert done.startswith("Forgotten everything about you"), done
    if door == "cli":  # with nothing running
        result = await asyncio.to_thread(
            CliRunner().invoke,
            cli_app,
            ["--workspace", str(workspace), "memory", "forget", "--person", key, "--yes"],
        )
        assert result.exit_code == 0, result.output
    home = open_state_home(settings)
    try:
        loops = SchedulerLedger(ledger_path(workspace), home).loops()
    finally:
        await home.close()
    assert not [e for e in loops.values() if e.get("user_key")], loops
    assert files_holding(workspace, ZONE) == []
    logged = [r.getMessage() for r in caplog.records if ZONE in r.getMessage()]
    assert logged == [], logged
