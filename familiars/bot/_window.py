"""The answer to "anything on this week?": what is due or planned in the time asked, or
that nothing is.

Offline, the word-overlap answer took "on" and "week" for the words of a trip next February
("You are off to Lanzarote on the 20th of February for a week"): a confident answer about
another time. A question about a span of time (today, tonight, tomorrow, this weekend, this
week, next week) is answered by the person's reminders due in it and their plans dated in
it, and "Nothing that I know of" when there are none.

"what are my plans?" (no span) is answered by every reminder still to come and every plan
kept: the word-overlap answer found no plan in "The user is going to Paris on Saturday".
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import date, datetime, timedelta

from familiars.llm import second_person
from familiars.memory import MemoryRecord, is_live, reminder_content

_SPAN = r"(?P<span>today|tonight|tomorrow|this\s+weekend|this\s+week|next\s+week|the\s+weekend)"
_ASKS = re.compile(
    r"^(?:so\s+|and\s+|hey\s+)?(?:"
    r"(?:(?:is\s+there|have\s+i\s+got|do\s+i\s+have|got|have\s+we\s+got|do\s+we\s+have)\s+)?"
    r"anything\s+(?:on|planned|happening|coming\s+up|booked)"
    r"|what(?:'s|s|\s+is)\s+(?:on|happening|planned|coming\s+up)"
    r"|what\s+(?:have|do)\s+(?:i|we)\s+(?:got\s+|have\s+)?(?:on|planned)"
    r"|(?:am\s+i|are\s+we)\s+doing\s+anything"
    r"|what\s+(?:am\s+i|are\s+we)\s+(?:doing|up\s+to)|(?:am\s+i|are\s+we)\s+(?:busy|free)"
    r"|what\s+(?:have|do)\s+(?:i|we)\s+got"
    r"|(?:(?:do\s+i\s+have|have\s+i\s+got|got)\s+)?any\s+plans"
    r"|what(?:'s|s|\s+are|\s+is)\s+(?:my|our)\s+plans"
    rf")\s+(?:for\s+)?{_SPAN}\s*\?*$",
    re.I,
)
_OPEN = r"^(?:(?:so|and|hey|ok(?:ay)?|um+|remind\s+me)[,!]?\s+)*"
#: Every plan and reminder, no span said: "what are my plans?", "what's coming up?".
_PLANS = re.compile(
    _OPEN + r"(?:what(?:'s|s|\s+are|\s+is)\s+(?:my|our)\s+plans"
    r"|what\s+plans\s+(?:do|have)\s+(?:i|we)\s+(?:got|have|made)"
    r"|(?:do\s+i\s+have|have\s+i\s+got|have\s+i\s+made|got)\s+any\s+plans"
    r"|any\s+plans|what(?:'s|s|\s+is)\s+coming\s+up"
    r"|what\s+(?:have|do)\s+(?:i|we)\s+(?:got\s+|have\s+)?(?:planned|coming\s+up|on)"
    r"|what\s+am\s+i\s+(?:doing|up\s+to)\s+(?:next|soon))"
    r"(?:\s+(?:at\s+the\s+moment|right\s+now|now|then|coming\s+up|soon))?\s*[?!.]*$",
    re.I,
)
_DATED = re.compile(r"\((?:\w+day\s+)?(?P<d>\d{1,2}\s+[A-Z][a-z]+\s+\d{4})\)")


def _span(said: str, today: date) -> tuple[date, date]:
    """The first and last day of the span ``said``, from ``today``."""
    said = " ".join(said.lower().split())
    if said in ("today", "tonight"):
        return today, today
    if said == "tomorrow":
        return today + timedelta(days=1), today + timedelta(days=1)
    monday = today - timedelta(days=today.weekday())
    if said in ("this weekend", "the weekend"):
        return monday + timedelta(days=5), monday + timedelta(days=6)
    if said == "next week":
        return monday + timedelta(days=7), monday + timedelta(days=13)
    return today, monday + timedelta(days=6)


def _day_of(rec: MemoryRecord, now: datetime) -> date | None:
    if "ended" in rec.tags or not is_live(rec):  # "the Lanzarote trip is off": not on
        return None
    loop = rec.open_loop or {}
    if loop.get("due") and loop.get("status", "open") == "open":
        try:
            return datetime.fromisoformat(str(loop["due"])).astimezone(now.tzinfo).date()
        except ValueError:
            return None
    m = _DATED.search(rec.content)
    if m is None or loop:
        return None
    try:
        return datetime.strptime(m.group("d"), "%d %B %Y").date()
    except ValueError:
        return None


#: A one-off reminder's sentence (:func:`~familiars.memory.reminder_content`).
_ONE_OFF = re.compile(
    r"^Remind the user to (?P<task>.+) on \w+ \d{1,2} \w+ \d{4} at \d\d:\d\d \((?P<zone>[^)]+)\)\.$"
)


def _said(rec: MemoryRecord, now: datetime) -> str:
    """A record as the answer says it: a one-off reminder set in another zone with its time
    in the person's own (a reminder set before "/timezone America/Denver" said "16:00 (UTC)"
    beside one at "06:00 (America/Denver)" that comes before it)."""
    m = _ONE_OFF.match(rec.content)
    due = _due(rec)
    if m is None or due is None or now.tzinfo is None or m["zone"] == str(now.tzinfo):
        return second_person(rec.content)
    try:
        when = datetime.fromisoformat(due)
    except ValueError:
        return second_person(rec.content)
    if when.tzinfo is None:
        return second_person(rec.content)
    return second_person(reminder_content(m["task"], when.astimezone(now.tzinfo)))


def _due(rec: MemoryRecord) -> str | None:
    """An open reminder's due time (ISO), else None."""
    loop = rec.open_loop or {}
    if loop.get("due") and loop.get("status", "open") == "open" and "ended" not in rec.tags:
        return str(loop["due"])
    return None


