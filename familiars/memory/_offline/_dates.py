"""Dates and due times in the person's time zone, and the facts that carry one.

:func:`zone` (unknown names fall back to UTC), :func:`parse_when` ("tomorrow at 9", "in 2
hours": a due time), :func:`parse_day` (a day, for birthdays and dated events),
:func:`_absolute_days` ("tomorrow" in a note pinned to its day); then the dated patterns:
:func:`match_birthday`, :func:`match_dated_event`, :func:`match_reminder` (an ``event`` with
an absolute TTL and an open loop of kind ``reminder``, worded by :func:`reminder_content`).
"""

from __future__ import annotations

import logging
import re
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from familiars.memory._offline._asked_reminders import as_remind_me, remind_of_asked
from familiars.memory._offline._every import find_every, next_due
from familiars.memory._offline._objects import Fact, third_person, topic_key
from familiars.memory._offline._remind_me import REMIND_ME
from familiars.memory._offline._time_words import (
    DAY_OF_YEAR,
    MONTH,
    afternoon_hour,
    bare_hour_at_night,
    night_half,
    plain_time,
)
from familiars.memory._writer._schema import OpenLoop

logger = logging.getLogger(__name__)


DEFAULT_REMINDER_HOUR = 9


def zone(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        logger.warning("unknown time zone %r; using UTC", name)
        return ZoneInfo("UTC")


_HAS_CLOCK = re.compile(
    r"\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b|\bnoon\b|\bmidnight\b|"
    r"\b(?:at|by)\s+\d{1,2}\b|\bmorning\b|\bevening\b|\bafternoon\b|\btonight\b|\bnight\b",
    re.IGNORECASE,
)
_RELATIVE = re.compile(r"^in\s+(?:\d+|an?|one|two|three|few|half)\b", re.IGNORECASE)
# "in -5 minutes", "minus 3 hours": a count below zero is no time to remind at.
_NEGATIVE = re.compile(r"(?:^|[\s(])[-\u2212]\s*\d|\bminus\s+\w", re.IGNORECASE)
# A due time further off than this is a slip, not a plan ("in 99999999999 years").
MAX_AHEAD = timedelta(days=366 * 100)


#: "7.15", "at 12.30", "8.45pm": a British dot between the hour and the minutes ("in
#: 1.30 hours" is a length of time).
_DOT_TIME = re.compile(
    r"(?<![\d.])(?P<lead>\b(?:at|by|around|about)\s+)?(?P<hour>[01]?\d|2[0-3])\.(?P<minute>[0-5]\d)"
    r"(?![\d.]*\d)(?!\s*(?:h|hrs?|hours?|m|mins?|minutes?)\b)(?P<half>\s*[ap]\.?m\b)?",
    re.IGNORECASE,
)


def _dot_time(m: re.Match[str]) -> str:
    """The dotted time as a clock time where it cannot be a day and month: minutes over 12,
    or "at" / am / pm said with it ("on 7.12" stays a date)."""
    if not (m["lead"] or m["half"] or int(m["minute"]) > 12):
        return m[0]
    return f"{m['lead'] or ''}{m['hour']}:{m['minute']}{m['half'] or ''}"


def _normalise_when(text: str) -> str:
    text = text.strip().strip(".!?").strip()
    text = _DOT_TIME.sub(_dot_time, text)
    text = re.sub(r"\bnoon\b", "12:00", text, flags=re.I)
    text = re.sub(r"\b(?:half\s+an|a\s+half)\s+hour\b", "30 minutes", text, flags=re.I)
    text = re.sub(r"\ban\s+hour\s+and\s+a\s+half\b", "90 minutes", text, flags=re.I)
    text = re.sub(r"\b(?:a\s+)?quarter\s+of\s+an\s+hour\b", "15 minutes", text, flags=re.I)
    text = re.sub(r"\b(\d+)\s*mins?\b", r"\1 minutes", text, flags=re.I)
    # Phone and British words (tester U11): "tmrw", "half 7" (7:30).
    text = re.sub(r"\b(?:tmrw|tmr|tmoz|tomoz|2moro|2morrow)\b", "tomorrow", text, flags=re.I)
    text = re.sub(
        r"\bhalf\s+(\d{1,2})\b(?!\s*(?:[:.]|hours?|minutes?|days?))", r"\1:30", text, flags=re.I
    )
    text = re.sub(r"\bmidnight\b", "00:00", text, flags=re.I)
    text = re.sub(
        r"\bnext\s+(?=(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\b)",
        "",
        text,
        flags=re.I,
    )
    text = re.sub(r"\b(at|by)\s+(\d{1,2})(?!\d|:|\s*[ap]\.?m)", r"\1 \2:00", text, flags=re.I)
    text = _after_noon(text)
    text = _afternoon_clocks(text)
    text = re.sub(r"^(?:at|on|by)\s+", "", text.strip(), flags=re.I)
    return text.strip()


#: A clock with no am or pm ("4:00"; not "04:00", written as a 24-hour clock).
_CLOCK_WITHOUT_HALF = re.compile(
    r"(?<![\d:./])(?P<hour>[1-9]|1\d|2[0-3]):(?P<minute>[0-5]\d)(?![\d:])"
    r"(?!\s*(?:[ap]\.?m\b|hours?|minutes?))",
    re.IGNORECASE,
)


def _afternoon_clocks(text: str) -> str:
    """``text`` with each clock said without am or pm read by :func:`afternoon_hour` ("tomorrow
    at 4" is 16:00 unless the morning is said)."""

    def read(m: re.Match[str]) -> str:
        return f"{afternoon_hour(int(m['hour']), text)}:{m['minute']}"

    return _CLOCK_WITHOUT_HALF.sub(read, text)


#: "tonight", "this evening", "friday afternoon": a part of the day after noon.
_AFTER_NOON_SAID = re.compile(r"\b(?:tonight|evening|afternoon|night)\b", re.IGNORECASE)
_HOUR_WITHOUT_HALF = re.compile(
    r"\b(?P<hour>0?[1-9]|1[012]):(?P<minute>\d{2})\b(?!\s*[ap]\.?m)", re.IGNORECASE
)


def _after_noon(text: str) -> str:
    """``text`` with an hour said without am or pm put after noon when the part of the day said
    is: "tonight at half 9" is 21:30, "this evening at 7" 19:00 (tester U83: both were set for
    the next morning, after the thing they were for)."""
    said = _AFTER_NOON_SAID.search(text)
    if said is None:
        return text
    night = said.group(0).lower() in ("tonight", "night")

    def read(m: re.Match[str]) -> str:
        hour = int(m.group("hour"))
        return f"{hour}:{m.group('minute')} {night_half(hour) if night else 'pm'}"

    return _HOUR_WITHOUT_HALF.sub(read, text)


_CLOCK_ONLY = re.compile(r"^(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$", re.IGNORECASE)


def _clock_only(phrase: str) -> time | None:
    """A bare clock time ("9pm", "21:30", "12:00"): dateparser puts these on odd days."""
    m = _CLOCK_ONLY.match(phrase.strip())
    if not m:
        return None
    hour, minute = int(m.group(1)), int(m.group(2) or 0)
    half = (m.group(3) or "").lower().replace(".", "")
    if half == "pm" and hour < 12:
        hour += 12
    elif half == "am" and hour == 12:
        hour = 0
    if hour > 23 or minute > 59:
        return None
    return time(hour, minute)


#: A time gone by ("yesterday", "last friday", "2 hours ago"): no time to remind at, never
#: read as the next time a clock shows it ("remind me yesterday at 9" set one for today 09:00).
#: "the last friday of the month", "the last week of december" are ahead (review s34 F2).
_A_DAY_NAME = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
PAST_SAID = re.compile(
    rf"\b(?:yesterday|last\s+(?:night|week|month|year|{_A_DAY_NAME})(?!\s+(?:of|in)\b)|ago)\b",
    re.IGNORECASE,
)
#: The whole phrase of a time gone by, "2 weeks ago" with its count.
_PAST_PHRASE = re.compile(
    rf"\b(?:yesterday|last\s+(?:night|week|month|year|{_A_DAY_NAME})|(?:\S+\s+)?\w+\s+ago)\b",
    re.IGNORECASE,
)
#: Words before a time gone by that make it part of the task, not the time to remind at:
#: "pay Sam back for last night", "the plumber I rang last week", "what happened last night".
_PAST_OF_TASK = re.compile(
    r"\b(?:for|from|since|of|about|after|before|during|over|than|until|till|to|"
    r"(?:i|we|he|she|they|you|who|what|which|that)(?:\s+\w+){1,2})\s+$",
    re.IGNORECASE,
)
#: What may follow a time gone by said as the reminder's time: a clock or part of the day.
_ONLY_A_TIME = re.compile(
    r"(?:[\s,]+(?:at|around|by|about|in\s+the|on)?\s*(?:\d{1,2}(?:[:.]\d\d)?\s*"
    r"(?:[ap]\.?m\b\.?)?|noon|midnight|morning|afternoon|evening|night|o'?clock)\b)*[\s,.!]*",
    re.IGNORECASE,
)


def past_time_at(words: str) -> int | None:
    """Where a time gone by starts in ``words`` (a task and what follows it) when it is said
    as the time to remind at ("call Bob yesterday at 9"): followed by nothing but a time, and
    not the task's own ("thank Jo for last night", "the jacket I bought 2 weeks ago")."""
    for m in _PAST_PHRASE.finditer(words):
        if _ONLY_A_TIME.fullmatch(words, m.end()) and not _PAST_OF_TASK.search(words[: m.start()]):
            return m.start()
    return None


def said_past(when: str) -> bool:
    """Whether ``when`` names a time gone by (see :data:`PAST_SAID`)."""
    return PAST_SAID.search(when) is not None


def parse_when(text: str, *, now: datetime, tz: ZoneInfo) -> datetime | None:
    """An aware datetime in ``tz`` for a phrase like "tomorrow at 9am", "in 2 hours", "on
    Friday" (no clock time: 09:00), or None when the phrase is not a time or one gone by."""
    text = plain_time(text)
    if said_past(text):
        return None
    local_now = now.astimezone(tz)
    small_hours = bare_hour_at_night(text, local_now)
    if small_hours is not None:
        return small_hours
    phrase = _spell_last_day(_normalise_when(text), text, local_now)
    phrase = spell_slash_date(phrase, now=now, tz=tz) or ""
    if not phrase or not re.search(r"\d|[a-z]{3,}", phrase, re.I) or _NEGATIVE.search(phrase):
        return None
    if re.search(r"\b(?:every|each|daily|weekly)\b", phrase, re.I):
        return None  # a repeating reminder is not one due time
    clock = _clock_only(phrase)
    if clock is not None:
        when = datetime.combine(local_now.date(), clock, tzinfo=tz)
        # Hour 0 is said only on a 24-hour clock ("midnight" is 00:00): never read as 12:00.
        # A leading zero ("05:00") is a 24-hour clock, as written.
        bare_hour = re.fullmatch(r"[1-9]\d?(?::\d{2})?", phrase.strip()) is not None and clock.hour
        if when <= local_now and bare_hour and clock.hour < 12:
            # "at 5" said at 14:00 means 17:00: the next time a clock shows it.
            later = when + timedelta(hours=12)
            if later > local_now:
                return later
        return when if when > local_now else when + timedelta(days=1)
    day_said = _DAY_OF_MONTH.search(phrase)
    if day_said is not None and not _month_before(phrase, day_said.start()):
        return _next_day_of_month(phrase, day_said, text, local_now)
    parsed = _dateparse(phrase, local_now)
    if parsed is None:
        return None
    when = parsed.astimezone(tz)
    if when - local_now > MAX_AHEAD:
        return None
    if (
        not _HAS_CLOCK.search(text)
        and not _HAS_CLOCK.search(phrase)
        and not _RELATIVE.match(phrase)
    ):
        when = datetime.combine(when.date(), time(DEFAULT_REMINDER_HOUR), tzinfo=tz)
    if when <= local_now and not _RELATIVE.match(phrase):
        when += timedelta(days=1)
    return when if when > local_now else None


#: "the last day of the month", "the end of next month", "month end".
_LAST_DAY = re.compile(
    r"\b(?:(?:the\s+)?(?:last\s+day|end)\s+of\s+(?:the\s+)?(?P<which>this\s+|next\s+)?month"
    r"|month[\s-]end)\b",
    re.IGNORECASE,
)


def _spell_last_day(phrase: str, text: str, local_now: datetime) -> str:
    """``phrase`` with "the last day of the month" said as that day ("31 December 2026"): of
    next month when that is said, or when today is the last day and its reminder hour (no
    clock said) is gone."""
    said = _LAST_DAY.search(phrase)
    if said is None:
        return phrase
    ahead = 1 if (said.group("which") or "").strip().lower() == "next" else 0
    day = _month_end(local_now.date(), ahead)
    late = local_now.hour >= DEFAULT_REMINDER_HOUR and not _HAS_CLOCK.search(text)
    if not ahead and day == local_now.date() and late:
        day = _month_end(local_now.date(), 1)
    return f"{phrase[: said.start()]}{day.day} {day:%B} {day.year}{phrase[said.end() :]}"


def _month_end(today: date, months_ahead: int) -> date:
    year, month = today.year, today.month + months_ahead + 1
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    return date(year, month, 1) - timedelta(days=1)


def _dateparse(phrase: str, local_now: datetime) -> datetime | None:
    import dateparser

    settings = {
        "TIMEZONE": str(local_now.tzinfo),
        "RETURN_AS_TIMEZONE_AWARE": True,
        "PREFER_DATES_FROM": "future",
        "RELATIVE_BASE": local_now.replace(tzinfo=None),
        "DATE_ORDER": date_order(local_now.tzinfo),
    }
    return dateparser.parse(phrase, languages=["en"], settings=settings)  # type: ignore[arg-type]


#: The zones where a date is written month first ("12/1" is 1 December): the United States'
#: and the places that write dates its way (Canada, the Philippines, Puerto Rico, the Northern
#: Marianas), and UTC or a bare GMT offset (a person who set no zone: as before).
_MONTH_FIRST = (
    *(
        f"America/{city}"
        for city in (
            "New_York", "Chicago", "Denver", "Los_Angeles", "Phoenix", "Anchorage", "Detroit",
            "Boise", "Indiana", "Kentucky", "Juneau", "Sitka", "Nome", "Adak", "Menominee",
            "North_Dakota", "Metlakatla", "Yakutat", "Puerto_Rico", "Toronto", "Vancouver",
            "Edmonton", "Winnipeg", "Halifax", "St_Johns", "Regina", "Moncton", "Whitehorse",
            "Yellowknife", "Iqaluit", "Glace_Bay", "Goose_Bay", "Swift_Current", "Dawson",
            "Dawson_Creek", "Fort_Nelson", "Creston", "Cambridge_Bay", "Rankin_Inlet",
            "Resolute", "Inuvik", "Atikokan", "Blanc-Sablon",
        )
    ),
    "US/", "Canada/", "Pacific/Honolulu", "Pacific/Guam", "Pacific/Saipan", "Asia/Manila",
    "UTC", "Etc/UTC", "Etc/GMT", "GMT", "Etc/Universal", "Universal", "Zulu",
)  # fmt: skip


def date_order(tz: Any) -> str:
    """ "MDY" or "DMY": how ``tz``'s people write a date with slashes; one rule for the facts
    and the reminders ("12/1" is 12 January in London and 1 December in New York, T21)."""
    return "MDY" if str(tz).startswith(_MONTH_FIRST) else "DMY"


#: "12/25", "3/4": a day and a month with no year (not "3/4/27", not "1/2 hour").
_BARE_SLASH = re.compile(
    r"(?<![\d/])(?P<a>\d{1,2})/(?P<b>\d{1,2})(?![\d/])"
    r"(?!\s*(?:an?\s+)?(?:hours?|minutes?|mins?)\b)",
    re.IGNORECASE,
)


def spell_slash_date(phrase: str, *, now: datetime, tz: ZoneInfo) -> str | None:
    """``phrase`` with a bare "a/b" said as the next such day ("12/25" -> "25 December 2026"):
    the order that is a date when only one is, else the zone's (:func:`date_order`), and never
    more than a year ahead (left to dateparser "12/25" in London was 12 December 2125); None
    when an "a/b" is no day within the year ("13/25", "2/30")."""
    today = now.astimezone(tz).date()
    missed = False

    def spelt(m: re.Match[str]) -> str:
        a, b = int(m.group("a")), int(m.group("b"))
        orders = [(a, b), (b, a)] if date_order(tz) == "MDY" else [(b, a), (a, b)]
        for month, day in orders:
            for year in (today.year, today.year + 1):
                try:
                    day_ = today.replace(year=year, month=month, day=day)
                except ValueError:
                    continue
                if day_ >= today or year > today.year:
                    return f"{day_.day} {day_:%B} {day_.year}"
        nonlocal missed
        missed = True
        return m.group(0)

    spelt_out = _BARE_SLASH.sub(spelt, phrase)
    return None if missed else spelt_out


_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
#: "the 1st", "Friday the 11th", "the 3rd of next month": a day of a month, no month named
#: after it ("the 2nd of January" and "the 5th May" are dates dateparser reads well).
_DAY_OF_MONTH = re.compile(
    r"\b(?:(?P<weekday>mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s+)?(?:the\s+)?"
    r"(?P<day>\d{1,2})(?:st|nd|rd|th)\b"
    r"(?!\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b)"
    r"(?:\s+of\s+(?:the\s+)?(?P<which>this|next)\s+month)?",
    re.IGNORECASE,
)
_MONTH_LAST = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?,?\s*$", re.IGNORECASE
)


