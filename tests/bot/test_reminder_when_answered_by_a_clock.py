"""Session 32 tester finding T5 (hfix2): a bare clock time answers "When should I remind
you ...?" ("at 9am", "9am", "9:30", "the 1st at 9am")."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.bot._turn_actions import PendingReminder, plan_actions

# Monday 7 December 2026, 10:00 in London.
NOW = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)


def _plan(text: str, pending: PendingReminder | None = None):  # type: ignore[no-untyped-def]
    return plan_actions(
        text, existing=[], now=NOW, timezone="Europe/London", dialogue_id="d", grace_s=3600,
        pending=pending,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("answer", "when"),
    [
        ("at 9am", "Tue 8 Dec 09:00"),
        ("9am", "Tue 8 Dec 09:00"),
        ("9:30pm", "Mon 7 Dec 21:30"),
        ("at 9 a.m.", "Tue 8 Dec 09:00"),
        ("on the 1st at 9am", "Fri 1 Jan 2027 09:00"),
        ("tomorrow at 6pm", "Tue 8 Dec 18:00"),
    ],
)
def test_a_clock_time_answers_when_to_remind(answer: str, when: str) -> None:
    asked = _plan("remind me to take the bins out")
    assert asked.ask_when == PendingReminder("take the bins out")
    done = _plan(answer, pending=asked.ask_when)
    assert [(r.task, r.when_text()) for r in done.reminders] == [("take the bins out", when)]


def test_a_message_with_no_time_still_is_not_the_answer() -> None:
    asked = _plan("remind me to take the bins out")
    assert _plan("I had a good day", pending=asked.ask_when).reminders == []
