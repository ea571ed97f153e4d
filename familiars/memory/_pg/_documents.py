"""The document index in the database home: ``familiars files`` and the attachments people send
live in the memory's schema (migration ``m007_documents``), so every worker finds every file.

- :class:`PgDocRows` is ``DocRows`` (``_documents/rows.py``) over the ``doc_*`` tables: the same
  rows as ``familiars.db`` holds, keyword search by a ``tsvector`` (English stems, GIN) ranked
  by ``ts_rank_cd`` instead of FTS5's ``bm25`` (handed back negated: lower is better, as
  there). Vectors are float32 bytes, loaded into the search matrix as in the files home.
  A change is one transaction; reads end theirs at once (no session idles in one). The
  queries both homes read alike are written once (``_documents/queries.py``).
- :class:`PgEditHistory` is the edit history's sidecars as rows of ``doc_edits``, one per
  line, in the order they were appended (the sidecar files of the files home).
- The bytes of an attachment are kept in ``doc_blobs``, so any worker can send it back.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import psycopg

from familiars.memory._documents.history import (
    OWNER,
    EditHistory,
    FileHistory,
    Version,
    iso_now,
    replay_lines,
)
from familiars.memory._documents.matrix import Matrix, matrix_from_rows
from familiars.memory._documents.queries import POSTGRES as Q
from familiars.memory._documents.rows import ChunkRow, FileRow, file_values
from familiars.memory._embeddings import content_hash
from familiars.memory._pg._connect import aconnect, connect
from familiars.memory._pg._schema import migrate

_FILE_LOCK = 0x646F  # the first key of a file's advisory lock ("do"); the second: its id's hash


class PgDocRows:
    """The document index's rows in the memory's schema (see the module docstring)."""

    def __init__(self, url: str, schema: str) -> None:
        self.url = url
        self.schema = schema
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self._lock = asyncio.Lock()
        self._dirty = False  # a change is under way: reads do not end its transaction

    async def open(self) -> None:
        if self._conn is None:
            await asyncio.to_thread(_migrated, self.url, self.schema)
            self._conn = await aconnect(self.url, self.schema)
            await self._conn.set_autocommit(False)

    async def close(self) -> None:
        if self._conn is not None:
            await self._conn.rollback()
            await self._conn.close()
            self._conn = None

    @property
    def conn(self) -> psycopg.AsyncConnection[Any]:
        if self._conn is None:
            raise RuntimeError("DocumentFinder is not open")
        return self._conn

    async def commit(self) -> None:
        async with self._lock:
            await self.conn.commit()
            self._dirty = False

    async def _all(self, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        async with self._lock:
            cur = await self.conn.execute(query, params)  # type: ignore[arg-type]
            rows = await cur.fetchall()
            if not self._dirty:
                await self.conn.rollback()
        return rows

    async def _write(self, query: str, params: Sequence[Any] = ()) -> Any:
        async with self._lock:
            self._dirty = True
            return await self.conn.execute(query, params)  # type: ignore[arg-type]

    async def known_files(self, owner: str) -> dict[str, tuple[str, int, float]]:
        rows = await self._all(Q.known_files, (owner,))
        return {r[0]: (r[1], int(r[2]), float(r[3])) for r in rows}

    async def touch(self, file_id: str, size: int, mtime: float) -> None:
        await self._write(Q.touch, (size, mtime, file_id))

    async def is_live(self, file_id: str) -> bool:
        return bool(await self._all(Q.is_live, (file_id,)))

    async def mark_deleted(self, file_id: str, ts: str) -> None:
        await self._write(Q.not_current, (file_id,))
        await self._write(Q.mark_deleted, (ts, file_id))

    async def live_paths(self, owner: str, prefix: str) -> list[str]:
        rows = await self._all(Q.live_paths, (owner, len(prefix), prefix))
        return [r[0] for r in rows]

    async def hashes_with_vectors(self, model: str, dim: int, hashes: Sequence[str]) -> set[str]:
        rows = await self._all(
            "SELECT content_hash FROM doc_vectors WHERE model = %s AND dim = %s "
            "AND content_hash = ANY(%s)",
            (model, dim, list(hashes)),
        )
        return {r[0] for r in rows}

    async def put_vectors(
        self, model: str, dim: int, items: Sequence[tuple[str, np.ndarray]]
    ) -> None:
        async with self._lock:
            async with self.conn.cursor() as cur:
                await cur.executemany(
                    Q.put_vector,
                    [(model, dim, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in items],
                )
            await self.conn.commit()
            self._dirty = False

    async def texts_without_vectors(self, model: str, dim: int) -> list[str]:
        rows = await self._all(Q.texts_without_vectors, (model, dim))
        return [r[0] for r in rows]

    async def write_version(self, version: Version, *, current: bool, keep: int) -> None:
        # Held to the commit: two workers indexing one file write its versions in turn.
        await self._write(
            "SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_FILE_LOCK, version.file_id)
        )
        if current:
            await self._write(Q.not_current, (version.file_id,))
            await self._write(
                "DELETE FROM doc_chunks WHERE file_id = %s AND NOT current AND version NOT IN "
                "(SELECT DISTINCT version FROM doc_chunks WHERE file_id = %s AND NOT current "
                "ORDER BY version DESC LIMIT %s)",
                (version.file_id, version.file_id, keep),
            )
            await self.write_file_row(version, deleted_at=None)
        async with self._lock, self.conn.cursor() as cur:
            self._dirty = True
            await cur.executemany(
                Q.insert_chunk,
                [
                    (version.file_id, version.key, current, c.seq, c.kind, c.page, c.text,
                     content_hash(c.embed_text))
                    for c in version.chunks
                ],
            )  # fmt: skip

    async def write_file_row(self, version: Version, *, deleted_at: str | None) -> None:
        await self._write(Q.file_upsert, file_values(version, deleted_at))

    async def clear_index(self) -> None:
        await self._write("DELETE FROM doc_chunks")
        await self._write("DELETE FROM doc_files")

    async def record_skip(self, owner: str, path: str, code: str, reason: str, at: str) -> None:
        await self._write(Q.record_skip, (owner, path, code, reason, at))

    async def clear_skip(self, owner: str, path: str) -> None:
        await self._write(Q.clear_skip, (owner, path))

    async def skipped(self, owner: str) -> list[dict[str, str]]:
        rows = await self._all(Q.skipped, (owner,))
        return [{"path": r[0], "code": r[1], "reason": r[2], "at": r[3]} for r in rows]

    async def bump_generation(self) -> None:
        await self._write(Q.bump_generation)
        await self.commit()

    async def generation(self) -> int:
        rows = await self._all(Q.generation)
        return int(rows[0][0]) if rows else 0

    async def list_files(self, owner: str) -> list[FileRow]:
        rows = await self._all(Q.list_files, (owner,))
        return [tuple(r) for r in rows]  # type: ignore[misc]

    async def file_row(self, file_id: str) -> tuple[str, str, str] | None:
        rows = await self._all(Q.file_row, (file_id,))
        return (rows[0][0], rows[0][1], rows[0][2]) if rows else None

    async def file_facts(self) -> list[tuple[str, str, str, str]]:
        rows = await self._all(Q.file_facts)
        return [(r[0], r[1], r[2], r[3]) for r in rows]

    async def chunk_rows(self, chunk_ids: Sequence[int]) -> dict[int, ChunkRow]:
        if not chunk_ids:
            return {}
        rows = await self._all(
            "SELECT c.chunk_id, c.page, c.text, c.kind, c.version, c.current, d.name, d.path, "
            "d.owner FROM doc_chunks c JOIN doc_files d ON d.file_id = c.file_id "
            "WHERE c.chunk_id = ANY(%s)",
            (list(chunk_ids),),
        )
        return {int(r[0]): tuple(r[1:]) for r in rows}

    async def keyword_hits(
        self, words: Sequence[str], owners: set[str], history: bool, limit: int
    ) -> list[tuple[int, float]]:
        rows = await self._all(
            "SELECT c.chunk_id, -ts_rank_cd(c.tsv, q) AS s FROM doc_chunks c "
            "JOIN doc_files d ON d.file_id = c.file_id, to_tsquery('english', %s) q "
            f"WHERE c.tsv @@ q AND d.owner = ANY(%s) {'' if history else 'AND c.current '}"
            "ORDER BY s, c.chunk_id LIMIT %s",
            (" | ".join(words), sorted(owners), limit),
        )
        return [(int(r[0]), float(r[1])) for r in rows]

    async def load_matrix(self, model: str, dim: int) -> Matrix:
        rows = await self._all(Q.load_matrix, (model, dim))
        return matrix_from_rows(
            [(*r[:6], np.frombuffer(bytes(r[6]), dtype=np.float32)) for r in rows], dim
        )

    async def count_chunks(self) -> int:
        return int((await self._all(Q.count_chunks))[0][0])

    async def file_paths(self, file_ids: Sequence[str]) -> dict[str, str]:
        rows = await self._all(
            "SELECT file_id, path FROM doc_files WHERE file_id = ANY(%s)", (list(file_ids),)
        )
        return {r[0]: r[1] for r in rows}

    async def put_blob(self, file_id: str, data: bytes) -> None:
        await self._write(
            "INSERT INTO doc_blobs (file_id, data) VALUES (%s, %s) "
            "ON CONFLICT (file_id) DO UPDATE SET data = excluded.data",
            (file_id, data),
        )
        await self.commit()

    async def blob(self, file_id: str) -> bytes | None:
        rows = await self._all("SELECT data FROM doc_blobs WHERE file_id = %s", (file_id,))
        return bytes(rows[0][0]) if rows else None

    async def files_of(self, owner: str) -> list[tuple[str, str]]:
        rows = await self._all(Q.files_of, (owner,))
        return [(r[0], r[1]) for r in rows]

    async def file_owner(self, file_id: str) -> str | None:
        rows = await self._all(Q.file_owner, (file_id,))
        return str(rows[0][0]) if rows else None

    async def erase(self, owner: str, file_ids: Sequence[str], paths: Sequence[str]) -> None:
        """A forget: the files' rows, chunks, bytes, skips and the vectors no other chunk
        uses, in one transaction (the edit history is :meth:`PgEditHistory.erase`, done
        first), then those tables vacuumed."""
        ids = list(file_ids)
        for table in ("doc_chunks", "doc_files", "doc_blobs"):
            await self._write(f"DELETE FROM {table} WHERE file_id = ANY(%s)", (ids,))
        await self._write(
            "DELETE FROM doc_skips WHERE owner = %s AND path = ANY(%s)", (owner, list(paths))
        )
        await self._write(Q.unused_vectors)
        await self.commit()
        async with self._lock:  # the dead rows leave the table files, as a record's forget
            await self.conn.set_autocommit(True)
            try:
                await self.conn.execute(
                    "VACUUM doc_chunks, doc_files, doc_blobs, doc_edits, doc_skips, doc_vectors"
                )
            finally:
                await self.conn.set_autocommit(False)


def _migrated(url: str, schema: str) -> None:
    with connect(url, schema) as conn:
        migrate(conn, schema, url)


class PgEditHistory(EditHistory):
    """The edit history as ``doc_edits`` rows (one per sidecar line, appended in order)."""

    def __init__(self, url: str, schema: str) -> None:
        self.url = url
        self.schema = schema
        self._conn: psycopg.Connection[Any] | None = None
        self._lock = threading.Lock()

    def _db(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed:
            self._conn = connect(self.url, self.schema)
        return self._conn

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _append(self, owner: str, file_id: str, event: dict[str, Any]) -> None:
        line = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
        with self._lock:
            self._db().execute(
                "INSERT INTO doc_edits (owner, file_id, line) VALUES (%s, %s, %s)",
                (owner, file_id, line),
            )

    def record_upsert(self, version: Version) -> None:
        self._append(version.owner, version.file_id, version.to_event())

    def record_delete(self, owner: str, file_id: str, path: str, *, ts: str | None = None) -> None:
        event = {"event": "delete", "ts": ts or iso_now(), "file_id": file_id, "path": path}
        self._append(owner, file_id, event)

    def erase(self, owner: str, file_id: str) -> None:
        with self._lock:
            self._db().execute(
                "DELETE FROM doc_edits WHERE owner = %s AND file_id = %s", (owner, file_id)
            )

    def read(self, owner: str, file_id: str) -> FileHistory:
        with self._lock:
            rows = self._db().execute(
                "SELECT line FROM doc_edits WHERE owner = %s AND file_id = %s ORDER BY seq",
                (owner, file_id),
            )
            lines = [r[0] for r in rows]
        return replay_lines(lines, owner, file_id, where=f"doc_edits {file_id}")

    def all(self) -> Iterator[FileHistory]:
        """Every file's history: the owner's first, then each person's (as the sidecars)."""
        with self._lock:
            rows = (
                self._db()
                .execute(
                    "SELECT owner, file_id, line FROM doc_edits "
                    "ORDER BY owner <> %s, owner, file_id, seq",
                    (OWNER,),
                )
                .fetchall()
            )
        grouped: dict[tuple[str, str], list[str]] = {}
        for owner, file_id, line in rows:
            grouped.setdefault((owner, file_id), []).append(line)
        for (owner, file_id), lines in grouped.items():
            yield replay_lines(lines, owner, file_id, where=f"doc_edits {file_id}")