def _month_before(phrase: str, at: int) -> bool:
    """Whether a month is named just before position ``at`` ("March the 1st")."""
    return _MONTH_LAST.search(phrase[:at]) is not None


def _next_day_of_month(
    phrase: str, said: re.Match[str], text: str, local_now: datetime
) -> datetime | None:
    """The next time from now that is the day of the month said (with its weekday, when one
    is said; from next month on for "of next month"), at the clock said or 09:00. Today's
    month and day never stand in for a month: "the 1st" said on 7 December is 1 January."""
    day = int(said.group("day"))
    if not 1 <= day <= 31:
        return None
    weekday = said.group("weekday")
    year, month = local_now.year, local_now.month
    if (said.group("which") or "").lower() == "next":
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    for _ in range(60):  # five years: a weekday and a day meet within 14 months
        try:
            date = datetime(year, month, day).date()
        except ValueError:
            date = None
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        if date is None or (weekday and _WEEKDAYS[date.weekday()] != weekday.lower()[:3]):
            continue
        spelt = f"{date.day} {date:%B} {date.year}"
        parsed = _dateparse(phrase[: said.start()] + spelt + phrase[said.end() :], local_now)
        if parsed is None:
            return None
        when = parsed.astimezone(local_now.tzinfo)
        if not _HAS_CLOCK.search(text):
            when = datetime.combine(date, time(DEFAULT_REMINDER_HOUR), tzinfo=local_now.tzinfo)
        if when > local_now:
            return when
    return None


