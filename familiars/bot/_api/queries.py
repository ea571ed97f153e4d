"""Read-only queries on ``workspace/familiars.db`` for the status and the record listing.

The API and ``familiars status`` open their own read-only connection (WAL lets it read while
the bot writes), so they never hold the index's write lock and work in a separate process.
Counts are aggregate queries; nothing here parses a memory file.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiosqlite

from familiars.memory import (
    DB_NAME,
    RECORD_ID_RE,
    MemoryRecord,
    MigrationSet,
    apply_migrations,
    fts_query,
    is_expired,
    read_only,
    record_from_row,
    utcnow,
)

logger = logging.getLogger(__name__)

#: A cursor names the last record of the previous page: ``c1.<record id>``. Its pattern is
#: part of the OpenAPI document, so every cursor the schema allows is one the server reads.
CURSOR_PREFIX = "c1."
CURSOR_RE = re.compile(r"^c1\.m_[A-Za-z0-9_-]{1,64}$")


class CursorError(ValueError):
    """A pagination cursor this server did not hand out."""


def encode_cursor(record_id: str) -> str:
    return CURSOR_PREFIX + record_id


def decode_cursor(cursor: str) -> str:
    """The record id a cursor points after; :class:`CursorError` when it is not ours."""
    if not CURSOR_RE.fullmatch(cursor):
        raise CursorError("malformed cursor")
    record_id = cursor[len(CURSOR_PREFIX) :]
    if not RECORD_ID_RE.fullmatch(record_id):
        raise CursorError("malformed cursor")
    return record_id


@dataclass(frozen=True)
class RecordFilter:
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
            clauses.append("r.rowid IN (SELECT rowid FROM records_fts WHERE records_fts MATCH ?)")
            params.append(fts_query(self.query))
        return (" AND ".join(clauses) or "1"), params


#: Indexes that make the status aggregate queries index-only scans (100,000 records: ~30 ms
#: instead of ~1 s) and let a listing by person or dialogue walk its records in id order.
#: Derived data like the rest of the index; applied by the reader when the index exists and
#: lacks them (the runtime may also pass this set to ``MemoryIndex``).
status_migrations = MigrationSet("api")


@status_migrations
def m001_status_indexes(conn: sqlite3.Connection) -> None:
    conn.executescript(
        """
        CREATE INDEX IF NOT EXISTS records_cell_flags
            ON records(scope, category, deprecated, pinned);
        CREATE INDEX IF NOT EXISTS records_absolute_ttl
            ON records(scope, category, deprecated)
            WHERE json_extract(data, '$.ttl.kind') = 'absolute';
        CREATE INDEX IF NOT EXISTS records_user_key_id ON records(user_key, id);
        CREATE INDEX IF NOT EXISTS records_dialogue_id_id ON records(dialogue_id, id);
        """
    )


def ensure_status_indexes(path: Path) -> bool:
    """Apply :data:`status_migrations` to an existing index; False when it cannot (no
    ``records`` table yet, a read-only file, a lock held too long). Never creates the file."""
    if not path.is_file():
        return False
    try:
        conn = sqlite3.connect(path, timeout=5.0)
    except sqlite3.Error:
        return False
    try:
        has_records = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'records'"
        ).fetchone()
        if not has_records:
            return False
        apply_migrations(conn, [status_migrations])
        return True
    except sqlite3.Error as exc:
        logger.info("status indexes not added to %s (%s); counts take a full scan", path, exc)
        return False
    finally:
        conn.close()


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


class IndexReader:
    """A read-only view of the index. Opens lazily, so a workspace without an index yet
    answers with empty results and starts answering once the bot has built one."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = Path(workspace)
        self.path = self.workspace / DB_NAME
        self._db: aiosqlite.Connection | None = None

    async def _conn(self) -> aiosqlite.Connection | None:
        if self._db is not None:
            return self._db
        if not self.path.is_file():
            return None
        await asyncio.to_thread(ensure_status_indexes, self.path)
        ro = "immutable=1" if read_only(self.workspace) else "mode=ro"  # a read-only mount
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

    async def cell_counts(self, now: datetime | None = None) -> list[dict[str, Any]]:
        """Per (scope, category): live, deprecated, expired and pinned counts."""
        if not await self.has_records_table():
            return []
        db = await self._conn()
        assert db is not None
        stamp = (now or utcnow()).astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
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
        """One page of (record, path), newest id first, and the cursor of the next page.

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
        next_cursor = encode_cursor(page[-1][0].id) if len(rows) > limit and page else None
        return page, next_cursor


def record_out(rec: MemoryRecord, path: str, now: datetime | None = None) -> dict[str, Any]:
    """A record as the API shows it."""
    return {
        "id": rec.id,
        "scope": rec.scope,
        "category": rec.category,
        "ts": rec.ts,
        "content": rec.content,
        "tags": list(rec.tags),
        "salience": rec.salience,
        "ttl": rec.ttl,
        "supersedes": rec.supersedes,
        "deprecated": rec.deprecated,
        "expired": is_expired(rec, now=now or utcnow()),
        "pinned": rec.pinned,
        "epistemic_status": rec.epistemic_status,
        "access_count": rec.access_count,
        "last_accessed_ts": rec.last_accessed_ts,
        "user_key": rec.user_key,
        "agent_id": rec.agent_id if rec.scope != "user" else None,
        "dialogue_id": rec.dialogue_id,
        "path": path,
        "extra": json.loads(json.dumps(rec.extra, default=str)),
    }
