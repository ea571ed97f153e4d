"""Each terminal chat (``familiars chat --user NAME``) is one person's: a reminder of dev's
that falls due while only harold's chat is open is not shown to harold and not recorded as
sent; it waits, and comes to dev when dev's chat opens again (tester s39, finding 1)."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from familiars.bot import ConsoleAdapter
from familiars.config import load_settings
from tests.harness import console_bot

#: 2037 (2026's calendar): the scheduler fires in real time, and never reaches this.
SAID_AT = datetime(2037, 12, 7, 18, 0, tzinfo=UTC)


async def test_a_reminder_waits_for_its_own_persons_chat(workspace: Path) -> None:
    settings = load_settings(workspace=workspace)
    now = [SAID_AT]
    async with console_bot(settings, now, user="dev") as bot:
        await bot.say("remind me in 1 min to check the oven")
        now[0] += timedelta(seconds=20)
        assert "18:06" in await bot.say("snooze that 5 mins")

    now[0] = SAID_AT + timedelta(minutes=7)
    async with console_bot(settings, now, user="harold") as bot:
        await bot.say("hello, it's harold")
        assert bot.app.scheduler is not None
        await bot.app.scheduler.run_due(now[0])
        assert "oven" not in bot.sent()
        (waiting,) = await bot.app.scheduler.reminders("dev")
        assert waiting.get("status") not in ("sent", "missed"), waiting

    now[0] += timedelta(minutes=3)
    async with console_bot(settings, now, user="dev") as bot:
        assert bot.app.scheduler is not None
        await bot.app.scheduler.run_due(now[0])
        assert bot.sent().count("check the oven") == 1, bot.sent()
        listed = await bot.command("/reminders")
        assert "check the oven" in listed and "(sent)" in listed, listed


async def test_the_terminal_shows_no_other_chats_message() -> None:
    out = io.StringIO()
    console = ConsoleAdapter(
        None,  # type: ignore[arg-type]  # nothing is read
        user="harold",
        stdin=io.StringIO(""),
        stdout=out,
        interactive=False,
    )
    assert console.reaches("console-harold") and not console.reaches("console-dev")
    with pytest.raises(ValueError):
        await console.send("console-dev", "⏰ Reminder: check the oven")
    assert out.getvalue() == ""
