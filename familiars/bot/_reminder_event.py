"""A reminder asked for relative to an event said in the same message.

"My granddaughter has a cello recital on the 18th of December at 2 in the afternoon, and I
should very much like to be reminded the day before at ten in the morning" names no task
after "remind me" (a wish, said as "remind me" by ``as_remind_me``): the task is what was
said before it, and "the day before" counts from that event's date. :func:`before_the_event`
says it as a request the reminder rules read ("remind me on 17 December 2026 at ten in the
morning that my granddaughter has a cello recital on ..."); a message without such an event
and offset is left as it is.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from familiars.memory import as_remind_me, parse_when, plain_time

#: A reminder asked for as a wish: "I'd like to be reminded", "I should very much like a
#: reminder", "it would be good to get a reminder", "make sure I remember to".
_WISHED = re.compile(
    r"\b(?:(?:i'?d|i\s+would|i\s+should|i)\s+(?:(?:very\s+)?much\s+|really\s+|quite\s+)?"
    r"(?:like|love|want|need|wish)\s+(?:to\s+(?:be|get)\s+reminded|(?:to\s+(?:get|have)\s+)?"
    r"an?\s+reminder)"
    r"|(?:it\s+would|it'?d|it\s+will|it'?ll)\s+be\s+(?:good|nice|great|helpful|handy|useful|"
    r"lovely|wise)\s+to\s+(?:get|have)\s+an?\s+reminder"
    r"|make\s+sure\s+(?:that\s+)?i\s+(?:remember|don'?t\s+forget|do\s+not\s+forget)"
    r"(?=\s+(?:to|about)\b))\s+",
    re.IGNORECASE,
)


def wish_as_request(text: str) -> str:
    """``text`` with a reminder wished for said as "remind me" ("I'd like to be reminded to
    call the bank at 10" is "remind me to call the bank at 10"); else ``text``."""
    return _WISHED.sub("remind me ", text)


#: What was said, then a request with no task of its own ("remind me the day before ...").
_TASKLESS = re.compile(
    r"^(?P<event>.+?)[\s,;.!:-]*(?:\b(?:and|so)\s+)?(?:(?:can|could|would|will)\s+(?:you|u)\s+"
    r"(?:please\s+)?|please\s+)?remind\s+me\s+(?P<rest>(?!(?:to|that|about|of)\b).+?)[\s.!?]*$",
    re.IGNORECASE | re.DOTALL,
)
_COUNT = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
#: How long before the event: "the day before", "the evening before", "two days before",
#: "a week before", "the morning of", "on the day"; then the clock, when said.
_OFFSET = re.compile(
    r"^(?:on\s+)?(?:(?P<part>the\s+(?:day|evening|night|morning|afternoon)\s+before)"
    r"|(?P<n>\d+|an?|one|two|three|four|five|six)\s+(?P<unit>days?|weeks?)\s+(?:before|earlier)"
    r"|(?P<same>the\s+(?:morning|day)\s+of|on\s+the\s+day))(?:\s+(?:it|then|that))?"
    r"(?P<when>(?:[\s,]+.*)?)$",
    re.IGNORECASE | re.DOTALL,
)
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"
#: The event's day: "the 18th of December", "December 18", "on Friday", "tomorrow".
_EVENT_DAY = re.compile(
    rf"\b(?:(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}"
    rf"|{_MONTH}\s+(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?"
    r"|(?:(?:this|next)\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day|tomorrow)\b",
    re.IGNORECASE,
)


def _days_before(m: re.Match[str]) -> int:
    if m["same"]:
        return 0
    if m["part"]:
        return 1
    n = int(m["n"]) if m["n"].isdigit() else _COUNT[m["n"].lower()]
    return n * (7 if m["unit"].lower().startswith("week") else 1)


def before_the_event(text: str, *, now: datetime, tz: ZoneInfo) -> str:
    """``text`` said as a plain request when it asks to be reminded some time before (or on
    the day of) an event it names with its date; else ``text``, a wish said as a request
    (:func:`wish_as_request`)."""
    asked = _TASKLESS.match(as_remind_me(wish_as_request(text)).strip())
    offset = _OFFSET.match(asked["rest"].strip()) if asked is not None else None
    if asked is None or offset is None:
        return wish_as_request(text)
    event = asked["event"].strip(" ,;.")
    day = _EVENT_DAY.search(plain_time(event))
    on = parse_when(f"on {day.group(0)}", now=now, tz=tz) if day is not None else None
    if on is None:
        return wish_as_request(text)
    when = offset["when"].strip(" ,")
    if not when:
        part = (offset["part"] or "").lower()
        when = "at 6pm" if "evening" in part or "night" in part else "at 9am"
    target = on - timedelta(days=_days_before(offset))
    return f"remind me on {target.day} {target:%B %Y} {when} that {event}"


__all__ = ["wish_as_request", "before_the_event"]
