"""A model that asks for more reminders in one turn than a turn sets: the person is told how
many were set and that the rest were not (s36: 40 asked for, 5 kept, nothing said; the model
claimed all 40)."""

from __future__ import annotations

from pathlib import Path

import pytest

from familiars.bot._turn_tools import MAX_REMINDERS
from tests.bot.test_turn_tools import running
from tests.bot.tool_script import call
from tests.fake_openai import Reply

pytestmark = pytest.mark.timeout(60)


def _asks(n: int) -> Reply:
    return call(*[("set_reminder", {"task": f"drink glass {i}", "when": "tomorrow at 9am"})
                  for i in range(n)])  # fmt: skip


@pytest.mark.parametrize(("asked", "max_calls"), [(40, 16), (7, 16), (3, 2)])
async def test_reminders_not_set_are_said_with_how_many_were(
    workspace: Path, asked: int, max_calls: int
) -> None:
    async with running(workspace, max_tool_calls=max_calls) as bot:
        bot.script.turn(_asks(asked), Reply.text(f"All {asked} reminders are set!"))
        said = await bot.say("remind me to drink water every hour tomorrow")
        kept = [r for r in await bot.records(scope="dialogue") if "reminder" in r.tags]
    set_ = min(asked, MAX_REMINDERS, max_calls)
    assert len(kept) == set_
    assert f"(I set {set_} reminders; {asked - set_} more were not set:" in said, said


async def test_within_the_cap_nothing_more_is_said(workspace: Path) -> None:
    async with running(workspace) as bot:
        bot.script.turn(_asks(2), Reply.text("Both set."))
        said = await bot.say("remind me twice")
    assert "were not set" not in said, said
