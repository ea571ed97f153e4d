"""Dying said as hyperbole is not a worry (tester s37: "I want to die of embarrassment, I
called my teacher mum" got the full crisis reply); the same words said in earnest still are."""

from __future__ import annotations

from pathlib import Path

import pytest

from familiars.bot import speaks_of_self_harm
from tests.harness import message, running_app, say

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize(
    "text",
    [
        "I want to die of embarrassment, I called my teacher mum",
        "I'm dying to see the new Bond film",
        "I nearly died of laughter at that video",
        "honestly I could die happy after that concert",
        "I'm going to die of boredom in this meeting",
        "I just want to die of shame, I said it to the whole class",
        "I'm dying for a cup of tea",
        "that cake was to die for",
    ],
)
def test_hyperbole_is_not_a_worry(text: str) -> None:
    assert not speaks_of_self_harm(text)


@pytest.mark.parametrize(
    "text",
    [
        "I want to die",
        "I want to die of shame and I can't go on anymore",
        "I want to die, I'm so embarrassed by who I am",
        "I'm dying to end it all",
        "I don't want to live anymore, I'd die happy if it was tonight",
    ],
)
def test_the_same_words_in_earnest_still_worry(text: str) -> None:
    assert speaks_of_self_harm(text)


async def test_embarrassment_gets_no_crisis_reply(workspace: Path) -> None:
    async with running_app(workspace) as app:
        reply = await say(app, message("I want to die of embarrassment, I called my teacher mum"))
    assert "116 123" not in reply and "findahelpline" not in reply, reply
