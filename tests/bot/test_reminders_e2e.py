"""The console bot is told "remind me tomorrow at 9am to call mom", restarts, time moves past
9:00, and exactly one reminder arrives."""

from __future__ import annotations

import io
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from familiars.bot import Application, IncomingMessage
from familiars.bot._adapters.console import ConsoleAdapter
from familiars.config import Settings, load_settings
from tests.harness import make_app

SAID_AT = datetime(2026, 11, 2, 20, 15, tzinfo=UTC)


async def start_console_bot(
    settings: Settings, clock: Callable[[], datetime]
) -> tuple[Application, ConsoleAdapter, io.StringIO]:
    """The runtime with a terminal adapter whose output the test reads (no stdin lines)."""
    out = io.StringIO()
    adapter = ConsoleAdapter(
        None,  # type: ignore[arg-type]  # the runtime's DialogueManager, bound below
        user="alice",
        stdin=io.StringIO(""),
        stdout=out,
        interactive=False,
    )
    app = make_app(settings, model=None, console=adapter, clock=clock, scheduler=True)
    await app.initialize()
    adapter.handler = app.dialogues  # type: ignore[assignment]
    await app.start()
    return app, adapter, out


async def test_a_reminder_survives_a_restart_and_fires_exactly_once(
    workspace: Path, memory_home: str
) -> None:
    settings = load_settings(workspace=workspace)
    now = [SAID_AT]

    app, adapter, _ = await start_console_bot(settings, lambda: now[0])
    try:
        assert app.dialogues is not None
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

    # The bot was down overnight; it comes back at 09:05 the next day.
    now[0] = SAID_AT.replace(hour=9, minute=5) + timedelta(days=1)
    app, _, out = await start_console_bot(settings, lambda: now[0])
    try:
        assert app.scheduler is not None and app.trees is not None and app.state is not None
        await app.scheduler.run_due(now[0])
        now[0] += timedelta(minutes=30)
        await app.scheduler.run_due(now[0])
        sent = out.getvalue()
        assert sent.lower().count("call mom") == 1, sent
        (dialogue,) = await app.state.dialogues()
        tree = app.trees.get("agent_0", dialogue.dialogue_id)
        proactive = [n for n in tree.node_list if n.origin == "proactive"]
        assert len(proactive) == 1 and "call mom" in proactive[0].content.lower()
    finally:
        await app.shutdown()

    # A third start, an hour later, does not send it again.
    now[0] += timedelta(hours=1)
    app, _, out = await start_console_bot(settings, lambda: now[0])
    try:
        assert app.scheduler is not None
        await app.scheduler.run_due(now[0])
        assert "call mom" not in out.getvalue().lower()
    finally:
        await app.shutdown()
