"""``/reminders`` numbers are each reminder's own: "cancel 4" cancels the reminder listed as
4 even when others were added, snoozed or moved between the listing and the command, and a
moved (or fired, then snoozed) reminder keeps its number, across a restart too."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from familiars.config import load_settings
from tests.bot.test_reminders_commands import SAID_AT
from tests.harness import console_bot


def _numbered(listed: str) -> dict[str, str]:
    """{task words: number} of a listing."""
    out = {}
    for line in listed.splitlines()[1:-1]:
        number, rest = line.split(". ", 1)
        out[rest.split(" — ", 1)[1].split(" · ")[0]] = number
    return out


async def test_numbers_name_the_same_reminder_after_an_add_a_move_and_a_snooze(
    workspace: Path,
    memory_home: str,
) -> None:
    settings = load_settings(workspace=workspace)
    clock = [SAID_AT]
    async with console_bot(settings, clock) as bot:
        await bot.say("remind me on friday at 6pm to water the plants")
        await bot.say("remind me on thursday at 9am to pay the rent")
        await bot.say("remind me tomorrow at 9am to call the plumber")
        before = _numbered(await bot.command("/reminders"))
        # The first listing numbers them soonest first, as ever.
        assert before == {"call the plumber": "1", "pay the rent": "2", "water the plants": "3"}

        # Sooner ones come in (listed first), one is moved before the others: no number moves.
        await bot.say("remind me in 10 minutes to stretch")
        await bot.command(f"/reminders move {before['water the plants']} in 1 hour")
        await bot.command(f"/reminders snooze {before['call the plumber']} 2 hours")
        listed = await bot.command("/reminders")
        after = _numbered(listed)
        assert {k: after[k] for k in before} == before, listed
        assert after["stretch"] == "4"
        assert listed.splitlines()[1].startswith("4. "), listed  # soonest first

        cancelled = await bot.command("/reminders cancel 2")
        assert cancelled.startswith("Cancelled: pay the rent"), cancelled
        # A number just freed is not given to the next reminder.
        await bot.say("remind me in 3 hours to feed the cat")
        assert _numbered(await bot.command("/reminders"))["feed the cat"] == "5"

    async with console_bot(settings, clock) as bot:
        again = _numbered(await bot.command("/reminders"))
        assert again == {
            "call the plumber": "1",
            "water the plants": "3",
            "stretch": "4",
            "feed the cat": "5",
        }


async def test_a_fired_reminder_snoozed_keeps_its_number(workspace: Path, memory_home: str) -> None:
    settings = load_settings(workspace=workspace)
    clock = [SAID_AT]
    async with console_bot(settings, clock) as bot:
        assert bot.app.scheduler is not None
        await bot.say("remind me on friday at 6pm to water the plants")
        assert _numbered(await bot.command("/reminders")) == {"water the plants": "1"}
        await bot.say("remind me in 5 minutes to stretch")
        clock[0] = SAID_AT + timedelta(minutes=6)
        await bot.app.scheduler.run_due(clock[0])
        assert "stretch (sent)" in await bot.command("/reminders")
        await bot.command("/reminders snooze 2 30m")
        listed = await bot.command("/reminders")
        assert _numbered(listed) == {"stretch": "2", "water the plants": "1"}, listed
        assert "(sent)" not in listed
