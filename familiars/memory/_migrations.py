"""Named schema migrations, only ever appended.

Each package that owns tables keeps its own :class:`MigrationSet` (``memory``, ``documents``,
``bot``, ``scheduler`` ...); a migration is a plain function taking a ``sqlite3.Connection``,
registered under ``<namespace>.<function name>`` and applied once, in order, inside a
transaction. Never edit or reorder a migration that has shipped: append a new one.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path

import aiosqlite

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


def connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
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


def migrate_database(path: Path, sets: Iterable[MigrationSet]) -> list[str]:
    conn = connect(path)
    try:
        return apply_migrations(conn, sets)
    finally:
        conn.close()


async def open_database(path: Path, sets: Iterable[MigrationSet]) -> aiosqlite.Connection:
    """Apply ``sets`` (off the event loop), then open an async connection in WAL mode: how
    every package that keeps tables in ``familiars.db`` opens it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    await asyncio.to_thread(migrate_database, path, list(sets))
    db = await aiosqlite.connect(path, timeout=30.0)
    await db.execute("PRAGMA journal_mode=WAL")
    await db.execute("PRAGMA synchronous=NORMAL")
    return db
