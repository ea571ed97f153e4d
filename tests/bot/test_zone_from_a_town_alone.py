"""Issue 23, the time zone from where a person lives: a town alone in a country of one zone
("Glasgow", "Manchester", "Leeds") gave none unless the country was named; a town of no one
zone ("Melbourne, Florida") gave none and said nothing; "Athens, Georgia" got the country
Georgia's crisis lines. Now the gazetteer's one country gives its one zone, the person is
told once when no zone could be read, and a US state after a town means the US."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from familiars.bot._care import countries_of
from familiars.bot._home_zone import home_zone
from familiars.config import load_settings
from familiars.memory import offline_writes
from tests.harness import console_bot

NOW = datetime(2037, 12, 7, 12, 0, tzinfo=UTC)  # the scheduler runs in real time


def _home(place: str) -> str:
    return f"The user lives in {place}."


@pytest.mark.parametrize(
    "place, zone",
    [
        ("Glasgow", "Europe/London"),
        ("Manchester", "Europe/London"),
        ("Leeds", "Europe/London"),
        ("Glasgow, Scotland", "Europe/London"),
        ("Mumbai", "Asia/Kolkata"),
        ("Lyon", "Europe/Paris"),
        ("Melbourne", "Australia/Melbourne"),
    ],
)
def test_a_town_of_one_country_of_one_zone_gives_that_zone(place: str, zone: str) -> None:
    found = home_zone([_home(place)])
    assert found is not None and found.zone == zone


@pytest.mark.parametrize("place", ["Perth", "Portland", "Halifax"])
def test_a_town_of_several_places_is_never_guessed(place: str) -> None:
    found = home_zone([_home(place)])
    assert found is not None and not found.zone and len(found.choices) > 1


@pytest.mark.parametrize("place", ["Melbourne, Florida", "Austin, Texas", "the US"])
def test_a_place_of_no_one_zone_says_how_to_set_it(place: str) -> None:
    found = home_zone([_home(place)])
    assert found is not None and not found.zone and not found.choices
    said = found.said()
    assert "couldn't tell your time zone" in said and "/timezone America/" in said, said
    assert f"({place.removeprefix('the ')})" in said, said


@pytest.mark.parametrize(
    "place, country",
    [
        ("Athens, Georgia", "US"),
        ("Savannah, Georgia", "US"),
        ("Tbilisi, Georgia", "GE"),
        ("Georgia", "GE"),
        ("Athens", "GR"),
    ],
)
def test_a_us_state_after_a_town_means_the_us(place: str, country: str) -> None:
    assert countries_of("", "", [_home(place)])[0] == country


async def test_the_person_is_told_once_that_no_zone_was_read(
    workspace: Path, real_embedder: Any
) -> None:
    settings = load_settings(workspace=workspace)
    async with console_bot(settings, [NOW], embedder=real_embedder) as bot:
        told = await bot.say("I live in Melbourne, Florida")
        again = await bot.say("remind me to call dad at 8 tomorrow")
    assert "couldn't tell your time zone from where you live (Melbourne, Florida)" in told, told
    assert "/timezone" in told and "couldn't tell" not in again, again


@pytest.mark.parametrize(
    "said, kept",
    [
        ("I live in Melbourne, Florida", "The user lives in Melbourne, Florida."),
        ("I moved to Athens, Georgia last year", "The user lives in Athens, Georgia."),
        ("I live in Leeds, near the river", "The user lives in Leeds."),
        ("I live in Leeds, Sam lives in York", "The user lives in Leeds."),
    ],
)
def test_the_offline_writer_keeps_the_region_after_the_town(said: str, kept: str) -> None:
    out = offline_writes(said, existing=[], now=NOW)
    assert kept in [w.entry.content for w in out.writes]
