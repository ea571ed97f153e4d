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
A town the gazetteer places in one country of one zone gives that zone ("Glasgow",
"Manchester" -> Europe/London). A place that names another elsewhere too (Perth in Scotland
and Australia, Halifax in Yorkshire and Nova Scotia, Portland in Oregon and Maine) is never
picked silently: it comes back with the zones it may mean, for the person to choose with
``/timezone``. A country with several zones ("the US", "Melbourne, Florida") gives none, and
the person is told so once, with how to set it. Where a place is is read as the crisis
lines read it (``_care.places_in``, ``country_of_place``, the gazetteer): a zone city counts
only in the country the home names, or naming none, the town's likeliest ("Melbourne,
Florida" is no Australian zone). In a group the home is private: it gives no zone there.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from familiars.bot._care import country_of_place, homes_of, places_in
from familiars.bot._places import town_countries
from familiars.bot._state import BotState
from familiars.config import Settings
from familiars.memory import (
    ForgetReport,
    ListQuery,
    MemoryRecord,
    MemoryStore,
    MemoryWorkspace,
    derived_of,
    utcnow,
)
from familiars.scheduler import ReminderBook, asker

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


@dataclass(frozen=True)
class HomeZone:
    """The place said (as the record writes it) and its zone; ``zone`` is "" when the
    place may mean several, named in ``choices``."""

    place: str
    zone: str = ""
    choices: tuple[str, ...] = ()
    #: A zone of the place's country, shown as an example when it has no one zone.
    example: str = "Europe/London"

    def said(self) -> str:
        """The line that tells the person, once."""
        if self.zone:
            return (
                f"I'll use {self.place} time ({self.zone}) for your reminders; "
                f"/timezone to change it."
            )
        if not self.choices:
            return (
                f"I couldn't tell your time zone from where you live ({self.place}), so "
                "reminders are in UTC until you set it: /timezone and your zone, e.g. "
                f"/timezone {self.example}."
            )
        examples = " or ".join(f"/timezone {z}" for z in self.choices)
        return (
            f"There's more than one {self.place}, so I haven't guessed your time zone: "
            f"reminders are in UTC until you set it, e.g. {examples}."
        )


def home_zone(homes: Sequence[str]) -> HomeZone | None:
    """The zone of the newest of ``homes`` (home records, oldest first) that names a place
    this knows; None when none does. A known place of no one zone ("Melbourne, Florida",
    "the US") comes back with no zone and no choices: the person is told once that it could
    not be told. Where the place is is read as the crisis lines read it
    (:func:`~familiars.bot._care.places_in`): a zone city counts only in the country the
    home names ("Melbourne, Florida" is not Australia's), or, naming none, the likeliest
    country of a town of that name."""
    for home in reversed(homes):
        names = places_in(home)
        if not names:
            continue
        named, likely = country_of_place(home)
        found = _zone_in(names[-1], named, likely, named_only=len(names) == 1)
        if found is None:
            continue
        if any(found):
            return HomeZone(_as_written(home, names[-1]), *found)
        place = ", ".join(_as_written(home, name) for name in reversed(names))
        zones = _zones_by_country().get(named or (likely[0] if likely else ""), ())
        return HomeZone(place, example=zones[0] if zones else "Europe/London")
    return None


