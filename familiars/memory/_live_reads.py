"""The live records a store query matches, kept while the files they came from are the same.

A turn reads the same person's records every turn, and they change far less often. Each
query's answer is kept with the store's cache entries of the files it was read from (the
objects themselves, compared by identity: every write, outside edit seen, invalidation or
forget replaces or drops a file's entry, so a changed file never matches) and the span of
time in which the same records are live (``expiry_window``). A read still lists the folders
and asks the store for each file (a stat: a hand edit is read as before); only when every
entry is the one kept, and the time is in the span, is the kept answer given again, as the
very same :class:`Kept` list, so what is derived from it (``Kept.derived``) is kept too.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from familiars.llm import object_text_store
from familiars.memory._list_query import ListQuery
from familiars.memory._offline._kept import Kept, expiry_window, within
from familiars.memory._records import MemoryRecord, is_live

#: Queries (and joined reads) kept; the least recently read go first.
MAX_KEPT = 256

#: The kept reads' name among the caches a forget empties (``familiars.llm.text_cache_sizes``).
KEPT_READS = "familiars.memory.LiveReads"

#: (a file, the store's cache entry it was read from; None: the file is missing).
Source = tuple[Path, Any]


def markdown_files(folder: Path, category: str | None) -> list[Path]:
    """``folder/<category>.md``, or every ``*.md`` of ``folder`` (as ``glob`` finds them),
    sorted: one directory listing, no pattern matching per call."""
    if category is not None:
        path = folder / f"{category}.md"
        return [path] if os.path.lexists(path) else []
    try:
        with os.scandir(folder) as entries:
            names = sorted(e.name for e in entries if e.name.endswith(".md"))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [folder / name for name in names]


@dataclass
class _Answer:
    sources: tuple[Source, ...]
    window: tuple[datetime | None, datetime | None]
    records: Kept


def _same(a: Sequence[Any], b: Sequence[Any]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


def _same_sources(a: tuple[Source, ...], b: tuple[Source, ...]) -> bool:
    return len(a) == len(b) and all(
        pa == pb and ea is eb for (pa, ea), (pb, eb) in zip(a, b, strict=True)
    )


class LiveReads:
    """The kept answers of one store (used under the store's lock)."""

    def __init__(self) -> None:
        self._answers: OrderedDict[ListQuery, _Answer] = OrderedDict()
        self._joined: OrderedDict[tuple[ListQuery, ...], tuple[tuple[Kept, ...], Kept]] = (
            OrderedDict()
        )
        # A forgotten record's answer is never given again (its file's entry changed), but
        # it would stay in memory until read again: a forget empties them all.
        object_text_store(KEPT_READS, self, LiveReads.clear, LiveReads.size)

    def size(self) -> int:
        """How many answers are kept (joined reads too)."""
        return len(self._answers) + len(self._joined)

    def answer(
        self,
        query: ListQuery,
        sources: tuple[Source, ...],
        records_of: Callable[[Any], Sequence[MemoryRecord]],
        now: datetime,
    ) -> Kept:
        """The live records of ``sources`` (``records_of(entry)``: an entry's records) at
        ``now``, oldest first: the kept ones when nothing they depend on moved."""
        kept = self._answers.get(query)
        if kept is not None and _same_sources(kept.sources, sources) and within(kept.window, now):
            self._answers.move_to_end(query)
            return kept.records
        everything = [r for _, entry in sources if entry is not None for r in records_of(entry)]
        live = Kept(r for r in everything if is_live(r, now=now))
        live.sort(key=lambda r: (r.ts, r.id))
        self._answers[query] = _Answer(sources, expiry_window(everything, now), live)
        self._answers.move_to_end(query)
        while len(self._answers) > MAX_KEPT:
            self._answers.popitem(last=False)
        return live

    def joined(self, queries: tuple[ListQuery, ...], parts: Sequence[Kept]) -> Kept:
        """The answers of ``queries`` one after another, as one list: the same list while
        every part is the same."""
        if len(parts) == 1:
            return parts[0]
        held = self._joined.get(queries)
        if held is not None and _same(held[0], parts):
            self._joined.move_to_end(queries)
            return held[1]
        whole = Kept(r for part in parts for r in part)
        self._joined[queries] = (tuple(parts), whole)
        while len(self._joined) > MAX_KEPT:
            self._joined.popitem(last=False)
        return whole

    def clear(self) -> None:
        self._answers.clear()
        self._joined.clear()


__all__ = ["LiveReads", "markdown_files"]
