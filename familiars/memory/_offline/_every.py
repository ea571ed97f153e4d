"""Reminders that come back: "every Monday at 8", "every day at 9pm", "daily at 7", "every
month to pay rent" (F6).

A rule is a small dict kept in the reminder's open loop (``open_loop["every"]``) and, once it
fired, in the scheduler's ledger: ``{"unit": "day"|"week"|"month", "weekday": 0..6 (weeks
only, Monday 0), "day": 1..31 (months only: past a short month's end, its last day), "at":
"HH:MM", "tz": "Europe/London"}``. Each occurrence is its own reminder
record (fired once, as any other); when one has fired, the scheduler writes the next
(:func:`next_due`). Cancelling the open occurrence stops all the later ones.

:func:`find_every` finds the rule's words in a request and the rest without them;
:func:`next_due` the first occurrence after a time; :func:`every_text` says the rule.
"""

from __future__ import annotations

import logging
import re
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from familiars.memory._offline._time_words import afternoon_hour, night_half, plain_time

logger = logging.getLogger(__name__)

# The longest step a rule may take ("every 1000 days/weeks"); more is a slip or a bad edit.
MAX_INTERVAL = 1000

_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_SHORT = {d[:3]: i for i, d in enumerate(_DAYS)} | {"tues": 1, "thur": 3, "thurs": 3}
_PART_OF_DAY = {"morning": time(8), "evening": time(18), "night": time(21), "day": time(9)}
_CLOCK = r"(?:\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?|noon|midnight)"
_DAY_WORD = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?s?"
_COUNTS = {"other": 2, "two": 2, "second": 2, "three": 3, "third": 3, "four": 4, "couple of": 2}
_EVERY = re.compile(
    r"(?:\b(?:every|each)\s+(?:single\s+)?(?:(?P<n>\d{1,2}|other|two|three|four|second|third|"
    r"couple\s+of)\s+)?(?P<unit>weekdays?|week\s?days|weekends?|weeks?(?:\s+on\s+\w+)?|days?|"
    rf"night|morning|evening|{_DAY_WORD})\b|\b(?P<daily>daily)|\b(?P<fortnight>fortnightly|every\s+fortnight)"
    rf"(?:\s+on\s+(?P<on>{_DAY_WORD}))?|\b(?:on\s+)?(?P<plural>weekdays|week\s?days|weekends))"
    rf"(?:\s*,?\s*(?:at|@)\s+(?P<at>{_CLOCK}))?"
    rf"|\b(?:at\s+)?(?P<at_first>{_CLOCK})\s+(?:every|each)\s+(?P<unit2>day|night|morning|"
    r"evening|weekdays?|week\s?days|weekends?|"
    r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?s?)\b",
    re.IGNORECASE,
)
#: A clock said apart from the rule's words, in what is left of the request: after the task
#: ("remind me every other friday to mow the lawn at 5pm") or before it ("remind me at 6pm,
#: every weekday, to log off"). A number with no "at" is the task's own ("read 2 pages").
_APART_CLOCK = re.compile(
    rf"(?:^|(?<=\s))(?:at|@)\s+(?P<at>{_CLOCK})(?=[\s,.!?]*(?:$|(?:to|that|about|remind)\b))",
    re.IGNORECASE,
)


_NTH = r"(?P<{}>\d{{1,2}})(?:st|nd|rd|th)?"
#: "every month", "monthly", "every 2 months", "each month on the 15th", "on the 1st of every
#: month", with or without a time.
_MONTHLY = re.compile(
    r"\b(?:(?:on\s+)?(?:the\s+)?" + _NTH.format("day1") + r"\s+(?:of\s+)?(?:every|each)\s+month"
    r"|(?:every|each)\s+(?:(?P<n>\d{1,2}|other|two|three|four|six)\s+)?months?"
    r"(?:\s+on\s+the\s+" + _NTH.format("day2") + r")?"
    r"|monthly(?:\s+on\s+the\s+" + _NTH.format("day3") + r")?)\b"
    rf"(?:\s*,?\s*(?:at|@)\s+(?P<at>{_CLOCK}))?",
    re.IGNORECASE,
)


def _find_monthly(text: str, tz: ZoneInfo) -> tuple[dict[str, Any], str] | None:
    """A monthly rule said in ``text`` and the rest; its day, when none is said, is the
    first occurrence's (the caller sets it)."""
    m = _MONTHLY.search(text)
    if m is None:
        return None
    said_at, rest = _apart_clock(m, text)
    clock = _said_clock(said_at, f"{m.group(0)} {said_at}") if said_at else time(9)
    day = m.group("day1") or m.group("day2") or m.group("day3")
    count = (m.group("n") or "1").lower()
    interval = int(count) if count.isdigit() else {"other": 2, "six": 6}.get(count, 0)
    interval = interval or _COUNTS.get(count, 1)
    if clock is None or (day is not None and not 1 <= int(day) <= 31):
        return None
    rule: dict[str, Any] = {"unit": "month", "tz": tz.key, "at": _hhmm(clock, "")}
    if day is not None:
        rule["day"] = int(day)
    if interval > 1:
        rule["interval"] = interval
    return rule, rest


