"""``/reminders [list] | cancel N | move N WHEN | snooze N [DURATION]``: a person's own
reminders, in their time zone.

A reminder is named by its number in the list or its short id (``#a1b2c3``, the last
characters of its record id). A number is the reminder's own (kept in its record): the list
is soonest first, and "cancel 4" cancels the reminder shown as 4 even when others were
added, snoozed or moved since. A person sees and changes only the
reminders they asked for (the :class:`~familiars.scheduler.ReminderBook` filters by the
asker); anyone else's answers "I can't find that one", as an unknown one does.
``move`` reads phrases like "tomorrow 9am", "in 2 hours" or "friday 18:00" in the person's
zone; ``snooze`` pushes a reminder back by a duration ("30m", "2 hours"; 10 minutes unless
said), from its due time while it is still to come, else from now.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from familiars.bot._adapters.base import CommandResponse
from familiars.bot._commands._declare import Argument, Call, Caller, Command, Subcommand
from familiars.bot._commands._timezone import local, zone_of
from familiars.bot._state import BotState
from familiars.config import UserFacingError
from familiars.memory import parse_when, said_past
from familiars.scheduler import Reminder, ReminderBook

DEFAULT_SNOOZE = timedelta(minutes=10)
TIME_EXAMPLES = '"tomorrow 9am", "in 2 hours" or "friday 18:00"'
NONE_YET = 'You have no reminders. Ask me: "remind me tomorrow at 9am to call mom".'
MAX_CHOICES = 25

_DURATION = re.compile(
    r"^(?:in\s+|for\s+)?(?P<n>\d+(?:\.\d+)?|an?|one|half\s+an?)\s*"
    r"(?P<unit>s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?)?$",
    re.IGNORECASE,
)


def _utc_now() -> datetime:
    return datetime.now(UTC)


def parse_duration(text: str) -> timedelta | None:
    """ "30m", "10 minutes", "2h", "an hour", "half an hour", "15" (minutes); None otherwise."""
    m = _DURATION.match(text.strip().rstrip(".!"))
    if not m:
        return None
    amount = m.group("n").lower()
    if amount.startswith("half"):
        number, unit = 0.5, m.group("unit") or "h"
    else:
        number = 1.0 if amount in ("a", "an", "one") else float(amount)
        unit = m.group("unit") or "m"
    span = timedelta(seconds=number * _unit_seconds(unit))
    return span if timedelta(0) < span <= timedelta(days=365) else None


def _unit_seconds(unit: str) -> int:
    first = unit[0].lower()
    return {"s": 1, "m": 60, "h": 3600}.get(first, 86400)


def listing(mine: list[Reminder], zone: ZoneInfo, now: datetime) -> str:
    """A person's reminders as ``/reminders`` lists them (and "what reminders do I have?"),
    with the commands for the first one still to come."""
    if not mine:
        return NONE_YET
    lines = [f"Your reminders (times in {zone.key}):"]
    for r in mine:
        fate = "" if r.is_open() else f" ({r.status})"
        rule = f" ({r.rule})" if r.rule else ""
        at = local(r.due, zone, now)
        lines.append(f"{r.number}. {at} — {r.task}{rule}{fate} · #{r.short_id}")
    # A sent one cannot be cancelled or moved: the hint names one still to come.
    n = next((r.number for r in mine if r.is_open()), None)
    if n is not None:
        lines.append(f"/reminders cancel {n} · move {n} tomorrow 9am · snooze {n} 30m")
    return "\n".join(lines)


class RemindersCommand(Command):
    def __init__(
        self, book: ReminderBook, state: BotState, *, now: Callable[[], datetime] = _utc_now
    ) -> None:
        which = Argument(
            "reminder", "Its number in /reminders list, or its id", complete=self._complete
        )
        super().__init__(
            "reminders",
            "See, cancel, move or snooze your reminders",
            subcommands=(
                Subcommand("list", "Your reminders, in your time zone", self._list),
                Subcommand("cancel", "Cancel a reminder", self._cancel, (which,)),
                Subcommand(
                    "move",
                    "Move a reminder to another time",
                    self._move,
                    (which, Argument("when", "When, e.g. tomorrow 9am", rest=True)),
                ),
                Subcommand(
                    "snooze",
                    "Push a reminder back (10 minutes unless you say)",
                    self._snooze,
                    (which, Argument("duration", "How long, e.g. 30m", required=False, rest=True)),
                ),
            ),
        )
        self._book = book
        self._state = state
        self._now = now

    async def without_subcommand(self, call: Call) -> CommandResponse:
        if call.invocation.args:
            return CommandResponse(f"Usage: {self.usage()}")
        return await self._list(call)

    # ------------------------------------------------------------------ helpers

    async def _zone(self, caller: Caller) -> ZoneInfo:
        return await zone_of(self._state, caller.user_key, self._book.default_timezone)

    async def _find(self, caller: Caller, ref: str, now: datetime) -> Reminder:
        mine = await self._book.of(caller.user_key, now)
        wanted = ref.strip().lstrip("#").lower()
        numbered = [r for r in mine if wanted.isdigit() and r.number == int(wanted)]
        if len(numbered) == 1:
            return numbered[0]
        found = [r for r in mine if len(wanted) >= 4 and r.record_id.lower().endswith(wanted)]
        if len(found) == 1:
            return found[0]
        raise UserFacingError(
            f"I can't find reminder {ref!r} among yours. /reminders list shows them with "
            "their numbers."
        )

    # ------------------------------------------------------------------ sub-commands

    async def _list(self, call: Call) -> CommandResponse:
        now = self._now()
        mine = await self._book.of(call.caller.user_key, now)
        return CommandResponse(listing(mine, await self._zone(call.caller), now))

    async def _cancel(self, call: Call) -> CommandResponse:
        now = self._now()
        reminder = await self._find(call.caller, call["reminder"], now)
        zone = await self._zone(call.caller)
        if not reminder.is_open():
            raise UserFacingError(
                f"That reminder was already {reminder.status} "
                f"({local(reminder.due, zone, now)}); there is nothing left to cancel."
            )
        await self._book.cancel(reminder, now)
        at = local(reminder.due, zone, now)
        later = f"; it was {reminder.rule}, none will come now" if reminder.rule else ""
        return CommandResponse(f"Cancelled: {reminder.task} ({at}{later}).")

    async def _move(self, call: Call) -> CommandResponse:
        now = self._now()
        reminder = await self._find(call.caller, call["reminder"], now)
        zone = await self._zone(call.caller)
        if said_past(call["when"]):
            raise UserFacingError(f"{call['when']!r} has passed; tell me a time still to come.")
        due = parse_when(call["when"], now=now, tz=zone)
        if due is None:
            raise UserFacingError(
                f"I couldn't read {call['when']!r} as a time to come. Try {TIME_EXAMPLES}."
            )
        moved = await self._book.move(reminder, due, now)
        return CommandResponse(
            f"Moved: {moved.task}, now {local(moved.due, zone, now)} ({zone.key})."
        )

    async def _snooze(self, call: Call) -> CommandResponse:
        now = self._now()
        reminder = await self._find(call.caller, call["reminder"], now)
        said = call.get("duration")
        span = parse_duration(said) if said else DEFAULT_SNOOZE
        if span is None:
            raise UserFacingError(
                f"I couldn't read {said!r} as a duration. Try 10m, 30 minutes or 2 hours."
            )
        zone = await self._zone(call.caller)
        base = reminder.due if reminder.is_open() and reminder.due and reminder.due > now else now
        moved = await self._book.move(reminder, base + span, now)
        return CommandResponse(
            f"Snoozed: {moved.task}, I'll remind you {local(moved.due, zone, now)} ({zone.key})."
        )

    # ------------------------------------------------------------------ completion

    async def _complete(self, caller: Caller, partial: str) -> list[str]:
        mine = await self._book.of(caller.user_key, self._now())
        numbers = [str(r.number) for r in mine]
        return [n for n in numbers if n.startswith(partial)][:MAX_CHOICES]
