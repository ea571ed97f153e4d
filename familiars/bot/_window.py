"""The answer to "anything on this week?": what is due or planned in the time asked, or
that nothing is.

Offline, the word-overlap answer took "on" and "week" for the words of a trip next February
("You are off to Lanzarote on the 20th of February for a week"): a confident answer about
another time. A question about a span of time (today, tonight, tomorrow, this weekend, this
week, next week) is answered by the person's reminders due in it and their plans dated in
it, and "Nothing that I know of" when there are none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime, timedelta

from familiars.llm import second_person
from familiars.memory import MemoryRecord, is_live

_SPAN = r"(?P<span>today|tonight|tomorrow|this\s+weekend|this\s+week|next\s+week|the\s+weekend)"
_ASKS = re.compile(
    r"^(?:so\s+|and\s+|hey\s+)?(?:"
    r"(?:(?:is\s+there|have\s+i\s+got|do\s+i\s+have|got|have\s+we\s+got|do\s+we\s+have)\s+)?"
    r"anything\s+(?:on|planned|happening|coming\s+up|booked)"
    r"|what(?:'s|s|\s+is)\s+(?:on|happening|planned|coming\s+up)"
    r"|what\s+(?:have|do)\s+(?:i|we)\s+(?:got\s+|have\s+)?(?:on|planned)"
    r"|(?:am\s+i|are\s+we)\s+doing\s+anything"
    rf")\s+(?:for\s+)?{_SPAN}\s*\?*$",
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


def on_in_span(text: str, now: datetime | None, records: Sequence[MemoryRecord]) -> str | None:
    """The reply to ``text`` when it asks what is on in a span of time; None otherwise.
    ``now`` is in the person's time zone; ``records`` are their live records."""
    m = _ASKS.match(text.strip())
    if m is None or now is None:
        return None
    first, last = _span(m.group("span"), now.date())
    found = [(day, rec) for rec in records if (day := _day_of(rec, now)) and first <= day <= last]
    if not found:
        return f"Nothing that I know of {' '.join(m.group('span').lower().split())}."
    return "\n".join(second_person(rec.content) for _, rec in sorted(found, key=lambda p: p[0]))


__all__ = ["on_in_span"]
