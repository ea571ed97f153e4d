"""A time zone read from where the person lives, while they have set none (tester s37: after
"I live in Melbourne" a reminder "at 8 tomorrow" fired at 08:00 UTC).

:func:`effective_zone` is the zone every road reads and shows a person's times in: the one
the person set (``/timezone``), else their home's, else the bot's default; :func:`zone_of`
reads it off the person and their records. The home's zone is read from their live records
each turn and never stored: a move takes the new home's at once, and forgetting the home
leaves no trace of it (a stored "America/Denver" would keep the city the person forgot).

:func:`home_zone` reads the newest home record that names a place this knows: a city a tz
database zone is named after ("Melbourne" -> Australia/Melbourne, "New York" ->
America/New_York) or a country with one zone ("Norway", "Leeds, England" -> Europe/London).
A place that names another elsewhere too (Perth in Scotland and Australia, Halifax in
Yorkshire and Nova Scotia, Portland in Oregon and Maine) is never picked silently: it comes
back with the zones it may mean, for the person to choose with ``/timezone``. A country with
several zones ("the US") gives none. The data is the time zone database's own (``zone.tab``
and ``iso3166.tab`` of the ``tzdata`` package, as the crisis lines read countries).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from familiars.bot._care import homes_of, places_in
from familiars.bot._state import BotState
from familiars.memory import ListQuery, MemoryRecord, MemoryStore

if TYPE_CHECKING:
    from familiars.bot._turn import Turn

#: Places a zone is named after that name another place, in another zone, too.
ELSEWHERE_TOO: dict[str, tuple[str, ...]] = {
    "perth": ("Australia/Perth", "Europe/London"),
    "halifax": ("America/Halifax", "Europe/London"),
    "portland": ("America/Los_Angeles", "America/New_York"),
    "santiago": ("America/Santiago", "Europe/Madrid"),
    "cordoba": ("America/Argentina/Cordoba", "Europe/Madrid"),
    "london": ("Europe/London",),  # London, Ontario is far smaller: London is London
}
#: Names of countries people use that the time zone database's list words otherwise.
_COUNTRY_ALIASES = {
    "uk": "GB", "england": "GB", "scotland": "GB", "wales": "GB", "northern ireland": "GB",
    "great britain": "GB", "united kingdom": "GB", "holland": "NL", "czech republic": "CZ",
    "south korea": "KR", "korea": "KR", "us": "US", "usa": "US", "america": "US",
    "the states": "US", "united states": "US",
}  # fmt: skip


@dataclass(frozen=True)
class HomeZone:
    """The place said (as the record writes it) and its zone; ``zone`` is "" when the
    place may mean several, named in ``choices``."""

    place: str
    zone: str = ""
    choices: tuple[str, ...] = ()

    def said(self) -> str:
        """The line that tells the person, once."""
        if self.zone:
            return (
                f"I'll use {self.place} time ({self.zone}) for your reminders; "
                f"/timezone to change it."
            )
        examples = " or ".join(f"/timezone {z}" for z in self.choices)
        return (
            f"There's more than one {self.place}, so I haven't guessed your time zone: "
            f"reminders are in UTC until you set it, e.g. {examples}."
        )


def home_zone(homes: Sequence[str]) -> HomeZone | None:
    """The zone of the newest of ``homes`` (home records, oldest first) that names a place
    this knows; None when none does or the place has several zones. A country said after
    a city picks among the city's zones ("Perth, Scotland" is Europe/London)."""
    for home in reversed(homes):
        names = places_in(home)  # the country first: "Perth, Australia" -> australia, perth
        if not names:
            continue
        country = next((_countries()[n] for n in names if n in _countries()), "")
        for name in reversed(names):  # the place itself before the country it is in
            found = _zone_of(name, country)
            if found is not None:
                place = _as_written(home, names[-1])
                return HomeZone(place, *found) if found[0] or found[1] else None
    return None


@dataclass(frozen=True)
class PersonZone:
    """The zone a person's times are read and shown in, and why: ``own`` when they set it,
    else ``home`` (the place it is read from) when where they live names one, else neither
    (the bot's default)."""

    name: str
    own: bool = False
    home: HomeZone | None = None

    @property
    def info(self) -> ZoneInfo:
        return ZoneInfo(self.name)


