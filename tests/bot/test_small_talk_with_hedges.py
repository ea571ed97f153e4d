"""s35 U20: small talk said with a hedge or an interjection ("are you *actually* a person",
"*man*, thanks", "*ugh* you're *honestly* useless"), "whats the date" without its apostrophe,
"sorry what was that?", and a greeting before a question ("hi, who am I?") were met with
"I don't know that yet", "Oh? Tell me more.", a bare "Hello!" or another's distress."""

from __future__ import annotations

import pytest

from familiars.bot import Application
from tests.bot.offline_said import offline_said
from tests.harness import message, say

AI = "I'm an AI, not a person"


_reply = offline_said


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("are you actually a person typing this?", AI),  # U20, the tester's
        ("Be honest, do you actually care or are you just a program?", AI),
        ("r u honestly a real human", AI),
        ("whats the date", "It's Monday 7 December 2026."),
        ("ok so whats the time", "It's 12:30"),
        ("man, thanks for the help today", "You're welcome!"),
        ("oh well thanks anyway", "You're welcome!"),
        ("ugh you're honestly useless sometimes", "I'm sorry I let you down."),
        ("you're literally so annoying", "I'm sorry I let you down."),
    ],
)
def test_small_talk_said_with_a_hedge_is_met(text: str, said: str) -> None:
    assert said in _reply(text)


def test_sorry_what_was_that_says_the_last_reply_again() -> None:
    assert _reply("sorry what was that?", last_reply="Bye for now!") == 'I said: "Bye for now!"'
    assert "I said" not in _reply("what was that film called?", last_reply="Bye for now!")


def test_a_bad_day_is_still_met_as_a_feeling() -> None:
    assert "That sounds rough" in _reply("ugh, work was so stressful today")


async def test_a_greeting_then_a_question_answers_the_question(app: Application) -> None:
    reply = await say(app, message("hi, who am I?"))
    assert "Hello" in reply and "I don't know that yet" in reply
    await say(app, message("my name is Ann", minutes=1))
    reply = await say(app, message("hey, what's my name?", minutes=2))
    hello, answer = reply.split("\n", 1)
    assert hello == "Hello, Ann!" and "Ann" in answer  # the fake embedder may quote the message
