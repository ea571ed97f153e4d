"""The people graph kept next to the records: SQLite tables ``people`` and
``person_relations`` (migration ``memory.m004_people_graph``), rebuilt from a person's
records whenever they change (the index tells), so losing the database loses nothing.

:meth:`PeopleIndex.graph` is a person's graph (built on first use after a change);
:meth:`PeopleIndex.answer` is what recall adds for a question about someone's people: the
records along the path the question walks ("my sister's husband": the sister's record, the
husband's), then what else is said of the person it ends at.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from familiars.llm import object_text_store
from familiars.memory._backend import RecordIndex
from familiars.memory._errors import RecordNotFoundError
from familiars.memory._index import MemoryIndex
from familiars.memory._people_graph import (
    Edge,
    PeopleGraph,
    Person,
    asks_about_people,
    build_graph,
    question_paths,
)
from familiars.memory._records import MemoryRecord
from familiars.memory._store import MemoryStore

logger = logging.getLogger(__name__)


def _graph_face(rec: MemoryRecord) -> tuple[object, ...]:
    """What ``build_graph`` reads of a record: a change to anything else (the access
    counters a recall flushes) leaves the person's graph as it is."""
    return (rec.content, rec.ts, rec.deprecated, rec.supersedes, tuple(rec.tags), rec.category)


@dataclass(frozen=True)
class GraphHit:
    """A record recall adds, and the path that found it ("sister -> Emma, husband ->
    Joaquin")."""

    record: MemoryRecord
    path: str


class PeopleIndex:
    def __init__(self, store: MemoryStore, index: RecordIndex | None = None) -> None:
        self.store = store
        #: The SQLite copy's home (the files home's index); the database home has no such
        #: tables: its graphs live in memory only, rebuilt from the records.
        self.index = index if isinstance(index, MemoryIndex) else None
        self._graphs: dict[str, PeopleGraph] = {}
        #: Per person, what their graph was built from of each record (``_graph_face``).
        self._built: dict[str, dict[str, tuple[object, ...]]] = {}
        # It holds the records' texts: a forget empties it (the graphs then rebuild).
        object_text_store(
            "familiars.memory.PeopleIndex", self, PeopleIndex._drop_built, PeopleIndex._held
        )
        self._lock = asyncio.Lock()
        if index is not None:
            index.subscribe(self._changed)

    def _held(self) -> int:
        return len(self._built)

    def _drop_built(self) -> None:
        self._built.clear()
        self._graphs.clear()

    async def _changed(self, upserted: Sequence[MemoryRecord], removed: Sequence[str]) -> None:
        """A changed record of a person makes their graph stale; a removed (forgotten) one
        takes the person's saved rows with it at once: names are words too."""
        for rec in upserted:
            if rec.scope == "user" and rec.user_key:
                built = self._built.get(rec.user_key, {})
                if built.get(rec.id) != _graph_face(rec):  # not a recall count's change
                    self._graphs.pop(rec.user_key, None)
        if removed and self.index is None:
            gone = set(removed)
            for user_key, graph in list(self._graphs.items()):
                if _holds(graph, gone):
                    self._graphs.pop(user_key, None)
        if removed and self.index is not None:
            async with self._lock:
                for user_key in await forget_people_rows(self.index, removed):
                    self._graphs.pop(user_key, None)

    async def _clear(self, user_key: str) -> None:
        assert self.index is not None
        await _clear(self.index, user_key)

    async def graph(self, user_key: str) -> PeopleGraph:
        """``user_key``'s graph, rebuilt from their records when stale (and saved)."""
        async with self._lock:
            if user_key not in self._graphs:
                records = await self.store.list(scope="user", user_key=user_key, live_only=False)
                graph = build_graph(records)
                self._graphs[user_key] = graph
                self._built[user_key] = {r.id: _graph_face(r) for r in records}
                await self._save(user_key, graph)
            return self._graphs[user_key]

    async def _save(self, user_key: str, graph: PeopleGraph) -> None:
        if self.index is None:
            return
        async with self.index._write_lock:
            await self._clear(user_key)
            await self.index.db.executemany(
                "INSERT INTO people VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (
                        user_key,
                        p.name,
                        p.mentions,
                        p.first_seen,
                        p.last_seen,
                        json.dumps(p.record_ids),
                    )
                    for p in graph.people.values()
                ],
            )
            await self.index.db.executemany(
                "INSERT INTO person_relations VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (user_key, e.src, e.rel, e.dst, e.record_id, e.valid_from, e.superseded_at)
                    for e in graph.edges
                ],
            )
            await self.index.db.commit()

    async def answer(self, user_key: str, question: str, *, limit: int = 4) -> list[GraphHit]:
        """The records a question about ``user_key``'s people walks to (see the module)."""
        if not asks_about_people(question):
            return []  # no relation named: the turn's one read of the records is enough
        graph = await self.graph(user_key)
        hits: list[GraphHit] = []
        for path in question_paths(question, graph):
            said = _describe(path)
            ids = [e.record_id for e in reversed(path)]
            end = graph.people.get(path[-1].dst)
            ids += list(reversed(end.record_ids)) if end is not None else []
            for record_id in dict.fromkeys(ids):
                rec = await self._record(record_id)
                if rec is not None and all(h.record.id != rec.id for h in hits):
                    hits.append(GraphHit(rec, said))
        return hits[:limit]

    async def _record(self, record_id: str) -> MemoryRecord | None:
        """The record to recall; None when it is gone, or replaced (a correction, a merge):
        the graph keeps a replaced record's edges as the past, but its words are history,
        and recall answers with what stands (tester F5: a corrected age came back)."""
        try:
            rec = await self.store.get(record_id)
        except RecordNotFoundError:
            return None
        return None if rec.deprecated else rec


