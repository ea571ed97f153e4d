"""Forgetting in the running bot: the workspace's :class:`~familiars.memory.Forgetter` with the
runtime's caches as hooks, time windows ("last 10m", "today"), and the words that ask for it.

Map:

- :func:`runtime_forgetter` - the one Forgetter of a running bot: it flushes held-back reply
  nodes first, then drops forgotten texts from the recaller, the embedder's cache and the
  ``/memory why`` log.
- :func:`parse_window` - ``last 10m`` / ``last 2 hours`` / ``today`` -> a :class:`Window`.
- :class:`ForgetByWords` - "forget what I said in the last 5 minutes" as a message: it asks
  for a yes, and on the next "yes" forgets (any other message drops the question).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from familiars.memory import DialogTrees, ForgetReport, Forgetter, MemoryReader, MemoryWorkspace

logger = logging.getLogger(__name__)

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_WINDOW_RE = re.compile(
    r"^(?:in\s+)?(?:the\s+)?last\s+(?P<n>\d{1,4})\s*(?P<unit>s|sec|secs|seconds?|m|min|mins|"
    r"minutes?|h|hr|hrs|hours?|d|days?)$"
)
_ASK_RE = re.compile(
    r"^(?:please\s+)?forget\s+(?:what|everything|all(?:\s+that)?)\s+i(?:'ve|\s+have)?\s+"
    r"(?:said|wrote|told\s+you)\s+(?P<when>.+?)[.!]?$"
)
_YES = {"yes", "y", "confirm", "yes please", "ok", "okay", "do it", "yes, forget it"}


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
    m = _WINDOW_RE.match(words)
    if m is None:
        return None
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


# --------------------------------------------------------------------------- the runtime's


def runtime_forgetter(
    memory: MemoryWorkspace,
    trees: DialogTrees,
    *,
    reader: MemoryReader | None,
    embedder: Any,
    flush: Callable[[], Awaitable[None]] | None,
    recall_log: MutableMapping[Any, list[dict[str, Any]]],
    fanout_log: MutableMapping[Any, Any] | None = None,
) -> Forgetter:
    """The bot's Forgetter: its open trees, and hooks for every cache that held the text
    (the last recalls' sub-queries, which quote messages, go whole on any forget)."""

    async def drop_from_reader(report: ForgetReport) -> None:
        if reader is not None:
            await reader.forget_keys(report.keys)

    def drop_from_embedder(report: ForgetReport) -> None:
        forget = getattr(embedder, "forget_texts", None)
        if forget is not None:
            forget(report.texts)

    def drop_from_recall_log(report: ForgetReport) -> None:
        keys = set(report.keys)
        for log_key, items in list(recall_log.items()):
            kept = [it for it in items if it.get("id") not in keys]
            if len(kept) != len(items):
                recall_log[log_key] = kept
        if fanout_log is not None and keys:
            fanout_log.clear()

    return Forgetter(
        memory.store,
        memory.index,
        trees,
        hooks=(drop_from_reader, drop_from_embedder, drop_from_recall_log),
        before=flush,
    )


# --------------------------------------------------------------------------- by words


@dataclass(frozen=True)
class _Asked:
    window: Window
    count: int


class ForgetByWords:
    """ "forget what I said in the last 5 minutes" -> a question -> "yes" -> forgotten."""

    def __init__(
        self,
        forgetter: Forgetter,
        *,
        timezone_of: Callable[[str], Awaitable[str | None]] | None = None,
    ) -> None:
        self.forgetter = forgetter
        self.timezone_of = timezone_of
        self._asked: dict[tuple[str, str, str], _Asked] = {}

    async def answer(
        self, text: str, *, agent_id: str, dialogue_id: str, user_key: str, now: datetime
    ) -> str | None:
        """The reply when ``text`` asks to forget or confirms it; None for any other message
        (which also drops a pending question)."""
        key = (agent_id, dialogue_id, user_key)
        words = " ".join(text.lower().split())
        asked = self._asked.pop(key, None)
        if asked is not None and words.strip(" .!") in _YES:
            report = await self.forgetter.forget_turns(
                user_key,
                since=asked.window.since,
                until=asked.window.until,
                agent_id=agent_id,
                now=now.timestamp(),
            )
            return done_text(report, asked.window)
        m = _ASK_RE.match(words)
        if m is None:
            return None
        tz = await self.timezone_of(user_key) if self.timezone_of is not None else None
        window = parse_window(m["when"], now, tz)
        if window is None:
            return None
        turns = await self.forgetter.turns_between(
            user_key, window.since, window.until, agent_id=agent_id
        )
        if not turns:
            return f"You said nothing to me {window.label} that I still keep."
        self._asked[key] = _Asked(window, len(turns))
        return (
            f"About to forget for good the {len(turns)} message(s) you sent me {window.label}, "
            "and what I noted from them. Reply yes to go ahead."
        )


def done_text(report: ForgetReport, window: Window | None = None) -> str:
    what = f" {window.label}" if window is not None else ""
    turns = sum(1 for key in report.nodes)
    return (
        f"Forgotten{what}: {turns} message(s) and {len(report.records)} memory(ies), "
        "everywhere I kept them."
    )
