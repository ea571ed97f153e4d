"""A change of plan takes the place of the plan it changes: the plan kept for the same day or
month, though more was kept since (s36: "we're going to Rome in June", then "scratch that,
we're going to Lisbon in June" left Rome live, and both were named); "change of plan" however
long ago the plan was said, "scratch that" within minutes (a record's time is the wall
clock's, so these messages are said now)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.harness import message, running_app, say

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize(
    ("change", "later"),
    [
        ("scratch that, we're going to Lisbon in June", 0),
        ("Change of plan: we're going to Lisbon in June", 0),
        ("ok plans changed, we're going to Lisbon in June", 60 * 24 * 20),
    ],
)
async def test_the_changed_plan_supersedes_the_plan_of_that_month(
    workspace: Path, change: str, later: int
) -> None:
    async with running_app(workspace) as app:
        assert app.memory is not None
        now = datetime.now(UTC)
        await say(app, message("we're going to Rome in June", at=now))
        await say(app, message("we're going to Oslo in August", at=now))
        await say(app, message("I love jazz", at=now))  # kept since: no longer the last
        await say(app, message(change, at=now, minutes=later + 1))
        answer = await say(app, message("where are we going in June?", at=now, minutes=later + 2))
        records = await app.memory.store.list(scope="user", live_only=False)
    live = {r.content for r in records if not r.deprecated}
    assert any("Lisbon" in c for c in live) and not any("Rome" in c for c in live), live
    assert any("Oslo" in c for c in live)  # another month's plan stays
    [lisbon] = [r for r in records if "Lisbon" in r.content]
    assert lisbon.supersedes and "Rome" in next(
        r.content for r in records if r.id == lisbon.supersedes
    )
    assert "Lisbon" in answer and "Rome" not in answer, answer


async def test_a_second_plan_said_plainly_is_kept_beside_the_first(workspace: Path) -> None:
    """No change said: two trips in June may both hold."""
    async with running_app(workspace) as app:
        assert app.memory is not None
        await say(app, message("we're going to Rome in June"))
        await say(app, message("we're going to Lisbon in June", minutes=1))
        live = [r.content for r in await app.memory.store.list(scope="user")]
    assert any("Rome" in c for c in live) and any("Lisbon" in c for c in live), live


async def test_a_change_of_plan_replaces_the_plan_of_its_kind(workspace: Path) -> None:
    """s36 review: "change of plan, Lisbon in June" superseded the newer "new job in June"
    and left the Rome trip live."""
    async with running_app(workspace) as app:
        assert app.memory is not None
        await say(app, message("We're going to Rome in June."))
        await say(app, message("I'm starting a new job in June.", minutes=1))
        reply = await say(
            app, message("Change of plan, we're flying to Lisbon in June.", minutes=2)
        )
        records = await app.memory.store.list(scope="user", live_only=False)
    live = {r.content for r in records if not r.deprecated}
    assert any("job" in c for c in live) and any("Lisbon" in c for c in live), live
    assert not any("Rome" in c for c in live), live
    assert "was starting" not in reply, reply


async def test_a_change_of_plan_of_no_kind_kept_replaces_nothing(workspace: Path) -> None:
    async with running_app(workspace) as app:
        assert app.memory is not None
        await say(app, message("We're going to Rome in June."))
        reply = await say(
            app, message("Change of plan, I'm starting a new job in June.", minutes=1)
        )
        live = [r.content for r in await app.memory.store.list(scope="user")]
    assert any("Rome" in c for c in live) and any("job" in c for c in live), live
    assert "Updated" not in reply, reply
