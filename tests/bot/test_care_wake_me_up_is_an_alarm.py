"""Tester s39: "wake me up at 6:45 tomorrow" got the crisis reply (by meaning: nearest a
sentence of sleeping and not waking) and no reminder; "wake me up tomorrow at 6:45" got
"I see. Tell me more?". An alarm asked for with its time is a reminder to wake up; not
waking said as a wish still worries."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from familiars.bot import Application
from familiars.bot._care import asks_a_reminder, speaks_of_self_harm
from familiars.memory import understanding_for
from tests.harness import say, speaker

T0 = datetime(2037, 12, 7, 10, 0, tzinfo=UTC)  # 2037: the scheduler fires in real time
msg = speaker(platform="console", chat="console-dev", user="dev", name="Dev", at=T0)

ALARMS = ["wake me up at 6:45 tomorrow", "wake me up tomorrow at 6:45", "can you wake me at 7"]
SIGNS = [
    "some nights I wish I could just not wake up",
    "I don't want to wake up tomorrow",
    "I hope I don't wake up tomorrow",
]


@pytest.mark.parametrize("text", ALARMS)
def test_an_alarm_asked_for_is_a_reminder_and_no_worry(text: str) -> None:
    assert asks_a_reminder(text) and not speaks_of_self_harm(text)


@pytest.mark.parametrize("text", SIGNS)
def test_not_waking_said_as_a_wish_still_worries(text: str) -> None:
    assert speaks_of_self_harm(text) and not asks_a_reminder(text)


@pytest.mark.parametrize(
    "text", ["I wish I didn't wake up so early", "I hope I don't wake up at 3am again"]
)
def test_waking_too_early_is_no_worry(text: str) -> None:
    assert not speaks_of_self_harm(text)


async def test_wake_me_up_sets_a_reminder_to_wake_up(app: Application) -> None:
    first = await say(app, msg("wake me up at 6:45 tomorrow"))
    assert "remind you to wake up on Tue 8 Dec 06:45" in first
    assert "988" not in first
    second = await say(app, msg("wake me up on friday at 7", 1))
    assert "remind you to wake up on Fri 11 Dec 07:00" in second


@pytest.mark.slow
def test_by_meaning_an_alarm_is_no_worry_and_the_wish_is(real_embedder: Any) -> None:
    understanding = understanding_for(real_embedder.embed_batch, *real_embedder.space)
    assert understanding is not None
    for text in [*ALARMS, "I need to be up early tomorrow, train at 7"]:
        assert not understanding.sounds_like_harm(text), text
    assert understanding.sounds_like_harm("some nights I wish I could just not wake up")
