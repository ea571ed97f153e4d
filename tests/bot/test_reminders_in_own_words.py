"""Reminders in a person's own words, offline, through the whole turn (a tester's session,
Monday 7 December, set in 2037 with 2026's calendar: the scheduler runs in real time): the
answer to "When should I remind you?" is read by the same time
reader as a request; formal, British, text-speak and learner's wordings set a reminder;
cancel in words with a number; a moved occurrence of a weekly reminder is listed honestly."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from familiars.bot import Application
from familiars.bot._adapters.base import CommandInvocation
from tests.harness import say, speaker

T0 = datetime(2037, 12, 7, 14, 40, tzinfo=UTC)
msg = speaker(platform="console", chat="console-edith", user="edith", name="Edith", at=T0)


async def test_the_answer_to_when_is_read_as_a_request_is(app: Application) -> None:
    asked = await say(app, msg("remind me to call fern"))
    assert "When should I remind you to call fern?" in asked
    set_ = await say(app, msg("tmrw at 7", 1))
    assert "remind you to call fern on Tue 8 Dec 07:00" in set_
    await say(app, msg("remind me to ring the vet", 2))
    evening = await say(app, msg("Tomorrow evening at seven, please.", 3))
    assert "remind you to ring the vet on Tue 8 Dec 19:00" in evening
    await say(app, msg("remind me to water the ferns", 4))
    thursday = await say(app, msg("Next Thursday at 6pm if you would.", 5))
    assert "remind you to water the ferns on Thu 10 Dec 18:00" in thursday


async def test_formal_and_british_wordings(app: Application) -> None:
    bins = await say(app, msg("Could you remind me every Friday at half 5 to put the bins out?"))
    assert "remind you to put the bins out every Friday at 17:30" in bins
    assert "out?" not in bins
    dated = await say(
        app,
        msg(
            "Please remind me on the 18th of December at half past two in the afternoon to "
            "collect my prescription.",
            1,
        ),
    )
    assert "remind you to collect your prescription on Fri 18 Dec 14:30" in dated
    weekly = await say(
        app,
        msg(
            "Please remind me each Wednesday at 10 o'clock in the morning to telephone Margaret.", 2
        ),
    )
    assert "remind you to telephone Margaret every Wednesday at 10:00" in weekly


async def test_a_bare_hour_is_after_noon_and_said_back(app: Application) -> None:
    beans = await say(app, msg("remind me tmrw at 4 to feed beans"))
    assert "remind you to feed beans on Tue 8 Dec 16:00" in beans


async def test_typos_text_speak_and_a_learners_for(app: Application) -> None:
    homework = await say(app, msg("remind me evry sunday at 8pm to do my homework"))
    assert "remind you to do your homework every Sunday at 20:00" in homework
    room = await say(app, msg("remind me 2 clean my room", 1))
    assert "When should I remind you to clean your room?" in room
    await say(app, msg("later today at 5", 2))
    mother = await say(app, msg("You can remind me in 30 minutes for call my mother?", 3))
    assert "remind you to call your mother on Mon 7 Dec 15:13" in mother
    vitamins = await say(app, msg("Every day at 8 remind me for take the vitamins.", 4))
    assert "remind you to take the vitamins every day at 08:00" in vitamins


async def test_cancel_and_move_in_words(app: Application) -> None:
    await say(app, msg("remind me tomorrow at 9 to water the fern"))
    await say(app, msg("remind me tomorrow at 10 to ring the bank", 1))
    moved = await say(app, msg("move the fern one to tomorow 8pm", 2))
    assert moved.startswith("Moved: water the fern, now Tue 8 Dec 20:00")
    cancelled = await say(app, msg("Would you please cancel reminder number 2?", 3))
    assert cancelled.startswith("Cancelled: ring the bank")


async def test_a_moved_occurrence_is_listed_as_moved(app: Application) -> None:
    await say(app, msg("remind me every Tuesday at 18:00 to put recycling out"))
    assert app.dialogues is not None
    at = T0.replace(minute=45)

    async def command(*args: str) -> str:
        assert app.dialogues is not None
        inv = CommandInvocation(
            "console", "console-edith", "edith", "Edith", "reminders", args, ts=at
        )
        return (await app.dialogues.command(inv)).text

    listed = await command("list")
    number = listed.splitlines()[1].split(".")[0]
    #: The year shows where it is not the real clock's (the scheduler's time): read without it.
    moved = re.sub(r" 20\d\d ", " ", await command("move", number, "wed", "7pm"))
    assert "now Wed 9 Dec 19:00" in moved and "Only this one moves" in moved
    after = re.sub(r" 20\d\d ", " ", await command("list"))
    assert (
        "Wed 9 Dec 19:00 — put recycling out (moved, this time only; every Tuesday at 18:00)"
        in after
    )


async def test_wordings_from_the_terminal_session(app: Application) -> None:
    weekly = await say(
        app, msg("hey could you possibly remind me evey thursday at 6 to take the recycling out?")
    )
    assert "remind you to take the recycling out every Thursday at 18:00" in weekly
    washing = await say(app, msg("remind me in twenty mins 2 check the washing", 1))
    assert "remind you to check the washing on Mon 7 Dec 15:01" in washing
    cancelled = await say(app, msg("Would you mind cancelling reminder 1 please?", 2))
    assert cancelled.startswith("Cancelled: check the washing")  # the soonest is 1


async def test_if_poss_and_for_before_a_task_verb(app: Application) -> None:
    await say(app, msg("pls remind me to phone the council"))
    friday = await say(app, msg("friday morning at nine if poss", 1))
    assert "remind you to phone the council on Fri 11 Dec 09:00" in friday
    bread = await say(app, msg("remind me for buy bread tomorow", 2))
    assert "remind you to buy bread on Tue 8 Dec 09:00" in bread


async def test_a_clock_in_words_alone_keeps_the_reminders_day(app: Application) -> None:
    await say(app, msg("remind me for buy bread tomorow"))
    moved = await say(app, msg("shift the bread one to 7 in the evening", 1))
    assert moved.startswith("Moved: buy bread, now Tue 8 Dec 19:00 (was Tue 8 Dec 09:00)")
