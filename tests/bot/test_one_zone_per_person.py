"""One zone per person on every road: once where they live gives their time zone (they set
none), ``/timezone``, ``/reminders`` (list, move, snooze), the moves and listings in words and
the reminder that fires all say that zone, as the chat does (tester s37: the chat confirmed
"08:00" Melbourne time, ``/reminders`` listed "21:00 (UTC)" and ``/timezone`` said "I use
UTC"). Repeating reminders set before the home was said follow its zone, as they follow a
zone set with ``/timezone``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from familiars.config import load_settings
from tests.harness import console_bot

pytestmark = pytest.mark.timeout(180)

# A year of the same calendar as 2026, far ahead: the scheduler runs in real time and fires a
# job whose time has passed, so a reminder due on a date gone by would be gone from its jobs.
NOW = datetime(2037, 12, 7, 3, 0, tzinfo=UTC)  # Monday 14:00 in Melbourne
MELBOURNE = ZoneInfo("Australia/Melbourne")


async def test_timezone_says_the_zone_read_from_the_home(
    workspace: Path, real_embedder: Any
) -> None:
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW], embedder=real_embedder) as bot:
        await bot.say("I live in Melbourne")
        shown = await bot.command("/timezone")
    assert "I use Australia/Melbourne, from where you live (Melbourne)" in shown
    assert "Mon 14:00" in shown and "/timezone <zone> to set one" in shown
    assert "UTC" not in shown


async def test_reminders_are_listed_moved_and_snoozed_in_the_home_zone(
    workspace: Path, real_embedder: Any
) -> None:
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW], embedder=real_embedder) as bot:
        await bot.say("I live in Melbourne")
        set_ = await bot.say("remind me to call dad at 8 tomorrow")
        listed = await bot.command("/reminders")
        in_words = await bot.say("what reminders do I have")
        moved = await bot.command("/reminders move 1 9am")
        snoozed = await bot.command("/reminders snooze 1 30m")
        said_move = await bot.say("move the call dad reminder to 10am")
        again = await bot.command("/reminders")
        due = list(bot.exact_jobs().values())
    assert "08:00" in set_
    assert "times in Australia/Melbourne" in listed and "Tue 8 Dec 08:00" in listed
    assert "08:00" in in_words and "UTC" not in in_words
    assert "now Tue 8 Dec 09:00 (was Tue 8 Dec 08:00)" in moved
    assert "Tue 8 Dec 09:30 (Australia/Melbourne)" in snoozed
    assert "10:00" in said_move and "UTC" not in said_move
    assert "Tue 8 Dec 10:00" in again
    assert datetime(2037, 12, 8, 10, 0, tzinfo=MELBOURNE) in due


async def test_a_reminder_fires_in_the_words_of_the_home_zone(
    workspace: Path, real_embedder: Any
) -> None:
    """The reminder's own text (late: "due 08:00") and the quiet hours read the zone the
    scheduler is given for the dialogue: the home's, as the chat's."""
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW], embedder=real_embedder) as bot:
        await bot.say("I live in Melbourne")
        assert bot.app.scheduler is not None and bot.app.scheduler.dialogues is not None
        dialogues = await bot.app.scheduler.dialogues.active_dialogues(NOW)
    assert [d.timezone for d in dialogues if d.user_key] == ["Australia/Melbourne"]


async def test_repeating_reminders_follow_the_zone_of_the_home(
    workspace: Path, real_embedder: Any
) -> None:
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW], embedder=real_embedder) as bot:
        await bot.say("remind me to water the plants every Monday at 8")
        told = await bot.say("I live in Melbourne")
        listed = await bot.command("/reminders")
        due = list(bot.exact_jobs().values())
    assert "I'll use Melbourne time (Australia/Melbourne)" in told
    assert "repeating reminders keep their time of day there: water the plants" in told
    assert "Mon 14 Dec 08:00" in told and "Mon 14 Dec 08:00" in listed
    assert datetime(2037, 12, 14, 8, 0, tzinfo=MELBOURNE) in due


async def test_forgetting_the_home_takes_its_zone_off_the_repeating_reminders(
    workspace: Path, real_embedder: Any
) -> None:
    """Forgetting the home takes its zone away: the repeating reminders that followed it
    follow the zone left (here UTC), keeping their time of day, as ``/timezone`` makes them;
    no listing, rule or file keeps the forgotten city's zone (tester s37: "every Monday at
    08:00 Australia/Melbourne time" stayed in /reminders and on disk)."""
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW], embedder=real_embedder) as bot:
        await bot.say("remind me to water the plants every Monday at 8")
        told = await bot.say("I live in Melbourne")
        await bot.say("forget where I live")
        await bot.say("yes")
        listed = await bot.command("/reminders")
        due = list(bot.exact_jobs().values())
        naming = _files_naming(workspace, b"Melbourne")  # while it runs: its WAL too
    assert "Australia/Melbourne" in told  # it did follow the home first
    assert "times in UTC" in listed
    assert "Mon 14 Dec 08:00 — water the plants (every Monday at 08:00)" in listed
    assert "Melbourne" not in listed
    assert datetime(2037, 12, 14, 8, 0, tzinfo=UTC) in due
    assert naming == []
    assert _files_naming(workspace, b"Melbourne") == []


