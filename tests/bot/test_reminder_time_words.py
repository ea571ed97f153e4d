"""Ordinals in words, a repeat "every afternoon", a weekend said once, "every other" and a
fortnight, as a reminder request reads them (tester s37)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.bot._turn_actions import plan_actions
from familiars.memory import plain_time

NOW = datetime(2026, 12, 7, 14, 40, tzinfo=UTC)  # Monday


def _set(text: str) -> tuple[str, str, str | None]:
    actions = plan_actions(
        text, existing=[], now=NOW, timezone="UTC", dialogue_id=None, grace_s=6 * 3600.0
    )
    assert actions.reminders, actions
    r = actions.reminders[0]
    return r.task, f"{r.due:%Y-%m-%d %H:%M}", r.rule or None


@pytest.mark.parametrize(
    ("said", "task", "due", "rule"),
    [
        ("remind me to pay rent on the twenty-first", "pay rent", "2026-12-21 09:00", None),
        ("remind me to call mum the third of March at 10", "call mum", "2027-03-03 10:00", None),
        ("remind me to call mum on March the third", "call mum", "2027-03-03 09:00", None),
        (
            "remind me every afternoon at 3 to walk the dog",
            "walk the dog",
            "2026-12-07 15:00",
            "every day at 15:00",
        ),
        (
            "remind me to call gran at 4 every afternoon",
            "call gran",
            "2026-12-07 16:00",
            "every day at 16:00",
        ),
        (
            "remind me to water the plants every other Tuesday",
            "water the plants",
            "2026-12-08 09:00",
            "every 2 weeks on Tuesday at 09:00",
        ),
        ("remind me to renew my passport in a fortnight", "renew your passport",
         "2026-12-21 14:40", None),
        ("remind me to clean the garage next weekend", "clean the garage", "2026-12-12 09:00",
         None),
        ("remind me to clean the garage at the weekend", "clean the garage", "2026-12-12 09:00",
         None),
        ("remind me this weekend to clean the car", "clean the car", "2026-12-12 09:00", None),
        ("remind me to call Bob after the weekend", "call Bob", "2026-12-14 09:00", None),
        ("remind me to call Bob before the weekend", "call Bob", "2026-12-11 09:00", None),
        ("remind me by the weekend to book the vet", "book the vet", "2026-12-11 09:00", None),
    ],
)  # fmt: skip
def test_the_time_is_read(said: str, task: str, due: str, rule: str | None) -> None:
    assert _set(said) == (task, due, rule)


@pytest.mark.parametrize(
    "said",
    ["the second time", "every second Thursday", "on the first day back", "my third attempt",
     "every weekend", "call Bob for the weekend", "until the weekend"],
)  # fmt: skip
def test_ordinals_and_weekends_that_are_no_date_stay(said: str) -> None:
    assert plain_time(said) == said
