"""The console bot is told "remind me tomorrow at 9am to call mom", restarts, time moves past
9:00, and exactly one reminder arrives."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

from familiars.bot.adapters.base import IncomingMessage
from familiars.bot.adapters.console import ConsoleAdapter
from familiars.bot.runtime import Application
from familiars.config import load_settings
from tests.fakes import HashEmbedder

SAID_AT = datetime(2026, 11, 2, 20, 15, tzinfo=UTC)


def console(app_out: io.StringIO) -> ConsoleAdapter:
    # The handler is set when the runtime builds its DialogueManager (see _bind below).
    return ConsoleAdapter(
        None, user="alice", stdin=io.StringIO(""), stdout=app_out, interactive=False
    )  # type: ignore[arg-type]


async def _bind(app: Application, adapter: ConsoleAdapter) -> None:
    await app.initialize()
    adapter.handler = app.dialogues  # type: ignore[assignment]
    await app.start()


async def test_a_reminder_survives_a_restart_and_fires_exactly_once(workspace: Path) -> None:
    settings = load_settings(workspace=workspace)
    clock_now = [SAID_AT]
    out1 = io.StringIO()
    adapter1 = console(out1)
    app1 = Application(
        settings,
        embedder=HashEmbedder(),
        model=None,
        platforms=False,
        watch=False,
        console=adapter1,
        clock=lambda: clock_now[0],
    )
    await _bind(app1, adapter1)
    try:
        assert app1.dialogues is not None
        message = IncomingMessage(
            platform="console",
            chat_id=adapter1.chat_id,
            user_id="alice",
            display_name="alice",
            text="remind me tomorrow at 9am to call mom",
            ts=SAID_AT,
        )
        async for _ in app1.dialogues.respond(message):
            pass
        await app1.settle()
    finally:
        await app1.shutdown()

    # The bot was down overnight; it comes back at 09:05 the next day.
    clock_now[0] = SAID_AT.replace(hour=9, minute=5) + timedelta(days=1)
    out2 = io.StringIO()
    adapter2 = console(out2)
    app2 = Application(
        settings,
        embedder=HashEmbedder(),
        model=None,
        platforms=False,
        watch=False,
        console=adapter2,
        clock=lambda: clock_now[0],
    )
    await _bind(app2, adapter2)
    try:
        assert app2.scheduler is not None
        await app2.scheduler.run_due(clock_now[0])
        clock_now[0] += timedelta(minutes=30)
        await app2.scheduler.run_due(clock_now[0])
        sent = out2.getvalue()
        assert sent.lower().count("call mom") == 1, sent
        assert app2.trees is not None and app2.state is not None
        (dialogue,) = await app2.state.dialogues()
        tree = app2.trees.get("agent_0", dialogue.dialogue_id)
        proactive = [n for n in tree.node_list if n.origin == "proactive"]
        assert len(proactive) == 1 and "call mom" in proactive[0].content.lower()
    finally:
        await app2.shutdown()

    # A third start does not send it again.
    out3 = io.StringIO()
    adapter3 = console(out3)
    app3 = Application(
        settings,
        embedder=HashEmbedder(),
        model=None,
        platforms=False,
        watch=False,
        console=adapter3,
        clock=lambda: clock_now[0] + timedelta(hours=1),
    )
    await _bind(app3, adapter3)
    try:
        assert app3.scheduler is not None
        await app3.scheduler.run_due(clock_now[0] + timedelta(hours=1))
        assert "call mom" not in out3.getvalue().lower()
    finally:
        await app3.shutdown()
