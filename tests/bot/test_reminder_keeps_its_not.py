"""Tester s39: "remind me on the 14th of December at 6pm not to eat after midnight" was
refused ("couldn't read a time") and the refusal said "Try: remind me to eat after
midnight": the "not" was read as the time's last word, and the task lost it. A task said
"not to", "never to" or "don't" keeps its "not"; a refusal says the task as it was meant."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.bot import Application
from familiars.memory import as_remind_me
from tests.harness import say, speaker

T0 = datetime(2037, 12, 7, 10, 0, tzinfo=UTC)  # 2037: the scheduler fires in real time
msg = speaker(platform="console", chat="console-harold", user="harold", name="Harold", at=T0)


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        (
            "remind me on the 14th of December at 6pm not to eat after midnight",
            "remind me on the 14th of December at 6pm to not eat after midnight",
        ),
        ("remind me never to text him on friday", "remind me to never text him on friday"),
        ("remind me at 8 don't eat after midnight", "remind me at 8 to not eat after midnight"),
        ("remind me to tell Jo not to come", "remind me to tell Jo not to come"),
        ("remind me at quarter to 5 to call mum", "remind me at quarter to 5 to call mum"),
    ],
)  # fmt: skip
def test_the_not_is_said_with_the_task(said: str, meant: str) -> None:
    assert as_remind_me(said) == meant


async def test_a_date_and_time_given_are_taken_and_the_not_kept(app: Application) -> None:
    said = "remind me on the 14th of December at 6pm not to eat after midnight"
    first = await say(app, msg(said))
    assert "remind you to not eat after midnight on Mon 14 Dec 18:00" in first
    second = await say(app, msg("remind me tomorrow at 9 never to skip my tablets", 1))
    assert "remind you to never skip your tablets on Tue 8 Dec 09:00" in second
    third = await say(app, msg("remind me not to eat after midnight on friday at 6pm", 2))
    assert "remind you to not eat after midnight on Fri 11 Dec 18:00" in third


async def test_a_refusal_never_drops_the_not(app: Application) -> None:
    for i, said in enumerate(
        [
            "remind me at 25:99 not to eat after midnight",
            "remind me the day before the scan to not eat after midnight",
        ]
    ):
        reply = await say(app, msg(said, i))
        assert "no reminder is set to not eat after midnight" in reply, reply
        assert "remind me to eat" not in reply
