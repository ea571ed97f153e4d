""" "What did you just say?" after a forget: the bot's last reply, kept in memory for that
question, went with the forget when it held the forgotten words. It was said again, and
written back into the dialogue, after "forget that" had taken the statement and the reply
that repeated it (reviewer, session 37)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from familiars.config import load_settings
from tests.bot.test_forget import files_holding
from tests.harness import console_bot

pytestmark = pytest.mark.timeout(180)

NOW = datetime(2031, 5, 6, 10, 0, tzinfo=UTC)


async def test_what_did_you_just_say_does_not_repeat_a_forgotten_reply(workspace: Path) -> None:
    async with console_bot(load_settings(workspace=workspace), [NOW]) as bot:
        assert "Leeds" in await bot.say("I live in Leeds.")
        bot.clock[0] += timedelta(minutes=1)
        assert (await bot.say("forget that")).startswith("Forgotten")
        bot.clock[0] += timedelta(minutes=1)
        again = await bot.say("what did you just say?")
        assert "leeds" not in again.lower(), again
        bot.clock[0] += timedelta(minutes=1)
        assert "leeds" not in (await bot.say("what did I say?")).lower()
        assert files_holding(workspace, "Leeds") == []
