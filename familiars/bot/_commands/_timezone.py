"""``/timezone [ZONE]``: see or set the person's time zone (reminders are set, confirmed and
listed in it).

:func:`known_zone` checks a name against the tz database (``zoneinfo``; a name typed in the
wrong case is put right), :func:`zone_of` is a person's zone or the bot's default.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from familiars.bot._adapters.base import CommandResponse
from familiars.bot._commands._declare import Argument, Call, Caller, Command
from familiars.bot._state import BotState
from familiars.config import UserFacingError

EXAMPLE = "/timezone Europe/Lisbon"
MAX_CHOICES = 25


def _utc_now() -> datetime:
    return datetime.now(UTC)


@functools.cache
def _zones_by_lower() -> dict[str, str]:
    return {name.lower(): name for name in available_timezones()}


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


async def zone_of(state: BotState, user_key: str, default: str) -> ZoneInfo:
    """The person's time zone, else ``default`` (the bot's), else UTC."""
    person = await state.person(user_key)
    for name in ((person.timezone if person else None), default):
        found = known_zone(name) if name else None
        if found is not None:
            return ZoneInfo(found)
    return ZoneInfo("UTC")


class TimezoneCommand(Command):
    def __init__(
        self,
        state: BotState,
        *,
        default_timezone: str = "UTC",
        now: Callable[[], datetime] = _utc_now,
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
        self._default = default_timezone
        self._now = now

    async def _timezone(self, call: Call) -> CommandResponse:
        wanted = call.get("zone")
        if wanted is None:
            return await self._show(call.caller)
        name = known_zone(wanted)
        if name is None:
            raise UserFacingError(
                f"I don't know the time zone {wanted!r}. Use a name from the time zone "
                f"database, like {EXAMPLE} or /timezone America/New_York."
            )
        await self._state.set_timezone(call.caller.user_key, name)
        return CommandResponse(
            f"Your time zone is now {name} (it is {self._clock(ZoneInfo(name))} there). "
            "Your reminders are set and shown in it."
        )

    async def _show(self, caller: Caller) -> CommandResponse:
        person = await self._state.person(caller.user_key)
        own = known_zone(person.timezone) if person and person.timezone else None
        if own is None:
            zone = await zone_of(self._state, caller.user_key, self._default)
            return CommandResponse(
                f"You have not set a time zone; I use {zone.key} "
                f"(it is {self._clock(zone)} there). Set yours: {EXAMPLE}"
            )
        return CommandResponse(
            f"Your time zone is {own} (it is {self._clock(ZoneInfo(own))} there). "
            f"Change it: {EXAMPLE}"
        )

    def _clock(self, zone: ZoneInfo) -> str:
        return self._now().astimezone(zone).strftime("%a %H:%M")

    async def _complete_zones(self, caller: Caller, partial: str) -> list[str]:
        wanted = partial.lower()
        names = sorted(n for low, n in _zones_by_lower().items() if wanted in low)
        return names[:MAX_CHOICES]
