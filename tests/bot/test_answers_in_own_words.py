"""Issue 23, answers in a person's own words: "what's my favourite thing?" (a kind word that
names no kind) is answered by any favourite; "remind me my passport expires in March" is no
question; an ordinal in words inside a reminder's task ("thank the first to arrive") keeps
its words, while one said as a date still becomes the date."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from familiars.bot import Application, TurnActions, as_asked, offline_reply
from familiars.bot._answers import favourite_fits
from familiars.llm import is_question
from familiars.memory import plain_time
from tests.harness import message, say


@dataclass
class _Record:
    text: str
    kind: str = "record"
    score: float = 1.0
    private: bool = False
    foreign: bool = False


@pytest.mark.parametrize(
    "question",
    ["what's my favourite thing?", "what is my favourite?", "what's my favourite of all?",
     "what's my favourite one again?"],
)  # fmt: skip
def test_a_favourite_that_names_no_kind_is_answered_by_any(question: str) -> None:
    assert favourite_fits(question, "The user's favourite film is Alien.")
    reply = offline_reply(
        question,
        actions=TurnActions(),
        items=[_Record("The user's favourite film is Alien.")],
        is_group=False,
    )
    assert reply == "Your favourite film is Alien.", reply


def test_a_favourite_of_a_kind_is_still_not_answered_by_another() -> None:
    assert not favourite_fits("what's my favourite band?", "Your favourite film is Alien.")


@pytest.mark.parametrize(
    "text",
    ["remind me my passport expires in March", "remind me my mum's coming on Friday",
     "tell me my car is due for its MOT"],
)  # fmt: skip
def test_a_thing_to_remember_after_remind_me_is_no_question(text: str) -> None:
    assert as_asked(text) == text


@pytest.mark.parametrize(
    "text, asked",
    [
        ("remind me my wife's name", "what's my wife's name?"),
        ("tell me my name", "what's my name?"),
    ],
)
def test_a_thing_asked_after_remind_me_is_still_a_question(text: str, asked: str) -> None:
    assert as_asked(text) == asked and is_question(asked)


@pytest.mark.parametrize(
    "text, plain",
    [
        ("thank the first to arrive tomorrow at 9", "thank the first to arrive tomorrow at 9"),
        ("give a prize to the third in line", "give a prize to the third in line"),
        ("pay rent on the twenty-first", "pay rent on the 21st"),
        ("on the first at 9", "on the 1st at 9"),
        ("from the first to the fifth", "from the 1st to the 5th"),
        ("on the third in the morning", "on the 3rd in the morning"),
    ],
)
def test_an_ordinal_in_words_becomes_a_date_only_where_it_is_one(text: str, plain: str) -> None:
    assert plain_time(text) == plain


async def test_the_reminders_task_keeps_its_words(app: Application) -> None:
    reply = await say(app, message("remind me to thank the first to arrive tomorrow at 9"))
    assert "thank the first to arrive" in reply and "1st" not in reply, reply
