"""Session 33 (fixb), tester T32: a reminder sent late says when it was due; it says the bot
was offline only when it was (the process started after the reminder was due)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from familiars.scheduler import decide
from tests.scheduler.test_decider import NOON, POLICY, loop, state


def test_a_reminder_sent_late_after_a_restart_says_the_bot_was_offline() -> None:
    due = NOON - timedelta(seconds=90)
    policy = replace(POLICY, started_at=NOON - timedelta(seconds=30))
    d = decide(NOON, state(loops=(loop("reminder", due),)), policy)
    assert d.send and d.kind == "reminder"
    assert d.text == f"⏰ Reminder: call mom (due {due:%H:%M}, I was offline)"


def test_a_reminder_late_while_the_bot_was_up_gives_no_cause() -> None:
    """Review s33 #8: a reminder written by the queued writer goes out on the next 60 s tick,
    late while the bot was up all along: "I was offline" was not true."""
    due = NOON - timedelta(seconds=90)
    for started in (NOON - timedelta(hours=1), None):  # up before it was due; not known
        policy = replace(POLICY, started_at=started)
        d = decide(NOON, state(loops=(loop("reminder", due),)), policy)
        assert d.text == f"⏰ Reminder: call mom (due {due:%H:%M})", started


def test_a_reminder_sent_on_time_says_nothing_more() -> None:
    d = decide(NOON, state(loops=(loop("reminder", NOON - timedelta(seconds=5)),)), POLICY)
    assert d.text == "⏰ Reminder: call mom"
