"""Session 34 tester finding (fixrem 4): ``/timezone pst`` was refused ("I don't know the
time zone"), and "est" set the tz database's fixed EST (no summer time). A short name sets a
zone that keeps summer time and the reply says which; "IST" says which of its places it took
and how to pick another. ``/forget`` is a command (it said "Unknown command")."""

from __future__ import annotations

from datetime import datetime
from functools import partial
from zoneinfo import ZoneInfo

import pytest

from familiars.bot import Application
from familiars.bot._commands._timezone import abbreviated_zone
from tests.harness import invocation

_cmd = partial(invocation, platform="console", chat="console-sam", user="sam", name="Sam")


async def _command(app: Application, name: str, *args: str) -> str:
    assert app.dialogues is not None
    return (await app.dialogues.command(_cmd(name, *args))).text


@pytest.mark.parametrize(
    ("short", "zone", "read"),
    [
        ("pst", "America/Los_Angeles", "PST, read as US Pacific time"),
        ("EST", "America/New_York", "EST, read as US Eastern time"),
        ("cst", "America/Chicago", "CST, read as US Central time"),
        ("mst", "America/Denver", "MST, read as US Mountain time"),
        ("bst", "Europe/London", "BST, read as UK time"),
        ("GMT", "Europe/London", "GMT, read as UK time"),
        ("ist", "Asia/Kolkata", "IST, read as India Standard Time"),
        ("CEST", "Europe/Berlin", "CEST, read as Central European time"),
        ("pdt", "America/Los_Angeles", "PDT, read as US Pacific time"),
        ("cet", "Europe/Berlin", "CET, read as Central European time"),
        ("aest", "Australia/Sydney", "AEST, read as Australian Eastern time"),
    ],
)
async def test_a_short_zone_name_sets_a_zone_and_says_which(
    app: Application, short: str, zone: str, read: str
) -> None:
    said = await _command(app, "timezone", short)
    assert said.startswith(f"Your time zone is now {zone} ({read}; it is "), said
    assert f"Your time zone is {zone} " in await _command(app, "timezone")


async def test_gmt_is_uk_time_and_the_reply_says_how_to_get_fixed_utc(app: Application) -> None:
    """Tester s38: "/timezone GMT" set the tz database's fixed GMT, an hour off for a UK
    person from late March; the README says a short name keeps summer time."""
    said = await _command(app, "timezone", "GMT")
    assert "summer time" in said and "/timezone UTC" in said, said
    said = await _command(app, "timezone", "UTC")
    assert said.startswith("Your time zone is now UTC (it is "), said


@pytest.mark.parametrize("short", ["gmt", "bst", "uk", "est", "cet", "pst", "ist", "aest"])
def test_no_short_name_in_the_table_is_a_zone_without_summer_time_where_one_keeps_it(
    short: str,
) -> None:
    """Each short name is read as a zone with the rules of its place (a summer time where
    the place keeps one), never as the tz database's fixed zone of the same name."""
    found = abbreviated_zone(short)
    assert found is not None
    zone = ZoneInfo(found[0])
    offsets = {zone.utcoffset(datetime(2026, month, 15)) for month in (1, 7)}
    keeps_summer = short not in ("ist",)
    assert (len(offsets) == 2) is keeps_summer, (short, found[0], offsets)


async def test_ist_says_which_place_it_took_and_how_to_pick_another(app: Application) -> None:
    said = await _command(app, "timezone", "IST")
    assert said.startswith("Your time zone is now Asia/Kolkata (IST, read as India"), said
    assert "/timezone Europe/Dublin" in said and "/timezone Asia/Jerusalem" in said, said


async def test_a_zone_name_nobody_uses_is_still_refused(app: Application) -> None:
    said = await _command(app, "timezone", "xyz")
    assert "I don't know the time zone 'xyz'" in said and "PST, CET or AEST" in said, said


async def test_forget_is_a_command(app: Application) -> None:
    said = await _command(app, "forget")
    assert "Unknown command" not in said and "/forget" in said, said
