"""PgMemoryIndex: the index side of the database home (what ``MemoryIndex`` is for SQLite).

The records are already rows (``PgMemoryStore`` wrote them); this keeps their vectors in
pgvector, one space per (model, dimension) with its own HNSW index, answers what the reader,
the writer's dedupe, the forget path and the CLI ask of an index, and feeds every worker's
reader the changes other workers made (``_feed.ChangeFeed``). There is nothing to reconcile:
the database is the truth, and no file is read.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector_async
from psycopg import sql

from familiars.memory._embeddings import Embedder, content_hash
from familiars.memory._index import IndexListener, ReconcileReport, record_from_row
from familiars.memory._pg._connect import notify_channel
from familiars.memory._pg._feed import ChangeFeed
from familiars.memory._pg._keywords import keyword_match, keyword_rank
from familiars.memory._records import MemoryRecord
from familiars.memory._store import MemoryStore, StoreChange

logger = logging.getLogger(__name__)

_ROW_COLUMNS = "data::text, content, user_key, agent_id, dialogue_id"

#: The HNSW graph of a space. pgvector's defaults (m 16, ef_construction 64) gave recall@10
#: .989 at ef_search 400 on 100k clustered vectors and .78 at 1M; m 32 / ef_construction 128
#: on the same 100k: 1.0 at ef_search 100, at 1M .964 at 400 and .975 at 1000 (the build
#: 2-3x as long); real MiniLM sentence vectors (20k): .999 at 100, 1.0 at 200.
HNSW_OPTIONS = "m = 32, ef_construction = 128"


def as_array(value: Any) -> np.ndarray:
    """A vector as read (pgvector's ``Vector``, or an array) as float32."""
    if hasattr(value, "to_numpy"):
        value = value.to_numpy()
    return np.asarray(value, dtype=np.float32)


class PgMemoryIndex:
    """Vectors, keyword search and record reads over the memory's schema."""

    def __init__(
        self,
        url: str,
        schema: str,
        embedder: Embedder | None,
        *,
        workspace: Path,
        origin: str,
        listen: bool = True,
    ) -> None:
        self.url = url
        self.schema = schema
        self.embedder = embedder
        self.workspace = Path(workspace)
        self.origin = origin
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self._space_id: int | None = None
        self._listeners: list[IndexListener] = []
        self._lock = asyncio.Lock()
        self._feed: ChangeFeed | None = None
        self._listen = listen

    # ----------------------------------------------------------------- lifecycle

    async def open(self) -> None:
        from familiars.memory._pg._connect import aconnect

        if self._conn is not None:
            return
        self._conn = await aconnect(self.url, self.schema)
        await register_vector_async(self._conn)
        if self.embedder is not None:
            self._space_id = await self._ensure_space(self.embedder.model_name, self.embedder.dim)
        if self._listen:
            self._feed = ChangeFeed(
                self.url, self.schema, self.origin, self._feed_changes, self._fetch
            )
            await self._feed.start()

    async def attach_embedder(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._space_id = await self._ensure_space(embedder.model_name, embedder.dim)

    async def close(self) -> None:
        if self._feed is not None:
            await self._feed.stop()
            self._feed = None
        if self._conn is not None:
            await self._conn.close()
            self._conn = None

    async def __aenter__(self) -> PgMemoryIndex:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def conn(self) -> psycopg.AsyncConnection[Any]:
        if self._conn is None:
            raise RuntimeError("PgMemoryIndex is not open")
        return self._conn

    @property
    def space_id(self) -> int | None:
        return self._space_id

    def subscribe(self, listener: IndexListener) -> None:
        """``listener(upserted, removed_ids)`` after each change, this worker's or another's."""
        self._listeners.append(listener)

    async def _ensure_space(self, model: str, dim: int) -> int:
        """The space's id, and its HNSW index (cosine, on the vectors cast to its dimension:
        the cast keeps another space's vectors out of it)."""
        async with self._lock:
            cur = await self.conn.execute(
                "INSERT INTO embedding_spaces (model, dim) VALUES (%s, %s) "
                "ON CONFLICT (model, dim) DO UPDATE SET dim = excluded.dim RETURNING space_id",
                (model, dim),
            )
            row = await cur.fetchone()
            assert row is not None
            space = int(row[0])
            await self.conn.execute(
                sql.SQL(
                    "CREATE INDEX IF NOT EXISTS {} ON vectors USING hnsw "
                    "((embedding::vector({})) vector_cosine_ops) WITH ({}) WHERE space_id = {}"
                ).format(
                    sql.Identifier(f"vectors_hnsw_{space}"),
                    sql.Literal(dim),
                    sql.SQL(HNSW_OPTIONS),
                    space,
                )
            )
        return space

    # ----------------------------------------------------------------- vectors

    async def vectors_for(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of ``texts`` in the current space, embedding only the ones not stored."""
        if self.embedder is None or self._space_id is None:
            raise RuntimeError("no embedder configured for this index")
        hashes = [content_hash(t) for t in texts]
        cached = await self._cached_vectors(set(hashes))
        missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in cached}
        if missing:
            order = list(missing)
            fresh = np.asarray(
                await self.embedder.aembed_batch([missing[h] for h in order]), dtype=np.float32
            )
            async with self._lock, self.conn.cursor() as cur:
                await cur.executemany(
                    "INSERT INTO vectors (space_id, content_hash, embedding) VALUES (%s, %s, %s) "
                    "ON CONFLICT DO NOTHING",
                    [(self._space_id, h, v) for h, v in zip(order, fresh, strict=True)],
                )
            cached.update(dict(zip(order, fresh, strict=True)))
        out = np.zeros((len(texts), self.embedder.dim), dtype=np.float32)
        for i, h in enumerate(hashes):
            out[i] = cached[h]
        return out

    async def _cached_vectors(self, hashes: set[str]) -> dict[str, np.ndarray]:
        if not hashes:
            return {}
        async with self._lock:
            cur = await self.conn.execute(
                "SELECT content_hash, embedding FROM vectors "
                "WHERE space_id = %s AND content_hash = ANY(%s)",
                (self._space_id, list(hashes)),
            )
            rows = await cur.fetchall()
        return {h: as_array(v) for h, v in rows}

    async def load_matrix(
        self, where: str = "deprecated = 0", params: Sequence[Any] = ()
    ) -> tuple[list[str], np.ndarray]:
        """Ids and vectors of the live records (the reader's start). Only the default
        filter exists here: SQL text written for SQLite is not run on another database."""
        if where != "deprecated = 0" or params:
            raise ValueError("the database index loads the live records only")
        if self._space_id is None or self.embedder is None:
            return [], np.zeros((0, 0), dtype=np.float32)
        async with self._lock:
            cur = await self.conn.execute(
                "SELECT r.id, v.embedding FROM records r JOIN vectors v "
                "ON v.content_hash = r.content_hash AND v.space_id = %s "
                "WHERE NOT r.deprecated ORDER BY r.pos",
                (self._space_id,),
            )
            rows = await cur.fetchall()
        dim = self.embedder.dim
        if not rows:
            return [], np.zeros((0, dim), dtype=np.float32)
        matrix = np.stack([as_array(v) for _, v in rows])
        return [r[0] for r in rows], matrix

    async def nearest(
        self, query: np.ndarray, k: int, *, user_key: str | None = None, ef_search: int = 400
    ) -> list[tuple[str, float]]:
        """(record id, cosine) of the ``k`` live records nearest ``query``: over all, by the
        space's HNSW index; within one person's user scope (``user_key``), exactly over that
        person's rows. Measured by ``familiars bench recall --database`` (clustered vectors,
        100 people; m 32 / ef_construction 128): over all, HNSW recall@10 at ef_search 400
        1.0 / 1.0 / .964 at 10k / 100k / 1M (.975 at 1M with ef_search 1000); per person,
        pgvector's iterative scans (strict or relaxed order, ef_search up to 1000,
        max_scan_tuples up to 1M, over-fetch up to 10x) found .84-.97 of the exact ten at
        100k and 1M (on real sentence vectors at 20k .996-1.0, but 9x slower than exact), so
        the person's rows are read exactly (recall 1.0; p50 31 ms at 100k, 431 ms at 1M with
        10k rows a person and the table not in shared buffers)."""
        if self._space_id is None or self.embedder is None:
            return []
        vec = np.asarray(query, dtype=np.float32)
        if user_key:
            return await self._nearest_of(vec, k, user_key)
        dim = self.embedder.dim
        query_sql = sql.SQL(
            "SELECT r.id, 1 - (v.embedding::vector({dim}) <=> %s::vector({dim})) "
            "FROM vectors v JOIN records r ON r.content_hash = v.content_hash "
            "WHERE v.space_id = %s AND NOT r.deprecated "
            "ORDER BY v.embedding::vector({dim}) <=> %s::vector({dim}) LIMIT %s"
        ).format(dim=sql.Literal(dim))
        async with self._lock, self.conn.transaction():
            await self.conn.execute(sql.SQL("SET LOCAL hnsw.ef_search = {}").format(ef_search))
            cur = await self.conn.execute(query_sql, [vec, self._space_id, vec, k])
            rows = await cur.fetchall()
        return [(rid, float(score)) for rid, score in rows]

    async def _nearest_of(self, vec: np.ndarray, k: int, user_key: str) -> list[tuple[str, float]]:
        """Exact: the person's rows first (their index), materialized so the planner cannot
        turn it into an HNSW scan filtered afterwards."""
        assert self.embedder is not None
        query_sql = sql.SQL(
            "WITH mine AS MATERIALIZED ("
            " SELECT r.id, v.embedding::vector({dim}) AS e FROM records r JOIN vectors v"
            " ON v.content_hash = r.content_hash AND v.space_id = %s"
            " WHERE r.scope = 'user' AND r.user_key = %s AND NOT r.deprecated)"
            " SELECT id, 1 - (e <=> %s::vector({dim})) FROM mine"
            " ORDER BY e <=> %s::vector({dim}) LIMIT %s"
        ).format(dim=sql.Literal(self.embedder.dim))
        async with self._lock:
            cur = await self.conn.execute(query_sql, [self._space_id, user_key, vec, vec, k])
            rows = await cur.fetchall()
        return [(rid, float(score)) for rid, score in rows]

    # ----------------------------------------------------------------- changes

    async def _fetch(self, query: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        async with self._lock:
            cur = await self.conn.execute(query, params)  # type: ignore[arg-type]
            return await cur.fetchall()

    async def forgotten_turns(self, keys: Sequence[str]) -> None:
        """Announce forgotten turns as removed ``record_changes`` rows (with a NOTIFY): every
        other worker's reader drops them (records go through the store's own changes)."""
        if not keys:
            return
        async with self._lock, self.conn.transaction():
            async with self.conn.cursor() as cur:
                await cur.executemany(
                    "INSERT INTO record_changes (origin, record_id, removed) VALUES (%s, %s, true)",
                    [(self.origin, key) for key in keys],
                )
            await self.conn.execute(sql.SQL("NOTIFY {}").format(notify_channel(self.schema)))

    async def catch_up(self) -> None:
        """What other workers changed (and forgot) up to now, handed to the subscribers: the
        reader calls this before each recall, so a forget confirmed on another worker is
        never recalled here (its NOTIFY alone may arrive after the next turn)."""
        if self._feed is not None:
            await self._feed.catch_up()

    async def records_changed(self, change: StoreChange) -> None:
        """StoreListener: the rows are written; their vectors follow, then the reader."""
        if self.embedder is not None and change.upserted:
            await self.vectors_for([r.content for r in change.upserted])
        await self._notify(change.upserted, change.removed)

    async def _feed_changes(self, upserted_ids: list[str], removed: list[str]) -> None:
        """Another worker's changes: the records as they are now, to the subscribers."""
        found = await self.rows(upserted_ids)
        gone = [rid for rid in upserted_ids if rid not in found]
        await self._notify(list(found.values()), [*removed, *gone])

    async def _notify(self, upserted: list[MemoryRecord], removed: list[str]) -> None:
        for listener in self._listeners:
            result = listener(upserted, removed)
            if asyncio.iscoroutine(result):
                await result

    async def purge_texts(self, texts: Sequence[str]) -> int:
        """After a forget: the vectors of ``texts`` that no record still uses go, and the
        tables that held the words are vacuumed, so the dead rows (and their GIN entries)
        leave the table files; the write-ahead log keeps them until it is recycled."""
        hashes = sorted({content_hash(t) for t in texts if t})
        if not hashes:
            return 0
        async with self._lock:
            cur = await self.conn.execute(
                "DELETE FROM vectors v WHERE v.content_hash = ANY(%s) AND NOT EXISTS "
                "(SELECT 1 FROM records r WHERE r.content_hash = v.content_hash)",
                (hashes,),
            )
            gone = max(0, cur.rowcount)
            await self.conn.execute("VACUUM records, history, raw_segments, vectors")
        return gone

    # ----------------------------------------------------------------- the truth is here

    async def reconcile(
        self,
        store: MemoryStore,
        *,
        paths: Any = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> ReconcileReport:
        return ReconcileReport()  # no files to catch up with

    async def rebuild(
        self, store: MemoryStore, *, progress: Callable[[int, int], None] | None = None
    ) -> ReconcileReport:
        report = ReconcileReport()
        report.embedded = await self.embed_missing()
        return report

    async def embed_missing(self, *, batch: int = 512) -> int:
        if self.embedder is None or self._space_id is None:
            return 0
        async with self._lock:
            cur = await self.conn.execute(
                "SELECT DISTINCT r.content FROM records r LEFT JOIN vectors v "
                "ON v.content_hash = r.content_hash AND v.space_id = %s "
                "WHERE v.content_hash IS NULL",
                (self._space_id,),
            )
            texts = [row[0] for row in await cur.fetchall()]
        for start in range(0, len(texts), batch):
            await self.vectors_for(texts[start : start + batch])
        return len(texts)

    # ----------------------------------------------------------------- queries

    async def keyword_search(
        self, query: str, *, limit: int = 200, user_key: str | None = None
    ) -> list[tuple[str, float]]:
        """(record id, ts_rank_cd) of live records whose words match any of ``query``'s
        (English words, and the bigrams of a script without spaces: ``_keywords``)."""
        found = keyword_rank(query)
        if found is None:
            return []
        rank, match, params = found
        person = "AND scope = 'user' AND user_key = %s" if user_key else ""
        params = [*params, *([user_key] if user_key else []), limit]
        async with self._lock:
            cur = await self.conn.execute(
                f"SELECT id, {rank} AS score FROM records "
                f"WHERE {match} AND NOT deprecated {person} ORDER BY score DESC, id LIMIT %s",
                params,
            )
            rows = await cur.fetchall()
        return [(rid, float(score)) for rid, score in rows]

    async def rows(self, ids: Sequence[str]) -> dict[str, MemoryRecord]:
        if not ids:
            return {}
        async with self._lock:
            cur = await self.conn.execute(
                f"SELECT {_ROW_COLUMNS} FROM records WHERE id = ANY(%s)", (list(ids),)
            )
            rows = await cur.fetchall()
        out = {}
        for data, content, user_key, agent_id, dialogue_id in rows:
            rec = record_from_row(data, content, user_key, agent_id, dialogue_id)
            out[rec.id] = rec
        return out

    async def iter_records(
        self,
        *,
        scope: str | None = None,
        category: str | None = None,
        user_key: str | None = None,
        agent_id: str | None = None,
        dialogue_id: str | None = None,
        include_deprecated: bool = False,
        query: str | None = None,
    ) -> AsyncIterator[MemoryRecord]:
        """Records, oldest first, with ``MemoryStore.list``'s filters and those whose words
        match ``query``'s (English stems, and a CJK run's bigrams as SQLite's m005 has them:
        ``_keywords``)."""
        where: list[str] = ["TRUE"]
        params: list[Any] = []
        if query is not None:
            found = keyword_match(query)
            if found is None:
                return
            where.append(found[0])
            params += found[1]
        if scope is not None:
            where.append("scope = %s")
            params.append(scope)
        elif user_key is not None:
            where.append("scope = 'user'")
        for column, value in (("category", category), ("user_key", user_key)):
            if value is not None:
                where.append(f"{column} = %s")
                params.append(value)
        if agent_id is not None:
            where.append("(scope = 'user' OR agent_id = %s)")
            params.append(agent_id)
        if dialogue_id is not None:
            where.append("(dialogue_id IS NULL OR dialogue_id = %s)")
            params.append(dialogue_id)
        if not include_deprecated:
            where.append("NOT deprecated")
        async with self._lock:
            cur = await self.conn.execute(
                f"SELECT {_ROW_COLUMNS} FROM records WHERE {' AND '.join(where)} ORDER BY ts, id",
                params,
            )
            rows = await cur.fetchall()
        for data, content, uk, ag, dl in rows:
            yield record_from_row(data, content, uk, ag, dl)

    async def counts(self) -> list[dict[str, Any]]:
        async with self._lock:
            cur = await self.conn.execute(
                "SELECT scope, category, count(*) FILTER (WHERE NOT deprecated), "
                "count(*) FILTER (WHERE deprecated), count(*) FILTER (WHERE pinned) "
                "FROM records GROUP BY scope, category ORDER BY scope, category"
            )
            rows = await cur.fetchall()
        return [
            {"scope": s, "category": c, "live": lv, "deprecated": dp, "pinned": pn}
            for s, c, lv, dp, pn in rows
        ]
