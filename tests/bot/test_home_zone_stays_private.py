"""A home said in a direct chat is private: its zone is never used in a group (reviewer
s37: after "I live in Melbourne" alone, a crisis reply in a group named Australia's line and
a reminder set there was stored as "(Australia/Melbourne)"), and a home said in a group
changes no zone unsaid."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from familiars.bot import _home_zone
from familiars.bot._care import homes_of
from familiars.bot._home_zone import home_zone
from familiars.bot._proactive import StateDirectory
from familiars.config import load_settings
from familiars.memory import make_record
from tests.harness import ConsoleBot, console_bot, invocation, message, say

# A year of the same calendar as 2026, far ahead: the scheduler runs in real time and fires a
# job whose time has passed, so a reminder due on a date gone by would be gone from its jobs.
NOW = datetime(2037, 12, 7, 3, 0, tzinfo=UTC)
WORRY = "I want to end my life"


async def _in_group(bot: ConsoleBot, text: str) -> str:
    said = message(text, chat="g1", group=True, user="alice", name="alice", at=bot.clock[0])
    return await say(bot.app, said)


async def test_a_private_home_gives_no_zone_in_a_group(workspace: Path, real_embedder: Any) -> None:
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW], embedder=real_embedder) as bot:
        await bot.say("I live in Melbourne")
        await _in_group(bot, "remind me to call dad at 8 tomorrow")
        due = list(bot.exact_jobs().values())
        assert bot.app.state is not None and bot.app.memory is not None
        seen = StateDirectory(bot.app.state, bot.app.memory.store, "UTC")
        zones = {d.is_group: d.timezone for d in await seen.active_dialogues(NOW)}
        worry = await _in_group(bot, WORRY)
        assert bot.app.memory is not None
        kept = [r.content for r in await bot.app.memory.store.list(scope="dialogue")]
    assert datetime(2037, 12, 8, 8, 0, tzinfo=UTC) in due, due
    assert not any("Melbourne" in c for c in kept), kept
    assert zones == {False: "Australia/Melbourne", True: "UTC"}, zones
    assert "In Australia" not in worry, worry  # the generic lines only


async def test_a_home_said_in_a_group_moves_no_reminder(
    workspace: Path, real_embedder: Any
) -> None:
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW], embedder=real_embedder) as bot:
        said = await _in_group(bot, "I live in Oslo. Remind me to stretch tomorrow at 9")
        due = list(bot.exact_jobs().values())
    assert "Oslo time" not in said, said
    assert datetime(2037, 12, 8, 9, 0, tzinfo=ZoneInfo("Europe/Oslo")) not in due, due


async def test_a_turn_reads_the_home_off_its_records_once(
    workspace: Path, real_embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The home's zone is worked out once a turn (it was five times: each a pass over all
    the person's records), and every later stage reads that one answer."""
    passes: list[int] = []

    def counted(records: Any) -> list[str]:
        passes.append(len(records))
        import traceback

        traceback.print_stack(limit=6)
        return homes_of(records)

    monkeypatch.setattr(_home_zone, "homes_of", counted)
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW], embedder=real_embedder) as bot:
        await bot.say("I live in Melbourne")
        passes.clear()
        await bot.say("remind me to call dad at 8 tomorrow")
        due = list(bot.exact_jobs().values())
    assert len(passes) == 1, passes
    assert datetime(2037, 12, 8, 8, 0, tzinfo=ZoneInfo("Australia/Melbourne")) in due


async def test_the_scheduler_keeps_each_persons_zone_until_their_records_change(
    workspace: Path, real_embedder: Any
) -> None:
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW], embedder=real_embedder) as bot:
        await bot.say("hello")
        assert bot.app.state is not None and bot.app.memory is not None
        store = bot.app.memory.store
        reads: list[int] = []
        read_live = store.read_live

        async def counted(*queries: Any, **kw: Any) -> Any:
            reads.append(1)
            return await read_live(*queries, **kw)

        seen = StateDirectory(bot.app.state, store, "UTC")
        store.read_live = counted  # type: ignore[method-assign]
        first = await seen.active_dialogues(NOW)
        again = await seen.active_dialogues(NOW)
        assert len(reads) == 1 and [d.timezone for d in first + again] == ["UTC", "UTC"]
        user_key = first[0].user_key
        await store.append(
            make_record(
                "The user lives in Oslo.",
                scope="user",
                category="profile",
                tags=["home"],
                user_key=user_key,
            )
        )
        moved = await seen.active_dialogues(NOW)
    assert len(reads) == 2 and moved[0].timezone == "Europe/Oslo"


@pytest.mark.parametrize(
    ("home", "zone"),
    [
        ("Melbourne, Florida", None),  # not Australia's
        ("Davis, California", None),  # not Antarctica's
        ("Athens, Georgia", None),  # not Greece's, and which Georgia is unsure
        ("the U.K.", "Europe/London"),
        ("Melbourne", "Australia/Melbourne"),  # the likeliest Melbourne is Australia's
        ("Perth, Scotland", "Europe/London"),
        ("Toronto, Canada", "America/Toronto"),
    ],
)
def test_a_zone_city_counts_only_in_the_country_the_home_names(home: str, zone: str | None) -> None:
    found = home_zone([f"The user lives in {home}."])
    assert ((found.zone if found is not None else None) or None) == zone, found


async def test_commands_in_a_group_show_no_zone_from_a_private_home(
    workspace: Path, real_embedder: Any
) -> None:
    """``/reminders`` and ``/timezone`` asked in a group answer the room: a home said in a
    direct chat gives them no zone (they said "times in Australia/Melbourne" there)."""
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW], embedder=real_embedder) as bot:
        await bot.say("I live in Melbourne")
        await bot.say("remind me to call mum tomorrow at 8")
        assert bot.app.dialogues is not None
        said = {}
        for name in ("reminders", "timezone"):
            asked = invocation(name, chat="g1", user="alice", name="alice", group=True, at=NOW)
            said[name] = (await bot.app.dialogues.command(asked)).text
        alone = await bot.command("/reminders")
    assert "Melbourne" in alone, alone  # in the direct chat the home's zone still holds
    for name, text in said.items():
        assert "Melbourne" not in text, (name, text)
