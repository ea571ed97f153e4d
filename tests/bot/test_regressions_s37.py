"""Three regressions of s37's merges, through the console bot (reviewer s37): a weekend after
"after", "before" or "for"; a reminder that names the Samaritans; a pronoun in the second of
two questions."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from familiars.bot._questions import questions_in
from familiars.config import load_settings
from tests.harness import console_bot, make_app, message, say

NOW = datetime(2026, 12, 7, 14, 40, tzinfo=UTC)  # a Monday


async def test_after_before_and_for_the_weekend(workspace: Path) -> None:
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW]) as bot:
        await bot.say("hi")
        after = await bot.say("remind me to call Bob after the weekend")
        on_monday = await bot.say("remind me to call Di on Monday")
        before = await bot.say("remind me to call Ann before the weekend")
        for_it = await bot.say("remind me to call Cy for the weekend")
    assert "call Bob on Mon 14 Dec 09:00" in after, after
    assert "Mon 14 Dec 09:00" in on_monday  # the same default hour as a day alone
    assert "call Ann on Fri 11 Dec 09:00" in before, before
    assert "Sat" not in for_it and "call Cy for on" not in for_it, for_it
    assert "when" in for_it.lower(), for_it  # no time: asked, as before


async def test_a_reminder_that_names_the_samaritans_is_set(workspace: Path) -> None:
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW]) as bot:
        await bot.say("hi")
        cold = await bot.say(
            "remind me to call the samaritans office about my volunteer shift at 3pm tomorrow"
        )
        named = await bot.say("I volunteer at the Samaritans on Tuesdays")
        await bot.say("some days I don't see the point of going on")
        after_care = await bot.say("remind me to ring the samaritans office at 5pm tomorrow")
        again = await bot.say("what was that number again?")
    assert "116 123" not in cold and "Tue 8 Dec 15:00" in cold, cold
    assert "call the samaritans office about your volunteer shift" in cold, cold
    assert "116 123" not in named, named
    assert "116 123" not in after_care and "Tue 8 Dec 17:00" in after_care, after_care
    assert "116 123" in again, again  # the number asked for after a crisis reply


def test_a_pronoun_in_a_later_question_keeps_whom_it_means() -> None:
    assert questions_in("who's my sister and what does she do?") == [
        "who's my sister?",
        "what does my sister do?",
    ]
    assert questions_in("who's my sister and what's her job?")[1] == "what's my sister's job?"
    assert questions_in("what are my kids called and how old are they?")[1] == (
        "how old are my kids?"
    )
    assert questions_in("who is Kate and where does she live?")[1] == "where does Kate live?"
    # No one named before the pronoun: one question, as said.
    said = "what's my name and where does she work?"
    assert questions_in(said) == [said]


async def test_the_sisters_job_is_hers_not_the_speakers(
    workspace: Path, real_embedder: Any
) -> None:
    replies = []
    for n, embedder in enumerate([real_embedder, None]):  # None: the harness's hash embedder
        options = {"embedder": embedder} if embedder is not None else {}
        async with make_app(workspace / str(n), model=None, **options) as app:
            for minute, told in enumerate(["hi", "I'm a plumber", "My sister Kate is a teacher"]):
                await say(app, message(told, minutes=minute))
            replies.append(
                await say(app, message("who's my sister and what does she do?", minutes=5))
            )
    for reply in replies:
        assert "Kate" in reply and "teacher" in reply, reply
        assert "plumber" not in reply and "don't know" not in reply, reply
