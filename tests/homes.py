"""The memory's two homes in tests: the ``memory_home`` fixture (``conftest.py``) sets the
environment; these open a store the way the runtime would in that home."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from familiars.config import load_settings
from familiars.memory import (
    FileStateHome,
    MemoryStore,
    StateHome,
    StoreListener,
    database_url,
    open_state_home,
    open_workspace,
)


@asynccontextmanager
async def state_home_at(workspace: Path) -> AsyncIterator[StateHome]:
    """The state's home for ``workspace`` in the home the environment names (files, or the
    database's rows: one worker's own connections), closed after."""
    home = open_state_home(load_settings(workspace=workspace))
    try:
        yield home
    finally:
        await home.close()


#: The state home of each store ``open_store`` opened (by the store's id), for ``home_of``.
_HOMES: dict[int, StateHome] = {}


def in_database() -> bool:
    return database_url(load_settings()) is not None


def home_of(store: MemoryStore) -> StateHome:
    """The state home beside a store ``open_store`` opened: the same files, or the same
    database as its records."""
    return _HOMES.get(id(store)) or FileStateHome(store.workspace)


@asynccontextmanager
async def open_store(
    workspace: Path, *, listeners: Iterable[StoreListener] = (), **kwargs: Any
) -> AsyncIterator[MemoryStore]:
    """A started store: a plain ``MemoryStore`` on the files (as the tests always had), or
    the database's store when ``FAMILIARS_DATABASE_URL`` is set."""
    settings = load_settings(workspace=workspace)
    if database_url(settings) is None:
        async with MemoryStore(workspace, listeners=listeners, **kwargs) as store:
            yield store
        return
    async with open_workspace(settings, embedder=False, reconcile=False) as mw:
        for listener in listeners:
            mw.store.add_listener(listener)
        _HOMES[id(mw.store)] = mw.home
        try:
            yield mw.store
        finally:
            _HOMES.pop(id(mw.store), None)


@asynccontextmanager
async def open_memory(
    workspace: Path, embedder: Any = None, *, reconcile: bool = False
) -> AsyncIterator[tuple[Any, MemoryStore]]:
    """(index, store) of the home the environment names, as ``open_workspace`` builds them:
    ``MemoryIndex`` + ``MemoryStore``, or the database's pair."""
    settings = load_settings(workspace=workspace)
    async with open_workspace(settings, embedder=embedder, reconcile=reconcile) as mw:
        yield mw.index, mw.store


def database_holding(text: str) -> list[str]:
    """In the database home: every table of the memory's schema with a row whose text holds
    ``text`` (any case), as ``db:<table>``; [] on the files."""
    settings = load_settings()
    url = database_url(settings)
    if url is None:
        return []
    import psycopg
    from psycopg import sql

    schema = settings.database.schema_name
    found = []
    with psycopg.connect(url, autocommit=True) as conn:
        tables = conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
            (schema,),
        ).fetchall()
        for (table,) in tables:
            query = sql.SQL("SELECT count(*) FROM {}.{} t WHERE t::text ILIKE %s").format(
                sql.Identifier(schema), sql.Identifier(table)
            )
            if table == "state_docs":  # documents are bytes: read as the text they are
                query = sql.SQL(
                    "SELECT count(*) FROM {}.state_docs WHERE "
                    "convert_from(body, 'UTF8') ILIKE %s OR name ILIKE %s"
                ).format(sql.Identifier(schema))
                row = conn.execute(query, (f"%{text}%", f"%{text}%")).fetchone()
                if row and row[0]:
                    found.append(f"db:{table}")
                continue
            if table == "doc_blobs":  # an attachment's bytes, as stored
                query = sql.SQL(
                    "SELECT count(*) FROM {}.doc_blobs "
                    "WHERE position(convert_to(%s, 'UTF8') in data) > 0"
                ).format(sql.Identifier(schema))
                row = conn.execute(query, (text,)).fetchone()
                if row and row[0]:
                    found.append(f"db:{table}")
                continue
            row = conn.execute(query, (f"%{text}%",)).fetchone()
            if row and row[0]:
                found.append(f"db:{table}")
    return sorted(found)


def read_state(workspace: Path, name: str) -> bytes | None:
    """A state document (``agents/agent_0/dialogue_0/dialogue.json``) as its home holds it:
    the workspace's file, or its ``state_docs`` row in the database home."""
    settings = load_settings(workspace=workspace)
    url = database_url(settings)
    if url is None:
        path = Path(workspace) / name
        return path.read_bytes() if path.exists() else None
    import psycopg
    from psycopg import sql

    query = sql.SQL("SELECT body FROM {}.state_docs WHERE name = %s").format(
        sql.Identifier(settings.database.schema_name)
    )
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(query, (name,)).fetchone()
    return None if row is None else bytes(row[0])
