"""Issue 23: low mood said plainly, that is no crisis ("some days I don't see why I bother
getting up at all"), got "I see. Tell me more?". It gets a warm reply of its own, never a
crisis line; its look-alikes ("low on petrol", "down the pub") do not; giving up on living
said in the same words still gets the crisis reply."""

from __future__ import annotations

import pytest

from familiars.bot import Application, speaks_of_self_harm
from familiars.bot._low_mood import REPLY, sounds_low
from tests.bot.offline_said import offline_said
from tests.harness import message, say

LOW = [
    "some days I don't see why I bother getting up at all",  # the tester's
    "most mornings I wonder why I even bother trying",
    "I just feel so empty inside lately",
    "everything seems so bleak at the moment",
    "nothing really makes me smile anymore",
    "I can't really enjoy anything these days",
    "I'm not coping at all right now",
    "I've been struggling a lot lately",
    "I can't face going out",
    "getting up feels like a battle every day",
    "I've been in a really dark place",
    "I've got no motivation for anything",
    "I'm really just so down all the time",
    "I've been feeling flat for weeks",
]
NOT_LOW = [
    "I'm low on petrol",
    "I've been down the pub with Sam",
    "I'm struggling to find a parking space",
    "I'm rubbish at darts",
    "I'm flat out at work this week",
    "I'm down for a game of cards tonight",
    "I feel lost in this new book, it's brilliant",
]


@pytest.mark.parametrize("text", LOW)
def test_low_mood_gets_a_warm_reply_and_no_crisis_line(text: str) -> None:
    assert sounds_low(text)
    assert not speaks_of_self_harm(text)
    reply = offline_said(text)
    assert reply == REPLY
    assert "116 123" not in reply and "Tell me more" not in reply


@pytest.mark.parametrize("text", NOT_LOW)
def test_its_look_alikes_are_not_low_mood(text: str) -> None:
    assert not sounds_low(text)
    assert offline_said(text) != REPLY


def test_a_feeling_heard_before_keeps_its_own_reply() -> None:
    # the rows before low mood answer first: "a bit down today" is met as before
    assert offline_said("I'm feeling a bit down today").startswith("That sounds rough")


async def test_in_a_chat_low_mood_is_met_warmly_and_giving_up_still_worries(
    app: Application,
) -> None:
    low = await say(app, message("some days I don't see why I bother getting up at all"))
    assert REPLY in low and "116 123" not in low and "findahelpline" not in low
    worry = await say(app, message("I don't see why I should bother living", minutes=1))
    assert "116 123" in worry or "findahelpline.com" in worry


@pytest.mark.parametrize(
    "text, worries",
    [
        ("I don't see why I should bother living", True),
        ("some days I wonder why I even bother going on", True),
        ("I don't see why I should keep going to choir", False),
        ("I don't see why I bother with that app, it never works", False),
    ],
)
def test_why_go_on_at_all_is_heard_by_the_rule(text: str, worries: bool) -> None:
    assert speaks_of_self_harm(text) is worries


@pytest.mark.parametrize(
    "text, low",
    [
        ("honestly what's the use, nothing I do goes right", True),
        ("what's the use in trying?", True),
        ("what's the use of the blue button?", False),
    ],
)
def test_whats_the_use_is_low_mood_only_said_of_trying(text: str, low: bool) -> None:
    assert sounds_low(text) is low
