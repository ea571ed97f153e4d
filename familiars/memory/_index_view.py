"""A read-only view of memory's index for other processes: status counts and listings.

The HTTP API and ``familiars status`` open their own read-only connection (WAL lets it read
while the bot writes), so they never hold the index's write lock. This module is the only
code outside ``_index.py`` that knows the ``records`` schema; callers describe what they want
with a :class:`RecordFilter` and get records or counts back:

- :meth:`IndexView.status_counts` per (scope, category): live, deprecated, expired, pinned;
- :meth:`IndexView.count_records` / :meth:`IndexView.list_records` (pages by id, newest first);
- :meth:`IndexView.embedding_spaces`, :meth:`IndexView.index_bytes`.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiosqlite

from familiars.memory._index import DB_NAME, fts_query, keyword_where, record_from_row
from familiars.memory._lock import read_only
from familiars.memory._records import MemoryRecord

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RecordFilter:
    """Which records a listing or count selects (None: any); ``query`` is full-text."""

    user_key: str | None = None
    agent_id: str | None = None
    dialogue_id: str | None = None
    scope: str | None = None
    category: str | None = None
    query: str | None = None
    include_deprecated: bool = False

    def where(self) -> tuple[str, list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        for column in ("user_key", "agent_id", "dialogue_id", "scope", "category"):
            value = getattr(self, column)
            if value is not None:
                clauses.append(f"r.{column} = ?")
                params.append(value)
        if not self.include_deprecated:
            clauses.append("r.deprecated = 0")
        if self.query is not None:
            clause, terms = keyword_where(self.query)
            clauses.append(clause)
            params += terms
        return (" AND ".join(clauses) or "1"), params


_CELL_SQL = (
    "SELECT scope, category, COUNT(*), SUM(deprecated = 1), SUM(pinned = 1) "
    "FROM records GROUP BY scope, category ORDER BY scope, category"
)
# A record is expired when an absolute TTL lies in the past (§5.3.3); SQLite's datetime()
# reads ISO 8601 with an offset and answers in UTC. The WHERE matches the partial index.
_EXPIRED_SQL = (
    "SELECT scope, category, COUNT(*) FROM records "
    "WHERE json_extract(data, '$.ttl.kind') = 'absolute' AND deprecated = 0 "
    "AND datetime(json_extract(data, '$.ttl.expires_at')) <= datetime(?) "
    "GROUP BY scope, category"
)


class IndexView:
    """A read-only view of the index, for a process that does not own it (the HTTP API,
    ``familiars status``). Opens lazily, so a workspace without an index yet answers with
    empty results and starts answering once the bot has built one. Never writes: the
    indexes its queries use are memory's own migration ``m002_listing_indexes``."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = Path(workspace)
        self.path = self.workspace / DB_NAME
        self._db: aiosqlite.Connection | None = None

    async def _conn(self) -> aiosqlite.Connection | None:
        if self._db is not None:
            return self._db
        if not self.path.is_file():
            return None
        # On a read-only mount SQLite cannot even create the WAL's shared memory: immutable.
        ro = "immutable=1" if read_only(self.workspace) else "mode=ro"
        uri = f"{self.path.resolve().as_uri()}?{ro}"
        try:
            self._db = await aiosqlite.connect(uri, uri=True, timeout=10.0)
        except sqlite3.Error as exc:
            logger.warning("cannot open the index %s read-only: %s", self.path, exc)
            return None
        return self._db

    async def close(self) -> None:
        if self._db is not None:
            await self._db.close()
            self._db = None

    async def has_records_table(self) -> bool:
        db = await self._conn()
        if db is None:
            return False
        async with db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'records'"
        ) as cur:
            return await cur.fetchone() is not None

    async def status_counts(self, now: datetime) -> list[dict[str, Any]]:
        """Per (scope, category): live, deprecated, expired (at ``now``) and pinned counts."""
        if not await self.has_records_table():
            return []
        db = await self._conn()
        assert db is not None
        stamp = now.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
        async with db.execute(_EXPIRED_SQL, (stamp,)) as cur:
            expired = {(sc, ca): int(n) for sc, ca, n in await cur.fetchall()}
        async with db.execute(_CELL_SQL) as cur:
            rows = await cur.fetchall()
        out = []
        for scope, category, total, deprecated, pinned in rows:
            deprecated = int(deprecated or 0)
            gone = expired.get((scope, category), 0)
            out.append(
                {
                    "scope": scope,
                    "category": category,
                    "live": int(total) - deprecated - gone,
                    "deprecated": deprecated,
                    "expired": gone,
                    "pinned": int(pinned or 0),
                }
            )
        return out

    async def embedding_spaces(self) -> list[dict[str, Any]]:
        db = await self._conn()
        if db is None:
            return []
        try:
            async with db.execute(
                "SELECT s.model, s.dim, (SELECT COUNT(*) FROM vectors v "
                "WHERE v.space_id = s.space_id) FROM embedding_spaces s ORDER BY s.space_id"
            ) as cur:
                rows = await cur.fetchall()
        except sqlite3.OperationalError:
            return []
        return [{"model": m, "dim": int(d), "vectors": int(n)} for m, d, n in rows]

    def index_bytes(self) -> int:
        total = 0
        for suffix in ("", "-wal", "-shm"):
            path = self.path.with_name(self.path.name + suffix)
            try:
                total += path.stat().st_size
            except FileNotFoundError:
                continue
        return total

    async def list_records(
        self,
        flt: RecordFilter,
        *,
        limit: int,
        after: str | None = None,
    ) -> tuple[list[tuple[MemoryRecord, str]], str | None]:
        """One page of (record, path), newest id first, records after the id ``after``, and
        the id the next page starts after (None on the last page).

        Ordering by id is total and stable: ids are unique and, for generated ones,
        time-ordered; the unique index on ``id`` serves it without sorting."""
        if not await self.has_records_table():
            return [], None
        if flt.query is not None and not fts_query(flt.query):
            return [], None
        db = await self._conn()
        assert db is not None
        where, params = flt.where()
        if after is not None:
            where += " AND r.id < ?"
            params.append(after)
        sql = (
            "SELECT r.data, r.content, r.user_key, r.agent_id, r.dialogue_id, r.path "
            f"FROM records r WHERE {where} ORDER BY r.id DESC LIMIT ?"
        )
        async with db.execute(sql, (*params, limit + 1)) as cur:
            rows = list(await cur.fetchall())
        page = [
            (record_from_row(data, content, uk, aid, did), path)
            for data, content, uk, aid, did, path in rows[:limit]
        ]
        next_after = page[-1][0].id if len(rows) > limit and page else None
        return page, next_after

    async def count_records(self, flt: RecordFilter) -> int:
        """How many records ``flt`` selects."""
        if not await self.has_records_table():
            return 0
        if flt.query is not None and not fts_query(flt.query):
            return 0
        db = await self._conn()
        assert db is not None
        where, params = flt.where()
        async with db.execute(f"SELECT COUNT(*) FROM records r WHERE {where}", params) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0