async def test_forgetting_the_home_takes_its_zone_off_a_one_off_reminder(
    workspace: Path, real_embedder: Any
) -> None:
    """A one-off set while the home gave the zone is said again in the zone left, at the
    same moment: its text named the forgotten city's zone ("... at 08:00
    (Australia/Melbourne)") in the memory file, its history and the index."""
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW], embedder=real_embedder) as bot:
        await bot.say("I live in Melbourne")
        await bot.say("remind me to call mum tomorrow at 8")
        before = list(bot.exact_jobs().values())
        await bot.say("forget where I live")
        await bot.say("yes")
        listed = await bot.command("/reminders")
        due = list(bot.exact_jobs().values())
        naming = _files_naming(workspace, b"Melbourne")  # while it runs: its WAL too
    moment = datetime(2037, 12, 8, 8, 0, tzinfo=MELBOURNE)
    assert before == [moment], before
    assert due == [moment], due
    assert "Mon 7 Dec 21:00 — call mum" in listed, listed
    assert "Melbourne" not in listed
    assert naming == []
    assert _files_naming(workspace, b"Melbourne") == []


async def test_forgetting_the_home_takes_its_zone_off_a_fired_occurrence(
    workspace: Path, real_embedder: Any
) -> None:
    """A repeating reminder's occurrence that fired in the home's zone keeps a sent record
    for a day; its text named the zone, and is said again in the zone left (not sent again)."""
    settings = load_settings(workspace=workspace)
    clock = [NOW]
    async with console_bot(settings, clock, embedder=real_embedder) as bot:
        await bot.say("I live in Melbourne")
        await bot.say("remind me to stretch every day at 15")
        assert bot.app.scheduler is not None
        clock[0] = datetime(2037, 12, 7, 4, 1, tzinfo=UTC)  # 15:01 in Melbourne
        await bot.app.scheduler.run_due(clock[0])
        fired = bot.sent().lower().count("stretch")
        await bot.say("forget where I live")
        await bot.say("yes")
        await bot.app.scheduler.run_due(clock[0] + timedelta(minutes=1))
        again = bot.sent().lower().count("stretch")
        naming = _files_naming(workspace, b"Melbourne")
    assert naming == []
    assert again == fired, bot.sent()


def _files_naming(workspace: Path, word: bytes) -> list[str]:
    """The workspace's files that hold ``word`` (the model's own files aside)."""
    return [
        str(path.relative_to(workspace))
        for path in sorted(workspace.rglob("*"))
        if path.is_file()
        and "models" not in path.relative_to(workspace).parts
        and word.lower() in path.read_bytes().lower()
    ]


async def test_a_reminder_said_with_the_home_is_in_the_home_zone(
    workspace: Path, real_embedder: Any
) -> None:
    """The home and the reminder in one message: the reminder's 9 is the home's 9 (the zone
    note's follow came before the reminder was stored, and it stayed at 09:00 UTC)."""
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW], embedder=real_embedder) as bot:
        said = await bot.say("I live in Oslo. Remind me to stretch every Tuesday at 9")
        listed = await bot.command("/reminders")
        due = list(bot.exact_jobs().values())
    assert "I'll use Oslo time (Europe/Oslo)" in said and "Tue 8 Dec 09:00" in said
    assert "Tue 8 Dec 09:00 — stretch (every Tuesday at 09:00)" in listed
    assert datetime(2037, 12, 8, 9, 0, tzinfo=ZoneInfo("Europe/Oslo")) in due


async def test_a_home_said_again_after_its_forget_is_followed_again(
    workspace: Path, real_embedder: Any
) -> None:
    """The zone note was said once per person and zone: after the home's forget, saying it
    again left the repeating reminders in UTC."""
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW], embedder=real_embedder) as bot:
        await bot.say("remind me to water the plants every Monday at 8")
        await bot.say("I live in Melbourne")
        await bot.say("forget where I live")
        await bot.say("yes")
        again = await bot.say("I live in Melbourne")
        listed = await bot.command("/reminders")
    assert "I'll use Melbourne time (Australia/Melbourne)" in again
    assert "Mon 14 Dec 08:00 — water the plants (every Monday at 08:00)" in listed
