"""``/memory why`` says what the conversation added to a turn's recall (issue 24)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from familiars.bot._adapters.base import CommandInvocation
from familiars.bot._commands._memory import context_lines
from tests.harness import running_app, say, speaker


def test_memory_why_says_what_the_conversation_added() -> None:
    lines = context_lines({"messages": ["Priya's birthday is coming up"], "lifted": {"m1": 0.21}})
    assert lines[0].startswith("I read your message with the conversation before it")
    assert "“Priya's birthday is coming up”" in lines[0] and "`m1` +0.21" in lines[1]
    assert context_lines(None) == [] and context_lines({"messages": []}) == []


async def test_a_turn_reads_the_conversation_and_why_shows_it(workspace: Path) -> None:
    t0 = datetime(2026, 11, 2, 10, tzinfo=UTC)
    msg = speaker(platform="telegram", user="ann", name="Ann", at=t0)
    async with running_app(workspace) as app:
        assert app.dialogues is not None
        said = ("My sister's birthday is next week.", "I want to plan a boat party for her.")
        for n, text in enumerate((*said, "That would be lovely")):
            await say(app, msg(text, n))
        why = (
            await app.dialogues.command(
                CommandInvocation(
                    platform="telegram",
                    chat_id="dm-ann",
                    user_id="ann",
                    display_name="Ann",
                    name="memory",
                    args=("why",),
                )
            )
        ).text
    assert "I read your message with the conversation before it" in why
    assert "“I want to plan a boat party for her.”" in why