def parse_day(text: str, *, now: datetime, tz: ZoneInfo, need_day: bool = True) -> datetime | None:
    import dateparser

    phrase = re.sub(r"^(?:on|the)\s+", "", text.strip().strip(".!?"), flags=re.I)
    if not re.search(
        r"\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|tomorrow|today|mon|"
        r"tue|wed|thu|fri|sat|sun",
        phrase,
        re.I,
    ):
        return None
    spelt = spell_slash_date(phrase, now=now, tz=tz)
    if spelt is None:
        return None
    phrase = spelt
    settings = {
        "PREFER_DATES_FROM": "future",
        "RELATIVE_BASE": now.astimezone(tz).replace(tzinfo=None),
        "DATE_ORDER": date_order(tz),
    }
    if need_day:
        settings["REQUIRE_PARTS"] = ["day"]
    return dateparser.parse(phrase, languages=["en"], settings=settings)  # type: ignore[arg-type]


_RELATIVE_DAY = re.compile(r"\b(?:today|tonight|tomorrow|yesterday)\b", re.IGNORECASE)


def _absolute_days(text: str, *, now: datetime, tz: ZoneInfo) -> str:
    """ "tomorrow" in a kept note means the day it was said of, not a day that moves."""
    today = now.astimezone(tz).date()
    shift = {"today": 0, "tonight": 0, "tomorrow": 1, "yesterday": -1}

    def absolute(m: re.Match[str]) -> str:
        word = m.group(0).lower()
        day = today + timedelta(days=shift[word])
        when = f"on {day:%A} {day.day} {day:%B %Y}"
        return f"{when} in the evening" if word == "tonight" else when

    return _RELATIVE_DAY.sub(absolute, text)


