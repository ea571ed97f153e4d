"""Session 33 review (fixf): a US-style date in London, polite words that are a reminder's own
words, and a forget that took the month "May" for a sister's name."""

from __future__ import annotations

import pytest

from familiars.bot import Application
from tests.bot.test_reminder_wordings_dates_and_tails import msg
from tests.harness import say


async def test_12_25_in_london_is_this_christmas(app: Application) -> None:
    """Review item 1: "remind me on 12/25" in London was due on 12 December 2125."""
    assert app.state is not None
    await app.state.set_timezone(await app.state.person_for("console", "sam"), "Europe/London")
    reply = await say(app, msg("remind me on 12/25 to buy gifts", 1))
    assert "Fri 25 Dec 09:00" in reply, reply


@pytest.mark.parametrize(
    ("text", "done"),
    [
        ("cancel the thanks reminder", "send the thanks card to Bob"),
        ("cancel the thanks reminder please", "send the thanks card to Bob"),
        ("cancel the reminder for Ty", "ring Ty"),
    ],
)
async def test_polite_words_inside_a_request_are_its_words(
    app: Application, text: str, done: str
) -> None:
    """Review item 2: "cancel the thanks reminder" cancelled "call mum", the one just set."""
    await say(app, msg("remind me tomorrow at 11 to send the thanks card to Bob"))
    await say(app, msg("remind me tomorrow at 10 to ring Ty", 1))
    await say(app, msg("remind me tomorrow at 9 to call mum", 2))
    reply = await say(app, msg(text, 3))
    assert reply.startswith(f"Cancelled: {done}"), reply


async def test_a_name_like_ty_at_the_end_is_not_a_thanks(app: Application) -> None:
    """ "ty" (thank you) ends many a text; "Ty" ending a request is a person."""
    reply = await say(app, msg("remind me tomorrow at 10 to ring Ty", 1))
    assert "to ring Ty" in reply, reply
    thanked = await say(app, msg("remind me tomorrow at 11 to water the plants ty", 2))
    assert "to water the plants on" in thanked, thanked
