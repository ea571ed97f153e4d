"""Reaching the database: the URL from the settings, connections, and errors for people.

Every failure to reach or use the database at start is one :class:`DatabaseError` (see
``_url``) whose text says what is wrong and what to do. The URL's password is never shown.
"""

from __future__ import annotations

import re
from typing import Any

import psycopg
from psycopg import sql

from familiars.memory._pg._url import DEFAULT_SCHEMA, DatabaseError, shown_url

_SCHEMA_RE = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def check_schema(schema: str) -> str:
    if not _SCHEMA_RE.fullmatch(schema):
        raise DatabaseError(f"database schema name {schema!r} is not a plain lower-case name")
    return schema


def _options(schema: str) -> dict[str, Any]:
    # Our tables first, then public (where CREATE EXTENSION puts the vector type).
    return {"autocommit": True, "options": f"-c search_path={check_schema(schema)},public"}


def explain(exc: BaseException, url: str) -> DatabaseError:
    """A failed connect or statement, as a line for a person."""
    where = shown_url(url)
    state = getattr(exc, "sqlstate", None) or ""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    no_role = "role" in text and "does not exist" in text
    if state in ("28P01", "28000") or "password authentication failed" in text or no_role:
        return DatabaseError(f"the database at {where} refused the credentials: {text}")
    if "extension" in text and "vector" in text:
        return DatabaseError(
            f"the database at {where} has no pgvector extension ({text}); install pgvector on "
            "the server and run CREATE EXTENSION vector as a superuser"
        )
    if state in ("25006", "42501") or "read-only" in text or "permission denied" in text:
        return DatabaseError(
            f"the database at {where} does not let this role write ({text}); the memory needs "
            "a role that may create and change its tables"
        )
    if state == "3D000" or "does not exist" in text:
        return DatabaseError(f"the database at {where} does not exist: {text}")
    if isinstance(exc, psycopg.OperationalError):
        return DatabaseError(f"cannot reach the database at {where}: {text}")
    return DatabaseError(f"the database at {where} failed: {text}")


def connect(url: str, schema: str = DEFAULT_SCHEMA) -> psycopg.Connection[Any]:
    try:
        return psycopg.connect(url, connect_timeout=10, **_options(schema))
    except psycopg.Error as exc:
        raise explain(exc, url) from None


async def aconnect(url: str, schema: str = DEFAULT_SCHEMA) -> psycopg.AsyncConnection[Any]:
    try:
        return await psycopg.AsyncConnection.connect(url, connect_timeout=10, **_options(schema))
    except psycopg.Error as exc:
        raise explain(exc, url) from None


def notify_channel(schema: str) -> sql.Identifier:
    """The LISTEN/NOTIFY channel on which a schema's record changes are announced."""
    return sql.Identifier(f"{schema}_records")