def _moment(rec: MemoryRecord, now: datetime) -> float:
    """When an open reminder is due, as a moment (seconds), so that reminders said in
    different zones sort by when they come, not by their text (an ISO time with "+00:00"
    sorted after one with "-07:00" hours before it: tester s37); a plan without a time, or
    an unreadable one, after them."""
    due = _due(rec)
    try:
        when = datetime.fromisoformat(due) if due else None
    except ValueError:
        when = None
    if when is None:
        return math.inf
    return (when if when.tzinfo else when.replace(tzinfo=now.tzinfo)).timestamp()


_PLANNED = re.compile(r"^The user (?:plans|is planning|intends|is going|will)\b")


def _is_plan(rec: MemoryRecord) -> bool:
    if "ended" in rec.tags or rec.open_loop:
        return False
    return "plan" in rec.tags or bool(_PLANNED.match(rec.content))


def _ahead(text: str, now: datetime, records: Sequence[MemoryRecord]) -> str | None:
    """The reply to "what are my plans?": reminders to come, then plans kept."""
    if _PLANS.match(" ".join(text.replace("\u2019", "'").split())) is None:
        return None
    due = [(d, rec) for rec in records if (d := _due(rec)) and is_live(rec)]
    due.sort(key=lambda p: _moment(p[1], now))
    lines = [_said(rec, now) for d, rec in due if _not_past(d, now)]
    plans = [rec for rec in records if is_live(rec) and _is_plan(rec) and _not_over(rec, now)]
    dated = sorted(plans, key=lambda r: (_day_of(r, now) or date.max, r.ts))
    lines = [*lines, *(second_person(rec.content) for rec in dated)]
    return "\n".join(dict.fromkeys(lines)) if lines else "Nothing planned that I know of."


def _not_over(rec: MemoryRecord, now: datetime) -> bool:
    """A plan whose day has not passed (one with no day said is not over)."""
    day = _day_of(rec, now)
    return day is None or day >= now.date()


def _not_past(due: str, now: datetime) -> bool:
    try:
        return datetime.fromisoformat(due) >= now
    except (ValueError, TypeError):  # unreadable, or a time without its zone: kept
        return True


def on_in_span(text: str, now: datetime | None, records: Sequence[MemoryRecord]) -> str | None:
    """The reply to ``text`` when it asks what is on in a span of time, what is planned or
    what reminders are set; None otherwise. ``now`` is in the person's time zone;
    ``records`` are their live records."""
    if now is None:
        return None
    m = _ASKS.match(text.strip())
    if m is None:
        return _ahead(text, now, records)
    first, last = _span(m.group("span"), now.date())
    found = [(day, rec) for rec in records if (day := _day_of(rec, now)) and first <= day <= last]
    if not found:
        return f"Nothing that I know of {' '.join(m.group('span').lower().split())}."
    found.sort(key=lambda p: (p[0], _moment(p[1], now)))
    return "\n".join(_said(rec, now) for _, rec in found)


__all__ = ["on_in_span"]
