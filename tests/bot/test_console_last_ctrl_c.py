"""A Ctrl-C once the stop was cut short (the third of a stop: hurry, cut short, then this)
ends the process through the one ``at_once`` the CLI hands in: one line, rc 130. It was
Python's own KeyboardInterrupt, raised wherever the shutdown was, which at exit printed a
traceback and "terminate called" from a model's threads (rc 134: review s37)."""

from __future__ import annotations

import asyncio
import io
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from familiars.bot import ConsoleAdapter
from familiars.config import load_settings
from tests.bot.test_console_ctrl_c_keeps_the_message import _until
from tests.fake_openai import FakeOpenAI, Reply
from tests.harness import make_app

pytestmark = pytest.mark.timeout(120)


def _model(body: dict[str, Any]) -> Reply:
    """Replies at once; the memory writer never answers, so the stop's drain waits."""
    return Reply.text("Noted.") if body.get("stream") else Reply.hang()


async def test_a_ctrl_c_after_the_stop_was_cut_short_ends_through_at_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    out = io.StringIO()
    console = ConsoleAdapter(
        None,  # type: ignore[arg-type]  # the runtime's DialogueManager, bound below
        user="ann", stdin=io.StringIO(""), stdout=out, interactive=False,
    )  # fmt: skip
    ended: list[str] = []
    async with FakeOpenAI(_model) as server:
        provider = {"name": "a", "base_url": server.base_url, "model": "m", "tools": "off"}
        settings = load_settings(workspace=tmp_path / "ws", llm={"providers": [provider]})
        app = make_app(settings, console=console)
        try:
            await app.initialize()
            console.handler = app.dialogues  # type: ignore[assignment]
            await app.start()
            await console.handle_line("my sister is called Meera")  # the writer waits
            running = asyncio.ensure_future(
                app.run_until_stopped(at_once=lambda: ended.append("now"))
            )
            await asyncio.sleep(0.2)
            os.kill(os.getpid(), signal.SIGINT)  # the stop: the writer's drain waits
            await asyncio.sleep(0.5)
            os.kill(os.getpid(), signal.SIGINT)  # hurry

            async def hurried() -> bool:
                return "Ctrl-C again: stop at once" in caplog.text

            await _until(hurried)
            os.kill(os.getpid(), signal.SIGINT)  # cut short
            await asyncio.wait_for(running, 30)
            os.kill(os.getpid(), signal.SIGINT)  # the last: at_once, no KeyboardInterrupt
            await asyncio.sleep(0.1)
        finally:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            await app.shutdown()
    assert "Stopped. 1 conversation turn(s)" in caplog.text, caplog.text
    assert ended == ["now"], caplog.text