_WEEKDAY_SAID = re.compile(
    r"\b(?P<lead>next|this\s+coming|this|on|on\s+the)\s+(?P<day>mon|tues|wednes|thurs|fri|satur|sun)day"
    r"\b(?!\s*\(|\s+\d)",  # "on Saturday 5 December 2026" is pinned already
    re.IGNORECASE,
)
#: Said ahead whatever the lead: "next Saturday", "this coming Saturday".
_AHEAD_LEAD = re.compile(r"^(?:next|this\s+coming)$", re.IGNORECASE)
#: "on Saturday" is ahead only with a word that says so ("will", "going to", "is coming").
_AHEAD_SAID = re.compile(
    r"\b(?:will|shall|going\s+to|gonna|is\s+coming|are\s+coming|coming\s+(?:over|round|up|down|"
    r"to|back|home)|(?:is|are)\s+\w+ing)\b|'(?:ll|s\s+\w+ing|re\s+\w+ing)\b",
    re.IGNORECASE,
)
#: "was here on Monday": a day gone by, never pinned ahead.
_PAST_SAID = re.compile(
    r"\b(?:was|were|had|did|went|came|saw|met|visited|stayed|left|arrived|died|passed|"
    r"told|said|called\s+me|rang|last)\b",
    re.IGNORECASE,
)


