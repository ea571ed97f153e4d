"""A newcomer's first questions (tester T27: "are you there", "what can you do?" and "can you
help me?" got "I don't know that yet", a reply about the person), and the imperative form of
the most basic memory question (T17: "tell me everything you know about me" got "I see.
Tell me more?")."""

from __future__ import annotations

import pytest

from familiars.bot._about_you import about_you
from familiars.llm import is_question


@pytest.mark.parametrize(
    "text",
    ["are you there", "what can you do?", "can you help me?", "tell me all about yourself",
     "tell me about you"],
)  # fmt: skip
def test_questions_of_the_familiar_are_answered_about_it(text: str) -> None:
    assert (about_you(text, "Familiar") or "").startswith("I'm Familiar"), text


@pytest.mark.parametrize(
    "text",
    ["can you help me find my keys?", "tell me about my sister", "what do you know about me?",
     "who are your friends"],
)  # fmt: skip
def test_questions_of_the_person_are_not(text: str) -> None:
    assert about_you(text, "Familiar") is None, text


@pytest.mark.parametrize(
    "text",
    ["tell me everything you know about me", "summarise what you know about me",
     "recap what I told you", "tell me all you remember"],
)  # fmt: skip
def test_asked_as_an_order_it_is_still_a_question(text: str) -> None:
    assert is_question(text)
