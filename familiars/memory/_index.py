"""The SQLite index of the memory files: ``workspace/familiars.db``.

Derived and rebuildable. It mirrors every record (with its owner and path), keeps an FTS5
table over record content (porter stemming), and stores embeddings as float32 blobs keyed by
(model, dimension, content hash): unchanged text is never embedded twice and vectors of two
models never meet. :meth:`MemoryIndex.reconcile` brings it up to date with the files.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiosqlite
import numpy as np

from familiars.memory import _history as history
from familiars.memory._embeddings import Embedder, content_hash
from familiars.memory._entries import record_from_header, record_header
from familiars.memory._migrations import MigrationSet, open_database
from familiars.memory._paths import owner_from_path, resolve_path
from familiars.memory._records import MemoryRecord
from familiars.memory._store import MemoryStore, StoreChange
from familiars.memory._text import no_space_terms

logger = logging.getLogger(__name__)

DB_NAME = "familiars.db"

migrations = MigrationSet("memory")


@migrations
def m001_records(conn: sqlite3.Connection) -> None:
    conn.executescript(
        """
        CREATE TABLE files (
            path TEXT PRIMARY KEY,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            sha256 TEXT NOT NULL,
            indexed_at TEXT NOT NULL DEFAULT (datetime('now'))
        );
        CREATE TABLE records (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            path TEXT NOT NULL,
            scope TEXT NOT NULL,
            category TEXT NOT NULL,
            user_key TEXT,
            agent_id TEXT,
            dialogue_id TEXT,
            ts TEXT NOT NULL,
            content TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            deprecated INTEGER NOT NULL,
            pinned INTEGER NOT NULL,
            salience REAL NOT NULL,
            data TEXT NOT NULL
        );
        CREATE INDEX records_path ON records(path);
        CREATE INDEX records_owner ON records(scope, user_key, agent_id, dialogue_id);
        CREATE INDEX records_hash ON records(content_hash);
        CREATE VIRTUAL TABLE records_fts USING fts5(
            content, content='records', content_rowid='rowid',
            tokenize='porter unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER records_ai AFTER INSERT ON records BEGIN
            INSERT INTO records_fts(rowid, content) VALUES (new.rowid, new.content);
        END;
        CREATE TRIGGER records_ad AFTER DELETE ON records BEGIN
            INSERT INTO records_fts(records_fts, rowid, content)
            VALUES ('delete', old.rowid, old.content);
        END;
        CREATE TRIGGER records_au AFTER UPDATE OF content ON records BEGIN
            INSERT INTO records_fts(records_fts, rowid, content)
            VALUES ('delete', old.rowid, old.content);
            INSERT INTO records_fts(rowid, content) VALUES (new.rowid, new.content);
        END;
        CREATE TABLE embedding_spaces (
            space_id INTEGER PRIMARY KEY,
            model TEXT NOT NULL,
            dim INTEGER NOT NULL,
            UNIQUE (model, dim)
        );
        CREATE TABLE vectors (
            space_id INTEGER NOT NULL REFERENCES embedding_spaces(space_id),
            content_hash TEXT NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (space_id, content_hash)
        ) WITHOUT ROWID;
        """
    )


@migrations
def m002_listing_indexes(conn: sqlite3.Connection) -> None:
    """Counts per cell and listings by person or dialogue without a full scan (the HTTP API's
    status and paging read these; IF NOT EXISTS because the API once added them itself)."""
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


@migrations
def m003_api_status_indexes_retired(conn: sqlite3.Connection) -> None:
    """No-op: the HTTP API's own copy of ``m002`` (``api.m001_status_indexes``) is gone; the
    indexes are memory's, and the API only reads (``_index_view.IndexView``). Kept so the
    list is only ever appended to."""


@migrations
def m004_people_graph(conn: sqlite3.Connection) -> None:
    """A person's people and their typed relations (issue 25), rebuilt from the records by
    ``_people_index.PeopleIndex``: losing them loses nothing."""
    conn.executescript(
        """
        CREATE TABLE IF NOT EXISTS people (
            user_key TEXT NOT NULL, name TEXT NOT NULL, mentions INTEGER NOT NULL,
            first_seen TEXT, last_seen TEXT, record_ids TEXT NOT NULL,
            PRIMARY KEY (user_key, name));
        CREATE TABLE IF NOT EXISTS person_relations (
            user_key TEXT NOT NULL, src TEXT NOT NULL, rel TEXT NOT NULL, dst TEXT NOT NULL,
            record_id TEXT NOT NULL, valid_from TEXT, superseded_at TEXT);
        CREATE INDEX IF NOT EXISTS person_relations_user ON person_relations(user_key, src);
        """
    )


@migrations
def m005_no_space_terms(conn: sqlite3.Connection) -> None:
    """Keyword search for scripts written without spaces (issue 24): FTS5's ``unicode61``
    keeps a CJK run ("我喜欢北京烤鸭") as one token, so '烤鸭' found nothing. Each record's
    no-space runs as the character bigrams recall's BM25 indexes (:func:`no_space_terms`, in
    ``records.terms``, written with the record) get an FTS5 table of their own, kept by
    triggers as ``records_fts`` is; existing rows are filled here."""
    conn.execute("ALTER TABLE records ADD COLUMN terms TEXT NOT NULL DEFAULT ''")
    rows = conn.execute("SELECT rowid, content FROM records").fetchall()
    filled = [(no_space_terms(content), rowid) for rowid, content in rows]
    conn.executemany(
        "UPDATE records SET terms = ? WHERE rowid = ?", [(t, r) for t, r in filled if t]
    )
    conn.executescript(
        """
        CREATE VIRTUAL TABLE records_terms USING fts5(
            terms, content='records', content_rowid='rowid', tokenize='unicode61'
        );
        INSERT INTO records_terms(records_terms) VALUES ('rebuild');
        CREATE TRIGGER records_terms_ai AFTER INSERT ON records BEGIN
            INSERT INTO records_terms(rowid, terms) VALUES (new.rowid, new.terms);
        END;
        CREATE TRIGGER records_terms_ad AFTER DELETE ON records BEGIN
            INSERT INTO records_terms(records_terms, rowid, terms)
            VALUES ('delete', old.rowid, old.terms);
        END;
        CREATE TRIGGER records_terms_au AFTER UPDATE OF terms ON records BEGIN
            INSERT INTO records_terms(records_terms, rowid, terms)
            VALUES ('delete', old.rowid, old.terms);
            INSERT INTO records_terms(rowid, terms) VALUES (new.rowid, new.terms);
        END;
        """
    )


@migrations
def m006_recheck_entry_headers(conn: sqlite3.Connection) -> None:
    """Every file is read again on the next reconcile: entries indexed before their headers
    were checked against their file (an "identity" entry in a person's file, an id another
    file has) are dropped from the index, as the broken entries they are."""
    conn.execute("DELETE FROM files")


@dataclass
class ReconcileReport:
    new_files: int = 0
    changed_files: int = 0
    deleted_files: int = 0
    records: int = 0
    embedded: int = 0
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "new_files": self.new_files,
            "changed_files": self.changed_files,
            "deleted_files": self.deleted_files,
            "records": self.records,
            "embedded": self.embedded,
            "errors": self.errors,
        }


IndexListener = Callable[[list[MemoryRecord], list[str]], Any]


def fts_query(text: str) -> str:
    """A safe FTS5 MATCH expression for ``records_fts``: the text's words, OR-ed, each
    quoted."""
    words = [w for w in "".join(c if c.isalnum() else " " for c in text).split() if w]
    return " OR ".join(f'"{w}"' for w in words)


def terms_query(text: str) -> str:
    """The MATCH expression for ``records_terms`` (the bigrams of the text's no-space runs,
    OR-ed, each quoted; empty when it has none)."""
    return " OR ".join(f'"{t}"' for t in dict.fromkeys(no_space_terms(text).split()))


def keyword_where(text: str) -> tuple[str, list[str]]:
    """The SQL condition (on ``r.rowid``) and its parameters of a keyword query: records whose
    words match (``records_fts``) or whose no-space bigrams do (``records_terms``); one place
    for the listing, counts and :meth:`MemoryIndex.keyword_search`."""
    clauses = ["r.rowid IN (SELECT rowid FROM records_fts WHERE records_fts MATCH ?)"]
    params = [fts_query(text)]
    if terms := terms_query(text):
        clauses.append("r.rowid IN (SELECT rowid FROM records_terms WHERE records_terms MATCH ?)")
        params.append(terms)
    return "(" + " OR ".join(clauses) + ")", params


class MemoryIndex:
    """Async access to ``familiars.db``. Register it as a listener of the store so every
    write reaches the index before the writer acknowledges it."""

    def __init__(
        self,
        workspace: Path,
        embedder: Embedder | None,
        *,
        extra_migrations: Sequence[MigrationSet] = (),
    ) -> None:
        self.workspace = Path(workspace)
        self.path = self.workspace / DB_NAME
        self.embedder = embedder
        self._extra = list(extra_migrations)
        self._db: aiosqlite.Connection | None = None
        self._space_id: int | None = None
        self._listeners: list[IndexListener] = []
        self._write_lock = asyncio.Lock()

    # ----------------------------------------------------------------- lifecycle

    async def open(self) -> None:
        if self._db is not None:
            return
        self._db = await open_database(self.path, [migrations, *self._extra])
        # Deleted rows are overwritten with zeros, not left in free space (forget).
        await self._db.execute("PRAGMA secure_delete = ON")
        if self.embedder is not None:
            self._space_id = await self._ensure_space(self.embedder.model_name, self.embedder.dim)

    async def attach_embedder(self, embedder: Embedder) -> None:
        """Vectors from now on in ``embedder``'s space (an index opened before its model
        loaded: the caller runs :meth:`embed_missing` next)."""
        self.embedder = embedder
        self._space_id = await self._ensure_space(embedder.model_name, embedder.dim)

    async def close(self) -> None:
        if self._db is not None:
            await self._db.close()
            self._db = None

    async def __aenter__(self) -> MemoryIndex:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def db(self) -> aiosqlite.Connection:
        if self._db is None:
            raise RuntimeError("MemoryIndex is not open")
        return self._db

    @property
    def space_id(self) -> int | None:
        return self._space_id

    def subscribe(self, listener: IndexListener) -> None:
        """``listener(upserted_records, removed_ids)`` after each change is committed (the
        reader keeps its in-memory matrices fresh this way). May be a coroutine function."""
        self._listeners.append(listener)

    async def _ensure_space(self, model: str, dim: int) -> int:
        await self.db.execute(
            "INSERT OR IGNORE INTO embedding_spaces (model, dim) VALUES (?, ?)", (model, dim)
        )
        await self.db.commit()
        rows = await self.db.execute_fetchall(
            "SELECT space_id FROM embedding_spaces WHERE model = ? AND dim = ?", (model, dim)
        )
        row = next(iter(rows), None)
        assert row is not None
        return int(row[0])

    # ----------------------------------------------------------------- vectors

    async def vectors_for(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of ``texts`` in the current space, embedding only the ones not cached."""
        if self.embedder is None or self._space_id is None:
            raise RuntimeError("no embedder configured for this index")
        hashes = [content_hash(t) for t in texts]
        cached = await self._cached_vectors(set(hashes))
        missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in cached}
        if missing:
            order = list(missing)
            fresh = await self.embedder.aembed_batch([missing[h] for h in order])
            await self.db.executemany(
                "INSERT OR REPLACE INTO vectors (space_id, content_hash, vector) VALUES (?, ?, ?)",
                [
                    (self._space_id, h, np.asarray(v, dtype=np.float32).tobytes())
                    for h, v in zip(order, fresh, strict=True)
                ],
            )
            await self.db.commit()
            cached.update(
                {h: np.asarray(v, dtype=np.float32) for h, v in zip(order, fresh, strict=True)}
            )
        dim = self.embedder.dim
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for i, h in enumerate(hashes):
            out[i] = cached[h]
        return out

    async def _cached_vectors(self, hashes: set[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        items = list(hashes)
        for start in range(0, len(items), 500):
            chunk = items[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = await self.db.execute_fetchall(
                f"SELECT content_hash, vector FROM vectors WHERE space_id = ? "
                f"AND content_hash IN ({marks})",
                (self._space_id, *chunk),
            )
            for h, blob in rows:
                found[h] = np.frombuffer(blob, dtype=np.float32)
        return found

    async def load_matrix(
        self, where: str = "deprecated = 0", params: Sequence[Any] = ()
    ) -> tuple[list[str], np.ndarray]:
        """Record ids and their vectors (one row each) for records matching ``where``."""
        if self._space_id is None or self.embedder is None:
            return [], np.zeros((0, 0), dtype=np.float32)
        ids: list[str] = []
        blobs: list[bytes] = []
        rows = await self.db.execute_fetchall(
            "SELECT r.id, v.vector FROM records r JOIN vectors v "
            "ON v.content_hash = r.content_hash AND v.space_id = ? "
            f"WHERE {where} ORDER BY r.rowid",
            (self._space_id, *params),
        )
        for rid, blob in rows:
            ids.append(rid)
            blobs.append(blob)
        dim = self.embedder.dim
        if not blobs:
            return ids, np.zeros((0, dim), dtype=np.float32)
        matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dim)
        return ids, matrix

    # ----------------------------------------------------------------- records

    async def records_changed(self, change: StoreChange) -> None:
        """StoreListener: mirror what the store just wrote."""
        async with self._write_lock:
            if change.upserted:
                await self._upsert(change.upserted)
            if change.removed:
                await self._remove(change.removed)
            for path in change.files:
                await self._note_file(path)
            await self.db.commit()
        await self._notify(change.upserted, change.removed)

    async def _notify(self, upserted: list[MemoryRecord], removed: list[str]) -> None:
        for listener in self._listeners:
            result = listener(upserted, removed)
            if asyncio.iscoroutine(result):
                await result

    def _rel(self, path: Path) -> str:
        try:
            return str(Path(path).resolve().relative_to(self.workspace.resolve()))
        except ValueError:
            return str(path)

    async def _upsert(self, records: Iterable[MemoryRecord]) -> int:
        rows = []
        recs = list(records)
        for rec in recs:
            path = self._rel(record_path(self.workspace, rec))
            data = record_header(rec)
            rows.append(
                (
                    rec.id,
                    path,
                    rec.scope,
                    rec.category,
                    rec.user_key,
                    rec.agent_id if rec.scope != "user" else None,
                    rec.dialogue_id,
                    rec.ts,
                    rec.content,
                    content_hash(rec.content),
                    int(rec.deprecated),
                    int(rec.pinned),
                    float(rec.salience),
                    json.dumps(data, ensure_ascii=False),
                    no_space_terms(rec.content),
                )
            )
        if self.embedder is not None:
            live = [r.content for r in recs]
            await self.vectors_for(live)
        await self.db.executemany(
            """
            INSERT INTO records (id, path, scope, category, user_key, agent_id, dialogue_id, ts,
                                 content, content_hash, deprecated, pinned, salience, data, terms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET
                path = excluded.path, scope = excluded.scope, category = excluded.category,
                user_key = excluded.user_key, agent_id = excluded.agent_id,
                dialogue_id = excluded.dialogue_id, ts = excluded.ts, content = excluded.content,
                content_hash = excluded.content_hash, deprecated = excluded.deprecated,
                pinned = excluded.pinned, salience = excluded.salience, data = excluded.data,
                terms = excluded.terms
            """,
            rows,
        )
        return len(rows)

    async def _remove(self, ids: Iterable[str]) -> None:
        await self.db.executemany("DELETE FROM records WHERE id = ?", [(i,) for i in ids])

    async def _note_file(self, path: Path) -> None:
        try:
            data = await asyncio.to_thread(Path(path).read_bytes)
            st = Path(path).stat()
        except FileNotFoundError:
            await self.db.execute("DELETE FROM files WHERE path = ?", (self._rel(path),))
            return
        await self.db.execute(
            "INSERT OR REPLACE INTO files (path, size, mtime_ns, sha256) VALUES (?, ?, ?, ?)",
            (self._rel(path), st.st_size, st.st_mtime_ns, hashlib.sha256(data).hexdigest()),
        )

    async def forgotten_turns(self, keys: Sequence[str]) -> None:
        return None  # one process owns the workspace: its reader forgot them already

    async def catch_up(self) -> None:
        return None  # one process owns the workspace: nothing changes it from elsewhere

    async def purge_texts(self, texts: Iterable[str]) -> int:
        """After a forget: drop the vectors of ``texts`` no live row still uses, merge the FTS
        segments (a deleted row's terms stay in old segments until merged), and checkpoint
        the WAL to zero bytes. With ``secure_delete`` on, freed space is zeroed. Returns how
        many vectors went."""
        hashes = sorted({content_hash(t) for t in texts if t})
        async with self._write_lock:
            gone = 0
            for h in hashes:
                used = await self.db.execute_fetchall(
                    "SELECT 1 FROM records WHERE content_hash = ? LIMIT 1", (h,)
                )
                if not list(used):
                    cur = await self.db.execute("DELETE FROM vectors WHERE content_hash = ?", (h,))
                    gone += max(0, cur.rowcount)
            await self.db.execute("INSERT INTO records_fts(records_fts) VALUES ('optimize')")
            await self.db.execute("INSERT INTO records_terms(records_terms) VALUES ('optimize')")
            await self.db.commit()
            await self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return gone

    # ----------------------------------------------------------------- reconciliation

    async def reconcile(
        self,
        store: MemoryStore,
        *,
        paths: Iterable[Path] | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> ReconcileReport:
        """Catch up with the files: new, changed (size/mtime, then hash) and deleted files.
        With ``paths``, only those files are looked at (the watcher's case)."""
        report = ReconcileReport()
        known: dict[str, tuple[int, int, str]] = {}
        for p, size, mtime, sha in await self.db.execute_fetchall(
            "SELECT path, size, mtime_ns, sha256 FROM files"
        ):
            known[p] = (size, mtime, sha)
        candidates, gone = self._reconcile_targets(store, paths, known)
        if paths is None and candidates:  # the store reads every file on its first read (to
            # settle an id two files use): at start, then, rather than in the first turn
            await asyncio.to_thread(store.parsed_file, min(candidates.values()))
        total = len(candidates)
        changed_records: list[MemoryRecord] = []
        removed_ids: list[str] = []
        async with self._write_lock:
            for n, (rel, path) in enumerate(sorted(candidates.items()), start=1):
                if progress is not None:
                    progress(n, total)
                await self._reconcile_file(
                    store, rel, path, known.get(rel), report, changed_records, removed_ids
                )
            for path in sorted(store.id_claims.take_rejudged()):  # an id's other file changed
                if path.exists():
                    args = (report, changed_records, removed_ids)
                    await self._reconcile_file(store, self._rel(path), path, None, *args)
            for rel in gone:
                removed_ids.extend(await self._ids_at(rel))
                await self.db.execute("DELETE FROM records WHERE path = ?", (rel,))
                await self.db.execute("DELETE FROM files WHERE path = ?", (rel,))
                report.deleted_files += 1
            await self.db.commit()
        if changed_records or removed_ids:
            await self._notify(changed_records, removed_ids)
        return report

    def _reconcile_targets(
        self,
        store: MemoryStore,
        paths: Iterable[Path] | None,
        known: Mapping[str, tuple[int, int, str]],
    ) -> tuple[dict[str, Path], list[str]]:
        """Files to look at (relative path -> path) and indexed files that are gone."""
        if paths is None:
            candidates = {self._rel(p): p for p in store.memory_files()}
            return candidates, [p for p in known if p not in candidates]
        candidates = {self._rel(p): Path(p) for p in paths}
        gone = [rel for rel, p in candidates.items() if not p.exists() and rel in known]
        return {rel: p for rel, p in candidates.items() if p.exists()}, gone

    async def _reconcile_file(
        self,
        store: MemoryStore,
        rel: str,
        path: Path,
        old: tuple[int, int, str] | None,
        report: ReconcileReport,
        changed_records: list[MemoryRecord],
        removed_ids: list[str],
    ) -> None:
        """Reindex one file when its size/mtime, then its hash, changed."""
        if owner_from_path(self.workspace, path) is None:
            return
        st = path.stat()
        if old is not None and old[0] == st.st_size and old[1] == st.st_mtime_ns:
            return
        data = await asyncio.to_thread(path.read_bytes)
        sha = hashlib.sha256(data).hexdigest()
        if old is not None and old[2] == sha:
            await self.db.execute(
                "UPDATE files SET size = ?, mtime_ns = ? WHERE path = ?",
                (st.st_size, st.st_mtime_ns, rel),
            )
            return
        if old is not None:  # a new one: the store's read (by size and mtime) is as fresh
            store.invalidate(path)
        # As the store reads it: a header that does not fit the file, or an id another
        # file's entry has, is a broken entry there, never indexed.
        parsed = await asyncio.to_thread(store.parsed_file, path)
        records = [rec.replace() for rec in parsed.records]  # owners set by the store
        report.errors.extend(str(e) for e in parsed.errors)
        await asyncio.to_thread(history.note_hand_edits, path, records, partial=bool(parsed.errors))
        stale = await self._ids_at(rel, exclude={r.id for r in records})
        await self._remove(stale)
        removed_ids.extend(stale)
        await self._upsert(records)
        changed_records.extend(records)
        await self.db.execute(
            "INSERT OR REPLACE INTO files (path, size, mtime_ns, sha256) VALUES (?,?,?,?)",
            (rel, st.st_size, st.st_mtime_ns, sha),
        )
        report.records += len(records)
        if old is None:
            report.new_files += 1
        else:
            report.changed_files += 1

    async def _ids_at(self, rel: str, exclude: set[str] | None = None) -> list[str]:
        found = await self.db.execute_fetchall("SELECT id FROM records WHERE path = ?", (rel,))
        rows = [r[0] for r in found]
        return [r for r in rows if not exclude or r not in exclude]

    async def embed_missing(self, *, batch: int = 512) -> int:
        """Embed records whose text has no vector in the current space (records written by a
        process without an embedder, or after a model change). Returns how many."""
        if self.embedder is None or self._space_id is None:
            return 0
        sql = (
            "SELECT DISTINCT r.content FROM records r LEFT JOIN vectors v "
            "ON v.content_hash = r.content_hash AND v.space_id = ? WHERE v.content_hash IS NULL"
        )
        texts = [row[0] for row in await self.db.execute_fetchall(sql, (self._space_id,))]
        for start in range(0, len(texts), batch):
            await self.vectors_for(texts[start : start + batch])
        return len(texts)

    async def rebuild(
        self, store: MemoryStore, *, progress: Callable[[int, int], None] | None = None
    ) -> ReconcileReport:
        """Drop the mirror (vectors stay: they are a cache keyed by content) and re-read
        every file."""
        async with self._write_lock:
            await self.db.execute("DELETE FROM records")
            await self.db.execute("DELETE FROM files")
            await self.db.execute("INSERT INTO records_fts(records_fts) VALUES ('rebuild')")
            await self.db.execute("INSERT INTO records_terms(records_terms) VALUES ('rebuild')")
            await self.db.commit()
        return await self.reconcile(store, progress=progress)

    # ----------------------------------------------------------------- queries

    async def keyword_search(
        self,
        query: str,
        *,
        limit: int = 200,
        where: str = "r.deprecated = 0",
        params: Sequence[Any] = (),
    ) -> list[tuple[str, float]]:
        """(record id, BM25 relevance >= 0, higher is better) for records matching ``where``:
        the BM25 of the words (``records_fts``) plus that of the no-space bigrams
        (``records_terms``), the terms recall's own BM25 reads."""
        match = fts_query(query)
        if not match:
            return []
        parts = [("records_fts", match)]
        if terms := terms_query(query):
            parts.append(("records_terms", terms))
        scores: dict[str, float] = {}
        for table, expr in parts:
            sql = (
                f"SELECT r.id, -bm25({table}) AS score FROM {table} "
                f"JOIN records r ON r.rowid = {table}.rowid "
                f"WHERE {table} MATCH ? AND {where} ORDER BY score DESC LIMIT ?"
            )
            for rid, score in await self.db.execute_fetchall(sql, (expr, *params, limit)):
                scores[rid] = scores.get(rid, 0.0) + float(score)
        return sorted(scores.items(), key=lambda hit: -hit[1])[:limit]

    async def rows(self, ids: Sequence[str]) -> dict[str, MemoryRecord]:
        """Records by id, as mirrored (owner fields included)."""
        out: dict[str, MemoryRecord] = {}
        items = list(ids)
        for start in range(0, len(items), 500):
            chunk = items[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = await self.db.execute_fetchall(
                f"SELECT data, content, user_key, agent_id, dialogue_id FROM records "
                f"WHERE id IN ({marks})",
                chunk,
            )
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
        """Mirrored records, oldest first, with the filters of ``MemoryStore.list`` (a person's
        key without a scope means their user scope) and those matching the keywords of
        ``query`` (:func:`keyword_where`). Streams: nothing is held in memory, and a read
        cursor stays open while the caller iterates, so this is for one-shot readers such as
        the CLI, not for the runtime's shared connection."""
        where, params = ["1 = 1"], []
        if query is not None:
            if not fts_query(query):
                return
            clause, terms = keyword_where(query)
            where.append(clause)
            params += terms
        if scope is not None:
            where.append("scope = ?")
            params.append(scope)
        elif user_key is not None:
            where.append("scope = 'user'")
        for column, value in (("category", category), ("user_key", user_key)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if agent_id is not None:
            where.append("(scope = 'user' OR agent_id = ?)")
            params.append(agent_id)
        if dialogue_id is not None:
            where.append("(dialogue_id IS NULL OR dialogue_id = ?)")
            params.append(dialogue_id)
        if not include_deprecated:
            where.append("deprecated = 0")
        sql = (
            "SELECT data, content, user_key, agent_id, dialogue_id FROM records r "
            f"WHERE {' AND '.join(where)} ORDER BY ts, id"
        )
        async with self.db.execute(sql, params) as cur:
            async for data, content, uk, ag, dl in cur:
                yield record_from_row(data, content, uk, ag, dl)

    async def counts(self) -> list[dict[str, Any]]:
        """Per (scope, category): live, deprecated and pinned record counts."""
        sql = (
            "SELECT scope, category, SUM(deprecated = 0), SUM(deprecated = 1), SUM(pinned = 1) "
            "FROM records GROUP BY scope, category ORDER BY scope, category"
        )
        rows = await self.db.execute_fetchall(sql)
        return [
            {
                "scope": s,
                "category": c,
                "live": int(lv or 0),
                "deprecated": int(dp or 0),
                "pinned": int(pn or 0),
            }
            for s, c, lv, dp, pn in rows
        ]


def record_path(workspace: Path, rec: MemoryRecord) -> Path:
    return resolve_path(
        workspace=workspace,
        scope=rec.scope,
        category=rec.category,
        agent_id=rec.agent_id,
        dialogue_id=rec.dialogue_id,
        user_key=rec.user_key,
    )


def record_from_row(
    data: str, content: str, user_key: str | None, agent_id: str | None, dialogue_id: str | None
) -> MemoryRecord:
    rec = record_from_header(json.loads(data))
    rec.content = content
    rec.user_key = user_key
    rec.agent_id = agent_id or "agent_0"
    rec.dialogue_id = dialogue_id
    return rec
