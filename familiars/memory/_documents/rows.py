"""Where the document index keeps its rows: :class:`DocRows` is every read and write the finder
and its search make, :class:`SqliteDocRows` keeps them in ``workspace/familiars.db`` (the
files home; the tables are ``schema``'s). The database home's are in
``familiars.memory._pg._documents`` (the same rows in PostgreSQL, keyword search by
``tsvector`` instead of FTS5); the queries both read alike are written once
(``_documents/queries.py``).

Chunk ids are the index's own (``chunk_id``), handed out in insertion order; keyword hits come
back with a score where lower is better (FTS5's ``bm25``; the database's ``-ts_rank_cd``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import aiosqlite
import numpy as np

from familiars.memory._documents.history import Version
from familiars.memory._documents.matrix import Matrix, matrix_from_rows
from familiars.memory._documents.queries import SQLITE as Q
from familiars.memory._embeddings import content_hash
from familiars.memory._migrations import open_database

FileRow = tuple[str, str, str, str, str, int, int, str, int]  # FileInfo's fields
ChunkRow = tuple[Any, ...]  # page, text, kind, version, current, name, path, owner


class DocRows(Protocol):
    """The document index's rows, wherever they are kept."""

    async def open(self) -> None: ...
    async def close(self) -> None: ...
    async def commit(self) -> None: ...
    async def known_files(self, owner: str) -> dict[str, tuple[str, int, float]]: ...
    async def touch(self, file_id: str, size: int, mtime: float) -> None: ...
    async def is_live(self, file_id: str) -> bool: ...
    async def mark_deleted(self, file_id: str, ts: str) -> None: ...
    async def live_paths(self, owner: str, prefix: str) -> list[str]: ...
    async def hashes_with_vectors(
        self, model: str, dim: int, hashes: Sequence[str]
    ) -> set[str]: ...
    async def put_vectors(
        self, model: str, dim: int, items: Sequence[tuple[str, np.ndarray]]
    ) -> None: ...
    async def texts_without_vectors(self, model: str, dim: int) -> list[str]: ...
    async def write_version(self, version: Version, *, current: bool, keep: int) -> None: ...
    async def write_file_row(self, version: Version, *, deleted_at: str | None) -> None: ...
    async def clear_index(self) -> None: ...
    async def record_skip(self, owner: str, path: str, code: str, reason: str, at: str) -> None: ...
    async def clear_skip(self, owner: str, path: str) -> None: ...
    async def skipped(self, owner: str) -> list[dict[str, str]]: ...
    async def bump_generation(self) -> None: ...
    async def generation(self) -> int: ...
    async def list_files(self, owner: str) -> list[FileRow]: ...
    async def file_row(self, file_id: str) -> tuple[str, str, str] | None: ...
    async def file_facts(self) -> list[tuple[str, str, str, str]]: ...
    async def chunk_rows(self, chunk_ids: Sequence[int]) -> dict[int, ChunkRow]: ...
    async def keyword_hits(
        self, words: Sequence[str], owners: set[str], history: bool, limit: int
    ) -> list[tuple[int, float]]: ...
    async def load_matrix(self, model: str, dim: int) -> Matrix: ...
    async def count_chunks(self) -> int: ...
    async def file_paths(self, file_ids: Sequence[str]) -> dict[str, str]: ...
    async def put_blob(self, file_id: str, data: bytes) -> None: ...
    async def blob(self, file_id: str) -> bytes | None: ...
    async def files_of(self, owner: str) -> list[tuple[str, str]]: ...
    async def file_owner(self, file_id: str) -> str | None: ...
    async def erase(self, owner: str, file_ids: Sequence[str], paths: Sequence[str]) -> None: ...


def file_values(version: Version, deleted_at: str | None) -> tuple[Any, ...]:
    return (
        version.file_id, version.owner, version.path, version.name, version.folder,
        version.ext, version.kind, version.size, version.mtime, version.sha256,
        len(version.chunks), version.ts, deleted_at,
    )  # fmt: skip


