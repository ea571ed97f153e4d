"""Cancelling, moving and snoozing a reminder in plain words (offline, through the runtime):
by its words (plural and tense forgiven), by "that" (just set or just fired), asking which
when two match, saying so when none does; the reply says what changed and the scheduler's
jobs follow."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from familiars.config import load_settings
from tests.bot.test_reminders_commands import SAID_AT
from tests.harness import console_bot


async def test_cancel_move_and_snooze_by_description(workspace: Path, memory_home: str) -> None:
    settings = load_settings(workspace=workspace)
    clock = [SAID_AT]
    async with console_bot(settings, clock) as bot:
        await bot.command("/timezone America/New_York")
        await bot.say("remind me tomorrow at 9am to pay the landlord")
        await bot.say("remind me on thursday at 10am to go to the dentist")
        reply = await bot.say("can you remind me on friday at 6pm to call the plumber?")
        assert "I'll remind you to call the plumber on Fri 15 Nov 18:00" in reply, reply
        await bot.say("remind me on friday at 8pm to call mum")
        await bot.command("/reminders")

        reply = await bot.say("actually cancel the landlord reminder")
        assert reply == "Cancelled: pay the landlord (Tue 12 Nov 09:00).", reply
        reply = await bot.say("move the dentist one to Friday at 3pm")
        assert reply.startswith("Moved: go to the dentist, now Fri 15 Nov 15:00"), reply
        assert "(was Thu 14 Nov 10:00)" in reply
        reply = await bot.say("cancel my plumbers reminder")
        assert reply.startswith("Cancelled: call the plumber"), reply

        listed = await bot.command("/reminders")
        assert "landlord" not in listed and "plumber" not in listed
        assert "Fri 15 Nov 15:00 — go to the dentist" in listed

        # None matches: said plainly, nothing changed.
        reply = await bot.say("cancel the gym reminder")
        assert "I can't find a reminder about 'gym'" in reply, reply
        # Two match: both listed with their numbers, and the number answers it.
        await bot.say("remind me on saturday at 9am to call the bank")
        reply = await bot.say("cancel the call reminder")
        assert reply.startswith("Which one do you mean?"), reply
        assert "call mum" in reply and "call the bank" in reply
        number = reply.split("call the bank")[0].rsplit("; ", 1)[-1].split("(")[-1].split(".")[0]
        assert (await bot.say(number)).startswith("Cancelled: call the bank"), number
        assert "call mum" in await bot.command("/reminders")

        # "that" is the reminder just set.
        clock[0] = SAID_AT + timedelta(minutes=1)
        await bot.say("remind me in 20 minutes to take the pizza out")
        reply = await bot.say("snooze that for 10 minutes")
        assert reply.startswith("Snoozed: take the pizza out, I'll remind you Mon 11 Nov 15:46"), (
            reply
        )
        assert bot.app.scheduler is not None
        assert datetime(2030, 11, 11, 20, 46, tzinfo=UTC) in bot.exact_jobs().values()
        # "that" is now the one just moved.
        reply = await bot.say("move the dentist one to Saturday at 10am")
        assert reply.startswith("Moved: go to the dentist, now Sat 16 Nov 10:00"), reply
        reply = await bot.say("snooze that for 30 minutes")
        assert reply.startswith("Snoozed: go to the dentist, I'll remind you Sat 16 Nov 10:30"), (
            reply
        )
        # Moved by a span from where it is: back (later), forward (sooner).
        reply = await bot.say("push the dentist one back an hour")
        assert reply.startswith("Moved: go to the dentist, now Sat 16 Nov 11:30"), reply
        reply = await bot.say("move it forward by 15 minutes")
        assert reply.startswith("Moved: go to the dentist, now Sat 16 Nov 11:15"), reply
        # Not about a reminder: a turn as usual.
        assert "Cancelled" not in await bot.say("I cancelled my gym membership yesterday")


async def test_snooze_that_after_it_fired(workspace: Path, memory_home: str) -> None:
    settings = load_settings(workspace=workspace)
    clock = [SAID_AT]
    async with console_bot(settings, clock) as bot:
        assert bot.app.scheduler is not None
        await bot.say("remind me on friday at 6pm to water the plants")
        await bot.say("remind me in 5 minutes to stretch")
        clock[0] = SAID_AT + timedelta(minutes=6)
        await bot.app.scheduler.run_due(clock[0])
        reply = await bot.say("snooze that for 10 minutes")
        assert reply == "Snoozed: stretch, I'll remind you Mon 11 Nov 20:31.", reply
        clock[0] = SAID_AT + timedelta(minutes=17)
        await bot.app.scheduler.run_due(clock[0])
        assert bot.sent().lower().count("stretch") == 2


async def test_cancel_with_the_number_that_reminders_listed(workspace: Path) -> None:
    """ "cancel 1" (as the listing's own footer shows it) cancels the one listed as 1: it was a
    turn, answered "Got it.", and the reminder stayed."""
    settings = load_settings(workspace=workspace)
    clock = [SAID_AT]
    async with console_bot(settings, clock) as bot:
        await bot.say("remind me tomorrow at 9am to pay the landlord")
        await bot.say("remind me on friday at 6pm to call the plumber")
        listed = await bot.command("/reminders")
        assert "1. " in listed and "pay the landlord" in listed
        reply = await bot.say("cancel 1")
        assert reply.startswith("Cancelled: pay the landlord"), reply
        reply = await bot.say("snooze #2 for 10 minutes")
        assert reply.startswith("Snoozed: call the plumber"), reply
        assert "landlord" not in await bot.command("/reminders")
        assert "Cancelled" not in await bot.say("cancel 2 of my meetings today")


async def test_two_people_asking_the_same_reminder_in_a_group_each_get_theirs(
    workspace: Path,
) -> None:
    """A tester had Alice then Bob say "remind me tomorrow at 5pm to take my pills" in one
    group: Bob was told "Okay, I'll remind you ..." while the writer merged his into Alice's
    (same words, same chat), and his /reminders was empty. Another person's reminder is never
    the same as one's own."""
    from familiars.bot import IncomingMessage
    from familiars.bot._adapters.base import CommandInvocation
    from tests.harness import make_app

    app = make_app(load_settings(workspace=workspace), clock=lambda: SAID_AT)
    async with app:
        assert app.dialogues is not None
        for user, name in (("u1", "Alice"), ("u2", "Bob")):
            message = IncomingMessage(
                platform="telegram", chat_id="g1", user_id=user, display_name=name,
                text="remind me tomorrow at 5pm to take my pills", is_group=True,
                mentions_bot=True, ts=SAID_AT,
            )  # fmt: skip
            reply = "".join([d async for d in app.dialogues.respond(message)])
            assert "I'll remind you to take your pills" in reply
            await app.settle()
        for user in ("u1", "u2"):
            asked = CommandInvocation(
                "telegram", "g1", user, user, "reminders", (), ts=SAID_AT, is_group=True
            )
            listed = (await app.dialogues.command(asked)).text
            assert "take your pills" in listed, user


async def test_asked_in_words_the_list_is_shown(workspace: Path, memory_home: str) -> None:
    """T31: "what reminders do I have?" got "I don't know that yet" with reminders set, and
    "did I ask you to remind me about anything?" began a reminder "to anything?"."""
    settings = load_settings(workspace=workspace)
    clock = [SAID_AT]
    async with console_bot(settings, clock) as bot:
        await bot.command("/timezone America/New_York")
        assert "You have no reminders" in await bot.say("do I have any reminders?")
        await bot.say("remind me tomorrow at 9am to pay the landlord")
        listed = await bot.command("/reminders")
        for text in ("what reminders do I have?", "did I ask you to remind me about anything?",
                     "show me my reminders"):  # fmt: skip
            assert await bot.say(text) == listed, text
        assert "reminders" not in (await bot.say("do I have a dog?")).lower()


async def test_a_message_of_self_harm_is_never_answered_by_the_word_answers(
    workspace: Path, memory_home: str
) -> None:
    """Review of s32: the forget and reminder answers came before the turn's care check, so
    "forget everything about my life, I just want to die" got a forget question."""
    settings = load_settings(workspace=workspace)
    clock = [SAID_AT]
    async with console_bot(settings, clock) as bot:
        await bot.say("remind me tomorrow at 9am to pay the landlord")
        for text in ("forget everything about my life, I just want to die",
                     "cancel the landlord reminder, I want to kill myself"):  # fmt: skip
            reply = await bot.say(text)
            assert "116 123" in reply or "988" in reply, reply
        assert "landlord" in await bot.command("/reminders")
