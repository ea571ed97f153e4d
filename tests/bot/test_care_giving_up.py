"""s33 U1: giving up on living said in grief's and despair's words gets the crisis reply,
the look-alikes do not, and a message that spoke of it is never quoted back as an answer."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from familiars.bot import speaks_of_self_harm
from familiars.bot._answers import answer_lines

SAID_BY_MARGARET_AND_JAY = [
    "sometimes i wonder whats the point of carrying on without him",
    "I've been thinking I might as well join him",
    "I\u2019ve been thinking I might as well join him",
    "i cant do this anymore",
    "whats the point anymore",
    "maybe it's time I went to be with her",
    "everyone would be better off if I wasn't around",
]
LOOK_ALIKES = [
    "this traffic is killing me",
    "I could murder a pizza",
    "I'm dying to see that film",
    "this joke kills me",
    "I can't do this maths homework",
    "I might as well join the gym",
    "I'm going to join him at the pub later",
    "I want to be with her at christmas",
    "what's the point of this meeting",
]


@pytest.mark.parametrize("text", SAID_BY_MARGARET_AND_JAY)
def test_giving_up_in_grief_words_is_heard(text: str) -> None:
    assert speaks_of_self_harm(text)


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_are_not_a_crisis(text: str) -> None:
    assert not speaks_of_self_harm(text)


@dataclass
class _Node:
    text: str
    kind: str = "node"
    score: float = 1.0
    private: bool = False
    foreign: bool = False


def test_a_message_of_giving_up_is_never_quoted_back_as_an_answer() -> None:
    said = _Node("sometimes i wonder whats the point of carrying on without him")
    lines = answer_lines("what's the point of carrying on with the garden?", [said])
    assert not any("carrying on without him" in line for line in lines)
    plain = _Node("I started carrying on with the garden, the point is the roses")
    assert any("roses" in line for line in answer_lines("what's the point of the garden?", [plain]))
