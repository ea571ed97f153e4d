"""Moving the document index (``familiars files``, attachments) in and out with the records.

In: every edit-history sidecar line by line (``doc_edits``), the index's rows from the
workspace's ``familiars.db`` as they are (files, chunks with their ids, every model's vectors,
skipped files), and the bytes of each attachment a person sent (``doc_blobs``), read from its
file. Out: the sidecars byte for byte, the rows into the new workspace's ``familiars.db`` (its
keyword table filled from the chunks), and each attachment's bytes written back under the
person's ``files`` folder of the new workspace, its row's path pointing there (a path of the
worker that received it means nothing in the new folder; the file id stays).
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import Any

import psycopg

from familiars.memory._atomic import atomic_write_bytes
from familiars.memory._documents.history import OWNER, EditHistory, sidecar_path
from familiars.memory._migrations import migrate_database
from familiars.memory._paths import check_user_key, user_dir

_FILES = (
    "file_id, owner, path, name, folder, ext, kind, size, mtime, sha256, n_chunks, indexed_at, "
    "deleted_at"
)
_CHUNKS = "chunk_id, file_id, version, current, seq, kind, page, text, content_hash"
_DB = "familiars.db"


def move_docs_in(cur: psycopg.Cursor[Any], workspace: Path) -> dict[str, int]:
    """Copy the workspace's document index into the (migrated) schema, in the caller's
    transaction."""
    counts = {"document_files": 0, "document_chunks": 0, "document_edits": 0, "attachments": 0}
    for owner, folder in EditHistory(workspace)._edit_dirs():
        for path in sorted(folder.glob("*.jsonl")):
            lines = [ln for ln in path.read_bytes().decode("utf-8", "replace").split("\n") if ln]
            cur.executemany(
                "INSERT INTO doc_edits (owner, file_id, line) VALUES (%s, %s, %s)",
                [(owner, path.stem, line) for line in lines],
            )
            counts["document_edits"] += len(lines)
    tables = _sqlite_tables(workspace / _DB)
    if tables is None:
        return counts
    files, chunks, vectors, skips = tables
    marks = ", ".join(["%s"] * 13)
    cur.executemany(f"INSERT INTO doc_files ({_FILES}) VALUES ({marks})", files)
    cur.executemany(
        f"INSERT INTO doc_chunks ({_CHUNKS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
        [(*c[:3], bool(c[3]), *c[4:]) for c in chunks],
    )
    cur.execute(
        "SELECT setval(pg_get_serial_sequence('doc_chunks', 'chunk_id'), "
        "greatest((SELECT max(chunk_id) FROM doc_chunks), 1))"
    )
    cur.executemany(
        "INSERT INTO doc_vectors (model, dim, content_hash, vector) VALUES (%s, %s, %s, %s) "
        "ON CONFLICT DO NOTHING",
        vectors,
    )
    cur.executemany(
        "INSERT INTO doc_skips (owner, path, code, reason, at) VALUES (%s, %s, %s, %s, %s)", skips
    )
    cur.execute("UPDATE doc_meta SET value = value + 1 WHERE key = 'generation'")
    for file_id, owner, path, *_ in files:
        if owner != OWNER and Path(path).is_file():
            cur.execute(
                "INSERT INTO doc_blobs (file_id, data) VALUES (%s, %s)",
                (file_id, Path(path).read_bytes()),
            )
            counts["attachments"] += 1
    counts["document_files"], counts["document_chunks"] = len(files), len(chunks)
    return counts


def _sqlite_tables(path: Path) -> tuple[list[Any], ...] | None:
    """The document tables of a workspace's ``familiars.db``; None without them."""
    if not path.is_file():
        return None
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        try:
            return (
                db.execute(f"SELECT {_FILES} FROM doc_files ORDER BY file_id").fetchall(),
                db.execute(f"SELECT {_CHUNKS} FROM doc_chunks ORDER BY chunk_id").fetchall(),
                db.execute("SELECT model, dim, content_hash, vector FROM doc_vectors").fetchall(),
                db.execute("SELECT owner, path, code, reason, at FROM doc_skips").fetchall(),
            )
        except sqlite3.OperationalError:  # no document tables: nothing was ever indexed
            return None


def move_docs_out(conn: psycopg.Connection[Any], workspace: Path) -> dict[str, int]:
    """Write the schema's document index back as the workspace's sidecars, ``familiars.db``
    rows and attachment files."""
    from familiars.memory._documents.schema import migrations

    counts = {"document_files": 0, "document_chunks": 0, "document_edits": 0, "attachments": 0}
    edits: dict[tuple[str, str], list[str]] = {}
    for owner, file_id, line in conn.execute(
        "SELECT owner, file_id, line FROM doc_edits ORDER BY seq"
    ):
        edits.setdefault((owner, file_id), []).append(line)
    for (owner, file_id), lines in edits.items():
        target = sidecar_path(workspace, owner, Path(file_id).name)
        atomic_write_bytes(target, "".join(f"{ln}\n" for ln in lines).encode("utf-8"))
        counts["document_edits"] += len(lines)
    files = [list(r) for r in conn.execute(f"SELECT {_FILES} FROM doc_files ORDER BY file_id")]
    if not files and not edits:
        return counts
    blobs = dict(conn.execute("SELECT file_id, data FROM doc_blobs").fetchall())
    for row in files:
        file_id, owner, name = row[0], row[1], row[3]
        if owner != OWNER and file_id in blobs:
            target = user_dir(workspace, check_user_key(owner)) / "files" / Path(name).name
            atomic_write_bytes(target, bytes(blobs[file_id]))
            row[2] = str(target.absolute())
            counts["attachments"] += 1
    chunks = conn.execute(f"SELECT {_CHUNKS} FROM doc_chunks ORDER BY chunk_id").fetchall()
    vectors = conn.execute("SELECT model, dim, content_hash, vector FROM doc_vectors").fetchall()
    skips = conn.execute("SELECT owner, path, code, reason, at FROM doc_skips").fetchall()
    db_path = workspace / _DB
    migrate_database(db_path, [migrations])
    with contextlib.closing(sqlite3.connect(db_path)) as db, db:
        db.executemany(f"INSERT INTO doc_files ({_FILES}) VALUES ({', '.join('?' * 13)})", files)
        db.executemany(
            f"INSERT INTO doc_chunks ({_CHUNKS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(*c[:3], int(c[3]), *c[4:]) for c in chunks],
        )
        db.executemany(
            "INSERT INTO doc_fts (rowid, text) VALUES (?, ?)", [(c[0], c[7]) for c in chunks]
        )
        db.executemany(
            "INSERT OR REPLACE INTO doc_vectors (model, dim, content_hash, vector) "
            "VALUES (?, ?, ?, ?)",
            [(m, d, h, bytes(v)) for m, d, h, v in vectors],
        )
        db.executemany(
            "INSERT INTO doc_skips (owner, path, code, reason, at) VALUES (?, ?, ?, ?, ?)", skips
        )
        db.execute("UPDATE doc_meta SET value = value + 1 WHERE key = 'generation'")
    counts["document_files"], counts["document_chunks"] = len(files), len(chunks)
    return counts
