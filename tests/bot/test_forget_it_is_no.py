"""Tester and reviewer s39: "forget it" (never mind), "right", "k", "please" alone and
"yeah right" were a yes: after "Cancel all 2 of your reminders?", "forget it" answered
"Forgotten: the reminder to water the plants". A yes to something that cannot be undone is
plain: "forget it", "never mind", "nvm", "leave it" are a no; "right", "k", "please" and
"yeah right" are unclear and keep the question; "go on then" is a yes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.bot import Application
from familiars.bot._forgetting import is_clear_yes
from familiars.bot._yes_no import answers_unclearly, asks_what_goes, is_plain_no, is_yes
from tests.harness import invocation, say, speaker

T0 = datetime(2037, 12, 7, 10, 0, tzinfo=UTC)  # 2037: the scheduler fires in real time
WHO = {"chat": "console-jordan", "user": "jordan", "name": "Jordan", "at": T0}
msg = speaker(platform="console", **WHO)


@pytest.mark.parametrize("text", ["forget it", "Forget it.", "never mind", "nvm", "leave it"])
def test_never_mind_is_a_no(text: str) -> None:
    assert is_plain_no(text) and not is_yes(text) and not answers_unclearly(text)


@pytest.mark.parametrize("text", ["right", "k", "please", "pls", "yeah right", "yeah, right"])
def test_a_half_yes_is_unclear(text: str) -> None:
    assert not is_yes(text) and not is_clear_yes(text) and answers_unclearly(text)


@pytest.mark.parametrize(
    "text", ["yes", "yes pls", "yep", "go ahead", "do it", "sure", "go on", "go on then"]
)
def test_a_plain_yes_stays_a_yes(text: str) -> None:
    assert is_yes(text) and not is_plain_no(text)


async def _two_reminders(app: Application) -> None:
    await say(app, msg("remind me tomorrow at 8 to water the plants"))
    await say(app, msg("remind me on friday at 9 to pay rent", 1))
    asked = await say(app, msg("cancel all my reminders", 2))
    assert asked.startswith("Cancel all 2 of your reminders?"), asked


async def test_forget_it_keeps_the_reminders(app: Application) -> None:
    await _two_reminders(app)
    kept = await say(app, msg("forget it", 3))
    assert kept == "Okay, I've kept them all.", kept
    listed = await say(app, msg("what are my reminders?", 4))
    assert "water the plants" in listed and "pay rent" in listed, listed


@pytest.mark.parametrize("text", ["right", "k", "please", "yeah right"])
async def test_a_half_yes_keeps_the_question(app: Application, text: str) -> None:
    await _two_reminders(app)
    still = await say(app, msg(text, 3))
    assert still.startswith("I still need a yes or no"), still
    done = await say(app, msg("go on then", 4))
    assert "water the plants" in done and "pay rent" in done, done


async def test_go_on_then_forgets(app: Application) -> None:
    await say(app, msg("my sister is called Priya"))
    asked = await say(app, msg("forget everything about priya", 1))
    assert "Reply yes to go ahead" in asked
    done = await say(app, msg("go on then", 2))
    assert done.startswith("Forgotten: 1 memory"), done


@pytest.mark.parametrize("text", ["what does everything mean", "what goes?", "sure, what goes?"])
def test_what_goes_asks_about_the_question(text: str) -> None:
    assert asks_what_goes(text) and not is_yes(text)


async def test_what_goes_repeats_the_forget_everything_question(app: Application) -> None:
    """Tester s39: "ok wait what does everything mean" after /memory forget everything got
    "Oh? Tell me more." and dropped the question; the "yes" after it was a turn."""
    assert app.dialogues is not None
    await say(app, msg("my sister is called Priya"))
    asked = (await app.dialogues.command(invocation("memory", "forget", "everything", **WHO))).text
    assert asked.startswith("About to forget everything about you"), asked
    again = await say(app, msg("ok wait what does everything mean", 1))
    assert again == asked
    assert (await say(app, msg("hmm", 2))).startswith("I still need a yes or no")
    assert (await say(app, msg("ok", 3))).startswith("I still need a yes or no")
    assert (await say(app, msg("yes", 4))).startswith("Forgotten everything about you")
    assert not app.dialogues._asked_text  # the question quoted what went: not kept after


async def test_what_goes_repeats_a_forget_in_words(app: Application) -> None:
    await say(app, msg("my sister is called Priya"))
    asked = await say(app, msg("forget everything about me", 1))
    assert asked.startswith("About to forget everything about you"), asked
    assert await say(app, msg("what does everything mean", 2)) == asked
    assert await say(app, msg("sure, what goes?", 3)) == asked
    assert (await say(app, msg("hmm", 4))).startswith("I still need a yes or no")
    assert await say(app, msg("what goes?", 5)) == asked
    assert (await say(app, msg("yes", 6))).startswith("Forgotten everything about you")
    assert app.dialogues is not None and not app.dialogues.forget_words._shown