async def forget_people_rows(index: RecordIndex, record_ids: Sequence[str]) -> set[str]:
    """The saved graph of each person a removed (forgotten) record was read into, gone at
    once: names are words too. The running bot's :class:`PeopleIndex` does it as the index
    tells it; the Forgetter does it too, for a process with none open (the command line).
    The people whose rows went (none in the database home, which keeps no rows)."""
    if not isinstance(index, MemoryIndex) or not record_ids:
        return set()
    # The index's own lock: its writes and these share one connection and commit.
    async with index._write_lock:
        owners: set[str] = set()
        for record_id in record_ids:
            rows = await index.db.execute_fetchall(
                "SELECT user_key FROM person_relations WHERE record_id = ? UNION "
                "SELECT user_key FROM people WHERE record_ids LIKE ?",
                (record_id, f'%"{record_id}"%'),
            )
            owners.update(str(r[0]) for r in rows)
        for user_key in owners:
            await _clear(index, user_key)
        await index.db.commit()
    return owners


async def _clear(index: MemoryIndex, user_key: str) -> None:
    await index.db.execute("DELETE FROM people WHERE user_key = ?", (user_key,))
    await index.db.execute("DELETE FROM person_relations WHERE user_key = ?", (user_key,))


async def load_people(index: MemoryIndex, user_key: str) -> PeopleGraph:
    """The saved graph, read from the tables (another process: the web view, the API)."""
    graph = PeopleGraph()
    for row in await index.db.execute_fetchall(
        "SELECT name, mentions, first_seen, last_seen, record_ids FROM people WHERE user_key = ?",
        (user_key,),
    ):
        graph.people[row[0]] = Person(
            row[0], row[1], row[2] or "", row[3] or "", json.loads(row[4])
        )
    for row in await index.db.execute_fetchall(
        "SELECT src, rel, dst, record_id, valid_from, superseded_at FROM person_relations "
        "WHERE user_key = ?",
        (user_key,),
    ):
        graph.edges.append(Edge(*row))
    return graph


def _holds(graph: PeopleGraph, record_ids: set[str]) -> bool:
    """Some edge or person of ``graph`` was read from one of ``record_ids``."""
    return any(e.record_id in record_ids for e in graph.edges) or any(
        record_ids.intersection(p.record_ids) for p in graph.people.values()
    )


def _describe(path: Sequence[Edge]) -> str:
    return ", ".join(f"{e.rel} -> {e.dst}" for e in path)


__all__ = ["GraphHit", "PeopleIndex", "forget_people_rows", "load_people"]
