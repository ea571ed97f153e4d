"""Session 35 tester finding U12: a time said apart from a repeating rule's words (after the
task, or before "every ...") is the rule's time, never part of the task."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest

from familiars.memory._offline._every import find_every

LONDON = ZoneInfo("Europe/London")

CASES = [
    # (what was said, the rule's time, what is left)
    ("remind me every other friday to mow the lawn at 5pm", "17:00", "remind me to mow the lawn"),
    ("remind me to water the plants every monday at 8", "08:00", "remind me to water the plants"),
    ("every day at 7.30 remind me to stretch", "07:30", "remind me to stretch"),
    ("remind me at 6pm every weekday to log off", "18:00", "remind me to log off"),
    ("remind me at 6pm, every weekday, to log off", "18:00", "remind me to log off"),
    ("every monday remind me at 8 to water the plants", "08:00", "remind me to water the plants"),
    ("remind me every friday to call mum at 5:30 p.m.", "17:30", "remind me to call mum"),
    ("remind me every month to pay the rent at 6pm", "18:00", "remind me to pay the rent"),
    ("remind me every day to read 2 pages", "09:00", "remind me to read 2 pages"),
]


@pytest.mark.parametrize(("said", "at", "rest"), CASES)
def test_a_time_apart_from_the_rule_is_the_rules(said: str, at: str, rest: str) -> None:
    found = find_every(said, LONDON)
    assert found is not None, said
    assert found[0]["at"] == at and found[1] == rest, found


def test_every_other_friday_at_5pm_is_a_fortnightly_friday_rule() -> None:
    found = find_every("remind me every other friday to mow the lawn at 5pm", LONDON)
    assert found is not None
    rule = found[0]
    assert (rule["unit"], rule["weekday"], rule["interval"]) == ("week", 4, 2)
