"""A Ctrl-C in the middle of a streamed reply: the words already on the screen are the
reply's A node, marked as cut off (as a model's broken stream is), so the next turn's
prompt holds what the person read (review s37: the shown half was kept nowhere, and "go on"
reached a model that had said nothing). A stop before any word was shown keeps no reply."""

from __future__ import annotations

import asyncio
import io
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from familiars.bot import ConsoleAdapter
from familiars.bot._adapters.console import STOPPED
from familiars.config import load_settings
from familiars.llm import OUTPUT_CUT
from tests.bot.test_console_ctrl_c_keeps_the_message import _Typed, _until
from tests.fake_openai import FakeOpenAI, Reply
from tests.harness import make_app

pytestmark = pytest.mark.timeout(120)

SAID = "tell me a story"
SHOWN = "Once upon a time there was a lighthouse keeper"


def _model(body: dict[str, Any]) -> Reply:
    """The reply streams half-way and stops coming; the memory writer writes nothing."""
    return Reply.stalls(SHOWN) if body.get("stream") else Reply.json({"writes": []})


async def test_ctrl_c_mid_reply_keeps_what_was_shown_marked_cut_off(tmp_path: Path) -> None:
    out = io.StringIO()
    console = ConsoleAdapter(
        None,  # type: ignore[arg-type]  # the runtime's DialogueManager, bound below
        user="ann", stdin=_Typed(f"{SAID}\n"), stdout=out, interactive=True,
    )  # fmt: skip
    async with FakeOpenAI(_model) as server:
        provider = {"name": "a", "base_url": server.base_url, "model": "m", "tools": "off"}
        settings = load_settings(
            workspace=tmp_path / "ws", llm={"providers": [provider]}, care={"ai_disclosure": False}
        )
        app = make_app(settings, console=console)
        try:
            await app.initialize()
            console.handler = app.dialogues  # type: ignore[assignment]
            await app.start()
            running = asyncio.ensure_future(app.run_until_stopped())

            async def shown() -> bool:
                return "lighthouse keeper" in out.getvalue()

            await _until(shown)
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C with half the reply on screen

            async def stopped() -> bool:
                return STOPPED in out.getvalue()

            await _until(stopped)
            await app.settle()
            assert app.trees is not None
            tree = app.trees.get("agent_0", "dialogue_0")
            said = [(n.node_type, n.content) for n in tree.node_list]
            os.kill(os.getpid(), signal.SIGINT)  # at the prompt: how to leave
            os.kill(os.getpid(), signal.SIGINT)  # again: goodbye
            await asyncio.wait_for(running, 30)
        finally:
            await app.shutdown()
    assert said == [("Q", SAID), ("A", SHOWN + OUTPUT_CUT)], said
    assert f"{SHOWN} {STOPPED}" in out.getvalue(), out.getvalue()
