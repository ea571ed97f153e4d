"""Session 33 (fixb): "no more reminders please" and other polite tails stop reminders;
none of them sets a reminder "please"."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.bot import Application
from familiars.bot._turn_actions import PendingReminder, plan_actions
from tests.bot.test_reminder_wordings_dates_and_tails import msg
from tests.harness import say


@pytest.mark.parametrize(
    ("text", "done"),
    [
        ("no more reminders please", None),
        ("no more reminders", None),
        ("stop reminding me please", None),
        ("stop reminding me about rent please", "pay rent"),
        ("cancel the dentist one thanks", "call the dentist"),
        ("cancel the rent reminder, thank you", "pay rent"),
    ],
)
async def test_polite_tails_stop_reminders(app: Application, text: str, done: str | None) -> None:
    """ "no more reminders please" cancelled the reminder just set (or made one "please");
    "cancel the dentist one thanks" found no reminder about "dentist thanks"."""
    await say(app, msg("remind me every month to pay rent"))
    await say(app, msg("remind me tomorrow at 8 to call the dentist", 1))
    reply = await say(app, msg(text, 200))
    if done is None:  # no reminder named: which one?
        assert reply.startswith("Which one do you mean?"), reply
        assert "pay rent" in reply and "call the dentist" in reply
        assert (await say(app, msg("2", 201))).startswith("Cancelled: ")
    else:
        assert reply.startswith(f"Cancelled: {done}"), reply
    listing = await say(app, msg("what reminders do I have?", 202))
    assert "please" not in listing and "thank" not in listing


async def test_stopping_reminders_does_not_answer_when(app: Application) -> None:
    """A reminder waiting for its time is not set by "stop reminding me tomorrow"."""
    asked = await say(app, msg("remind me to call mum"))
    assert "When should I remind you to call mum?" in asked
    reply = await say(app, msg("stop reminding me tomorrow", 1))
    assert "stop reminding" not in (await say(app, msg("what reminders do I have?", 2)))
    assert "remind you to call mum" not in reply, reply


def test_stopping_words_are_no_time_for_the_reminder_waiting() -> None:
    now = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)
    actions = plan_actions(
        "stop reminding me tomorrow",
        existing=[],
        now=now,
        timezone="UTC",
        dialogue_id="d",
        grace_s=60,
        pending=PendingReminder("call mum"),
    )
    assert actions.reminders == [] and actions.unreadable_time is None
