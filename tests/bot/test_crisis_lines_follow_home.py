"""Crisis lines follow where the person said they live as well as their time zone and the
bot's setting (s36: a person in Dublin with a London clock was given the UK's lines; then a
person in Halifax, Yorkshire, was given only Canada's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from familiars.bot._care import countries_of
from familiars.config import load_settings
from tests.harness import message, running_app, say

pytestmark = pytest.mark.timeout(60)

WORRY = "I want to end my life"


@pytest.mark.parametrize(
    ("home", "line", "other_line"),
    [
        ("I live in Oslo", "Mental Helse", "In the UK"),
        ("I moved to Toronto, Canada last year", "In Canada", "In the UK"),
        ("I live in Lisbon", "findahelpline.com", "In the UK"),  # a country with no line here
    ],
)
async def test_the_home_adds_its_lines_to_the_time_zone_and_the_setting(
    workspace: Path, home: str, line: str, other_line: str
) -> None:
    settings = load_settings(workspace=workspace, care={"country": "GB"})
    async with running_app(settings) as app:
        assert app.dialogues is not None and app.state is not None
        await say(app, message("hello"))
        await app.state.set_timezone(await app.state.person_for("console", "u1"), "Europe/London")
        await say(app, message(home, minutes=1))
        reply = await say(app, message(WORRY, minutes=2))
    assert line in reply and other_line in reply, reply


async def test_without_a_home_the_time_zone_still_decides(workspace: Path) -> None:
    async with running_app(workspace) as app:
        assert app.state is not None
        await say(app, message("hello"))
        await app.state.set_timezone(await app.state.person_for("console", "u1"), "Europe/Oslo")
        await say(app, message("My sister lives in Madrid.", minutes=1))  # not the person's
        reply = await say(app, message(WORRY, minutes=2))
    assert "Mental Helse" in reply, reply


def test_the_place_names_a_country_or_a_zone_city() -> None:
    assert countries_of("Europe/London", "", ["The user lives in Leeds, England."]) == ["GB"]
    assert countries_of("Europe/London", "", ["The user lives in Ohio."]) == ["GB", "US"]
    assert countries_of("Europe/London", "", ["The user lives in Little Wittering."]) == ["GB"]
    assert countries_of("Europe/London", "", ["The user lives in Ireland."]) == ["IE", "GB"]
    old, new = "The user lives in Oslo.", "The user lives in Dublin."
    assert countries_of("UTC", "", [old, new]) == ["IE"]  # the newest home


@pytest.mark.parametrize(
    ("home", "abroad"),
    [("Halifax", "CA"), ("Perth", "AU"), ("Chatham", "CA"), ("Norfolk", "US")],
)
def test_a_town_named_like_a_city_abroad_keeps_the_own_countrys_lines(
    home: str, abroad: str
) -> None:
    found = countries_of("Europe/London", "", [f"The user lives in {home}."])
    assert found[0] == "GB" and abroad in found, found
    found = countries_of("UTC", "gb", [f"The user lives in {home}."])
    assert found[0] == "GB" and abroad in found, found


def test_the_owners_setting_is_never_dropped_for_a_home() -> None:
    assert countries_of("UTC", "ie", ["The user lives in France."]) == ["FR", "IE"]


async def test_in_a_group_the_crisis_reply_keeps_the_home_private(workspace: Path) -> None:
    async with running_app(workspace) as app:
        assert app.state is not None
        await say(app, message("hello"))
        await app.state.set_timezone(await app.state.person_for("console", "u1"), "Europe/Oslo")
        await say(app, message("I live in Dublin.", minutes=1))
        private = await say(app, message(WORRY, minutes=2))
        group = await say(app, message(WORRY, minutes=3, group=True, chat="g1"))
    assert "In Ireland" in private and "Mental Helse" in private, private
    assert "Ireland" not in group and "Mental Helse" in group, group