def pin_weekdays(text: str, *, now: datetime, tz: ZoneInfo, said: str | None = None) -> str:
    """ "next Saturday" in a kept fact about someone is the Saturday it was said of ("on
    Saturday 12 December 2026"), not one that moves a week on each week (tester U12). Only a
    day said ahead is pinned: "next" or "this coming" Saturday, or "on Saturday" with "will",
    "going to", "is coming", "is playing"; "was here on Monday" and "plays football on
    Saturday" (a habit) are left as said (reviewer s33-2 #10). ``said`` is the person's words
    the fact came from."""
    today = now.astimezone(tz).date()
    words = said if said is not None else text
    if _PAST_SAID.search(words):
        return text
    ahead_said = _AHEAD_SAID.search(words) is not None

    def pinned(m: re.Match[str]) -> str:
        if not (ahead_said or _AHEAD_LEAD.match(m.group("lead"))):
            return m.group(0)
        ahead = (_WEEKDAYS.index(m.group("day").lower()[:3]) - today.weekday()) % 7 or 7
        day = today + timedelta(days=ahead)
        return f"on {day:%A} {day.day} {day:%B %Y}"

    return _WEEKDAY_SAID.sub(pinned, text)


_BIRTHDAY = re.compile(
    r"^(?:my\s+birthday\s+is|my\s+birthday's|my\s+bday\s+is|i\s+was\s+born\s+on|"
    r"i\s+was\s+born)\s+(?:on\s+)?(?P<date>.+)$",
    re.IGNORECASE,
)
_DATED = re.compile(
    r"^my\s+(?P<what>[a-z][\w ]{1,30}?)\s+is\s+(?P<date>(?:on|this|next|tomorrow|today|in)\b.+)$",
    re.IGNORECASE,
)
#: "for 15 December at 18:00: call mum": the time, a colon (or dash), the task.
_LABELLED = re.compile(
    r"^(?:for|on|at)?\s*(?P<when>.+?)\s*(?::(?!\d)|\s-|\s–)\s*(?:to\s+)?"
    r"(?P<task>.+?)[.!]*$",
    re.IGNORECASE,
)
_TASK_START = re.compile(r"^(?:to|that|about|of)\s+", re.IGNORECASE)
_WHEN_WORDS = re.compile(
    r"\b(?:at|on|in|by|tomorrow|tonight|today|this|next|monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday)\b",
    re.IGNORECASE,
)


