"""Several questions about the person in one message are each answered, and the one nothing
kept answers is named (tester s37: "what's my name and how old am I?" got only the age)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from familiars.bot._questions import as_asked, questions_in, to_you
from tests.harness import make_app, message, say


def test_a_message_is_split_where_a_new_question_begins() -> None:
    assert questions_in("what's my name and how old am I?") == ["what's my name?", "how old am I?"]
    assert questions_in("how old am I, where do I live and what's my job?") == [
        "how old am I?",
        "where do I live?",
        "what's my job?",
    ]
    assert questions_in("who do I live with and why") == ["who do I live with and why"]
    assert questions_in("I'm tired and what's for tea?") == ["I'm tired and what's for tea?"]
    assert to_you("how old am I?") == "how old are you?"


async def test_each_question_is_answered_and_the_unknown_one_named(
    workspace: Path, real_embedder: Any
) -> None:
    async with make_app(workspace, embedder=real_embedder, model=None) as app:
        for minute, told in enumerate(["My name is Ana", "I'm 34", "I work at Tesco"], 1):
            await say(app, message(told, minutes=minute))
        both = await say(app, message("what's my name and how old am I?", minutes=5))
        known_and_not = await say(
            app, message("where do I work and what's my dog called", minutes=6)
        )
    assert "Ana" in both and "34" in both
    assert "Tesco" in known_and_not
    assert "I don't know that yet: what's your dog called?" in known_and_not


def test_a_question_asked_of_the_familiar_is_the_question() -> None:
    assert as_asked("tell me my name") == "what's my name?"
    assert as_asked("any idea of my age?") == "what's my age?"
    assert as_asked("remind me which town I call home") == "which town I call home?"
    assert as_asked("so where am I working nowadays") == "where am I working nowadays"
    assert as_asked("remind me to call mum") == "remind me to call mum"  # a reminder
    assert as_asked("tell me a joke") == "tell me a joke"


async def test_questions_put_indirectly_are_answered(workspace: Path, real_embedder: Any) -> None:
    async with make_app(workspace, embedder=real_embedder, model=None) as app:
        for minute, told in enumerate(["My name is Kemi", "I live in Accra", "I work at Aldi"], 1):
            await say(app, message(told, minutes=minute))
        name = await say(app, message("tell me my name", minutes=5))
        home = await say(app, message("remind me which town I call home", minutes=6))
        work = await say(app, message("so where am I working nowadays", minutes=7))
    assert "Kemi" in name
    assert "Accra" in home
    assert "Aldi" in work
