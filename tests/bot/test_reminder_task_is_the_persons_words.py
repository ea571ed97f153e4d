"""The time reader reads the time only: a reminder's task keeps the person's own words
(names, abbreviations, doses, "say thanks"), and the memory writer reads the message as
it was said, not the text the time reader made of it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.bot._turn_actions import plan_actions

# Monday 7 December 2026, 10:00 in London.
NOW = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)


def _plan(text: str):  # type: ignore[no-untyped-def]
    return plan_actions(
        text, existing=[], now=NOW, timezone="Europe/London", dialogue_id="d", grace_s=3600
    )  # fmt: skip


@pytest.mark.parametrize(
    ("said", "task", "when"),
    [
        ("remind me to call Frida at 5", "call Frida", "Mon 7 Dec 17:00"),
        ("remind me to email Sundar at 5", "email Sundar", "Mon 7 Dec 17:00"),
        ("remind me to call Tomo at 5", "call Tomo", "Mon 7 Dec 17:00"),
        ("remind me to email HR at 5", "email HR", "Mon 7 Dec 17:00"),
        ("remind me to call Min at 5", "call Min", "Mon 7 Dec 17:00"),
        ("remind me to call Christian at 5", "call Christian", "Mon 7 Dec 17:00"),
        ("remind me to pay the mooring fees at 5", "pay the mooring fees", "Mon 7 Dec 17:00"),
        ("remind me to buy an emery board at 5", "buy an emery board", "Mon 7 Dec 17:00"),
        ("remind me at 6 to text Ty", "text Ty", "Mon 7 Dec 18:00"),
        ("remind me at 4 to say thanks", "say thanks", "Mon 7 Dec 16:00"),
        ("remind me at 4 to send Sam a thank you", "send Sam a thank you", "Mon 7 Dec 16:00"),
        ("remind me to say please at 5", "say please", "Mon 7 Dec 17:00"),
        ("remind me to take 2 ten mg tablets at 8", "take 2 ten mg tablets", "Mon 7 Dec 20:00"),
        ("remind me tmrw at seven thirty pls", None, "Tue 8 Dec 07:30"),
        ("remind me tomo at 5 to call mum", "call mum", "Tue 8 Dec 17:00"),
    ],
)
def test_the_task_is_the_persons_own_words(said: str, task: str | None, when: str) -> None:
    reminders = _plan(said).reminders
    assert len(reminders) == 1
    if task is not None:
        assert reminders[0].task == task
    assert reminders[0].when_text() == when


def test_the_writer_reads_the_message_as_said() -> None:
    said = "My sister is called Frida, remind me to call her at 5 please."
    actions = _plan(said)
    assert actions.writer_text in (None, said)
