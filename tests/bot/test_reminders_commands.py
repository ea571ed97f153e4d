"""``/reminders`` and ``/timezone`` through the runtime (console adapter, offline writer, a
clock the test moves): a reminder set by message belongs to the person who asked, is listed
in their time zone, moves, snoozes and cancels, and the scheduler sees each change at once
and after a restart."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from typer.testing import CliRunner

from familiars.bot._commands._reminders import parse_duration
from familiars.bot._commands._timezone import known_zone
from familiars.cli import app as cli
from familiars.config import load_settings
from tests.harness import console_bot

# Monday 11 November 2030, 15:15 in New York (EST, UTC-5); in the future, so that the exact
# jobs (APScheduler runs on the wall clock) wait.
SAID_AT = datetime(2030, 11, 11, 20, 15, tzinfo=UTC)
ZONE = "America/New_York"


async def test_set_by_message_then_list_move_snooze_and_cancel(
    workspace: Path, memory_home: str
) -> None:
    settings = load_settings(workspace=workspace)
    clock = [SAID_AT]
    async with console_bot(settings, clock) as bot:
        assert "You have not set a time zone; I use UTC" in await bot.command("/timezone")
        unknown = await bot.command("/timezone Lisbon")
        assert "I don't know the time zone 'Lisbon'" in unknown
        assert "/timezone Europe/Lisbon" in unknown
        assert "now America/New_York (it is Mon 15:15" in await bot.command(
            "/timezone america/new_york"
        )
        assert "Your time zone is America/New_York" in await bot.command("/timezone")

        await bot.say("remind me tomorrow at 9am to call mom")
        await bot.say("remind me on friday at 6pm to water the plants")
        listed = await bot.command("/reminders")
        assert "Your reminders (times in America/New_York):" in listed
        lines = listed.splitlines()
        assert lines[1].startswith("1. Tue 12 Nov 09:00 — call ") and "mom" in lines[1]
        assert lines[2].startswith("2. Fri 15 Nov 18:00 — water the plants")
        assert await bot.command("/reminders list") == listed

        # Another person sees none of them, and cannot cancel one by number or by id.
        short_id = lines[1].rsplit("#", 1)[1]
        assert "You have no reminders" in await bot.command("/reminders", user="bob")
        for ref in ("1", short_id):
            refused = await bot.command(f"/reminders cancel {ref}", user="bob")
            assert "I can't find reminder" in refused
        assert len(bot.exact_jobs()) == 2

        moved = await bot.command("/reminders move 1 tomorrow 10am")
        # The move step the words use too: it says what the reminder was (s34 fixtime).
        assert moved == "Moved: call mom, now Tue 12 Nov 10:00 (was Tue 12 Nov 09:00).", moved
        assert "isn't" not in moved
        garbled = await bot.command("/reminders move 1 when pigs fly")
        assert "I couldn't read 'when pigs fly' as a time to come" in garbled
        snoozed = await bot.command("/reminders snooze 1")
        assert "I'll remind you Tue 12 Nov 10:10 (America/New_York)" in snoozed
        cancelled = await bot.command("/reminders cancel 2")
        assert cancelled.startswith("Cancelled: water the plants (Fri 15 Nov 18:00)")

        # The scheduler saw both at once: one exact job, at the snoozed time (15:10 UTC).
        (when,) = bot.exact_jobs().values()
        assert when == datetime(2030, 11, 12, 15, 10, tzinfo=UTC)
        assert "water" not in await bot.command("/reminders")

    # After a restart the moved reminder fires once, at its new time; the cancelled never.
    clock[0] = datetime(2030, 11, 12, 15, 0, tzinfo=UTC)  # 10:00 in New York
    async with console_bot(settings, clock) as bot:
        assert bot.app.scheduler is not None
        assert list(bot.exact_jobs().values()) == [datetime(2030, 11, 12, 15, 10, tzinfo=UTC)]
        assert await bot.app.scheduler.run_due(clock[0]) == []
        for minutes in (11, 40):
            clock[0] = datetime(2030, 11, 12, 15, minutes, tzinfo=UTC)
            await bot.app.scheduler.run_due(clock[0])
        clock[0] = datetime(2030, 11, 15, 23, 5, tzinfo=UTC)  # Friday 18:05 in New York
        await bot.app.scheduler.run_due(clock[0])
        sent = bot.sent().lower()
        assert sent.count("mom") == 1 and "water" not in sent, sent


async def test_a_reminder_that_just_fired_can_be_snoozed(workspace: Path, memory_home: str) -> None:
    settings = load_settings(workspace=workspace)
    clock = [SAID_AT]
    async with console_bot(settings, clock) as bot:
        assert bot.app.scheduler is not None
        await bot.say("remind me in 5 minutes to stretch")
        clock[0] = SAID_AT + timedelta(minutes=6)
        await bot.app.scheduler.run_due(clock[0])
        listed = await bot.command("/reminders")
        assert "1. Mon 11 Nov 20:20 — stretch (sent)" in listed, listed
        assert "already sent" in await bot.command("/reminders cancel 1")
        snoozed = await bot.command("/reminders snooze 1 half an hour")
        assert "I'll remind you Mon 11 Nov 20:51 (UTC)" in snoozed, snoozed
        clock[0] = SAID_AT + timedelta(minutes=37)
        await bot.app.scheduler.run_due(clock[0])
        assert bot.sent().lower().count("stretch") == 2


async def alice_asks(workspace: Path) -> tuple[str, str]:
    """alice (in Tokyo) asks for a reminder; her user key and bob's."""
    async with console_bot(load_settings(workspace=workspace), [SAID_AT]) as bot:
        await bot.command("/timezone Asia/Tokyo")
        await bot.say("remind me tomorrow at 9am to call mom")
        assert bot.app.state is not None
        alice = await bot.app.state.person_for("console", "alice", "alice")
        bob = await bot.app.state.person_for("console", "bob", "bob")
    return alice, bob


