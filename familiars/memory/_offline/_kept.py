"""The person's records as the offline writer's passes read them.

The offline writer runs on every turn's hot path over all of the person's records (a
thousand and more), and several of its passes derive the same things from them: the live
ones, their contents, the live ones keyed by fact. :class:`Kept` is the list itself, with
those worked out on first use and shared by every pass of one message; the passes take any
sequence (a plain one is made a :class:`Kept` for the call).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

from familiars.memory._offline._objects import _fact_key
from familiars.memory._records import MemoryRecord, is_live


class Kept(list[MemoryRecord]):
    """The records of one offline writer's call (a list, never changed after it is made)."""

    @classmethod
    def of(cls, records: Sequence[MemoryRecord]) -> Kept:
        return records if isinstance(records, Kept) else cls(records)

    @cached_property
    def live(self) -> list[MemoryRecord]:
        return [r for r in self if is_live(r)]

    @cached_property
    def contents(self) -> set[str]:
        """The live records' contents, stripped."""
        return {r.content.strip() for r in self.live}

    @cached_property
    def keyed(self) -> dict[str, MemoryRecord]:
        """The live records by fact key (the last of a key wins)."""
        return {k: r for r in self.live if (k := _fact_key(r))}


def live_of(records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    return Kept.of(records).live


def contents_of(records: Sequence[MemoryRecord]) -> set[str]:
    return Kept.of(records).contents


def keyed_of(records: Sequence[MemoryRecord]) -> dict[str, MemoryRecord]:
    return Kept.of(records).keyed


__all__ = ["Kept", "contents_of", "keyed_of", "live_of"]
