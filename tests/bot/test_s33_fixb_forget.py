"""Session 33 (fixb): forgetting a relative whose name is a common word, and forgetting a
time window whose preview says exactly what goes."""

from __future__ import annotations

from pathlib import Path

import pytest

from familiars.bot import IncomingMessage
from tests.bot.test_forget_everywhere import NOW, Bot, running

pytestmark = pytest.mark.timeout(180)


async def _say(bot: Bot, text: str) -> str:
    assert bot.app.dialogues is not None
    incoming = IncomingMessage("telegram", "u1", "u1", "Alice", text, ts=NOW)
    reply = "".join([d async for d in bot.app.dialogues.respond(incoming)])
    await bot.app.settle()
    return reply


async def test_forgetting_may_forgets_her_not_every_may(tmp_path: Path) -> None:
    """ "forget everything about May" listed every memory and message with the word "may"."""
    async with running(tmp_path / "ws") as bot:
        for text in (
            "My sister May lives in Leeds.",
            "I may move to Bristol next year.",
            "I like green tea.",
        ):
            await _say(bot, text)
        for ask in (
            "forget everything about May",
            "forget everything about may",
            "forget my sister",
        ):
            asked = await _say(bot, ask)
            assert asked.startswith("About to forget") and "Leeds" in asked, (ask, asked)
            assert "Bristol" not in asked and "tea" not in asked, (ask, asked)
            assert (await _say(bot, "no")).startswith("Kept")
