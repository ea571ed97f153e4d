"""A Ctrl-C (SIGINT) while the terminal chat waits for the model's reply stops that reply,
not the bot: "(stopped)" is said, the message stays in its dialogue and the memory writer
still reads it; a second Ctrl-C at the empty prompt then ends the chat with a goodbye (it
ended the chat at the first, without a word: person-tester, session 36)."""

from __future__ import annotations

import asyncio
import io
import os
import signal
import threading
from pathlib import Path
from typing import Any

import pytest

from familiars.bot import ConsoleAdapter, IncomingMessage, PendingHandler
from familiars.bot._adapters.console import GOODBYE, STOPPED
from familiars.config import load_settings
from tests.fake_openai import FakeOpenAI, Reply
from tests.harness import make_app

pytestmark = pytest.mark.timeout(120)

SAID = "my sister is called Meera"
NOTED = {
    "writes": [
        {
            "op": "add",
            "scope": "user",
            "category": "relation",
            "entry": {"content": "The user's sister is called Meera."},
        }
    ]
}


class _Typed(io.StringIO):
    """A keyboard: one typed line, then it waits (never an end of input)."""

    def readline(self, *args: object) -> str:  # type: ignore[override]
        line = super().readline()
        if not line:
            threading.Event().wait(20)
        return line


def _model(body: dict[str, Any]) -> Reply:
    """The reply never comes; the memory writer answers at once."""
    return Reply.hang() if body.get("stream") else Reply.json(NOTED)


async def _until(check: Any, seconds: float = 15.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if await check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("it never came")


async def test_ctrl_c_stops_the_reply_and_keeps_the_message(tmp_path: Path) -> None:
    out = io.StringIO()
    console = ConsoleAdapter(
        None,  # type: ignore[arg-type]  # the runtime's DialogueManager, bound below
        user="ann", stdin=_Typed(f"{SAID}\n"), stdout=out, interactive=True,
    )  # fmt: skip
    async with FakeOpenAI(_model) as server:
        provider = {"name": "a", "base_url": server.base_url, "model": "m", "tools": "off"}
        settings = load_settings(workspace=tmp_path / "ws", llm={"providers": [provider]})
        app = make_app(settings, console=console)
        try:
            await app.initialize()
            console.handler = app.dialogues  # type: ignore[assignment]
            await app.start()
            running = asyncio.ensure_future(app.run_until_stopped())

            async def asked() -> bool:
                return any(r.body.get("stream") for r in server.requests)

            await _until(asked)
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while the reply is awaited
            await _until(lambda: _said(out, STOPPED))
            await asyncio.sleep(0.2)
            assert not running.done(), out.getvalue()  # the chat goes on

            async def noted() -> bool:
                return any("Meera" in r.content for r in await app.memory.store.list())

            await _until(noted)  # the writer read the message
            assert app.trees is not None
            tree = app.trees.get("agent_0", "dialogue_0")
            assert [n.content for n in tree.node_list if n.node_type == "Q"] == [SAID]
            os.kill(os.getpid(), signal.SIGINT)  # again, at the empty prompt: goodbye
            await asyncio.wait_for(running, 30)
        finally:
            await app.shutdown()
    assert GOODBYE in out.getvalue(), out.getvalue()


async def _said(out: io.StringIO, text: str) -> bool:
    return text in out.getvalue()


async def test_a_turn_stopped_while_the_bot_loads_leaves_the_next_one_answered() -> None:
    """A Ctrl-C while "still loading my memory" cancelled the one future every turn waits
    on: the bot never became ready for the chat, and the next message ended it."""
    from tests.bot.test_pending_and_console import Echo

    pending = PendingHandler(notice_after_s=0)
    said = IncomingMessage("console", "console-me", "me", "me", "hi")
    first = pending.respond(said)
    await anext(first)  # the loading notice
    waiting = asyncio.ensure_future(anext(first))
    await asyncio.sleep(0)
    waiting.cancel()  # the Ctrl-C
    with pytest.raises(asyncio.CancelledError):
        await waiting
    pending.ready(Echo())
    assert [d async for d in pending.respond(said)] == ["echo: hi"]