#: Said of the person's own birthday, whatever the order: "3 March is my birthday",
#: "birthday: March 3rd", "I turn 30 on the 5th of May", "born on 17 September 1979".
_OWN_BIRTHDAY = re.compile(
    r"\bmy\s+(?:birthday|bday|b-day)\b|^(?:birthday|bday|b-day)\b|^(?:i\s+was\s+)?born\b"
    r"|^i\s+(?:turn|'?m\s+turning|am\s+turning)\s+\d+",
    re.IGNORECASE,
)
#: A day of the year said anywhere in a clause, with its year when one is said.
_DAY_IN_CLAUSE = re.compile(
    rf"\b(?:{DAY_OF_YEAR}|"
    r"\d{1,2}/\d{1,2}(?:/\d{2,4})?)(?:,?\s+(?:19|20)\d{2})?",
    re.IGNORECASE,
)


def _birthday_date(clause: str) -> str | None:
    """The date of a clause that speaks of the person's own birthday, said in any order."""
    if _OWN_BIRTHDAY.search(clause) is None:
        return None
    m = _DAY_IN_CLAUSE.search(clause)
    return m.group(0) if m else None


def match_birthday(clause: str, *, now: datetime, tz: ZoneInfo) -> Fact | None:
    m = _BIRTHDAY.match(clause)
    raw = m.group("date") if m else _birthday_date(clause)
    if not raw:
        return None
    if re.match(r"^(?:in|at)\s+[A-Za-z]", raw) and not re.search(r"\d", raw):
        return None  # "I was born in Spain" is a place, not a date
    day = parse_day(raw, now=now, tz=tz)
    if day is None:
        return None
    year = re.search(r"\b(19|20)\d{2}\b", raw)
    when = f"{day:%B} {day.day}" + (f", {year.group(0)}" if year else "")
    return Fact(
        "user", "profile", f"The user's birthday is on {when}.", ("birthday",), "birthday", 0.8
    )


