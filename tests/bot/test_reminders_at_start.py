"""A reminder that fell due while the bot was down is sent by the start itself, once the
console adapter runs: exactly once, with no ERROR logged (issue 19: due reminders were sent
before the console adapter ran, 16 ERROR tracebacks over 11 starts, then retried)."""

from __future__ import annotations

import logging
from datetime import timedelta
from pathlib import Path

import pytest

from familiars.config import load_settings
from tests.bot.test_reminders_e2e import SAID_AT
from tests.harness import console_bot


async def test_a_reminder_due_at_start_is_sent_once_after_the_adapter_is_up(
    workspace: Path, caplog: pytest.LogCaptureFixture, memory_home: str
) -> None:
    settings = load_settings(workspace=workspace)
    now = [SAID_AT]
    async with console_bot(settings, now) as bot:
        await bot.say("remind me tomorrow at 9am to call mom")

    now[0] = SAID_AT.replace(hour=9, minute=5) + timedelta(days=1)
    caplog.clear()
    with caplog.at_level(logging.INFO):
        async with console_bot(settings, now) as bot:
            # Sent by the start: nobody called run_due, and the adapter was up to take it.
            assert bot.sent().lower().count("call mom") == 1, bot.sent()
            assert bot.app.running_adapters.get("console") is bot.adapter
            assert bot.app.scheduler is not None
            now[0] += timedelta(minutes=1)
            await bot.app.scheduler.run_due(now[0])  # the next tick sends nothing again
            assert bot.sent().lower().count("call mom") == 1
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], [r.getMessage() for r in errors]
