"""The console bot is told "remind me tomorrow at 9am to call mom", restarts, time moves past
9:00, and exactly one reminder arrives."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from familiars.config import load_settings
from tests.harness import console_bot

SAID_AT = datetime(2026, 11, 2, 20, 15, tzinfo=UTC)


async def test_a_reminder_survives_a_restart_and_fires_exactly_once(
    workspace: Path, memory_home: str
) -> None:
    settings = load_settings(workspace=workspace)
    now = [SAID_AT]

    async with console_bot(settings, now) as bot:
        await bot.say("remind me tomorrow at 9am to call mom")

    # The bot was down overnight; it comes back at 09:05 the next day.
    now[0] = SAID_AT.replace(hour=9, minute=5) + timedelta(days=1)
    async with console_bot(settings, now) as bot:
        app = bot.app
        assert app.scheduler is not None and app.trees is not None and app.state is not None
        await app.scheduler.run_due(now[0])
        now[0] += timedelta(minutes=30)
        await app.scheduler.run_due(now[0])
        sent = bot.sent()
        assert sent.lower().count("call mom") == 1, sent
        (dialogue,) = await app.state.dialogues()
        tree = app.trees.get("agent_0", dialogue.dialogue_id)
        proactive = [n for n in tree.node_list if n.origin == "proactive"]
        assert len(proactive) == 1 and "call mom" in proactive[0].content.lower()

    # A third start, an hour later, does not send it again.
    now[0] += timedelta(hours=1)
    async with console_bot(settings, now) as bot:
        assert bot.app.scheduler is not None
        await bot.app.scheduler.run_due(now[0])
        assert "call mom" not in bot.sent().lower()
