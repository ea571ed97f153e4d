"""A question is nothing to scratch: after "what are my kids' names?", "scratch that, it's
three kids and a baby on the way" offered to forget the question (tester s35 U23). The rest
is then a statement; "scratch that" alone points at the last statement."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.test_forget_everywhere import Bot, running

pytestmark = pytest.mark.timeout(180)


async def _said(bot: Bot) -> list[str]:
    """Alice's messages kept in her chat (a forgotten one is empty)."""
    tree = await bot.app.services.log.trees.aget("agent_0", "dialogue_0")
    return [n.content for n in tree.node_list if n.node_type == "Q"]


async def test_scratch_that_after_only_a_question_states_the_rest(tmp_path: Path) -> None:
    async with running(tmp_path / "ws") as bot:
        await bot.say("what are my kids' names?", ago=60)
        reply = await bot.say("scratch that, it's three kids and a baby on the way")
        assert "About to forget" not in reply and "Forgotten" not in reply, reply
        said = await _said(bot)
        assert "what are my kids' names?" in said, said
        assert any("three kids and a baby" in s for s in said), said


async def test_scratch_that_and_more_after_a_question_points_at_the_statement(
    tmp_path: Path,
) -> None:
    async with running(tmp_path / "ws") as bot:
        await bot.say("I have two kids.", ago=120)
        await bot.say("what are my kids' names?", ago=60)
        asked = await bot.say("scratch that, it's three kids and a baby on the way")
        assert asked.startswith("About to forget") and "two kids" in asked, asked
        assert "names" not in asked, asked


async def test_scratch_that_alone_after_a_question_points_at_the_last_statement(
    tmp_path: Path,
) -> None:
    async with running(tmp_path / "ws") as bot:
        await bot.say("I have two kids.", ago=120)
        await bot.say("what are my kids' names?", ago=60)
        asked = await bot.say("scratch that")
        assert asked.startswith("About to forget") and "two kids" in asked, asked
        assert "names" not in asked, asked
        assert (await bot.say("yes")).startswith("Forgotten")
        said = [s for s in await _said(bot) if s]
        assert not any("two kids" in s for s in said), said
