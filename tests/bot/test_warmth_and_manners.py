"""Session 34 person-test, warmth and manners offline: hard news, a hard year, lonely
evenings, tears and pride get a kind word before any note (U19, U24, U58, U86, U89);
goodbyes, insults, text-speak and "what you can do?" get fitting short replies (U22, U57,
U79)."""

from __future__ import annotations

import pytest

from familiars.bot import Application
from familiars.bot._about_you import about_you
from familiars.bot._answers import kind_word, offline_reply, small_talk, spelled_out
from familiars.bot._turn_actions import TurnActions
from tests.harness import message, say

FILLER = ("Tell me more", "Noted: you don't like")


def _reply(text: str, *, noted: tuple[str, ...] = (), **kw: object) -> str:
    return offline_reply(
        text,
        actions=TurnActions(noted=list(noted)),
        items=[],
        is_group=False,
        **kw,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    "text",
    [
        "it's been a hard year tbh",  # U58
        "been a really tough few months",
        "The evenings are the worst. I still set two cups out for tea without thinking.",  # U24
        "Sundays are the hardest",
        "I'm so lonely since Harold went into hospital",  # U89
        "I feel so alone in this house",
        "I've been crying a lot this week",  # U89
        "I keep bursting into tears at the shops",
        "I'm feeling rather low today, it would have been my mother's birthday",  # U19
        "I still miss my mum terribly",
        "I've been giving away Joan's things, her clothes went to the hospice shop",  # U78
        "we finally sorted through Dad's clothes at the weekend",
    ],
)
def test_hard_feelings_get_a_kind_short_reply(text: str) -> None:
    reply = _reply(text)
    assert reply.startswith(("I'm sorry", "That sounds rough")), reply
    assert not any(f in reply for f in FILLER)


def test_hard_news_gets_a_kind_word_before_the_note() -> None:
    said = "My mum Sheila has dementia, she's in a care home now"  # U58
    reply = _reply(said, noted=("The user's mum Sheila has dementia.",))
    first, second = reply.splitlines()
    assert first.startswith("I'm so sorry") and second.startswith("Noted:")
    assert (kind_word("my dad was rushed into hospital last night") or "").startswith("I'm so")


def test_loneliness_is_met_as_loneliness_with_what_was_noted() -> None:
    reply = _reply(
        "I'm so lonely since Harold went into hospital",
        noted=("The user is lonely since Harold went into hospital.",),
    )
    assert reply.splitlines()[0].startswith("I'm sorry you're feeling lonely")


@pytest.mark.parametrize(
    "text",
    [
        "I'm a nurse, I work in a hospital",
        "is this a bad time?",
        "it's been a long time since I went skiing",
        "I was crying laughing at that film",
        "I had a good cry",
        "she finished it with a stroke of genius",
        "I'm giving away my old clothes to the charity shop",
    ],
)
def test_everyday_words_are_not_met_as_sorrow(text: str) -> None:
    assert kind_word(text) is None


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("My granddaughter got into Durham University!", "congratulations"),  # U86
        ("my son got a place at Leeds uni", "congratulations"),
        ("I'm proud of her. Joan would have been over the moon.", "proud"),  # U86
        ("we're so proud of him", "proud"),
    ],
)
def test_good_news_and_pride_are_met_gladly(text: str, word: str) -> None:
    reply = small_talk(text) or ""
    assert word in reply.lower() and "Tell me more" not in reply


@pytest.mark.parametrize(
    "text",
    ["night night", "gotta go, bye", "Cheerio for now, love", "ta-ra", "right, I'm off to bed"],
)
def test_goodbyes_get_a_goodbye(text: str) -> None:
    assert _reply(text) == "Bye for now!"


@pytest.mark.parametrize(
    "text", ["ok im bored. ur kinda useless ngl", "you're so pointless", "this bot is useless"]
)
def test_insults_get_an_apology_not_filler(text: str) -> None:
    assert _reply(text).startswith("I'm sorry I let you down")


def test_text_speak_questions_are_asked_as_spelled_out() -> None:
    assert spelled_out("wat do u know about me") == "what do you know about me"
    assert spelled_out("wot r ur plans") == "what are your plans"
    assert spelled_out("I love Ursula") == "I love Ursula"
    kept = "The user's dog is called Rex."
    reply = _reply("wat do u know about me", meant=[kept])
    assert reply == "Your dog is called Rex."


async def test_in_a_chat_wat_do_u_know_about_me_is_answered_as_spelled_out(
    app: Application,
) -> None:
    await say(app, message("my dog is called Rex"))
    typed = await say(app, message("wat do u know about me", minutes=1))
    spelled = await say(app, message("what do you know about me?", minutes=2))
    assert typed == spelled and "Tell me more" not in typed


@pytest.mark.parametrize("text", ["what you can do?", "wat can u do"])
def test_what_you_can_do_says_what_it_can_do(text: str) -> None:
    assert "reminders" in (about_you(text, "Pip") or "")


async def test_in_a_chat_the_worst_evenings_are_met_kindly_and_not_kept_as_a_dislike(
    app: Application,
) -> None:
    said = "The evenings are the worst. I still set two cups out for tea without thinking."
    reply = await say(app, message(said))
    assert "I'm sorry, that sounds really hard" in reply and "don't like" not in reply