def match_dated_event(clause: str, *, now: datetime, tz: ZoneInfo) -> Fact | None:
    m = _DATED.match(clause)
    if not m or m.group("what").lower().strip() in ("birthday", "bday", "name"):
        return None
    day = parse_day(m.group("date"), now=now, tz=tz, need_day=False)
    if day is None:
        return None
    what = m.group("what").strip().lower()
    content = f"The user's {what} is on {day:%A} {day.day} {day:%B %Y}."
    return Fact(
        "user",
        "event",
        content,
        ("date", f"topic:{topic_key(what)}"),
        f"event:{topic_key(what)}",
        0.7,
    )


_DOUBLED = re.compile(r"(\w+)\s+\1\b", re.IGNORECASE)


def match_reminder(
    clause: str, *, now: datetime, tz: ZoneInfo, grace_s: float, dialogue_id: str | None
) -> Fact | None:
    clause = as_remind_me(clause)
    m = REMIND_ME.search(clause)
    if not m or not remind_of_asked(clause):
        return None
    every = _every_split(clause, now=now, tz=tz)
    labelled = _LABELLED.match(m.group("rest").strip())
    due = parse_when(labelled.group("when"), now=now, tz=tz) if labelled else None
    if every is not None:
        task, due, rule = every
    elif labelled and due is not None:  # "remind me for 15 December at 18:00: call mum"
        task, rule = _task(labelled.group("task")), None
    else:
        before = clause[: m.start()].strip(" ,")
        split = _split_task_and_time(m.group("rest"), before, now=now, tz=tz)
        split = split or _bare_nudge(m.group("rest"), now=now, tz=tz)
        if split is None:
            return None
        (task, due), rule = split, None
    scope = "dialogue" if dialogue_id else "user"
    expires = (due + timedelta(seconds=grace_s)).astimezone(ZoneInfo("UTC"))
    content = reminder_content(task, due)
    return Fact(
        scope,
        "event",
        content,
        ("reminder", f"topic:{topic_key(task)}"),
        f"reminder:{topic_key(task)}:{due.isoformat()}",
        0.8,
        ttl={"kind": "absolute", "expires_at": expires.isoformat(timespec="seconds")},
        open_loop=OpenLoop(kind="reminder", due=due.isoformat(timespec="seconds"), every=rule),
    )


def _every_split(
    clause: str, *, now: datetime, tz: ZoneInfo
) -> tuple[str, datetime, dict[str, Any]] | None:
    """A recurring request ("every Monday at 8 remind me to put the bins out"): its task,
    first occurrence and rule; None when no rule is said."""
    found = find_every(clause, tz)
    if found is None:
        return None
    rule, rest = found
    m = REMIND_ME.search(rest)
    if not m:
        return None
    body = m.group("rest").strip().strip(".!")
    if not _TASK_START.match(body):
        return None
    task = _TASK_START.sub("", body, count=1).strip(" ,")
    due = next_due(rule, now)
    if not task or due is None:
        return None
    if rule.get("unit") == "month" and "day" not in rule:  # "every month": on this one's day
        rule = {**rule, "day": due.day}
    if rule.get("interval") or (rule.get("unit") == "week" and "weekday" not in rule):
        # every n-th day or week (or "every week") counts from the first occurrence
        rule = {**rule, "start": due.date().isoformat()}
        if rule.get("unit") == "week" and "weekday" not in rule and "weekdays" not in rule:
            rule["weekday"] = due.weekday()
    return _task(task), due, rule


def reminder_content(task: str, due: datetime) -> str:
    """The sentence a reminder record says, in the zone ``due`` carries: "Remind the user to
    call mom on Thursday 3 December 2026 at 09:00 (Europe/Lisbon)." (the scheduler reads the
    task back out of it)."""
    day = f"{due:%A} {due.day} {due:%B %Y}"
    return f"Remind the user to {task} on {day} at {due:%H:%M} ({due.tzinfo})."


