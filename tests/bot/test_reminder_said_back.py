"""A reminder is confirmed to the person in their own words, "me" as "you" (tester F17)."""

from __future__ import annotations

from pathlib import Path

from tests.bot.test_forget_everywhere import offline


async def test_a_reminder_for_me_is_confirmed_as_for_you(tmp_path: Path) -> None:
    """Tester F17, through a chat turn: "... to me" was confirmed as "... to them"."""
    async with offline(tmp_path / "ws") as bot:
        reply = await bot.say("remind me in 1 minute to email the slides to me")
        assert "remind you to email the slides to you" in reply, reply
