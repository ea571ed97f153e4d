"""``familiars db ...`` behind memory's face, without importing the database driver until a
command runs (psycopg is the optional ``postgres`` extra)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from familiars.config import Settings
from familiars.memory._index_view import IndexView
from familiars.memory._pg._url import database_url, driver_missing


def _admin() -> Any:
    try:
        from familiars.memory._pg import _admin
    except ImportError:
        raise driver_missing() from None
    return _admin


def migrate_to_database(settings: Settings, source: Path) -> dict[str, Any]:
    """Copy the workspace at ``source`` (records, ids, timestamps, history) into the database
    ``settings`` names; refuses to overwrite a record already there."""
    return dict(_admin().migrate_workspace(settings, Path(source)))


def export_from_database(settings: Settings, target: Path) -> dict[str, Any]:
    """Write the database's records and history as a workspace's markdown under ``target``."""
    return dict(_admin().export_workspace(settings, Path(target)))


def database_status(settings: Settings) -> dict[str, Any]:
    return dict(_admin().database_status(settings))


def index_view(settings: Settings) -> IndexView:
    """The read-only view of the records (the HTTP API, the memory page, status): over the
    workspace's SQLite index, or over the database ``settings`` names."""
    url = database_url(settings)
    if url is None:
        return IndexView(Path(settings.workspace))
    try:
        from familiars.memory._pg._view import PgIndexView
    except ImportError:
        raise driver_missing() from None
    return PgIndexView(url, settings.database.schema_name, Path(settings.workspace))
