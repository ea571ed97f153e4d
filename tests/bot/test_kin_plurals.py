"""s35 U2: "who is my wife?" with two wives kept said "Your wifes are ..."; a wife and a
husband were "Your wife are ...". Relation words are made plural as English makes them, and
people of two kinds asked as one are each named with their kind."""

from __future__ import annotations

from familiars.bot import Application
from familiars.bot._kin import kin_answer
from tests.harness import message, say

WIVES = ["The user's wife is called Latoya.", "The user's wife is called Latisha."]


def test_two_wives_are_wives() -> None:
    assert kin_answer("who is my wife?", WIVES) == "Your wives are Latoya and Latisha."
    assert kin_answer("who are my wives?", WIVES) == "Your wives are Latoya and Latisha."


def test_a_wife_and_a_husband_asked_as_a_wife_are_each_named() -> None:
    kept = ["The user's wife is called Joan.", "The user's husband is called Tom."]
    assert kin_answer("who is my wife?", kept) == (
        "You told me about your wife Joan and your husband Tom."
    )


def test_kids_of_two_kinds_are_still_the_kids() -> None:
    kept = ["The user has a son called Sam and a daughter called Lily."]
    assert kin_answer("who are my kids?", kept) == "Your kids are Sam and Lily."


async def test_in_a_chat_the_wifes_name_is_put_right_and_stays_one_wife(app: Application) -> None:
    await say(app, message("hi, my name is Dwayne", name="Dwayne"))
    await say(app, message("my wife Latoya and I have three kids", name="Dwayne", minutes=1))
    fixed = await say(
        app,
        message(
            "actually it's Latisha not Latoya, autocorrect got me lol", name="Dwayne", minutes=2
        ),
    )
    assert "wife is called Latisha" in fixed and "your name" not in fixed
    await say(
        app, message("no no, my WIFE is Latisha. my name is Dwayne", name="Dwayne", minutes=3)
    )
    assert "Your wife is called Latisha." in await say(
        app, message("who is my wife?", name="Dwayne", minutes=4)
    )
    assert "Dwayne" in await say(app, message("what's my name?", name="Dwayne", minutes=5))
