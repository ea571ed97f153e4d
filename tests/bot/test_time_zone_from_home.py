"""Where the person lives is read as their time zone while they have set none (tester s37:
after "I live in Melbourne", "at 8 tomorrow" fired at 08:00 UTC), said once; a place of
several zones (Perth) is never picked silently; a zone the person set is never changed."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from familiars.bot._home_zone import home_zone
from familiars.config import load_settings
from tests.harness import console_bot

# A year of the same calendar as 2026, far ahead: the scheduler runs in real time and fires a
# job whose time has passed, so a reminder due on a date gone by would be gone from its jobs.
NOW = datetime(2037, 12, 7, 3, 0, tzinfo=UTC)  # Monday 14:00 in Melbourne


def test_places_and_their_zones() -> None:
    def zone(home: str) -> str | None:
        found = home_zone([f"The user lives in {home}."])
        if found is None:
            return None
        return found.zone or ("several" if found.choices else "")

    assert zone("Melbourne") == "Australia/Melbourne"
    assert zone("Leeds, England") == "Europe/London"
    assert zone("Norway") == "Europe/Oslo"
    assert zone("Perth") == zone("Halifax") == zone("Portland") == "several"
    assert zone("Perth, Scotland") == "Europe/London"
    assert zone("the US") == ""  # several zones: no guess (and told so)
    # s38: a town of one country of one zone, though no zone is named after it
    assert zone("Cardiff") == zone("Glasgow") == zone("Manchester") == "Europe/London"


async def test_a_reminder_is_read_in_the_time_of_the_home(
    workspace: Path, real_embedder: Any
) -> None:
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW], embedder=real_embedder) as bot:
        told = await bot.say("I live in Melbourne")
        set_ = await bot.say("remind me to call dad at 8 tomorrow")
        again = await bot.say("remind me to feed the cat at 6pm")
        due = list(bot.exact_jobs().values())
    assert "I'll use Melbourne time (Australia/Melbourne)" in told + set_
    assert "Melbourne time" not in again  # said once
    melbourne = ZoneInfo("Australia/Melbourne")
    assert datetime(2037, 12, 8, 8, 0, tzinfo=melbourne) in due


async def test_a_move_takes_the_zone_of_the_new_home(workspace: Path, real_embedder: Any) -> None:
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW], embedder=real_embedder) as bot:
        await bot.say("I live in Melbourne")
        moved = await bot.say("I just moved to Oslo")
        await bot.say("remind me to call dad at 8 tomorrow")
        due = list(bot.exact_jobs().values())
    assert "I'll use Oslo time (Europe/Oslo)" in moved
    assert datetime(2037, 12, 8, 8, 0, tzinfo=ZoneInfo("Europe/Oslo")) in due


async def test_forgetting_the_home_leaves_no_zone_of_it(
    workspace: Path, real_embedder: Any
) -> None:
    """The zone is read from the home each turn, never stored beside the person."""
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW], embedder=real_embedder) as bot:
        await bot.say("I live in Melbourne")
        await bot.say("remind me to call dad at 8 tomorrow")
    people = [p.read_text() for p in workspace.rglob("people/*.json")]
    assert people and not any("Melbourne" in text for text in people)


async def test_a_place_of_several_zones_is_asked_about_once(
    workspace: Path, real_embedder: Any
) -> None:
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW], embedder=real_embedder) as bot:
        first = await bot.say("I live in Perth")
        second = await bot.say("what's the weather like there")
        shown = await bot.command("/timezone")
    assert "more than one Perth" in first and "/timezone Australia/Perth" in first
    assert "more than one Perth" not in second
    assert "You have not set a time zone" in shown


async def test_a_zone_set_by_the_person_stays(workspace: Path, real_embedder: Any) -> None:
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW], embedder=real_embedder) as bot:
        await bot.command("/timezone Europe/Lisbon")
        told = await bot.say("I just moved to Oslo")
        shown = await bot.command("/timezone")
    assert "Oslo time" not in told
    assert "Europe/Lisbon" in shown


async def test_a_relative_s_home_is_no_zone_of_theirs(workspace: Path, real_embedder: Any) -> None:
    """Lead s39: "my sister Ana lives in Lisbon" was answered "I'll use Lisbon time
    (Europe/Lisbon) for your reminders" while /timezone still said UTC (and no zone followed
    it); the person's own home said later is told then."""
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW], embedder=real_embedder) as bot:
        sister = await bot.say("my sister Ana lives in Lisbon and my mum is called Teresa")
        zone = await bot.command("/timezone")
        own = await bot.say("I live in Lisbon")
    assert "your sister Ana lives in Lisbon" in sister, sister
    assert "Lisbon time" not in sister, sister
    assert "UTC" in zone, zone
    assert "I'll use Lisbon time (Europe/Lisbon)" in own, own