def test_cli_lists_a_persons_reminders_by_user_key(workspace: Path) -> None:
    alice, bob = asyncio.run(alice_asks(workspace))
    runner = CliRunner()
    mine = runner.invoke(cli, ["-w", str(workspace), "reminders", "list", "-u", alice, "--json"])
    assert mine.exit_code == 0, mine.output
    (row,) = json.loads(mine.stdout)
    assert (row["status"], row["user_key"], row["due"]) == (
        "open",
        alice,
        "2030-11-13T09:00:00+09:00",
    )
    theirs = runner.invoke(cli, ["-w", str(workspace), "reminders", "list", "-u", bob, "--json"])
    assert json.loads(theirs.stdout) == []


def test_durations_and_zone_names() -> None:
    assert parse_duration("30m") == timedelta(minutes=30)
    assert parse_duration("2 hours") == timedelta(hours=2)
    assert parse_duration("in an hour") == timedelta(hours=1)
    assert parse_duration("15") == timedelta(minutes=15)
    assert parse_duration("1d") == timedelta(days=1)
    assert parse_duration("soonish") is None and parse_duration("0m") is None
    assert known_zone("Europe/Lisbon") == "Europe/Lisbon"
    assert known_zone("europe/lisbon") == "Europe/Lisbon"
    assert known_zone("Lisbon") is None and known_zone("../../etc/passwd") is None


async def test_a_move_of_time_zone_keeps_repeating_reminders_at_their_time_of_day(
    workspace: Path, memory_home: str
) -> None:
    """T19: after /timezone, "every Monday at 08:00" set in London showed 03:00 in New York
    beside its 08:00 rule. A repeating reminder keeps its time of day in the new zone (its
    job too); a one-off keeps its moment, and the reply says both."""
    settings = load_settings(workspace=workspace)
    clock = [SAID_AT]  # Monday 20:15 UTC
    async with console_bot(settings, clock) as bot:
        await bot.command("/timezone Europe/London")
        await bot.say("every monday at 8 remind me to put the bins out")
        await bot.say("remind me tomorrow at 9am to call mum")
        before = await bot.command("/reminders")
        assert "Mon 18 Nov 08:00 — put the bins out (every Monday at 08:00)" in before, before
        said = await bot.command("/timezone America/New_York")
        repeating = "put the bins out, every Monday at 08:00 (next Mon 18 Nov 08:00)"
        assert f"Repeating, same time of day here: {repeating}" in said, said
        kept = "call mum (Tue 12 Nov 09:00 in Europe/London), now Tue 12 Nov 04:00 your time"
        assert f"Kept at its moment: {kept}" in said, said
        after = await bot.command("/reminders")
        assert "Mon 18 Nov 08:00 — put the bins out (every Monday at 08:00)" in after, after
        assert "Tue 12 Nov 04:00 — call mum" in after, after
        assert datetime(2030, 11, 18, 13, 0, tzinfo=UTC) in bot.exact_jobs().values()


async def test_a_move_of_time_zone_does_not_bring_back_todays_repeat(
    workspace: Path, memory_home: str
) -> None:
    """Review of s32: "every Monday at 08:00" fired at 08:00 in London; /timezone New York an
    hour later set its next to 08:00 New York that same Monday, a second time in one day."""
    settings = load_settings(workspace=workspace)
    clock = [SAID_AT]
    async with console_bot(settings, clock) as bot:
        await bot.command("/timezone Europe/London")
        await bot.say("every monday at 8 remind me to put the bins out")
        assert bot.app.scheduler is not None
        clock[0] = datetime(2030, 11, 18, 8, 5, tzinfo=UTC)  # 08:05 in London: it fires
        await bot.app.scheduler.run_due(clock[0])
        clock[0] = datetime(2030, 11, 18, 9, 0, tzinfo=UTC)
        said = await bot.command("/timezone America/New_York")
        assert "(next Mon 25 Nov 08:00)" in said, said
        assert datetime(2030, 11, 18, 13, 0, tzinfo=UTC) not in bot.exact_jobs().values()
