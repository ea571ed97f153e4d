"""Open the database home: migrate once, check the role may write, build store + index."""

from __future__ import annotations

import asyncio
import logging
import uuid
from pathlib import Path

from familiars.config import Settings
from familiars.memory._embeddings import Embedder
from familiars.memory._pg._connect import DatabaseError, connect, shown_url
from familiars.memory._pg._index import PgMemoryIndex
from familiars.memory._pg._schema import check_writable, migrate
from familiars.memory._pg._state import PgStateHome
from familiars.memory._pg._store import PgMemoryStore

logger = logging.getLogger(__name__)


async def open_database_home(
    settings: Settings, url: str, embedder: Embedder | None, *, listen: bool = True
) -> tuple[PgMemoryStore, PgMemoryIndex, PgStateHome]:
    """The store, index and state home over ``url`` (not yet started: the caller opens the
    index and starts the store as it would the files' ones). Raises :class:`DatabaseError`."""
    schema = settings.database.schema_name
    conn = await asyncio.to_thread(connect, url, schema)
    try:
        applied = await asyncio.to_thread(migrate, conn, schema, url)
        await asyncio.to_thread(check_writable, conn, url)
        await asyncio.to_thread(_register_vector, conn)
    except BaseException:
        conn.close()
        raise
    if applied:
        logger.info("database %s: applied %s", shown_url(url), ", ".join(applied))
    origin = uuid.uuid4().hex
    workspace = Path(settings.workspace)
    store = PgMemoryStore(
        workspace,
        conn,
        schema=schema,
        max_record_chars=settings.memory.max_record_chars,
        origin=origin,
        privacy=settings.privacy,
    )
    index = PgMemoryIndex(url, schema, embedder, workspace=workspace, origin=origin, listen=listen)
    store.add_listener(index)
    home = PgStateHome(url, schema)
    store.state_home = home
    return store, index, home


def _register_vector(conn: object) -> None:
    from pgvector.psycopg import register_vector

    try:
        register_vector(conn)  # type: ignore[arg-type]
    except Exception as exc:  # noqa: BLE001 - said to the person as one line
        raise DatabaseError(f"the vector type cannot be used: {exc}") from None


def open_state_database(settings: Settings, url: str) -> PgStateHome:
    """The state home over ``url`` alone, its schema migrated first."""
    schema = settings.database.schema_name
    conn = connect(url, schema)
    try:
        migrate(conn, schema, url)
    finally:
        conn.close()
    return PgStateHome(url, schema)