def find_every(text: str, tz: ZoneInfo) -> tuple[dict[str, Any], str] | None:
    """The rule said in ``text`` and ``text`` without its words; None when none is said
    (or its time cannot be read). Its time words are read plainly first ("evry friday at
    half 5" is every Friday at 17:30)."""
    text = plain_time(text)
    monthly = _find_monthly(text, tz)
    if monthly is not None:
        return monthly
    m = _EVERY.search(text)
    if m is None:
        return None
    said_at, rest = _apart_clock(m, text)
    clock = _said_clock(said_at, f"{m.group(0)} {said_at}") if said_at else None
    if said_at and clock is None:
        return None
    rule = _rule(m, clock, tz)
    if rule is None:
        return None
    return rule, rest


def _apart_clock(m: re.Match[str], text: str) -> tuple[str | None, str]:
    """The clock the rule's words say (or, when they say none, one said apart from them:
    "every other friday to mow the lawn at 5pm" is 17:00, not 09:00) and ``text`` without
    the rule's words or that clock."""
    said = m.groupdict().get("at") or m.groupdict().get("at_first")
    rest = (text[: m.start()] + " " + text[m.end() :]).strip(" ,")
    apart = None if said else _APART_CLOCK.search(rest)
    if apart is not None:
        said = apart.group("at")
        rest = (rest[: apart.start()] + " " + rest[apart.end() :]).strip(" ,")
    return said, re.sub(r"\s+(?:,\s*)+|\s{2,}", " ", rest)  # the commas of removed words


def _rule(m: re.Match[str], clock: time | None, tz: ZoneInfo) -> dict[str, Any] | None:
    """The rule of one match: a unit, the weekdays it falls on, every how many, at when."""
    unit = (m.group("unit") or m.group("unit2") or m.group("plural") or "day").lower()
    count = (m.group("n") or "1").lower()
    interval = int(count) if count.isdigit() else _COUNTS.get(re.sub(r"\s+", " ", count), 1)
    if m.group("fortnight"):
        unit, interval = f"week on {m.group('on') or ''}".strip(), 2
    rule: dict[str, Any] = {"unit": "day", "tz": tz.key}
    if interval > 1:
        rule["interval"] = interval
    unit = unit.replace("week days", "weekdays").replace("weekdays", "weekdays")
    if unit.rstrip("s") in _PART_OF_DAY or unit == "days":
        part = unit.rstrip("s")
        rule["at"] = _hhmm(clock or _PART_OF_DAY[part], part)
        return rule
    if re.fullmatch(r"week\s?days?|weekends?", unit):
        days = [5, 6] if unit.startswith("weekend") else [0, 1, 2, 3, 4]
        rule.update(unit="week", weekdays=days, at=_hhmm(clock or time(9), ""))
        return rule
    if unit in ("week", "weeks"):
        rule.update(unit="week", at=_hhmm(clock or time(9), ""))  # on the day it was set
        return rule
    day = unit.rsplit(" ", 1)[-1] if unit.startswith("week") else unit
    weekday = _weekday(day)
    if weekday is None:
        return None
    rule.update(unit="week", weekday=weekday, at=_hhmm(clock or time(9), ""))
    return rule


def _fits_month(rule: dict[str, Any], day: date) -> bool:
    """Whether ``day`` is the rule's day of the month (a short month's last day for a day it
    does not have), every n-th month counted from its first occurrence (``start``); a rule
    without its day yet falls on any."""
    if "day" in rule:
        last = (day.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)
        if day.day != min(int(rule["day"]), last.day):
            return False
    step, start = int(rule.get("interval") or 1), rule.get("start")
    if step > 1 and isinstance(start, str):
        first = date.fromisoformat(start)
        return ((day.year - first.year) * 12 + day.month - first.month) % step == 0
    return True


def _fits(rule: dict[str, Any], day: date) -> bool:
    """Whether ``day`` is one the rule falls on: its weekdays, and every n-th day or week
    counted from its first occurrence (``start``)."""
    if rule.get("unit") == "month":
        return _fits_month(rule, day)
    if rule.get("unit") == "week":
        days = rule.get("weekdays")
        if isinstance(days, list):
            if day.weekday() not in days:
                return False
        elif "weekday" in rule and day.weekday() != int(rule["weekday"]):
            return False
    step = int(rule.get("interval") or 1)
    start = rule.get("start")
    if step > 1 and isinstance(start, str):
        length = step * (7 if rule.get("unit") == "week" else 1)
        return (day - date.fromisoformat(start)).days % length == 0
    return True


