"""Crisis lines follow where the person said they live before their time zone or the bot's
setting (s36: a person in Dublin with a London clock was given the UK's lines)."""

from __future__ import annotations

from pathlib import Path

import pytest

from familiars.bot._care import country_of
from familiars.config import load_settings
from tests.harness import message, running_app, say

pytestmark = pytest.mark.timeout(60)

WORRY = "I want to end my life"


@pytest.mark.parametrize(
    ("home", "line", "not_line"),
    [
        ("I live in Oslo", "Mental Helse", "Samaritans"),
        ("I moved to Toronto, Canada last year", "988", "Samaritans"),
        ("I live in Lisbon", "findahelpline.com", "In the UK"),  # a country with no line here
    ],
)
async def test_the_home_wins_over_the_time_zone_and_the_setting(
    workspace: Path, home: str, line: str, not_line: str
) -> None:
    settings = load_settings(workspace=workspace, care={"country": "GB"})
    async with running_app(settings) as app:
        assert app.dialogues is not None and app.state is not None
        await say(app, message("hello"))
        await app.state.set_timezone(await app.state.person_for("console", "u1"), "Europe/London")
        await say(app, message(home, minutes=1))
        reply = await say(app, message(WORRY, minutes=2))
    assert line in reply and not_line not in reply, reply


async def test_without_a_home_the_time_zone_still_decides(workspace: Path) -> None:
    async with running_app(workspace) as app:
        assert app.state is not None
        await say(app, message("hello"))
        await app.state.set_timezone(await app.state.person_for("console", "u1"), "Europe/Oslo")
        await say(app, message("My sister lives in Madrid.", minutes=1))  # not the person's
        reply = await say(app, message(WORRY, minutes=2))
    assert "Mental Helse" in reply, reply


def test_the_place_names_a_country_or_a_zone_city() -> None:
    assert country_of("Europe/London", "", ["The user lives in Leeds, England."]) == "GB"
    assert country_of("Europe/London", "", ["The user lives in Ohio."]) == "US"
    assert country_of("Europe/London", "", ["The user lives in Springfield."]) == "GB"
    old, new = "The user lives in Oslo.", "The user lives in Dublin."
    assert country_of("UTC", "", [old, new]) == "IE"  # the newest home
