"""F13/F19 and F8, offline through the whole turn: a friend's birthday is kept and found by
their name, and a question about one person is never answered with another's fact ("where
does my brother live?" is not answered with the person's own city, "when is my birthday?"
not with a friend's)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.bot import Application
from familiars.memory import fits_whose
from tests.harness import say, speaker

T0 = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)


msg = speaker(platform="console", chat="console-sam", user="sam", name="Sam", at=T0)


async def test_a_friends_birthday_is_kept_and_found_by_name(app: Application) -> None:
    noted = await say(app, msg("my friend Sam's birthday is 3 May"))
    assert "Noted: your friend Sam has a birthday on May 3." in noted
    assert "Your friend Sam has a birthday on May 3." in await say(
        app, msg("when is Sam's birthday?", 1)
    )
    await say(app, msg("my mum's birthday is on the 4th of June", 2))
    mum = await say(app, msg("when is my mum's birthday?", 3))
    assert "Your mum has a birthday on June 4." in mum and "Sam" not in mum


async def test_my_birthday_is_not_a_friends(app: Application) -> None:
    await say(app, msg("my friend Sam's birthday is 3 May"))
    mine = await say(app, msg("when is my birthday?", 1))
    assert "Sam" not in mine and "May 3" not in mine
    await say(app, msg("my birthday is 9 October", 2))
    assert "Your birthday is on October 9." in await say(app, msg("when is my birthday?", 3))


async def test_where_my_brother_lives_is_not_where_i_live(app: Application) -> None:
    await say(app, msg("I live in Leeds"))
    await say(app, msg("my sister Ana lives in York", 1))
    brother = await say(app, msg("where does my brother live?", 2))
    assert "Leeds" not in brother and "York" not in brother
    assert "Your sister Ana lives in York." in await say(app, msg("where does my sister live?", 3))
    assert "You live in Leeds." in await say(app, msg("where do I live?", 4))


@pytest.mark.parametrize(
    ("question", "kept", "fits"),
    [
        ("where does my brother live?", "The user lives in Leeds.", False),
        ("where does my brother live?", "The user's sister Ana lives in York.", False),
        ("where does my brother live?", "The user's brother lives in York.", True),
        ("when is my birthday?", "The user's friend Sam has a birthday on May 3.", False),
        ("when is Sam's birthday?", "The user's birthday is on May 3.", False),
        ("when did I last see Sam?", "The user saw Sam on Friday.", True),
        ("what's my kid's name?", "The user's son Leo is 8.", True),
        ("what do you know about my family?", "The user's brother lives in York.", True),
        ("what does my fella do?", "The user's partner Rohan is a paramedic.", True),
        ("where do I work?", "The user's mum works at Tesco.", False),
    ],
)
def test_whose_a_sentence_is(question: str, kept: str, fits: bool) -> None:
    assert fits_whose(question, kept) is fits


async def test_where_a_relative_lives_is_kept_without_their_name(app: Application) -> None:
    noted = await say(app, msg("my brother lives in Hull"))
    assert "Noted: your brother lives in Hull." in noted and "called" not in noted
    assert "Your brother lives in Hull." in await say(app, msg("where does my brother live?", 1))
    await say(app, msg("I live in Leeds", 2))
    assert "Hull" not in await say(app, msg("where do I live?", 3))
