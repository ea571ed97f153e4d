"""Session 33 tester finding U2 (fixe): forgetting one thing said in a message that said
several offered, and on yes did, forgetting every fact of that message ("forget about
Shelly" took the name, the wife, the dog and the job; "forget that I'm diabetic" the
shellfish allergy). Only the memories about the named thing go; the others kept from the
same message stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.test_forget_everywhere import Bot, offline

pytestmark = pytest.mark.timeout(180)


async def _listed(bot: Bot) -> str:
    return "\n".join(r.content for r in await bot.app.memory.store.list(scope="user"))


INTRO = (
    "Hi there! I'm Rob, I'm a plumber, my wife's called Helen and we've got a cockapoo "
    "named Dexter and a tortoise called Shelly."
)


async def test_forgetting_the_tortoise_keeps_the_rest_of_the_intro(tmp_path: Path) -> None:
    async with offline(tmp_path / "ws") as bot:
        noted = await bot.say(INTRO)
        assert "Shelly" in noted and "Helen" in noted, noted
        asked = await bot.say("forget about Shelly")
        assert asked.startswith("About to forget") and "Shelly" in asked, asked
        preview = asked.split("Kept")[0]
        for other in ("Helen", "Dexter", "plumber"):
            assert other not in preview, (other, asked)
        assert (await bot.say("yes")).startswith("Forgotten")
        listed = await _listed(bot)
        assert "Shelly" not in listed, listed
        for other in ("Helen", "Dexter", "plumber"):
            assert other in listed, (other, listed)


async def test_forgetting_diabetes_keeps_the_allergy_said_with_it(tmp_path: Path) -> None:
    async with offline(tmp_path / "ws") as bot:
        said = "Oh and I'm allergic to shellfish, and I've got type 1 diabetes so I'm on insulin."
        assert "shellfish" in await bot.say(said)
        asked = await bot.say("forget that I've got diabetes")
        assert asked.startswith("About to forget"), asked
        assert "- you are allergic" not in asked, asked
        assert (await bot.say("yes")).startswith("Forgotten")
        listed = await _listed(bot)
        assert "shellfish" in listed, listed
        assert "diabetes" not in listed, listed
