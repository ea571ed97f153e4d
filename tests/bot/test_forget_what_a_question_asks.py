""" "forget where I live", "please forget how old I am", "forget what I do for work": a
forget that names what goes the way a question about the person would ask it. It was
answered as chat ("I see. Tell me more?") and the home stayed (tester s34 U61)."""

from __future__ import annotations

from pathlib import Path

import pytest

from familiars.bot._forget_words import forget_about
from tests.bot.test_forget_everywhere import running

pytestmark = pytest.mark.timeout(180)


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("forget where I live", "where I live"),
        ("please forget how old I am", "how old I am"),
        ("can you forget who my boss is", "who my boss is"),
        ("forget how many kids I have", "how many kids I have"),
        ("clear what i said", None),  # no description: "forget what I said" points
        ("I always forget where I live lol", None),
        ("don't forget where I parked", None),
    ],
)
def test_a_question_word_names_what_to_forget(text: str, what: str | None) -> None:
    assert forget_about(text) == what


async def test_forget_where_i_live_takes_the_home_and_keeps_the_rest(tmp_path: Path) -> None:
    async with running(tmp_path / "ws") as bot:
        await bot.say("I live in Leeds and I work as a baker.")
        asked = await bot.say("forget where I live")
        assert asked.startswith("About to forget") and "Leeds" in asked, asked
        assert (await bot.say("yes")).startswith("Forgotten")
        listed = await bot.command("list")
        assert "Leeds" not in listed and "baker" in listed, listed


async def test_forget_where_i_live_leaves_a_relatives_home(tmp_path: Path) -> None:
    """Review s35 R6: "forget where I live" also listed "your sister lives in Cork", so a
    quick yes took the sister's home too."""
    async with running(tmp_path / "ws") as bot:
        await bot.say("I live in Leeds.")
        await bot.say("My sister lives in Cork.")
        asked = await bot.say("forget where I live")
        assert "Leeds" in asked and "Cork" not in asked, asked
        assert (await bot.say("yes")).startswith("Forgotten")
        listed = await bot.command("list")
        assert "Leeds" not in listed and "Cork" in listed, listed
