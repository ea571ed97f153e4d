"""Named schema migrations, only ever appended.

Each package that owns tables keeps its own :class:`MigrationSet` (``memory``, ``documents``,
``bot``, ``scheduler`` ...); a migration is a plain function taking a ``sqlite3.Connection``,
registered under ``<namespace>.<function name>`` and applied once, in order, inside a
transaction. Never edit or reorder a migration that has shipped: append a new one.

Migrations run only under the workspace lock (:mod:`familiars.memory._lock`): as the owner,
or taking the lock for the moment when nobody owns the workspace. A process that finds
another owner applies none (the owner did when it started). A database that SQLite cannot
read (malformed, not a database) is derived data: :func:`repair_database` moves it aside as
``familiars.db.damaged-<ts>`` with one log line, and the caller rebuilds it from the files.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path

import aiosqlite

from familiars.memory._atomic import FILE_MODE, ensure_private_dir
from familiars.memory._errors import MemoryError_
from familiars.memory._lock import owned_elsewhere, read_only, under_lock

logger = logging.getLogger(__name__)

Migration = Callable[[sqlite3.Connection], None]


class MigrationSet:
    def __init__(self, namespace: str) -> None:
        self.namespace = namespace
        self.migrations: list[tuple[str, Migration]] = []

    def __call__(self, fn: Migration) -> Migration:
        name = f"{self.namespace}.{fn.__name__}"
        if any(n == name for n, _ in self.migrations):
            raise ValueError(f"migration {name} registered twice")
        self.migrations.append((name, fn))
        return fn


_SIDE_FILES = ("", "-wal", "-shm", "-journal")


def _make_private(path: Path) -> None:
    """Create the database file 0600 (SQLite gives its WAL and SHM the same mode) and bring
    the mode of an older, wider one down."""
    ensure_private_dir(path.parent)
    if not path.exists():
        with contextlib.suppress(OSError):
            os.close(os.open(path, os.O_RDWR | os.O_CREAT, FILE_MODE))
    for suffix in _SIDE_FILES:
        side = Path(f"{path}{suffix}")
        with contextlib.suppress(OSError):
            if side.exists() and side.stat().st_mode & 0o077:
                os.chmod(side, FILE_MODE)


def connect(path: Path) -> sqlite3.Connection:
    _make_private(path)
    conn = sqlite3.connect(path, timeout=30.0)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def apply_migrations(conn: sqlite3.Connection, sets: Iterable[MigrationSet]) -> list[str]:
    """Apply the migrations not yet recorded in ``schema_migrations``; returns their names."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT)"
    )
    done = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
    applied: list[str] = []
    for mset in sets:
        for name, fn in mset.migrations:
            if name in done:
                continue
            with conn:
                fn(conn)
                conn.execute(
                    "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                    (name, datetime.now(UTC).isoformat(timespec="seconds")),
                )
            applied.append(name)
    return applied


def pending_migrations(conn: sqlite3.Connection, sets: Iterable[MigrationSet]) -> list[str]:
    try:
        done = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
    except sqlite3.OperationalError:
        done = set()
    return [name for mset in sets for name, _ in mset.migrations if name not in done]


def _migrate_now(path: Path, sets: list[MigrationSet]) -> list[str]:
    repair_database(path)
    conn = connect(path)
    try:
        return apply_migrations(conn, sets)
    finally:
        conn.close()


def migrate_database(path: Path, sets: Iterable[MigrationSet]) -> list[str]:
    """Apply what is pending, under the workspace lock. When another process owns the
    workspace nothing is applied; anything still pending then is a clear error."""
    path = Path(path)
    sets = list(sets)
    applied = under_lock(path.parent, lambda: _migrate_now(path, sets), what="migrations")
    if applied is not None:
        return applied
    conn = sqlite3.connect(_read_only_uri(path), uri=True, timeout=30.0)
    try:
        pending = pending_migrations(conn, sets)
    except sqlite3.DatabaseError as exc:
        raise MemoryError_(f"{path} cannot be read ({exc}); its owner repairs it") from exc
    finally:
        conn.close()
    if pending:
        owner = owned_elsewhere(path.parent)
        who = owner.describe() if owner else "its owner"
        raise MemoryError_(f"{path} needs migrations {', '.join(pending)}; {who} applies them")
    return []


def _read_only_uri(path: Path) -> str:
    """On a read-only mount SQLite cannot create the WAL index: read the file as immutable."""
    return f"file:{path}?{'immutable=1' if read_only(path.parent) else 'mode=ro'}"


def database_damage(path: Path) -> str | None:
    """Why SQLite cannot use the database at ``path``, or None (missing counts as fine)."""
    if not path.exists() or path.stat().st_size == 0:
        return None
    try:
        conn = sqlite3.connect(path, timeout=30.0)
    except sqlite3.Error as exc:
        return str(exc)
    try:
        row = conn.execute("PRAGMA quick_check(1)").fetchone()
        if row is None or row[0] != "ok":
            return f"quick_check: {row[0] if row else 'no answer'}"
        return None
    except sqlite3.DatabaseError as exc:
        if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
            return None
        return str(exc)
    finally:
        conn.close()


def repair_database(path: Path, *, now: datetime | None = None) -> Path | None:
    """Move a damaged database (and its WAL/SHM) aside as ``<name>.damaged-<ts>``; returns
    where it went, or None when it was fine. The caller rebuilds it from the files."""
    path = Path(path)
    reason = database_damage(path)
    if reason is None:
        return None
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    for suffix in _SIDE_FILES:
        side = Path(f"{path}{suffix}")
        if side.exists():
            os.replace(side, Path(f"{aside}{suffix}"))
    logger.warning("%s is damaged (%s): moved aside to %s, rebuilding it", path, reason, aside)
    return aside


async def open_database(path: Path, sets: Iterable[MigrationSet]) -> aiosqlite.Connection:
    """Apply ``sets`` (off the event loop), then open an async connection in WAL mode: how
    every package that keeps tables in ``familiars.db`` opens it."""
    if not read_only(path.parent):
        ensure_private_dir(path.parent)
    await asyncio.to_thread(migrate_database, path, list(sets))
    if read_only(path.parent):
        logger.info("%s is on a read-only workspace: reads only", path)
        return await aiosqlite.connect(_read_only_uri(path), uri=True, timeout=30.0)
    db = await aiosqlite.connect(path, timeout=30.0)
    await db.execute("PRAGMA journal_mode=WAL")
    await db.execute("PRAGMA synchronous=NORMAL")
    return db
