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

:func:`read_move_time`, :func:`move_reminder` and :func:`snooze_reminder` are the one way a
reminder is moved or snoozed, here and in plain words
(:class:`~familiars.bot._reminder_words.ReminderWords`): both end the same (tester s34 U11).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from familiars.bot._adapters.base import CommandResponse
from familiars.bot._commands._declare import Argument, Call, Caller, Command, Subcommand
from familiars.bot._commands._timezone import local
from familiars.bot._home_zone import zone_of
from familiars.bot._state import BotState
from familiars.config import UserFacingError
from familiars.memory import (
    LAST_AFTERNOON_HOUR,
    afternoon_hour,
    next_due,
    parse_when,
    plain_time,
    said_past,
)
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


#: A clock time alone, no day: "3pm", "at 4", "7:15", "noon", "half 7" (a move keeps the day).
_TIME_ONLY = re.compile(
    r"^\s*(?:at\s+)?(?:\d{1,2}(?:[:.][0-5]\d)?\s*(?:am|pm|a\.m\.?|p\.m\.?)?|noon|midday|"
    r"midnight|half\s+(?:past\s+)?\d{1,2}|quarter\s+(?:past|to)\s+\d{1,2})"
    r"(?:\s+instead)?[\s.!?]*$",
    re.IGNORECASE,
)
#: The half of the day said: "5pm" and "5 p.m." (no word boundary after the digit), "noon",
#: "in the evening"; or a 24-hour clock ("17:00", "05:30", "17h00"), which is never the
#: other half.
_HALF_DAY = re.compile(
    r"(?<![a-z])(?:am|pm|a\.m|p\.m)(?![a-z])|"
    r"\b(?:noon|midday|midnight|morning|afternoon|evening|tonight|night)\b|"
    r"(?<![\d/])(?:0\d?|1[3-9]|2[0-3])[:.h][0-5]\d(?!\d)",
    re.I,
)
#: A clock time said ("at 3", "3pm", "noon"): a move to a day without one keeps the time.
CLOCK_SAID = re.compile(r"\d|\b(?:noon|midday|midnight|morning|afternoon|evening|tonight)\b", re.I)
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
#: The numbers of a date, not a clock: "4 january", "jan 4th", "the 5th", "4/1/2027", "2027",
#: "in 3 days" (a move to such a day keeps the reminder's own time of day, tester U13).
_DATE_NUMBERS = re.compile(
    rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}|{_MONTH}\s+(?:the\s+)?\d{{1,2}}"
    r"(?:st|nd|rd|th)?|(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\b|\d{1,2}/\d{1,2}(?:/\d{2,4})?|"
    r"(?:19|20)\d{2}|\d+\s+(?:days?|weeks?|months?|years?))",
    re.IGNORECASE,
)


def clock_said(said: str) -> bool:
    """Whether ``said`` names a clock time ("at 3", "3pm", "noon"), not only a day ("4
    january", "the 5th", "saturday")."""
    return CLOCK_SAID.search(_DATE_NUMBERS.sub(" ", said)) is not None


#: "at 7" in a move with no am/pm and nothing of the morning: a move has read 1 to 7 as
#: after noon since tester U5 ("move it to saturday at 7" is 19:00); the one rule
#: (:func:`~familiars.memory.parse_when`) already reads 1 to 6 so, and a move keeps 7 too.
_MORNING = re.compile(r"(?<![a-z])(?:am|a\.m\.?|morning|early|dawn)(?!\w)", re.I)
_MOVED_TO_SEVEN = re.compile(r"\bat\s+(?:7|seven)(?::[0-5]\d)?(?!\s*(?:am|a\.m|pm|p\.m|:))\b", re.I)


_WEEKDAY = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?"
#: "tues this week", "friday at 9 this week": the day of this week ("this tuesday").
_THIS_WEEK = re.compile(rf"^(?:on\s+)?(?P<day>{_WEEKDAY})\b(?P<rest>.*?)\s+this\s+week$", re.I)
#: A weekday alone ("tuesday", "on tue at 7"): no "this", "next" or date to say which week.
_BARE_WEEKDAY = re.compile(
    rf"^(?:on\s+)?{_WEEKDAY}\b(?!.*\b(?:this|next|coming|week|after)\b)(?!.*\d(?:st|nd|rd|th)\b)",
    re.I,
)


def read_move_time(said: str, *, now: datetime, zone: ZoneInfo) -> datetime | None:
    """The time a move names ("friday at 3" is 15:00: the one rule for an hour said without
    am or pm, :func:`~familiars.memory.parse_when`'s; "saturday at 7" is 19:00 in a move);
    None when ``said`` is no time to come."""
    if m := _THIS_WEEK.match(said.strip()):
        said = f"this {m['day']}{m['rest']}"
    when = parse_when(said, now=now, tz=zone)
    if when is None or when.hour != 7 or _MOVED_TO_SEVEN.search(said) is None:
        return when
    return when if _MORNING.search(said) else when + timedelta(hours=12)


