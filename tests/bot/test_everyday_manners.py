"""s36 person-test: "You are a robot or a person?" got "I don't know that yet" (the AI
disclosure must answer it), "Which day is today?" a stored message, "wat did u just say" and
"feeling rly low today tbh" nothing fitting (text-speak is read as the words it spells),
and "You're a daft useless lump of tin." "Oh? Tell me more."."""

from __future__ import annotations

import pytest

from tests.bot.offline_said import offline_said

_reply = offline_said


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("You are a robot or a person?", "I'm an AI, not a person"),
        ("u r a bot or a human??", "I'm an AI, not a person"),
        ("Which day is today?", "It's Monday 7 December 2026."),
        ("what day is it today", "It's Monday 7 December 2026."),
        ("wat did u just say", 'I said: "Hello!"'),
        ("You're a daft useless lump of tin.", "I'm sorry I let you down"),
        ("ur a total daft machine", "I'm sorry I let you down"),
        ("feeling rly low today tbh", "That sounds rough"),
        ("im rly stressed", "That sounds rough"),
        ("u a bot or a real person?", "I'm an AI, not a person"),
        ("feeling proper rubbish today", "That sounds rough"),
        ("we had to put Toby down last month, gutted", "I'm so sorry for your loss"),
    ],
)
def test_manners_in_other_words(text: str, said: str) -> None:
    assert said in _reply(text, last_reply="Hello!")


@pytest.mark.parametrize(
    "text",
    [
        "you are a star",
        "you're not useless at all",
        "I'm really happy today",
        "I had to put the shelf down",
        "I had to put my bag down",
    ],
)
def test_look_alikes_are_not_met_as_such(text: str) -> None:
    reply = _reply(text)
    assert "I'm an AI" not in reply and "let you down" not in reply and "rough" not in reply
    assert "loss" not in reply
