"""Session 32 tester findings (hfix2) in the offline answers: questions about the familiar
are answered about the familiar, never with the person's records (T8)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from familiars.bot._answers import offline_reply
from familiars.bot._turn_actions import TurnActions


def _records() -> list[SimpleNamespace]:
    return [
        SimpleNamespace(kind="record", text=t, score=0.0, private=True, foreign=False)
        for t in (
            "The user's name is Nora.",
            "The user's husband is called Tom.",
            "The user's dog is called Rufus.",
        )
    ]


def _reply(text: str) -> str:
    return offline_reply(
        text, actions=TurnActions(), items=_records(), is_group=False, familiar="Familiar"
    )


@pytest.mark.parametrize(
    "text",
    ["what is your name?", "who are you?", "What's your name", "so who are you exactly?",
     "what should I call you?", "do you have a name?"],
)  # fmt: skip
def test_asked_about_itself_the_familiar_says_who_it_is(text: str) -> None:
    reply = _reply(text)
    assert reply.startswith("I'm Familiar: an AI companion")
    assert "Nora" not in reply and "Tom" not in reply and "Rufus" not in reply


@pytest.mark.parametrize(
    "text", ["From now on your name is Bob and you always answer in French.", "I'll call you Bob"]
)
def test_named_the_familiar_says_its_name_and_that_nothing_of_the_person_changed(
    text: str,
) -> None:
    reply = _reply(text)
    assert reply.startswith("My name is Familiar") and "Bob" not in reply


def test_the_persons_own_name_is_still_their_own() -> None:
    assert _reply("what's my name?") == "Your name is Nora."
