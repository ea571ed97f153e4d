"""The document index's queries, written once for both homes: :data:`SQLITE` with ``?``
placeholders, :data:`POSTGRES` the same text with psycopg's ``%s``.

Only SQL both dialects read alike is here (``false`` for a flag, ``substr``, ``ON CONFLICT``
upserts, ``NOT EXISTS``). What differs stays with its backend (``_documents/rows.py``,
``_pg/_documents.py``): a list parameter (``IN (?, ?)`` against ``= ANY(%s)``), keyword search
(FTS5 against a ``tsvector``), pruning old versions, clearing the index and a forget.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class DocQueries:
    known_files: str = (
        "SELECT file_id, sha256, size, mtime FROM doc_files WHERE owner = ? AND deleted_at IS NULL"
    )
    touch: str = "UPDATE doc_files SET size = ?, mtime = ? WHERE file_id = ?"
    is_live: str = "SELECT 1 FROM doc_files WHERE file_id = ? AND deleted_at IS NULL"
    not_current: str = "UPDATE doc_chunks SET current = false WHERE file_id = ?"
    mark_deleted: str = "UPDATE doc_files SET deleted_at = ? WHERE file_id = ?"
    live_paths: str = (
        "SELECT path FROM doc_files WHERE owner = ? AND deleted_at IS NULL "
        "AND substr(path, 1, ?) = ?"
    )
    put_vector: str = (
        "INSERT INTO doc_vectors (model, dim, content_hash, vector) VALUES (?, ?, ?, ?) "
        "ON CONFLICT DO NOTHING"
    )
    texts_without_vectors: str = (
        "SELECT c.text FROM doc_chunks c LEFT JOIN doc_vectors v "
        "ON v.content_hash = c.content_hash AND v.model = ? AND v.dim = ? "
        "WHERE v.content_hash IS NULL"
    )
    insert_chunk: str = (
        "INSERT INTO doc_chunks (file_id, version, current, seq, kind, page, text,"
        " content_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    )
    file_upsert: str = (
        "INSERT INTO doc_files (file_id, owner, path, name, folder, ext, kind, size, mtime,"
        " sha256, n_chunks, indexed_at, deleted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
        " ?, ?) ON CONFLICT (file_id) DO UPDATE SET owner = excluded.owner,"
        " path = excluded.path, name = excluded.name, folder = excluded.folder,"
        " ext = excluded.ext, kind = excluded.kind, size = excluded.size,"
        " mtime = excluded.mtime, sha256 = excluded.sha256, n_chunks = excluded.n_chunks,"
        " indexed_at = excluded.indexed_at, deleted_at = excluded.deleted_at"
    )
    record_skip: str = (
        "INSERT INTO doc_skips (owner, path, code, reason, at) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (owner, path) DO UPDATE SET code = excluded.code, "
        "reason = excluded.reason, at = excluded.at"
    )
    clear_skip: str = "DELETE FROM doc_skips WHERE owner = ? AND path = ?"
    skipped: str = "SELECT path, code, reason, at FROM doc_skips WHERE owner = ? ORDER BY at DESC"
    bump_generation: str = "UPDATE doc_meta SET value = value + 1 WHERE key = 'generation'"
    generation: str = "SELECT value FROM doc_meta WHERE key = 'generation'"
    list_files: str = (
        "SELECT d.file_id, d.owner, d.path, d.name, d.kind, d.size, d.n_chunks, "
        "d.indexed_at, (SELECT COUNT(DISTINCT version) FROM doc_chunks c "
        "WHERE c.file_id = d.file_id) FROM doc_files d "
        "WHERE d.owner = ? AND d.deleted_at IS NULL ORDER BY d.indexed_at DESC, d.name"
    )
    file_row: str = (
        "SELECT owner, path, name FROM doc_files WHERE file_id = ? AND deleted_at IS NULL"
    )
    file_facts: str = "SELECT file_id, name, folder, ext FROM doc_files"
    load_matrix: str = (
        "SELECT c.chunk_id, c.file_id, d.owner, c.current, c.seq, c.version, v.vector "
        "FROM doc_chunks c JOIN doc_files d ON d.file_id = c.file_id "
        "JOIN doc_vectors v ON v.content_hash = c.content_hash AND v.model = ? "
        "AND v.dim = ? ORDER BY c.chunk_id"
    )
    count_chunks: str = "SELECT COUNT(*) FROM doc_chunks"
    files_of: str = "SELECT file_id, path FROM doc_files WHERE owner = ?"
    file_owner: str = "SELECT owner FROM doc_files WHERE file_id = ?"
    unused_vectors: str = (
        "DELETE FROM doc_vectors WHERE NOT EXISTS "
        "(SELECT 1 FROM doc_chunks c WHERE c.content_hash = doc_vectors.content_hash)"
    )


def with_placeholder(queries: DocQueries, mark: str) -> DocQueries:
    """Every query of ``queries`` with its ``?`` placeholders written as ``mark``."""
    return dataclasses.replace(
        queries,
        **{
            f.name: getattr(queries, f.name).replace("?", mark) for f in dataclasses.fields(queries)
        },
    )


SQLITE = DocQueries()
POSTGRES = with_placeholder(SQLITE, "%s")
