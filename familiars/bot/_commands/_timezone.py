"""``/timezone [ZONE]``: see or set the person's time zone (reminders are set, confirmed and
listed in it).

:func:`known_zone` checks a name against the tz database (``zoneinfo``; a name typed in the
wrong case is put right). Which zone a person is in is :func:`~familiars.bot._home_zone.zone_of`'s
to say (set, else their home's, else the bot's), here as everywhere.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from familiars.bot._adapters.base import CommandResponse
from familiars.bot._commands._declare import Argument, Call, Caller, Command
from familiars.bot._home_zone import PersonZone, zone_of
from familiars.bot._state import BotState
from familiars.config import UserFacingError
from familiars.memory import MemoryStore
from familiars.scheduler import Reminder, ReminderBook

EXAMPLE = "/timezone Europe/Lisbon"
MAX_CHOICES = 25


def _utc_now() -> datetime:
    return datetime.now(UTC)


@functools.cache
def _zones_by_lower() -> dict[str, str]:
    return {name.lower(): name for name in available_timezones()}


#: A short name -> (the zone set, what it is, other readings to name when it has some).
ABBREVIATIONS: dict[str, tuple[str, str, str]] = {
    **dict.fromkeys(("pst", "pdt", "pt"), ("America/Los_Angeles", "US Pacific time", "")),
    **dict.fromkeys(("mst", "mdt", "mt"), ("America/Denver", "US Mountain time", "")),
    **dict.fromkeys(
        ("cst", "cdt", "ct"),
        ("America/Chicago", "US Central time", "for China Standard Time, /timezone Asia/Shanghai"),
    ),
    **dict.fromkeys(("est", "edt", "et"), ("America/New_York", "US Eastern time", "")),
    **dict.fromkeys(("akst", "akdt"), ("America/Anchorage", "Alaska time", "")),
    "hst": ("Pacific/Honolulu", "Hawaii time", ""),
    **dict.fromkeys(("ast", "adt"), ("America/Halifax", "Atlantic time", "")),
    **dict.fromkeys(("nst", "ndt"), ("America/St_Johns", "Newfoundland time", "")),
    "brt": ("America/Sao_Paulo", "Brasília time", ""),
    # "GMT" is in the tz database too, as a fixed zone: a person in the UK who types it
    # would be an hour off from late March (tester s38), so it is read as UK time.
    **dict.fromkeys(("gmt", "bst", "uk"), ("Europe/London", "UK time", "")),
    "wet": ("Europe/Lisbon", "Western European time", ""),
    **dict.fromkeys(("cet", "cest"), ("Europe/Berlin", "Central European time", "")),
    **dict.fromkeys(("eet", "eest"), ("Europe/Athens", "Eastern European time", "")),
    "msk": ("Europe/Moscow", "Moscow time", ""),
    "ist": (
        "Asia/Kolkata",
        "India Standard Time",
        "for Irish time, /timezone Europe/Dublin; for Israel time, /timezone Asia/Jerusalem",
    ),
    "pkt": ("Asia/Karachi", "Pakistan time", ""),
    "ict": ("Asia/Bangkok", "Indochina time", ""),
    "wib": ("Asia/Jakarta", "Western Indonesia time", ""),
    "sgt": ("Asia/Singapore", "Singapore time", ""),
    "hkt": ("Asia/Hong_Kong", "Hong Kong time", ""),
    "jst": ("Asia/Tokyo", "Japan time", ""),
    "kst": ("Asia/Seoul", "Korea time", ""),
    "awst": ("Australia/Perth", "Australian Western time", ""),
    **dict.fromkeys(("acst", "acdt"), ("Australia/Adelaide", "Australian Central time", "")),
    **dict.fromkeys(("aest", "aedt"), ("Australia/Sydney", "Australian Eastern time", "")),
    **dict.fromkeys(("nzst", "nzdt", "nzt"), ("Pacific/Auckland", "New Zealand time", "")),
    "sast": ("Africa/Johannesburg", "South Africa time", ""),
    "wat": ("Africa/Lagos", "West Africa time", ""),
    "cat": ("Africa/Maputo", "Central Africa time", ""),
    "eat": ("Africa/Nairobi", "East Africa time", ""),
}


#: Said when a short name was read as UK time: GMT is its winter half only.
_UK_SUMMER = (
    "UK time keeps summer time (BST, an hour ahead of GMT, from late March to late October)."
)


def abbreviated_zone(name: str) -> tuple[str, str, str] | None:
    """The zone a short name ("PST", "aest") stands for, the words that say how it was read
    ("PST, read as US Pacific time") and, for one several places use ("IST"), a line naming
    the others ("" when none); None when ``name`` is no short name this knows."""
    found = ABBREVIATIONS.get(name.strip().lower())
    if found is None:
        return None
    zone, what, others = found
    short = name.strip().upper()
    also = f"{short} is used elsewhere too: {others}." if others else ""
    if zone == "Europe/London":
        also = f"{_UK_SUMMER} For fixed UTC all year instead: /timezone UTC."
    return zone, f"{short}, read as {what}", also


def known_zone(name: str) -> str | None:
    """``name`` as the tz database spells it ("europe/lisbon" -> "Europe/Lisbon"), or None
    when it is no time zone."""
    name = name.strip()
    if not name:
        return None
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return _zones_by_lower().get(name.lower())
    return name


def local(when: datetime | None, zone: ZoneInfo, now: datetime) -> str:
    """ "Thu 3 Dec 09:00" in ``zone`` (the year only when it is not this one)."""
    if when is None:
        return "no set time"
    here = when.astimezone(zone)
    year = f" {here.year}" if here.year != now.astimezone(zone).year else ""
    return f"{here:%a} {here.day} {here:%b}{year} {here:%H:%M}"


def repeating_followed(moved: Sequence[Reminder], zone: ZoneInfo, now: datetime) -> str:
    """ " Your repeating reminders keep their time of day there: ..." for the reminders
    :meth:`~familiars.scheduler.ReminderBook.follow_zone` re-timed ("" for none)."""
    if not moved:
        return ""
    said = "; ".join(f"{r.task}, {r.rule} (next {local(r.due, zone, now)})" for r in moved)
    return f" Your repeating reminders keep their time of day there: {said}."


class TimezoneCommand(Command):
    def __init__(
        self,
        state: BotState,
        store: MemoryStore,
        *,
        default_timezone: str = "UTC",
        now: Callable[[], datetime] = _utc_now,
        book: ReminderBook | None = None,
    ) -> None:
        super().__init__(
            "timezone",
            "See or set your time zone (for reminders)",
            arguments=(
                Argument(
                    "zone",
                    "A time zone, e.g. Europe/Lisbon",
                    required=False,
                    complete=self._complete_zones,
                ),
            ),
            handler=self._timezone,
        )
        self._state = state
        self._store = store
        self._default = default_timezone
        self._now = now
        self._book = book

    async def _timezone(self, call: Call) -> CommandResponse:
        wanted = call.get("zone")
        if wanted is None:
            return await self._show(call.caller)
        short = abbreviated_zone(wanted)
        name = short[0] if short else known_zone(wanted)
        if name is None:
            raise UserFacingError(
                f"I don't know the time zone {wanted!r}. Use a name from the time zone "
                f"database, like {EXAMPLE} or /timezone America/New_York, or a short one "
                "like PST, CET or AEST."
            )
        before = (await self._zone(call.caller)).info
        await self._state.set_timezone(call.caller.user_key, name)
        read = f"{short[1]}; " if short else ""
        lines = [
            f"Your time zone is now {name} ({read}it is {self._clock(ZoneInfo(name))} "
            "there). New reminders are set in it and all are shown in it."
        ]
        if short and short[2]:
            lines.append(short[2])
        if self._book is not None:
            lines += await self._follow(call.caller.user_key, name, before)
        return CommandResponse("\n".join(lines))

    async def _follow(self, user_key: str, name: str, before: ZoneInfo) -> list[str]:
        """The person's reminders after the move from the zone ``before``: repeating ones
        keep their time of day in the new zone, one-off ones their moment, each said with
        its time there and a one-off with the time it was set for too, so that the
        consequence is plain ("pay rent (Fri 11 Dec 08:00 in UTC), now Fri 11 Dec 01:00 your
        time": tester s37)."""
        assert self._book is not None
        now, zone = self._now(), ZoneInfo(name)
        moved = await self._book.follow_zone(user_key, name, now)
        kept = [r for r in await self._book.of(user_key, now) if r.is_open() and r.every is None]
        lines = [
            f"Repeating, same time of day here: {r.task}, {r.rule} (next {local(r.due, zone, now)})"
            for r in moved
        ]
        for r in kept:
            was = "" if before.key == name else f" ({local(r.due, before, now)} in {before.key})"
            lines.append(
                f"Kept at its moment: {r.task}{was}, now {local(r.due, zone, now)} your time"
            )
        return lines

    async def _zone(self, caller: Caller) -> PersonZone:
        group = caller.is_group
        return await zone_of(self._state, self._store, caller.user_key, self._default, group=group)

    async def _show(self, caller: Caller) -> CommandResponse:
        found = await self._zone(caller)
        clock = self._clock(found.info)
        if found.own:
            return CommandResponse(
                f"Your time zone is {found.name} (it is {clock} there). Change it: {EXAMPLE}"
            )
        if found.home is not None:  # the zone the turns and reminders use: said the same
            return CommandResponse(
                f"I use {found.name}, from where you live ({found.home.place}); it is {clock} "
                f"there. /timezone <zone> to set one, e.g. {EXAMPLE}"
            )
        return CommandResponse(
            f"You have not set a time zone; I use {found.name} (it is {clock} there). "
            f"Set yours: {EXAMPLE}"
        )

    def _clock(self, zone: ZoneInfo) -> str:
        return self._now().astimezone(zone).strftime("%a %H:%M")

    async def _complete_zones(self, caller: Caller, partial: str) -> list[str]:
        wanted = partial.lower()
        names = sorted(n for low, n in _zones_by_lower().items() if wanted in low)
        return names[:MAX_CHOICES]