def effective_zone(
    own: str | None,
    records: Sequence[MemoryRecord],
    default: str,
    *,
    group: bool = False,
    homes: Sequence[str] | None = None,
) -> PersonZone:
    """The one answer to "which zone is this person in": ``own`` (set by the person with
    ``/timezone``), else that of the home their live ``records`` name (:func:`home_zone`),
    else ``default``, else UTC. Every road (a turn, the commands, the words that move a
    reminder, the reminder that fires) asks this, so one person sees one zone. In a
    ``group`` the home record is private: never read there (its zone would tell the room
    where the person lives). ``homes``: :func:`homes_of` ``records`` when the caller read
    them already (a turn reads them once)."""
    if own and _real(own):
        return PersonZone(own, own=True)
    found = None if group else home_zone(homes_of(records) if homes is None else homes)
    if found is not None and found.zone:
        return PersonZone(found.zone, home=found)
    return PersonZone(default if default and _real(default) else "UTC")


def turn_homes(turn: Turn) -> list[str]:
    """:func:`homes_of` the turn's records, once a turn (none in a group: the home record
    is private)."""
    if turn.homes is None:
        turn.homes = [] if turn.info.is_group else homes_of(turn.records)
    return turn.homes


def turn_zone(turn: Turn, own: str | None, default: str) -> PersonZone:
    """:func:`effective_zone` for the turn's person (``own``: the zone they set), once a
    turn: every stage after the first reads the one kept on ``turn``."""
    if turn.zone is None:
        group = turn.info.is_group
        turn.zone = effective_zone(own, (), default, group=group, homes=turn_homes(turn))
    return turn.zone


async def zone_of(
    state: BotState, store: MemoryStore, user_key: str, default: str, *, group: bool = False
) -> PersonZone:
    """:func:`effective_zone` for ``user_key``, read off the person and their live records
    (where a turn has read them already, it calls :func:`effective_zone` on its own)."""
    person = await state.person(user_key)
    own = person.timezone if person else None
    read = not own and not group
    records = await store.read_live(ListQuery(scope="user", user_key=user_key)) if read else []
    return effective_zone(own, records, default, group=group)


def _real(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return False
    return True


def _zone_of(name: str, country: str = "") -> tuple[str, tuple[str, ...]] | None:
    """(zone, ()) for a place of one zone, ("", choices) for one that may mean several,
    ("", ()) for a known country of several zones; None for a place this does not know.
    ``country``: the ISO code of a country said with the place, which narrows its zones."""
    choices = ELSEWHERE_TOO.get(name) or ((_city_zones()[name],) if name in _city_zones() else ())
    if country and choices:
        narrowed = tuple(z for z in choices if z in _zones_by_country().get(country, ()))
        choices = narrowed or choices
    if choices:
        return (choices[0], ()) if len(choices) == 1 else ("", choices)
    code = _countries().get(name)
    if code is None:
        return None
    zones = _zones_by_country().get(code, ())
    return (zones[0], ()) if len(zones) == 1 else ("", ())


def _as_written(home: str, name: str) -> str:
    """ "Melbourne" as the record writes it (title case when it is not found)."""
    found = re.search(rf"\b{re.escape(name)}\b", home, re.IGNORECASE)
    return found.group(0) if found else name.title()


def _rows(name: str) -> list[list[str]]:
    text = resources.files("tzdata").joinpath("zoneinfo", name).read_text("utf-8")
    return [line.split("\t") for line in text.splitlines() if line and line[0] != "#"]


@functools.cache
def _city_zones() -> dict[str, str]:
    """Lowercase city -> the zone named after it ("new york" -> America/New_York)."""
    return {
        row[2].rsplit("/", 1)[-1].replace("_", " ").lower(): row[2]
        for row in _rows("zone.tab")
        if len(row) > 2
    }


@functools.cache
def _zones_by_country() -> dict[str, tuple[str, ...]]:
    zones: dict[str, list[str]] = {}
    for row in _rows("zone.tab"):
        if len(row) > 2:
            zones.setdefault(row[0], []).append(row[2])
    return {code: tuple(found) for code, found in zones.items()}


@functools.cache
def _countries() -> dict[str, str]:
    """Lowercase country name -> ISO 3166 code (a parenthesised part too: "Britain (UK)")."""
    places: dict[str, str] = {}
    for row in _rows("iso3166.tab"):
        if len(row) < 2:
            continue
        name = row[1]
        for said in (name, *re.findall(r"\(([^)]+)\)", name), re.sub(r"\s*\(.*\)", "", name)):
            places[said.strip().lower()] = row[0]
    places.update(_COUNTRY_ALIASES)
    return places


__all__ = [
    "ELSEWHERE_TOO",
    "HomeZone",
    "PersonZone",
    "effective_zone",
    "home_zone",
    "turn_homes",
    "turn_zone",
    "zone_of",
]
