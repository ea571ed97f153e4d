"""s33 U13: ``/forget`` is a command (it said "Unknown command"): with nothing after it, how
to use it; with an id, what ``/memory forget`` does; with words, what "forget ..." does. Each
asks first, and a yes forgets through the one Forgetter."""

from __future__ import annotations

from pathlib import Path

import pytest

from familiars.bot._adapters.base import CommandInvocation
from tests.bot.test_forget_everywhere import ALICE, NOW, Bot, running

pytestmark = pytest.mark.timeout(180)


async def _command(bot: Bot, name: str, *args: str) -> str:
    assert bot.app.dialogues is not None
    inv = CommandInvocation("telegram", "u1", "u1", "Alice", name, args, ts=NOW)
    return (await bot.app.dialogues.command(inv)).text


async def _kept(bot: Bot) -> str:
    return " ".join(r.content for r in await bot.app.memory.store.list(user_key=ALICE))


async def test_forget_says_how_then_forgets_by_id_and_by_words(tmp_path: Path) -> None:
    async with running(tmp_path / "ws") as bot:
        await bot.say("My sister is called Emma.")
        await bot.say("I live in Bergen.")
        assert "Emma" in await _kept(bot) and "Bergen" in await _kept(bot)
        usage = await _command(bot, "forget")
        assert usage.startswith("Usage: /forget"), usage
        [emma] = [r for r in await bot.app.memory.store.list(user_key=ALICE) if "Emma" in r.content]
        asked = await _command(bot, "forget", emma.id)
        assert asked.startswith("About to forget") and "Emma" in asked, asked
        assert (await bot.say("yes")).startswith("Forgotten")
        assert "Emma" not in await _kept(bot)
        asked = await _command(bot, "forget", *["that", "I", "live", "in", "Bergen"])
        assert asked.startswith("About to forget") and "Bergen" in asked, asked
        assert (await bot.say("yes")).startswith("Forgotten")
        assert "Bergen" not in await _kept(bot)


async def test_scratch_that_and_a_new_plan_keeps_the_new_plan(tmp_path: Path) -> None:
    """Review s33-2 item 9: "scratch that, we're going to Tenerife in May" after a Lanzarote
    plan said "Forgotten: ...Lanzarote...", kept nothing of Tenerife and asked nothing."""
    async with running(tmp_path / "ws") as bot:
        await bot.say("We're going to Lanzarote in May.")
        assert "Lanzarote" in await _kept(bot)
        reply = await bot.say("scratch that, we're going to Tenerife in May")
        assert not reply.startswith("Forgotten"), reply
        assert "Tenerife" in await _kept(bot)


@pytest.mark.parametrize(
    "text",
    [
        "scratch that, we're going to Tenerife in May",
        "forget that, it's Tim not Tom",
        "forget that, my husband is called Tim",
    ],
)
def test_a_correction_after_scratch_that_is_no_forget(text: str) -> None:
    from familiars.bot._forget_words import forget_request

    assert forget_request(text) is None


async def test_forget_everything_about_someone_goes_by_words(tmp_path: Path) -> None:
    """Review s33-2 item 12: "/forget everything about my sister" went to /memory forget as an
    id ("I have no memory with that id that you can see")."""
    async with running(tmp_path / "ws") as bot:
        await bot.say("My sister is called Emma.")
        asked = await _command(bot, "forget", *["everything", "about", "my", "sister"])
        assert "with that id" not in asked and "Emma" in asked, asked
