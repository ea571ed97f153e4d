"""Session 33 (fixb), tester T32: a fact said twice is acknowledged as known; a message
plainly not in English gets a note that offline understanding is English-only."""

from __future__ import annotations

import pytest

from familiars.bot import Application
from tests.bot.test_reminder_wordings_dates_and_tails import msg
from tests.harness import say


async def test_a_fact_said_twice_is_known(app: Application) -> None:
    first = await say(app, msg("I really love jazz music."))
    assert "Noted: you like jazz music." in first
    again = await say(app, msg("I really love jazz music.", 1))
    assert "I know, you told me: you like jazz music." in again, again
    assert "Tell me more" not in await say(app, msg("I love jazz.", 2))


@pytest.mark.parametrize(
    "text", ["Mi perro se llama Toby.", "我住在北京", "Ich habe einen Hund und eine Katze."]
)
async def test_a_message_not_in_english_is_told_so(app: Application, text: str) -> None:
    reply = await say(app, msg(text))
    assert "only understand English" in reply, reply


@pytest.mark.parametrize(
    "text", ["My friend 田中 makes great tea.", "I went to see Les Misérables.", "la la la"]
)
async def test_english_with_foreign_words_is_english(app: Application, text: str) -> None:
    assert "only understand English" not in await say(app, msg(text))
