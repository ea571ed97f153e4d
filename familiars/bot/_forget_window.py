"""A time window said in words, for a forget: ``last 10m``, ``in the last 2 hours``, ``the
past few minutes``, ``just now``, ``today`` (from midnight in the person's time zone) (pure)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


_WINDOW_RE = re.compile(
    r"^(?:in\s+)?(?:the\s+)?last\s+(?P<n>\d{1,4})\s*(?P<unit>s|sec|secs|seconds?|m|min|mins|"
    r"minutes?|h|hr|hrs|hours?|d|days?)$"
)


#: Windows said without a number ("the last minute", "the past few minutes", "just now":
#: tester U7, only "the last 2 minutes" was understood), in seconds.
_SAID_WINDOWS = {
    "just now": 120,
    "a minute ago": 120,
    "a moment ago": 120,
    "last minute": 60,
    "last hour": 3600,
    "last day": 86400,
    "last few minutes": 300,
    "last couple of minutes": 120,
    "last couple minutes": 120,
    "last few hours": 3 * 3600,
    "last couple of hours": 2 * 3600,
    "last half hour": 1800,
    "last half an hour": 1800,
}


_SAID_WINDOW_RE = re.compile(r"^(?:in\s+|over\s+|during\s+|within\s+)?(?:the\s+)?(?P<span>.+)$")


@dataclass(frozen=True)
class Window:
    since: float
    until: float
    label: str


def parse_window(text: str, now: datetime, timezone: str | None = None) -> Window | None:
    """``last 10m``, ``in the last 5 minutes``, ``last 2 hours`` or ``today`` (midnight in
    the person's time zone) up to ``now``; None when the words are none of these."""
    words = " ".join(text.lower().split()).strip(" .!?")
    until = now.timestamp()
    if words in ("today", "so far today"):
        local = now.astimezone(_zone(timezone))
        midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
        return Window(midnight.timestamp(), until, "today")
    words = re.sub(r"\bpast\b", "last", words)
    m = _WINDOW_RE.match(words)
    if m is None:
        said = _SAID_WINDOW_RE.match(words)
        seconds = _SAID_WINDOWS.get(said["span"] if said else "", 0)
    else:
        seconds = int(m["n"]) * _UNITS[m["unit"][0]]
    if seconds <= 0:
        return None
    span = timedelta(seconds=seconds)
    return Window((now - span).timestamp(), until, f"in the last {_span_words(span)}")


def _span_words(span: timedelta) -> str:
    total = int(span.total_seconds())
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if total % size == 0 and total >= size:
            n = total // size
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{total} seconds"


def _zone(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")
