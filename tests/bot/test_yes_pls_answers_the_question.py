"""Tester s39: "yes pls" after "Reply yes to go ahead" got "Oh? Tell me more." and dropped
the question, so the plain "yes" after it was not taken either; "no wait keep them" after
"Cancel all ... of your reminders?" was not acknowledged. Yes and no are read in their
everyday words, and an answer that is neither keeps the question and says so."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.bot import Application
from familiars.bot._yes_no import answers_unclearly, is_plain_no, is_yes
from tests.harness import say, speaker

T0 = datetime(2037, 12, 7, 10, 0, tzinfo=UTC)  # 2037: the scheduler fires in real time
msg = speaker(platform="console", chat="console-jordan", user="jordan", name="Jordan", at=T0)

YES = ["yes pls", "yes please", "yep do it", "sure", "go ahead", "ok do it", "yes", "do it",
       "Yes plz!", "yes, do it", "yeah go on"]  # fmt: skip
NO = ["no thanks", "nope", "keep it", "no wait keep them", "wait, no", "no, leave them"]


@pytest.mark.parametrize("text", YES)
def test_a_yes_in_everyday_words(text: str) -> None:
    assert is_yes(text) and not is_plain_no(text) and not answers_unclearly(text)


@pytest.mark.parametrize("text", NO)
def test_a_no_in_everyday_words(text: str) -> None:
    assert is_plain_no(text) and not is_yes(text) and not answers_unclearly(text)


@pytest.mark.parametrize("text", ["hmm maybe", "yes but not the first one", "wait what"])
def test_neither_is_unclear(text: str) -> None:
    assert answers_unclearly(text) and not is_yes(text)


@pytest.mark.parametrize(
    "text", ["my sister is called Priya", "what's the weather like in Leeds this weekend then"]
)
def test_a_message_of_its_own_is_no_answer(text: str) -> None:
    assert not answers_unclearly(text)


async def test_yes_pls_forgets(app: Application) -> None:
    await say(app, msg("my sister is called Priya"))
    asked = await say(app, msg("forget everything about priya", 1))
    assert "Reply yes to go ahead" in asked
    done = await say(app, msg("yes pls", 2))
    assert done.startswith("Forgotten: 1 memory")


async def test_an_unclear_answer_keeps_the_question(app: Application) -> None:
    await say(app, msg("my son is called Peter"))
    await say(app, msg("forget about my son", 1))
    still = await say(app, msg("hmm maybe", 2))
    assert still.startswith("I still need a yes or no")
    done = await say(app, msg("yes", 3))
    assert done.startswith("Forgotten: 1 memory")


async def test_no_wait_keep_them_keeps_the_reminders(app: Application) -> None:
    await say(app, msg("remind me tomorrow at 8 to call mum"))
    await say(app, msg("remind me on friday at 9 to pay rent", 1))
    asked = await say(app, msg("cancel all my reminders", 2))
    assert asked.startswith("Cancel all 2 of your reminders?")
    kept = await say(app, msg("no wait keep them", 3))
    assert kept == "Okay, I've kept them all."
    await say(app, msg("cancel all my reminders", 4))
    still = await say(app, msg("hmm", 5))
    assert still.startswith("I still need a yes or no")
    done = await say(app, msg("yes pls", 6))
    assert "call mum" in done and "pay rent" in done
