"""PostgreSQL + pgvector as the memory's home (``FAMILIARS_DATABASE_URL``).

- :func:`open_database_home` - the store and index over a database (``_open``).
- :class:`PgMemoryStore` - ``MemoryStore`` with cells as rows (``_store``).
- :class:`PgMemoryIndex` - vectors in pgvector (HNSW), keyword search (GIN), the change feed
  between workers (``_index``, ``_feed``).
- :func:`migrate` - the versioned schema, applied once under an advisory lock (``_schema``).
- :func:`move_in` / :func:`move_out` - a workspace's records into a database and back
  (``_move``).
- :class:`DatabaseError` - every reason the database cannot be used, as one line
  (``_connect``).
"""

# Only what needs no driver is imported here: psycopg is the optional ``postgres`` extra, so
# the modules that use it are imported by name, when a database is configured.
from collections.abc import Callable
from typing import Any

from familiars.memory._pg._url import DatabaseError, database_url, driver_missing, shown_url

__all__ = ["DatabaseError", "database_row_maker", "database_url", "driver_missing", "shown_url"]


def database_row_maker() -> tuple[str, Callable[[str, Any], tuple[Any, ...]]]:
    """``records``' columns and the row ``PgMemoryStore`` writes for a record in a cell
    (``row(cell, record)``, the ``terms`` of keyword search included), for a bulk load such as
    ``bench recall --database``'s ``COPY``. The store (and psycopg) is imported only here."""
    from familiars.memory._pg._store import _RECORD_COLUMNS, record_row

    return _RECORD_COLUMNS, record_row