_TWO_LEADS = re.compile(r"^(?:in|on|at|by)\s+(?:in|on|at|by)\b", re.IGNORECASE)


def _split_task_and_time(
    rest: str, before: str, *, now: datetime, tz: ZoneInfo
) -> tuple[str, datetime] | None:
    rest = rest.strip().strip(".!")
    # "remind me tomorrow at 9 to call mom"
    lead = re.match(r"^(?P<when>.+?)\s+(?:to|that|about)\s+(?P<task>.+)$", rest, re.IGNORECASE)
    if lead and not _TASK_START.match(rest):
        due = parse_when(lead.group("when"), now=now, tz=tz)
        if due is not None:
            return _task(lead.group("task")), due
    if not _TASK_START.match(rest):
        return None
    body = _TASK_START.sub("", rest, count=1)
    news = rest.lower().startswith("that")
    if past_time_at(body) is not None:
        return None  # "to call Bob last friday at 9": "friday at 9" is not the time said
    # "remind me to turn on the lights at 9pm": the leftmost split whose tail is a time.
    for m in _WHEN_WORDS.finditer(body):
        if m.start() == 0 or _DOUBLED.match(body, m.start()):
            continue  # "put the kettle on on Monday": the task keeps its own "on"
        task, when = body[: m.start()].strip(" ,"), body[m.start() :]
        if _TWO_LEADS.match(when):
            continue  # "put the chicken in at 5:45": "in" is the task's, "at 5:45" the time
        if past_time_at(task) is not None:
            return None  # "to call Bob yesterday at 9": a time gone by, not "at 9"
        if news and _NO_DAY.match(when.strip(" .!?")):
            continue  # "that my passport expires in March": when it happens, no day to remind
        due = parse_when(when, now=now, tz=tz)
        if due is not None and task:
            return _task(task), due
    # "tomorrow at 9, remind me to call mom"
    if before:
        due = parse_when(before, now=now, tz=tz)
        if due is not None:
            return _task(body), due
    return None


#: A time that names no day ("in March", "next month", "in the summer", "by 2038"): in news
#: to be told ("remind me that my passport expires in March") it says when the news happens,
#: not a day to remind on; the person is asked when.
_NO_DAY = re.compile(
    r"^(?:in|by|during|this|next|until|till|before|around|over)\s+(?:the\s+)?"
    r"(?:(?:early|mid|late|end\s+of|start\s+of|beginning\s+of)[\s-]+)?"
    rf"(?:{MONTH}(?:\s+(?:19|20)\d\d)?|(?:19|20)\d\d|spring|summer|autumn|fall|winter|"
    r"(?:next|this)\s+(?:month|year)|month|year|new\s+year)$",
    re.IGNORECASE,
)

#: The task of a reminder asked for with a time and nothing to do ("give me a nudge at 5").
NUDGE_TASK = "get the nudge asked for"


def _bare_nudge(rest: str, *, now: datetime, tz: ZoneInfo) -> tuple[str, datetime] | None:
    """ "remind me at 5", "give me a nudge at 5" (F6): a time and no task is still a reminder,
    its task :data:`NUDGE_TASK`; None when ``rest`` is more than a time."""
    rest = rest.strip().strip(".!")
    if not rest or _TASK_START.match(rest):
        return None
    # "set an alarm for 7 tomorrow" is at 7; "a reminder for tomorrow at 8" tomorrow at 8
    rest = re.sub(r"^for\s+", "", re.sub(r"^for\s+(?=\d)", "at ", rest, flags=re.I), flags=re.I)
    due = parse_when(rest, now=now, tz=tz)
    return None if due is None else (NUDGE_TASK, due)


#: "that I must go to the dentist", "that i need to pay rent": the task is "go to the dentist"
#: (it read "remind you to you must go ...": tester s36).
_I_MUST = re.compile(
    r"^(?:I|i)\s+(?:must|need\s+to|have\s+to|have\s+got\s+to|'ve\s+got\s+to|ve\s+got\s+to|"
    r"got\s+to|gotta|should|ought\s+to)\s+(?=\w)"
)
#: "... the Ausländerbehörde the monday at 8": the article of the time phrase, left behind.
_STRAY_ARTICLE = re.compile(r"\s+(?:on\s+)?the$", re.IGNORECASE)


def _task(text: str) -> str:
    text = _STRAY_ARTICLE.sub("", _I_MUST.sub("", text.strip(" ,.!?"), count=1))
    return third_person(text)
