""" "forget what I said in the last minute", "... the last hour", "... in the past few
minutes", "... just now": windows said without a number. Only "the last 2 minutes" was
understood; the rest answered "found nothing" (tester s35 U7)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from familiars.bot._forget_window import parse_window
from tests.bot.test_forget_everywhere import running

pytestmark = pytest.mark.timeout(180)

NOW = datetime(2031, 5, 6, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("words", "seconds"),
    [
        ("in the last minute", 60),
        ("the last hour", 3600),
        ("in the past few minutes", 300),
        ("just now", 120),
        ("in the past 10 minutes", 600),
        ("in the last 2 minutes", 120),
    ],
)
def test_a_window_said_in_words_is_a_window(words: str, seconds: int) -> None:
    window = parse_window(words, NOW)
    assert window is not None, words
    assert window.until - window.since == seconds


def test_words_that_are_no_window_are_none() -> None:
    assert parse_window("about my sister", NOW) is None
    assert parse_window("last summer", NOW) is None


@pytest.mark.parametrize(
    "ask",
    [
        "forget what I said in the last minute",
        "forget what I said in the last hour",
        "forget what I said in the past few minutes",
        "forget what I said just now",
    ],
)
async def test_forget_what_i_said_in_the_last_minute_forgets_it(tmp_path: Path, ask: str) -> None:
    async with running(tmp_path / "ws") as bot:
        await bot.say("I live in Kalamazoo.", ago=20)
        asked = await bot.say(ask)
        assert asked.startswith("About to forget for good the 1 message"), asked
        assert (await bot.say("yes")).startswith("Forgotten"), ask
        assert "Kalamazoo" not in await bot.command("list")
