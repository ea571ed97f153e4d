"""The person's records as the offline writer's passes read them.

The offline writer runs on every turn's hot path over all of the person's records (a
thousand and more), and several of its passes derive the same things from them: the live
ones, their contents, the live ones keyed by fact. :class:`Kept` is the list itself, with
those worked out on first use and shared by every pass of one message; the passes take any
sequence (a plain one is made a :class:`Kept` for the call).

``MemoryStore.read_live`` hands out the same :class:`Kept` for as long as the files it came
from are unchanged, so what is derived here is worked out once per change of the records,
not once per turn. What depends on the clock (a record whose TTL runs out at a time) is kept
only while the clock is where it was: past the next expiry it is worked out again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from familiars.memory._offline._objects import _fact_key
from familiars.memory._records import MemoryRecord, is_live, parse_ts, utcnow

T = TypeVar("T")


def expiry_window(
    records: Sequence[MemoryRecord], now: datetime
) -> tuple[datetime | None, datetime | None]:
    """(the last expiry passed by ``now``, the next one to come) among the records' TTLs
    that run out at a time: which of them is live is the same for any time in between.
    Only such TTLs depend on the clock (``is_expired`` given the time alone)."""
    lower: datetime | None = None
    upper: datetime | None = None
    for rec in records:
        ttl = rec.ttl
        if not ttl or rec.deprecated or ttl.get("kind") != "absolute":
            continue
        expires = parse_ts(ttl.get("expires_at"))
        if expires is None:
            continue
        if expires <= now:
            lower = expires if lower is None or expires > lower else lower
        elif upper is None or expires < upper:
            upper = expires
    return lower, upper


def within(window: tuple[datetime | None, datetime | None], now: datetime) -> bool:
    lower, upper = window
    return (lower is None or lower <= now) and (upper is None or now < upper)


@dataclass
class _Memo:
    window: tuple[datetime | None, datetime | None]
    values: dict[str, Any] = field(default_factory=dict)


class Kept(list[MemoryRecord]):
    """The records of one read (a list, never changed after it is made), with what is
    derived from them kept beside it (:meth:`derived`)."""

    @classmethod
    def of(cls, records: Sequence[MemoryRecord]) -> Kept:
        return records if isinstance(records, Kept) else cls(records)

    def derived(self, name: str, make: Callable[[Kept], T]) -> T:
        """``make(self)``, worked out once and kept under ``name`` while the clock stays
        between the records' expiries (``make`` may read liveness at the current time)."""
        now = utcnow()
        memo: _Memo | None = self.__dict__.get("_memo")
        if memo is None or not within(memo.window, now):
            memo = self.__dict__["_memo"] = _Memo(expiry_window(self, now))
        if name not in memo.values:
            memo.values[name] = make(self)
        value: T = memo.values[name]
        return value

    @property
    def live(self) -> list[MemoryRecord]:
        return self.derived("live", lambda kept: [r for r in kept if is_live(r)])

    @property
    def contents(self) -> set[str]:
        """The live records' contents, stripped."""
        return self.derived("contents", lambda kept: {r.content.strip() for r in kept.live})

    @property
    def keyed(self) -> dict[str, MemoryRecord]:
        """The live records by fact key (the last of a key wins)."""
        return self.derived("keyed", lambda kept: {k: r for r in kept.live if (k := _fact_key(r))})

    @property
    def open_loops(self) -> list[MemoryRecord]:
        """The records with an open loop (a reminder, a promise), live or not."""
        return self.derived("open_loops", lambda kept: [r for r in kept if r.open_loop])


def derived_of(records: Sequence[MemoryRecord], name: str, make: Callable[[Kept], T]) -> T:
    """:meth:`Kept.derived` of ``records`` (worked out for this call when it is a plain
    sequence)."""
    return Kept.of(records).derived(name, make)


def live_of(records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    return Kept.of(records).live


def contents_of(records: Sequence[MemoryRecord]) -> set[str]:
    return Kept.of(records).contents


def keyed_of(records: Sequence[MemoryRecord]) -> dict[str, MemoryRecord]:
    return Kept.of(records).keyed


__all__ = ["Kept", "contents_of", "derived_of", "expiry_window", "keyed_of", "live_of", "within"]
