"""Session 35 tester findings (fixrem): U12 a time said after the task belongs to a repeating
rule; U13 a move to a date keeps the reminder's time of day; U21 cancelling all reminders in
words; U27 a task said as a noun phrase is reminded "about"."""

from __future__ import annotations

import pytest

from familiars.bot import Application
from tests.bot.test_reminder_wordings_read_as_said import T0, _cmd, _in_london, msg
from tests.harness import say, speaker

REPEATING = [
    (
        "remind me every other friday to mow the lawn at 5pm",
        "to mow the lawn every 2 weeks on Friday at 17:00, first on Fri 11 Dec 17:00.",
    ),
    (
        "remind me to water the plants every monday at 8",
        "I'll remind you to water the plants every Monday at 08:00, first on Mon 14 Dec 08:00.",
    ),
    (
        "every day at 7.30 remind me to stretch",
        "I'll remind you to stretch every day at 07:30, first on Tue 8 Dec 07:30.",
    ),
    (
        "remind me at 6pm every weekday to log off",
        "I'll remind you to log off every weekday at 18:00, first on Mon 7 Dec 18:00.",
    ),
]


@pytest.mark.parametrize(("text", "reply"), REPEATING)
async def test_a_time_said_anywhere_is_the_rules(app: Application, text: str, reply: str) -> None:
    await _in_london(app)
    said = await say(app, msg(text))
    assert reply in said, said


@pytest.mark.parametrize(
    "move",
    ["make the passport one 4 january", "move the passport one to the 4th of January"],
)
async def test_a_move_to_a_date_keeps_its_time_of_day(app: Application, move: str) -> None:
    await _in_london(app)
    set_it = await say(app, msg("remind me on 3 Jan 2027 at 10am to renew my passport"))
    assert "Sun 3 Jan 2027 10:00" in set_it, set_it
    said = await say(app, msg(move, 1))
    assert "now Mon 4 Jan 2027 10:00 (was Sun 3 Jan 2027 10:00)" in said, said


async def test_a_command_move_to_a_date_keeps_its_time_of_day(app: Application) -> None:
    await _in_london(app)
    await say(app, msg("remind me on 3 Jan 2027 at 10am to renew my passport"))
    listed = (await app.dialogues.command(_cmd("reminders"))).text
    number = listed.split(".")[0].split()[-1]
    said = (await app.dialogues.command(_cmd("reminders", "move", number, "4", "jan"))).text
    assert "now Mon 4 Jan 2027 10:00" in said, (listed, said)
    said = (await app.dialogues.command(_cmd("reminders", "move", number, "5", "jan", "3pm"))).text
    assert "now Tue 5 Jan 2027 15:00" in said, said


async def _three(app: Application) -> None:
    await _in_london(app)
    for i, text in enumerate(
        [
            "remind me tomorrow at 9 to call the bank",
            "remind me on friday at 6pm to book the vet",
            "every monday at 8 remind me to put the bins out",
        ]
    ):
        assert "I'll remind you" in await say(app, msg(text, i))


async def _open(app: Application) -> str:
    return (await app.dialogues.command(_cmd("reminders"))).text


async def test_cancelling_all_asks_first_and_a_yes_cancels_them(app: Application) -> None:
    await _three(app)
    asked = await say(app, msg("cancel all my reminders", 5))
    assert asked.startswith("Cancel all 3 of your reminders? (1. call the bank"), asked
    assert "book the vet" in asked and "put the bins out" in asked and "Say yes" in asked
    assert "call the bank" in await _open(app)  # nothing cancelled before the yes
    done = await say(app, msg("yes", 6))
    assert done.startswith("Cancelled 3 reminders: call the bank; book the vet;"), done
    listed = await _open(app)
    assert "— call the bank" not in listed and "— put the bins out" not in listed, listed


async def test_a_no_keeps_them_and_another_message_is_a_turn(app: Application) -> None:
    await _three(app)
    await say(app, msg("delete my reminders", 5))
    assert await say(app, msg("no", 6)) == "Okay, I've kept them all."
    await say(app, msg("cancel all reminders", 7))
    later = await say(app, msg("remind me on saturday at 10 to water the plants", 8))
    assert "I'll remind you to water the plants" in later, later
    assert "Cancelled" not in await say(app, msg("yes", 9))
    assert "1. Tue 8 Dec 09:00 — call the bank" in await _open(app)


async def test_all_of_them_answers_which_one(app: Application) -> None:
    await _three(app)
    which = await say(app, msg("no more reminders", 5))
    assert which.startswith("Which one do you mean?"), which
    asked = await say(app, msg("all of them", 6))
    assert asked.startswith("Cancel all 3 of your reminders?"), asked
    done = await say(app, msg("yes", 7))
    assert done.startswith("Cancelled 3 reminders"), done


async def test_in_a_group_all_is_the_reminders_set_there(app: Application) -> None:
    tg = speaker(platform="telegram", user="sam", name="Sam", at=T0)
    assert app.state is not None
    await app.state.set_timezone(await app.state.person_for("telegram", "sam"), "Europe/London")
    await say(app, tg("remind me tomorrow at 9 to call the bank"))
    await say(app, tg("remind me on friday at 6pm to book the band room", 1, group=True))
    asked = await say(app, tg("cancel all my reminders", 2, group=True))
    assert "Cancel your one reminder (2. book the band room" in asked, asked
    assert "call the bank" not in asked
    done = await say(app, tg("yes", 3, group=True))
    assert done == "Cancelled 1 reminder: book the band room.", done
    listed = await say(app, tg("what reminders do I have?", 4))
    assert "call the bank" in listed and "band room" not in listed, listed


NOUN_TASKS = [
    (
        "remind me about orchestra rehearsal tomorrow at 7pm",
        "I'll remind you about orchestra rehearsal on Tue 8 Dec 19:00.",
    ),
    (
        "remind me of the orchestra rehearsal on friday at 6pm",
        "I'll remind you about the orchestra rehearsal on Fri 11 Dec 18:00.",
    ),
    (
        "remind me about my dentist appointment tomorrow at 3pm",
        "I'll remind you about your dentist appointment on Tue 8 Dec 15:00.",
    ),
    (
        "remind me to ask about the rent tomorrow at 9",
        "I'll remind you to ask about the rent on Tue 8 Dec 09:00.",
    ),
]


@pytest.mark.parametrize(("text", "reply"), NOUN_TASKS)
async def test_a_task_said_as_a_thing_is_reminded_about(
    app: Application, text: str, reply: str
) -> None:
    await _in_london(app)
    said = await say(app, msg(text))
    assert reply in said, said


async def test_a_thing_without_a_time_is_asked_about(app: Application) -> None:
    await _in_london(app)
    asked = await say(app, msg("remind me about orchestra rehearsal"))
    assert "When should I remind you about orchestra rehearsal?" in asked, asked
    said = await say(app, msg("friday at 6pm", 1))
    assert "I'll remind you about orchestra rehearsal on Fri 11 Dec 18:00." in said, said


async def test_you_remind_me_of_someone_is_no_reminder(app: Application) -> None:
    await _in_london(app)
    said = await say(app, msg("you remind me of my mother at christmas"))
    assert "remind you" not in said, said
