"""A reminder that fell due while the bot was down is sent by the start itself, once the
console adapter runs: exactly once, with no ERROR logged (issue 19: due reminders were sent
before the console adapter ran, 16 ERROR tracebacks over 11 starts, then retried)."""

from __future__ import annotations

import logging
from datetime import timedelta
from pathlib import Path

import pytest

from familiars.bot import IncomingMessage
from familiars.config import load_settings
from tests.bot.test_reminders_e2e import SAID_AT, start_console_bot


async def test_a_reminder_due_at_start_is_sent_once_after_the_adapter_is_up(
    workspace: Path, caplog: pytest.LogCaptureFixture, memory_home: str
) -> None:
    settings = load_settings(workspace=workspace)
    now = [SAID_AT]
    app, adapter, _ = await start_console_bot(settings, lambda: now[0])
    try:
        message = IncomingMessage(
            platform="console",
            chat_id=adapter.chat_id,
            user_id="alice",
            display_name="alice",
            text="remind me tomorrow at 9am to call mom",
            ts=SAID_AT,
        )
        async for _ in app.dialogues.respond(message):
            pass
        await app.settle()
    finally:
        await app.shutdown()

    now[0] = SAID_AT.replace(hour=9, minute=5) + timedelta(days=1)
    caplog.clear()
    with caplog.at_level(logging.INFO):
        app, adapter, out = await start_console_bot(settings, lambda: now[0])
        try:
            # Sent by the start: nobody called run_due, and the adapter was up to take it.
            assert out.getvalue().lower().count("call mom") == 1, out.getvalue()
            assert app.running_adapters.get("console") is adapter
            assert app.scheduler is not None
            now[0] += timedelta(minutes=1)
            await app.scheduler.run_due(now[0])  # the next tick sends nothing again
            assert out.getvalue().lower().count("call mom") == 1
        finally:
            await app.shutdown()
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], [r.getMessage() for r in errors]