async def move_reminder(
    book: ReminderBook,
    reminder: Reminder,
    when: datetime | None,
    said: str,
    *,
    zone: ZoneInfo,
    now: datetime,
) -> str:
    """Move ``reminder`` to ``when``, read from the words ``said`` ("" for a shift by a span):
    a clock time alone keeps the reminder's own day (:func:`_retime`), a day alone its time of
    day; a time gone by is refused. The reply."""
    if said and said_past(said):
        return f"{said.strip()} has passed; tell me a time still to come."
    if when is None:
        return f"I couldn't read {said!r} as a time to come. Try {TIME_EXAMPLES}."
    if said and reminder.due is not None:
        if _TIME_ONLY.match(plain_time(said)):  # "7 in the evening" is a clock alone
            return await _retime(book, reminder, when, said, zone, now)
        if not clock_said(said):  # "move it to saturday", "... 4 january": its own time of day
            was = reminder.due.astimezone(zone)
            when = when.astimezone(zone).replace(hour=was.hour, minute=was.minute, second=0)
        when = _in_its_week(reminder, _its_half_of_day(reminder, when, said, zone), said, zone, now)
    if when <= now:
        return f"{local(when, zone, now)} has passed; tell me a time still to come."
    moved = await book.move(reminder, when, now)
    was_at = local(reminder.due, zone, now)
    said = f"Moved: {moved.task}, now {local(moved.due, zone, now)} (was {was_at})."
    if off_its_rule(moved):
        said += f" Only this one moves; after it, {moved.rule} again."
    return said


def _its_half_of_day(reminder: Reminder, when: datetime, said: str, zone: ZoneInfo) -> datetime:
    """An hour said without am or pm that is the reminder's own clock reading twelve hours
    off is its own ("move the bins one (07:00) to tuesday at 7" is 07:00, not 19:00)."""
    if reminder.due is None or half_of_day_said(said):
        return when
    was, at = reminder.due.astimezone(zone), when.astimezone(zone)
    if (at.hour + 12) % 24 == was.hour and at.minute == was.minute:
        return at + timedelta(hours=12 if was.hour > at.hour else -12)
    return when


def _in_its_week(
    reminder: Reminder, when: datetime, said: str, zone: ZoneInfo, now: datetime
) -> datetime:
    """A repeating reminder's occurrence moved to a weekday alone ("move the bins one to
    tuesday") goes to that day of the occurrence's own week (Monday to Sunday): the Monday
    14th's bins to Tuesday the 15th, not to tomorrow, days before it (tester s36). "tuesday
    this week", "next tuesday" or a date say the week themselves."""
    if reminder.every is None or reminder.due is None or not _BARE_WEEKDAY.match(said.strip()):
        return when
    was, at = reminder.due.astimezone(zone), when.astimezone(zone)
    day = was.date() + timedelta(days=at.weekday() - was.weekday())
    moved = at.replace(year=day.year, month=day.month, day=day.day)
    return moved if moved > now else when


def off_its_rule(reminder: Reminder) -> bool:
    """Whether a repeating reminder's time is not one its rule gives: this occurrence was
    moved on its own (the next comes by the rule again)."""
    if reminder.every is None or reminder.due is None:
        return False
    return next_due(reminder.every, reminder.due - timedelta(seconds=1)) != reminder.due


def _rule_said(r: Reminder, zone: ZoneInfo, *, group: bool = False) -> str:
    """ " (every Tuesday at 18:00)", or " (moved, this time only; every Tuesday at 18:00)"
    for an occurrence moved off its rule, so the label never contradicts its time; a rule
    kept in another zone than the list's names it (the home that gave the zone was
    forgotten: "every Monday at 08:00 Australia/Melbourne time" beside "Sun 21:00"). In a
    ``group`` such a rule says only that it repeats: its zone came from the person's private
    home, and its clock is that zone's (review s37: "every Monday at 08:00
    Australia/Melbourne time" in a group's ``/reminders``)."""
    if not r.rule:
        return ""
    tz = (r.every or {}).get("tz")
    elsewhere = bool(tz) and tz != zone.key
    rule = "repeats" if elsewhere and group else f"{r.rule} {tz} time" if elsewhere else r.rule
    return f" (moved, this time only; {rule})" if off_its_rule(r) else f" ({rule})"