def next_due(rule: dict[str, Any], after: datetime) -> datetime | None:
    """The rule's first occurrence strictly after ``after``, in the rule's zone; None (logged)
    for a rule it cannot follow: a bad zone or clock, or an interval (a hand-edited file's,
    say) outside 1..:data:`MAX_INTERVAL`, which would search for ages and overflow."""
    try:
        tz = ZoneInfo(str(rule.get("tz") or "UTC"))
        hour, minute = (int(x) for x in str(rule["at"]).split(":"))
        step = int(rule.get("interval") or 1)
        at = time(hour, minute)
    except (ZoneInfoNotFoundError, ValueError, KeyError, TypeError):
        logger.warning("repeating rule %r unreadable; it has no next time", rule)
        return None
    if not 1 <= step <= MAX_INTERVAL:
        logger.warning(
            "repeating rule %r: interval %s is outside 1..%s; it has no next time",
            rule,
            step,
            MAX_INTERVAL,
        )
        return None
    here = after.astimezone(tz)
    day = here.date()
    days = 9 + (32 if rule.get("unit") == "month" else 7) * step
    try:
        for _ in range(days):
            when = datetime.combine(day, at, tzinfo=tz)
            if _fits(rule, day) and when > here:
                return when
            day += timedelta(days=1)
    except (OverflowError, ValueError):
        logger.warning("repeating rule %r runs past the calendar; it has no next time", rule)
    return None


def every_text(rule: dict[str, Any] | None) -> str:
    """ "every Monday at 08:00", "every day at 21:00" ("" for no rule)."""
    if not rule:
        return ""
    step = int(rule.get("interval") or 1)
    every = f"every {step} " if step > 1 else "every "
    if rule.get("unit") == "month":
        on = f" on the {_nth(int(rule['day']))}" if "day" in rule else ""
        return f"{every}{'months' if step > 1 else 'month'}{on} at {rule.get('at')}"
    if rule.get("unit") == "week":
        days = rule.get("weekdays")
        if isinstance(days, list):
            said = "weekend day" if days == [5, 6] else "weekday"
            return f"every {said} at {rule.get('at')}"
        on = _DAYS[int(rule["weekday"]) % 7].title() if "weekday" in rule else ""
        if step > 1:
            return f"{every}weeks" + (f" on {on}" if on else "") + f" at {rule.get('at')}"
        return f"every {on or 'week'} at {rule.get('at')}"
    return f"{every}{'days' if step > 1 else 'day'} at {rule.get('at')}"


def _nth(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st ..."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _weekday(word: str) -> int | None:
    word = word.lower().rstrip("s")
    for i, name in enumerate(_DAYS):
        if word == name:
            return i
    return _SHORT.get(word.removesuffix("day"))


def _clock(text: str) -> time | None:
    said = re.sub(r"\b([ap])\.m\.", r"\1m", text.strip().lower())
    said = re.sub(r"^(\d{1,2})\.(\d{2})", r"\1:\2", said)  # "7.30" is 7:30
    if said == "noon":
        return time(12)
    if said == "midnight":
        return time(0)
    m = re.fullmatch(r"(\d{1,2})(?::(\d{2}))?\s*(am|pm)?", said)
    if not m:
        return None
    hour, minute = int(m.group(1)), int(m.group(2) or 0)
    if m.group(3) == "pm" and hour < 12:
        hour += 12
    elif m.group(3) == "am" and hour == 12:
        hour = 0
    if hour > 23 or minute > 59:
        return None
    return time(hour, minute)


def _said_clock(said: str, phrase: str) -> time | None:
    """The clock ``said`` in the time ``phrase`` (the rule's words and the clock, never the
    task's: "for the early collection" says no morning): an hour with no am or pm (and no
    leading zero) read by :func:`afternoon_hour` ("every Friday at 5" is 17:00, "every day
    at 8" 08:00), or left to the part of the day said ("every night at 1" is 01:00)."""
    clock = _clock(said)
    if clock is None or re.search(r"[ap]\.?m\b|^0|noon|midnight", said.strip(), re.I):
        return clock
    if re.search(r"\b(?:night|tonight|evening|afternoon)s?\b", phrase, re.I):
        return clock  # read with its part of the day (``_hhmm``)
    return clock.replace(hour=afternoon_hour(clock.hour, phrase))


def _hhmm(clock: time, part: str) -> str:
    hour = clock.hour
    if part == "night" and night_half(hour) == "am":
        hour %= 12  # "every night at 1": 01:00; "at 12": 00:00
    elif part in ("evening", "night") and hour < 12:
        hour += 12  # "every evening at 7": 19:00
    return f"{hour:02d}:{clock.minute:02d}"