class SqliteDocRows:
    """The rows in ``familiars.db`` (FTS5 for keywords, vectors as float32 blobs)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._db: aiosqlite.Connection | None = None

    async def open(self) -> None:
        from familiars.memory._documents.schema import migrations

        if self._db is None:
            self._db = await open_database(self.path, [migrations])

    async def close(self) -> None:
        if self._db is not None:
            await self._db.close()
            self._db = None

    @property
    def db(self) -> aiosqlite.Connection:
        if self._db is None:
            raise RuntimeError("DocumentFinder is not open")
        return self._db

    async def commit(self) -> None:
        await self.db.commit()

    async def _all(self, query: str, params: Sequence[Any] = ()) -> list[Any]:
        # One hop to the connection's thread, not three (execute, fetch, close): every
        # private turn asks for the index's generation beside recall.
        return list(await self.db.execute_fetchall(query, params))

    async def known_files(self, owner: str) -> dict[str, tuple[str, int, float]]:
        rows = await self._all(Q.known_files, (owner,))
        return {row[0]: (row[1], int(row[2]), float(row[3])) for row in rows}

    async def touch(self, file_id: str, size: int, mtime: float) -> None:
        await self.db.execute(Q.touch, (size, mtime, file_id))

    async def is_live(self, file_id: str) -> bool:
        return bool(await self._all(Q.is_live, (file_id,)))

    async def mark_deleted(self, file_id: str, ts: str) -> None:
        await self.db.execute(Q.not_current, (file_id,))
        await self.db.execute(Q.mark_deleted, (ts, file_id))

    async def live_paths(self, owner: str, prefix: str) -> list[str]:
        rows = await self._all(Q.live_paths, (owner, len(prefix), prefix))
        return [row[0] for row in rows]

    async def hashes_with_vectors(self, model: str, dim: int, hashes: Sequence[str]) -> set[str]:
        found: set[str] = set()
        for start in range(0, len(hashes), 500):
            part = hashes[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = await self._all(
                "SELECT content_hash FROM doc_vectors WHERE model = ? AND dim = ? "
                f"AND content_hash IN ({marks})",
                (model, dim, *part),
            )
            found.update(row[0] for row in rows)
        return found

    async def put_vectors(
        self, model: str, dim: int, items: Sequence[tuple[str, np.ndarray]]
    ) -> None:
        await self.db.executemany(
            Q.put_vector,
            [(model, dim, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in items],
        )
        await self.db.commit()

    async def texts_without_vectors(self, model: str, dim: int) -> list[str]:
        rows = await self._all(Q.texts_without_vectors, (model, dim))
        return [row[0] for row in rows]

    async def write_version(self, version: Version, *, current: bool, keep: int) -> None:
        if current:
            await self.db.execute(Q.not_current, (version.file_id,))
            await self._prune_history(version.file_id, keep)
            await self.write_file_row(version, deleted_at=None)
        for chunk in version.chunks:
            cur = await self.db.execute(
                Q.insert_chunk,
                (version.file_id, version.key, current, chunk.seq, chunk.kind,
                 chunk.page, chunk.text, content_hash(chunk.embed_text)),
            )  # fmt: skip
            await self.db.execute(
                "INSERT INTO doc_fts (rowid, text) VALUES (?, ?)", (cur.lastrowid, chunk.text)
            )

    async def _prune_history(self, file_id: str, keep: int) -> None:
        """Keep the newest ``keep`` earlier versions in the index (the history keeps all)."""
        rows = await self._all(
            "SELECT DISTINCT version FROM doc_chunks WHERE file_id = ? AND current = 0 "
            "ORDER BY version DESC",
            (file_id,),
        )
        for (old,) in rows[keep:]:
            where = "file_id = ? AND version = ?"
            await self.db.execute(
                f"DELETE FROM doc_fts WHERE rowid IN (SELECT chunk_id FROM doc_chunks "
                f"WHERE {where})",
                (file_id, old),
            )
            await self.db.execute(f"DELETE FROM doc_chunks WHERE {where}", (file_id, old))

    async def write_file_row(self, version: Version, *, deleted_at: str | None) -> None:
        await self.db.execute(Q.file_upsert, file_values(version, deleted_at))

    async def clear_index(self) -> None:
        for table in ("doc_fts", "doc_chunks", "doc_files"):
            await self.db.execute(f"DELETE FROM {table}")

    async def record_skip(self, owner: str, path: str, code: str, reason: str, at: str) -> None:
        await self.db.execute(Q.record_skip, (owner, path, code, reason, at))

    async def clear_skip(self, owner: str, path: str) -> None:
        await self.db.execute(Q.clear_skip, (owner, path))

    async def skipped(self, owner: str) -> list[dict[str, str]]:
        rows = await self._all(Q.skipped, (owner,))
        return [{"path": r[0], "code": r[1], "reason": r[2], "at": r[3]} for r in rows]

    async def bump_generation(self) -> None:
        await self.db.execute(Q.bump_generation)
        await self.db.commit()

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
        return [tuple(r) for r in await self._all(Q.file_facts)]  # type: ignore[misc]

    async def chunk_rows(self, chunk_ids: Sequence[int]) -> dict[int, ChunkRow]:
        if not chunk_ids:
            return {}
        marks = ",".join("?" * len(chunk_ids))
        rows = await self._all(
            "SELECT c.chunk_id, c.page, c.text, c.kind, c.version, c.current, d.name, d.path, "
            "d.owner FROM doc_chunks c JOIN doc_files d ON d.file_id = c.file_id "
            f"WHERE c.chunk_id IN ({marks})",
            list(chunk_ids),
        )
        return {int(row[0]): tuple(row[1:]) for row in rows}

    async def keyword_hits(
        self, words: Sequence[str], owners: set[str], history: bool, limit: int
    ) -> list[tuple[int, float]]:
        match = " OR ".join(f'"{w}"' for w in words)
        marks = ",".join("?" * len(owners))
        rows = await self._all(
            "SELECT f.rowid, bm25(doc_fts) AS s FROM doc_fts f "
            "JOIN doc_chunks c ON c.chunk_id = f.rowid "
            "JOIN doc_files d ON d.file_id = c.file_id "
            f"WHERE doc_fts MATCH ? AND d.owner IN ({marks}) "
            f"{'' if history else 'AND c.current = 1 '}"
            "ORDER BY s LIMIT ?",
            (match, *sorted(owners), limit),
        )
        return [(int(row[0]), float(row[1])) for row in rows]

    async def load_matrix(self, model: str, dim: int) -> Matrix:
        # Read to the end in one call: a cursor left open across awaits holds a read
        # transaction that a concurrent write on this connection cannot upgrade.
        rows = await self._all(Q.load_matrix, (model, dim))
        return matrix_from_rows(
            [(*r[:6], np.frombuffer(r[6], dtype=np.float32)) for r in rows], dim
        )

    async def count_chunks(self) -> int:
        return int((await self._all(Q.count_chunks))[0][0])

    async def file_paths(self, file_ids: Sequence[str]) -> dict[str, str]:
        marks = ",".join("?" * len(file_ids))
        rows = await self._all(
            f"SELECT file_id, path FROM doc_files WHERE file_id IN ({marks})", list(file_ids)
        )
        return {row[0]: row[1] for row in rows}

    async def put_blob(self, file_id: str, data: bytes) -> None:
        """Nothing: an attachment's bytes are its file under the person's folder."""

    async def blob(self, file_id: str) -> bytes | None:
        return None  # read from the file's path

    async def files_of(self, owner: str) -> list[tuple[str, str]]:
        """``(file_id, path)`` of every file of ``owner``, current or deleted."""
        rows = await self._all(Q.files_of, (owner,))
        return [(r[0], r[1]) for r in rows]

    async def file_owner(self, file_id: str) -> str | None:
        """Whose file it is (current or deleted); None when there is no such file."""
        rows = await self._all(Q.file_owner, (file_id,))
        return str(rows[0][0]) if rows else None

    async def erase(self, owner: str, file_ids: Sequence[str], paths: Sequence[str]) -> None:
        """A forget: every row of these files (chunks with their words, the file row, the
        skips of their paths, vectors no other chunk uses) deleted, freed pages zeroed, the
        FTS segments merged and the WAL truncated; committed."""
        await self.db.execute("PRAGMA secure_delete = ON")
        for file_id in file_ids:
            await self.db.execute(
                "DELETE FROM doc_fts WHERE rowid IN "
                "(SELECT chunk_id FROM doc_chunks WHERE file_id = ?)",
                (file_id,),
            )
            await self.db.execute("DELETE FROM doc_chunks WHERE file_id = ?", (file_id,))
            await self.db.execute("DELETE FROM doc_files WHERE file_id = ?", (file_id,))
        for path in paths:
            await self.clear_skip(owner, path)
        await self.db.execute(Q.unused_vectors)
        await self.db.execute("INSERT INTO doc_fts (doc_fts) VALUES ('optimize')")
        await self.db.commit()
        await self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