async def _retime(
    book: ReminderBook,
    reminder: Reminder,
    when: datetime,
    said: str,
    zone: ZoneInfo,
    now: datetime,
) -> str:
    """A move to a clock time alone ("move the Oliver one to 3pm", "move it to 4"): the
    reading of that time (:func:`hours_meant`) nearest the reminder's own moment (it went to
    today: tester s34 U11): 07:15 beside 07:30, 23:00 the evening before beside 00:00; a
    repeating one at that time from now on (U30)."""
    assert reminder.due is not None
    was = reminder.due.astimezone(zone)
    at = when.astimezone(zone)
    hours = hours_meant(at.hour, said, was.hour)
    if reminder.every is not None:
        hour = min(hours, key=lambda h: (_hour_gap(h, was.hour), h))
        rule = {**reminder.every, "at": f"{hour:02d}:{at.minute:02d}", "tz": zone.key}
        due = next_due(rule, max(now, was.replace(hour=0, minute=0) - timedelta(seconds=1)))
        if due is None:
            return f"That reminder ({reminder.task}) has no time to move to."
        moved = await book.move(reminder, due, now, every=rule)
        return (
            f"Moved: {moved.task}, now {moved.rule}; the next one "
            f"{local(moved.due, zone, now)} (was {reminder.rule})."
        )
    # The reading nearest the reminder's own moment: its day, or the one either side of it
    # ("at midnight", then "move it to 11pm", is the evening before, not 23 hours on).
    base = was.replace(minute=at.minute, second=0, microsecond=0)
    readings = [base.replace(hour=h) + timedelta(days=d) for h in hours for d in (-1, 0, 1)]
    due = min(readings, key=lambda c: (abs(c - was), c))
    if due <= now:
        return f"{local(due, zone, now)} has passed; tell me a time still to come."
    moved = await book.move(reminder, due, now)
    return f"Moved: {moved.task}, now {local(moved.due, zone, now)} (was {local(was, zone, now)})."


def half_of_day_said(said: str) -> bool:
    """Whether ``said`` says which half of the day its clock is in: "5pm", "5 p.m.", "noon",
    "5 in the afternoon", "early", or a 24-hour clock ("17:00", "05:30")."""
    plain = plain_time(said)
    return any(p.search(t) for p in (_HALF_DAY, _MORNING) for t in (said, plain))


def hours_meant(hour: int, said: str, was: int) -> tuple[int, ...]:
    """The hours a move to the clock ``said`` may mean, ``hour`` being the hour it was read
    as, beside the reminder's own hour ``was``. The one said when ``said`` says the half of
    the day (:func:`half_of_day_said`: "5pm" from 08:00 is 17:00, never 05:00, tester s37);
    a bare hour from 1 to 6 after noon, the one rule (:func:`~familiars.memory.afternoon_hour`:
    "move it to 5" is 17:00), unless the reminder is itself at such an hour in the morning (a
    05:30 one "moved to 6" is 06:00); else either reading ("7:15" beside 07:30 is 07:15)."""
    if half_of_day_said(said):
        return (hour,)
    bare = hour % 12 or 12
    after_noon = afternoon_hour(bare, said)
    if after_noon != bare and not 0 <= was <= LAST_AFTERNOON_HOUR:
        return (after_noon,)
    return (bare, (bare + 12) % 24)


def _hour_gap(hour: int, was: int) -> int:
    """Hours between two clock hours, round the clock either way."""
    return min(abs(hour - was), 24 - abs(hour - was))


async def snooze_reminder(
    book: ReminderBook, reminder: Reminder, span: timedelta, *, now: datetime, fired: bool = False
) -> Reminder:
    """``reminder`` pushed back by ``span``: from its due time while it is still to come, else
    from now. A repeating one that has fired, or whose occurrence before it has just
    (``fired``), is reminded of again ``span`` from now, once, and its series is left as it
    was: snoozed right after it fired, the next occurrence (weeks away) was pushed instead
    (tester s34 U80). One still to come is that occurrence pushed: a second reminder beside
    it was made (tester s36). The reminder that will come."""
    due = reminder.due
    to_come = reminder.is_open() and due is not None and due > now
    if reminder.every is not None and (fired or not to_come):
        return await book.once_more(reminder, now + span, now)
    base = due if to_come and due is not None else now
    return await book.move(reminder, base + span, now)


def listing(mine: list[Reminder], zone: ZoneInfo, now: datetime, *, group: bool = False) -> str:
    """A person's reminders as ``/reminders`` lists them (and "what reminders do I have?"),
    with the commands for the first one still to come; ``group``: asked in a group, where no
    zone of the person's private home shows (:func:`_rule_said`)."""
    if not mine:
        return NONE_YET
    lines = [f"Your reminders (times in {zone.key}):"]
    for r in mine:
        fate = "" if r.is_open() else f" ({r.status})"
        rule = _rule_said(r, zone, group=group)
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
        found = await zone_of(
            self._state,
            self._book.store,
            caller.user_key,
            self._book.default_timezone,
            group=caller.is_group,
        )
        return found.info

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
        zone = await self._zone(call.caller)
        return CommandResponse(listing(mine, zone, now, group=call.caller.is_group))

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
        said = call["when"]
        when = read_move_time(said, now=now, zone=zone)
        return CommandResponse(
            await move_reminder(self._book, reminder, when, said, zone=zone, now=now)
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
        moved = await snooze_reminder(self._book, reminder, span, now=now)
        return CommandResponse(
            f"Snoozed: {moved.task}, I'll remind you {local(moved.due, zone, now)} ({zone.key})."
        )

    # ------------------------------------------------------------------ completion

    async def _complete(self, caller: Caller, partial: str) -> list[str]:
        mine = await self._book.of(caller.user_key, self._now())
        numbers = [str(r.number) for r in mine]
        return [n for n in numbers if n.startswith(partial)][:MAX_CHOICES]
