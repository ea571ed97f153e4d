"""s35 U8: "can't take it anymore" said of a knee, a laptop or someone else, and "done with"
an activity, are not a crisis; said by the person ("I can't take it anymore") they are."""

from __future__ import annotations

import pytest

from familiars.bot import Application, speaks_of_self_harm
from tests.harness import message, say

OF_A_KNEE = [
    "i'm done with climbing, my knee can't take it anymore",  # U8, the tester's
    "done with football now, my ankles can't take it anymore",
    "my knees just can't take it any more",
    "my old laptop can't take it anymore, time for a new one",
    "I'm done with the gym for now, my shoulder can't do it anymore",
    "he can't take it anymore, he's quitting the band",
    "my old car can't go on like this",
]
BY_THE_PERSON = [
    "I can't take it anymore",
    "i cant do this anymore",
    "I just can't do this anymore",
    "ugh can't take it anymore",
    "my husband died and I can't take it anymore",
    "my heart can't take it anymore",
    "my god I can't take it anymore",
    "Honestly? I can't go on like this",
]


@pytest.mark.parametrize("text", OF_A_KNEE)
def test_said_of_a_knee_or_someone_else_it_is_no_crisis(text: str) -> None:
    assert not speaks_of_self_harm(text)


@pytest.mark.parametrize("text", BY_THE_PERSON)
def test_said_by_the_person_it_is(text: str) -> None:
    assert speaks_of_self_harm(text)


async def test_in_a_chat_the_climbers_knee_gets_no_crisis_reply(app: Application) -> None:
    reply = await say(app, message("i'm done with climbing, my knee can't take it anymore"))
    assert "116 123" not in reply and "findahelpline" not in reply and "988" not in reply
