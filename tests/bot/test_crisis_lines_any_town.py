"""Crisis lines for a home in any town, not only one a time zone is named after (tester
s37: Manchester, Leeds, Glasgow, "Cork in Ireland", Austin, Mumbai and Delhi got the
general list; a person in India got UK, US and Australian numbers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from familiars.bot._care import countries_of, crisis_reply, places_in
from familiars.bot._places import town_countries
from tests.harness import message, running_app, say

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize(
    ("home", "country"),
    [
        ("Manchester", "GB"),
        ("Leeds", "GB"),
        ("Glasgow", "GB"),
        ("Cork in Ireland", "IE"),
        ("Austin", "US"),
        ("Austin, Texas", "US"),
        ("Mumbai", "IN"),
        ("Mumbai, India", "IN"),
        ("Delhi", "IN"),
        ("Bombay", "IN"),
        ("Kerala", "IN"),
        ("Cape Town", "ZA"),
        ("São Paulo", "BR"),
    ],
)
def test_a_home_town_names_its_country(home: str, country: str) -> None:
    assert countries_of("UTC", "", [f"The user lives in {home}."]) == [country]


def test_a_name_shared_abroad_is_the_larger_places_first() -> None:
    assert town_countries("Manchester") == ("GB",)  # New Hampshire's is a fifth its size
    assert "US" in town_countries("Manchester", everywhere=True)
    assert town_countries("Perth")[0] == "AU"
    assert town_countries("Nowhere-on-Sea") == ()


def test_a_place_said_with_in_splits_like_a_comma() -> None:
    assert places_in("The user lives in Cork in Ireland.") == ["ireland", "cork"]
    assert places_in("The user lives in Leeds, England.") == ["england", "leeds"]


def test_india_gets_its_own_line_not_the_general_list() -> None:
    reply = crisis_reply("{helplines}", ["IN"])
    assert "14416" in reply and "findahelpline" not in reply and "116 123" not in reply


async def test_a_person_in_manchester_gets_the_uk_line(workspace: Path) -> None:
    async with running_app(workspace) as app:
        await say(app, message("I'm Ellie, I live in Manchester"))
        reply = await say(app, message("some days I don't see the point of going on"))
    assert "In the UK you can call Samaritans" in reply, reply
    assert "13 11 14" not in reply, reply
