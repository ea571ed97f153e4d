"""Session 32 tester finding T4 (hfix2): "forget everything about my sister", "please
forget about Emma", "forget my sister" are requests to forget, answered like "forget that
...": what would go is listed (with what was said of her by name) and a yes asked for."""

from __future__ import annotations

from pathlib import Path

import pytest

from familiars.bot._forget_words import forget_about
from tests.bot.test_forget_everywhere import running

pytestmark = pytest.mark.timeout(180)


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("forget everything about my sister", "my sister"),
        ("please forget about Emma", "Emma"),
        ("forget everything about Meera", "Meera"),
        ("forget my sister", "my sister"),
        ("delete everything about my sister", "my sister"),
        ("forget everything I said about work", "work"),
        ("forget about it", None),
        ("forget about me", None),
        ("forget about the dentist reminder", None),
        ("don't forget my sister's birthday", None),
        ("forget that I have a sister", None),  # "forget that ..." reads it
    ],
)
def test_what_asks_to_forget_everything_about_someone(text: str, what: str | None) -> None:
    assert forget_about(text) == what


async def test_forgetting_a_relative_asks_then_forgets_her_and_what_was_said_of_her(
    tmp_path: Path,
) -> None:
    async with running(tmp_path / "ws") as bot:
        await bot.say("My sister is called Emma.")
        await bot.say("Emma loves the Xylophonics.")
        assert "Emma" in await bot.command("list")  # the check below can fail
        asked = await bot.say("forget everything about my sister")
        assert asked.startswith("About to forget"), asked
        assert "Emma" in asked and "Xylophonics" in asked
        assert (await bot.say("yes")).startswith("Forgotten")
        listed = await bot.command("list")
        assert "Xylophonics" not in listed and "Emma" not in listed, listed