def _zone_in(
    town: str, named: str, likely: tuple[str, ...], *, named_only: bool
) -> tuple[str, tuple[str, ...]] | None:
    """(zone, ()) for one zone, ("", choices) for several the person should choose among,
    ("", ()) for a known place of no one zone; None for a place this does not know.
    ``named``: the country the home names (``named_only``: and nothing else), ``likely``:
    the countries a town may be in when it names none, the likeliest first."""
    country = named or (likely[0] if likely else "")
    cities = ELSEWHERE_TOO.get(town) or ((_city_zones()[town],) if town in _city_zones() else ())
    if cities and named:
        cities = tuple(z for z in cities if _zone_country().get(z) in ("", named))
    elif len(cities) == 1:  # no country named: the town's likeliest country only
        cities = tuple(z for z in cities if _zone_country().get(z) in ("", country))
    if cities:
        return (cities[0], ()) if len(cities) == 1 else ("", cities)
    if not named:  # "Glasgow": the gazetteer's one country, when that has one zone
        ones = _zones_by_country().get(likely[0], ()) if len(likely) == 1 else ()
        return None if not likely else ((ones[0], ()) if len(ones) == 1 else ("", ()))
    zones = _zones_by_country().get(named, ())
    where = () if named_only else town_countries(town, everywhere=True)
    if where and named not in where:
        return ("", ())  # "Athens, Georgia": no Athens in the country, so which Georgia?
    return (zones[0], ()) if len(zones) == 1 else ("", ())


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
    is private); not kept before the records are read (the message's held writer work asks
    beside the read: kept then, the whole turn read no home, and "I live in Melbourne"
    then "remind me at 8" was set in UTC now and then)."""
    if turn.homes is not None:
        return turn.homes
    homes = [] if turn.info.is_group else derived_of(turn.records, "homes", homes_of)
    if turn.records_read:
        turn.homes = homes
    return homes


def turn_zone(turn: Turn, own: str | None, default: str) -> PersonZone:
    """:func:`effective_zone` for the turn's person (``own``: the zone they set), once a
    turn once its records are read: every stage after reads the one kept on ``turn``."""
    if turn.zone is not None:
        return turn.zone
    group = turn.info.is_group
    zone = effective_zone(own, (), default, group=group, homes=turn_homes(turn))
    if turn.records_read:
        turn.zone = zone
    return zone


async def zone_of(
    state: BotState,
    store: MemoryStore,
    user_key: str,
    default: str,
    *,
    group: bool = False,
    without: Collection[str] = (),
) -> PersonZone:
    """:func:`effective_zone` for ``user_key``, read off the person and their live records
    (where a turn has read them already, it calls :func:`effective_zone` on its own);
    ``without``: as it will be once the records of those ids are forgotten."""
    person = await state.person(user_key)
    own = person.timezone if person else None
    read = not own and not group
    records = await store.read_live(ListQuery(scope="user", user_key=user_key)) if read else []
    records = [r for r in records if r.id not in without]
    return effective_zone(own, records, default, group=group)


class ZoneReader(Protocol):
    """A person's zone by their key, asked in a group or not (:func:`zone_reader`);
    ``without``: as it will be once those records are forgotten (a forget's question)."""

    def __call__(
        self, user_key: str, group: bool, without: Collection[str] = ()
    ) -> Awaitable[ZoneInfo]: ...


def zone_reader(state: BotState, store: MemoryStore, default: str) -> ZoneReader:
    """:func:`zone_of` as the commands and the words ask it, ``(user_key, group)``: in a
    group no private home gives the zone (a window to forget, a reminder listed or moved
    there is read in the room's zone, the default)."""

    async def zone(user_key: str, group: bool, without: Collection[str] = ()) -> ZoneInfo:
        found = await zone_of(state, store, user_key, default, group=group, without=without)
        return found.info

    return zone


def follow_forgotten_home(
    book: ReminderBook,
    state: BotState,
    store: MemoryStore,
    default: str,
    clock: Callable[[], datetime],
    purge: Callable[[list[str]], Awaitable[object]],
) -> Callable[[ForgetReport], Awaitable[None]]:
    """A forget hook: when a forget takes away the home a person's zone was read from, their
    repeating reminders that followed it follow the zone now theirs (the next home still
    live, else the default), keeping their time of day, as ``/timezone`` moves them. A rule
    left in the forgotten home's zone named the city in every listing and on disk (tester
    s37: "every Monday at 08:00 Australia/Melbourne time" after "forget where I live").
    Each moved reminder is a new record and the old one is forgotten, its history and its
    index copy (``purge``: the index's purge of texts) too: they named the zone."""

    async def now_in(user_key: str) -> str:
        return (await zone_of(state, store, user_key, default)).name

    async def follow(report: ForgetReport) -> None:
        gone = {z for z in map(_named_zone, report.texts) if z}
        if not gone:
            return
        people, texts = await _following(book, gone)
        for user_key in people:
            found = await zone_of(state, store, user_key, default)
            if not found.own:  # a zone they set: /timezone moved their rules to it already
                await book.follow_zone(user_key, found.name, clock(), afresh=True)
        texts += await book.restate(gone, now_in)
        if texts:
            await purge(texts)

    return follow


@contextlib.asynccontextmanager
async def forgotten_home_hook(
    settings: Settings, workspace: MemoryWorkspace
) -> AsyncIterator[Callable[[ForgetReport], Awaitable[None]]]:
    """:func:`follow_forgotten_home` for a process that is not the running bot
    (``familiars memory forget`` with nothing running), over the workspace's own state."""
    state = BotState(Path(settings.workspace), workspace.home)
    await state.open()
    try:
        book = ReminderBook(
            workspace.store,
            grace_s=settings.scheduler.reminder_grace_s,
            default_timezone=settings.scheduler.timezone,
        )
        default = settings.scheduler.timezone
        yield follow_forgotten_home(
            book, state, workspace.store, default, utcnow, workspace.index.purge_texts
        )
    finally:
        await state.close()


def _named_zone(text: str) -> str:
    """The zone of the one place ``text`` names as a home would ("" for none or several)."""
    found = home_zone([text])
    return found.zone if found is not None else ""


async def _following(book: ReminderBook, zones: set[str]) -> tuple[list[str], list[str]]:
    """Those whose open repeating reminders keep a rule in one of ``zones``, and those
    reminders' texts."""
    people: dict[str, None] = {}
    texts = []
    for rec in await book.store.list(category="event", live_only=False):  # as book.of reads
        loop = rec.open_loop or {}
        rule = loop.get("every")
        if loop.get("kind") == "reminder" and isinstance(rule, dict) and rule.get("tz") in zones:
            who = asker(rec)
            if who is not None and not loop.get("moved_to") and not rec.deprecated:
                people[who] = None
                texts.append(rec.content)
    return list(people), texts


def _real(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return False
    return True


def _as_written(home: str, name: str) -> str:
    """ "Melbourne" as the record writes it (title case when it is not found)."""
    found = re.search(rf"\b{re.escape(name)}\b", home, re.IGNORECASE)
    if found is None and len(name) <= 3:  # "U.K." read as "uk"
        return name.upper()
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
def _zone_country() -> dict[str, str]:
    """Zone -> the ISO code of its country (zone.tab)."""
    return {row[2]: row[0] for row in _rows("zone.tab") if len(row) > 2}


@functools.cache
def _zones_by_country() -> dict[str, tuple[str, ...]]:
    zones: dict[str, list[str]] = {}
    for row in _rows("zone.tab"):
        if len(row) > 2:
            zones.setdefault(row[0], []).append(row[2])
    return {code: tuple(found) for code, found in zones.items()}


__all__ = [
    "ELSEWHERE_TOO",
    "HomeZone",
    "PersonZone",
    "ZoneReader",
    "effective_zone",
    "follow_forgotten_home",
    "forgotten_home_hook",
    "home_zone",
    "turn_homes",
    "turn_zone",
    "zone_of",
    "zone_reader",
]
