"""The read-only view the HTTP API, the memory page and ``familiars status`` list records
through (``IndexView`` for SQLite), over the database home. Opens lazily; never writes."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

import psycopg

from familiars.memory._index import record_from_row
from familiars.memory._index_view import IndexView, RecordFilter
from familiars.memory._pg._connect import aconnect
from familiars.memory._pg._keywords import keyword_match, query_words
from familiars.memory._records import MemoryRecord, parse_ts

logger = logging.getLogger(__name__)

_COLUMNS = ("user_key", "agent_id", "dialogue_id", "scope", "category")


def _words(query: str) -> list[str]:
    return query_words(query)


def pg_where(flt: RecordFilter) -> tuple[str, list[Any]]:
    """``RecordFilter.where`` for PostgreSQL (its keyword query on the GIN index)."""
    clauses: list[str] = []
    params: list[Any] = []
    for column in _COLUMNS:
        value = getattr(flt, column)
        if value is not None:
            clauses.append(f"{column} = %s")
            params.append(value)
    if not flt.include_deprecated:
        clauses.append("NOT deprecated")
    if flt.query is not None:
        found = keyword_match(flt.query)
        clauses.append(found[0] if found else "FALSE")
        params += found[1] if found else []
    return (" AND ".join(clauses) or "TRUE"), params


class PgIndexView(IndexView):
    def __init__(self, url: str, schema: str, workspace: Any) -> None:
        super().__init__(workspace)
        self.url = url
        self.schema = schema
        self._pg: psycopg.AsyncConnection[Any] | None = None

    async def _pg_conn(self) -> psycopg.AsyncConnection[Any] | None:
        if self._pg is None:
            try:
                self._pg = await aconnect(self.url, self.schema)
            except Exception as exc:  # noqa: BLE001 - a view answers empty, as IndexView does
                logger.warning("%s", exc)
                return None
        return self._pg

    async def _rows(self, query: str, params: Any = ()) -> list[tuple[Any, ...]]:
        conn = await self._pg_conn()
        if conn is None:
            return []
        cur = await conn.execute(query, params)  # type: ignore[arg-type]
        return await cur.fetchall()

    async def close(self) -> None:
        if self._pg is not None:
            await self._pg.close()
            self._pg = None

    async def has_records_table(self) -> bool:
        rows = await self._rows("SELECT to_regclass('records') IS NOT NULL")
        return bool(rows and rows[0][0])

    async def status_counts(self, now: datetime) -> list[dict[str, Any]]:
        if not await self.has_records_table():
            return []
        cells = await self._rows(
            "SELECT scope, category, count(*), count(*) FILTER (WHERE deprecated), "
            "count(*) FILTER (WHERE pinned) FROM records GROUP BY scope, category "
            "ORDER BY scope, category"
        )
        expired: dict[tuple[str, str], int] = {}
        for scope, category, when in await self._rows(
            "SELECT scope, category, data->'ttl'->>'expires_at' FROM records "
            "WHERE NOT deprecated AND data->'ttl'->>'kind' = 'absolute'"
        ):
            at = parse_ts(when) if isinstance(when, str) else None
            if at is not None and at <= now:
                expired[(scope, category)] = expired.get((scope, category), 0) + 1
        out = []
        for scope, category, total, deprecated, pinned in cells:
            gone = expired.get((scope, category), 0)
            out.append(
                {
                    "scope": scope,
                    "category": category,
                    "live": int(total) - int(deprecated) - gone,
                    "deprecated": int(deprecated),
                    "expired": gone,
                    "pinned": int(pinned),
                }
            )
        return out

    async def embedding_spaces(self) -> list[dict[str, Any]]:
        rows = await self._rows(
            "SELECT s.model, s.dim, count(v.content_hash) FROM embedding_spaces s "
            "LEFT JOIN vectors v ON v.space_id = s.space_id GROUP BY s.space_id ORDER BY s.space_id"
        )
        return [{"model": m, "dim": int(d), "vectors": int(n)} for m, d, n in rows]

    def index_bytes(self) -> int:
        return 0  # the database's size is the server's to tell (db status)

    async def list_records(
        self, flt: RecordFilter, *, limit: int, after: str | None = None
    ) -> tuple[list[tuple[MemoryRecord, str]], str | None]:
        if flt.query is not None and not _words(flt.query):
            return [], None
        if not await self.has_records_table():
            return [], None
        where, params = pg_where(flt)
        if after is not None:
            where += " AND id < %s"
            params.append(after)
        rows = await self._rows(
            "SELECT data::text, content, user_key, agent_id, dialogue_id, cell FROM records "
            f"WHERE {where} ORDER BY id DESC LIMIT %s",
            (*params, limit + 1),
        )
        page = [
            (record_from_row(data, content, uk, aid, did), cell)
            for data, content, uk, aid, did, cell in rows[:limit]
        ]
        next_after = page[-1][0].id if len(rows) > limit and page else None
        return page, next_after

    async def count_records(self, flt: RecordFilter) -> int:
        if flt.query is not None and not _words(flt.query):
            return 0
        if not await self.has_records_table():
            return 0
        where, params = pg_where(flt)
        rows = await self._rows(f"SELECT count(*) FROM records WHERE {where}", params)
        return int(rows[0][0]) if rows else 0
