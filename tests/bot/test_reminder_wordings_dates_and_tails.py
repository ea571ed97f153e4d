"""Session 33 (fixb), tester T21 and more: reminder wordings that were taken as chat, a date
next year said without its year, "12/1" read month first in London, politeness tails."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.bot import Application
from tests.harness import say, speaker

T0 = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)


msg = speaker(platform="console", chat="console-sam", user="sam", name="Sam", at=T0)


async def test_a_date_next_year_says_its_year(app: Application) -> None:
    reply = await say(app, msg("remind me on 3 January to renew the passport"))
    assert "Sun 3 Jan 2027 09:00" in reply, reply
    soon = await say(app, msg("remind me on 9 December to buy stamps", 1))
    assert "Wed 9 Dec 09:00" in soon, soon  # this year: no year


async def test_12_1_in_london_is_the_12th_of_january(app: Application) -> None:
    assert app.state is not None
    await app.state.set_timezone(await app.state.person_for("console", "sam"), "Europe/London")
    reply = await say(app, msg("remind me on 12/1 to send the card", 1))
    assert "Tue 12 Jan 2027 09:00" in reply, reply


@pytest.mark.parametrize(
    ("text", "when", "task"),
    [
        ("remind me at half past 6 to start dinner", "Mon 7 Dec 18:30", "start dinner"),
        ("remind me at quarter to 5 to leave work", "Mon 7 Dec 16:45", "leave work"),
    ],
)
async def test_a_clock_said_in_words_is_read(
    app: Application, text: str, when: str, task: str
) -> None:
    """Once said to be unreadable; the time reader now reads them (a bare 1-6 is pm)."""
    reply = await say(app, msg(text))
    assert when in reply and f"remind you to {task}" in reply, reply


@pytest.mark.parametrize(
    "text",
    [
        "remind me on Christmas Eve to wrap presents",
        # "this weekend" is read now (its Saturday): tests/bot/test_reminder_time_words.py
    ],
)
async def test_a_reminder_whose_time_is_not_read_says_so(app: Application, text: str) -> None:
    reply = await say(app, msg(text))
    assert "Tell me more" not in reply, reply
    assert "couldn't read a time" in reply or "When should I remind you" in reply, reply
    assert "to 5 to" not in reply and "5 to leave" not in reply
