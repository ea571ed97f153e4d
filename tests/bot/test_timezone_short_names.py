"""Session 34 tester finding (fixrem 4): ``/timezone pst`` was refused ("I don't know the
time zone"), and "est" set the tz database's fixed EST (no summer time). A short name sets a
zone that keeps summer time and the reply says which; "IST" says which of its places it took
and how to pick another. ``/forget`` is a command (it said "Unknown command")."""

from __future__ import annotations

from functools import partial

import pytest

from familiars.bot import Application
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
