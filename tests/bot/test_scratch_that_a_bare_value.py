"""A person-test (s36): after "my fav food is paneer tikka", "scratch that, its dosa" asked
to forget the paneer tikka and said it would note "its dosa"; on yes the paneer tikka went
and "its dosa", read alone, kept nothing. A bare value after "scratch that" is now said as
the statement it restates, in the slot of what it takes back."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.test_forget_everywhere import Bot, offline

pytestmark = pytest.mark.timeout(180)


async def _kept(bot: Bot) -> str:
    return "\n".join(r.content for r in await bot.app.memory.store.list())


async def test_scratch_that_its_x_fills_the_slot_taken_back(tmp_path: Path) -> None:
    async with offline(tmp_path / "ws") as bot:
        assert "paneer tikka" in await bot.say("my fav food is paneer tikka")
        asked = await bot.say("scratch that, its dosa")
        assert "Reply yes" in asked and "my favourite food is dosa" in asked, asked
        await bot.say("yes")
        kept = await _kept(bot)
        assert "favourite food is dosa" in kept and "paneer" not in kept, kept
