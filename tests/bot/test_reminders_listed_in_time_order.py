"""Tester s37: "anything on this week?" listed a day's reminders out of order ("call the
vet ... 16:00 (UTC)" before "take your meds ... 07:30 (UTC)"): they were sorted by day only,
and "what are my plans?" by the text of their times, so one set in Denver came before one
in UTC hours ahead of it. Every listing is in time order, in the person's own zone, and the
numbers of /reminders still name the same reminder in the next command. After /timezone a
one-off kept at its moment says its time in the person's new zone ("your time")."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from familiars.config import load_settings
from tests.harness import console_bot

pytestmark = pytest.mark.timeout(180)

NOW = datetime(
    2037, 12, 7, 17, 50, tzinfo=UTC
)  # Mon 7 Dec (2026's calendar; the scheduler runs in real time)


def _tasks(reply: str, tasks: tuple[str, ...]) -> list[str]:
    """The tasks named in ``reply``, in the order of its lines."""
    return [t for line in reply.splitlines() for t in tasks if t in line]


async def test_every_listing_is_in_time_order_in_the_persons_zone(workspace: Path) -> None:
    async with console_bot(load_settings(workspace=workspace), [NOW]) as bot:
        await bot.say("remind me on thursday at 4pm to call the vet")
        await bot.say("remind me on thursday at 7:30am to take your meds")
        await bot.say("remind me on wednesday at 9am to pay rent")
        tasks = ("pay rent", "take your meds", "call the vet")
        on = await bot.say("anything on this week?")
        assert _tasks(on, tasks) == list(tasks), on

        changed = await bot.command("/timezone America/Denver")
        kept = "pay rent (Wed 9 Dec 09:00 in UTC), now Wed 9 Dec 02:00 your time"
        assert f"Kept at its moment: {kept}" in changed, changed
        await bot.say("remind me on thursday at 6am to walk the dog")
        tasks = ("pay rent", "take your meds", "walk the dog", "call the vet")
        for asked in ("anything on this week?", "what are my plans?"):
            on = await bot.say(asked)
            assert _tasks(on, tasks) == list(tasks), (asked, on)
            assert "(UTC)" not in on and "at 09:00 (America/Denver)" in on, (asked, on)

        listed = await bot.command("/reminders")
        assert _tasks(listed, tasks) == list(tasks), listed
        assert await bot.say("what reminders do I have?") == listed
        number = next(line for line in listed.splitlines() if "call the vet" in line)[0]
        cancelled = await bot.command(f"/reminders cancel {number}")
        assert cancelled.startswith("Cancelled: call the vet (Thu 10 Dec 09:00"), cancelled
