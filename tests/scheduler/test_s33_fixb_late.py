"""Session 33 (fixb), tester T32: a reminder sent late because the bot was down says so."""

from __future__ import annotations

from datetime import timedelta

from familiars.scheduler import decide
from tests.scheduler.test_decider import NOON, POLICY, loop, state


def test_a_reminder_sent_late_says_when_it_was_due() -> None:
    due = NOON - timedelta(seconds=90)
    d = decide(NOON, state(loops=(loop("reminder", due),)), POLICY)
    assert d.send and d.kind == "reminder"
    assert d.text == f"⏰ Reminder: call mom (due {due:%H:%M}, I was offline)"


def test_a_reminder_sent_on_time_says_nothing_more() -> None:
    d = decide(NOON, state(loops=(loop("reminder", NOON - timedelta(seconds=5)),)), POLICY)
    assert d.text == "⏰ Reminder: call mom"
