"""The document finder's tables in ``workspace/familiars.db``, as named migrations that are
only ever appended (namespace ``documents``).

- ``doc_files``   one row per indexed file (current or deleted), with its owner scope
- ``doc_chunks``  every chunk of every indexed version; ``current`` is 0 for history
- ``doc_fts``     FTS5 over chunk text (porter stemming), rowid = chunk_id
- ``doc_vectors`` float32 blobs keyed by (model, dim, content hash): vectors of two models
                  never mix, and unchanged text is never embedded twice
- ``doc_skips``   files left out, with the reason
- ``doc_meta``    ``generation``, bumped on every change, so a process holding the search
                  matrix in memory notices changes another process made
"""

from __future__ import annotations

import sqlite3

from familiars.memory._migrations import MigrationSet

migrations = MigrationSet("documents")


@migrations
def m001_document_tables(conn: sqlite3.Connection) -> None:
    conn.executescript(
        """
        CREATE TABLE doc_files (
            file_id TEXT PRIMARY KEY,
            owner TEXT NOT NULL,
            path TEXT NOT NULL,
            name TEXT NOT NULL,
            folder TEXT NOT NULL,
            ext TEXT NOT NULL,
            kind TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime REAL NOT NULL,
            sha256 TEXT NOT NULL,
            n_chunks INTEGER NOT NULL,
            indexed_at TEXT NOT NULL,
            deleted_at TEXT
        );
        CREATE INDEX doc_files_owner ON doc_files (owner, deleted_at);
        CREATE TABLE doc_chunks (
            chunk_id INTEGER PRIMARY KEY,
            file_id TEXT NOT NULL,
            version TEXT NOT NULL,
            current INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            kind TEXT NOT NULL,
            page INTEGER,
            text TEXT NOT NULL,
            content_hash TEXT NOT NULL
        );
        CREATE INDEX doc_chunks_file ON doc_chunks (file_id, current);
        CREATE VIRTUAL TABLE doc_fts USING fts5 (text, tokenize = 'porter unicode61');
        CREATE TABLE doc_vectors (
            model TEXT NOT NULL,
            dim INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (model, dim, content_hash)
        );
        CREATE TABLE doc_skips (
            owner TEXT NOT NULL,
            path TEXT NOT NULL,
            code TEXT NOT NULL,
            reason TEXT NOT NULL,
            at TEXT NOT NULL,
            PRIMARY KEY (owner, path)
        );
        """
    )


@migrations
def m002_generation(conn: sqlite3.Connection) -> None:
    conn.executescript(
        """
        CREATE TABLE doc_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
        INSERT INTO doc_meta (key, value) VALUES ('generation', 0);
        """
    )
