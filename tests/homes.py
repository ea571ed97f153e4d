"""The memory's two homes in tests: the ``memory_home`` fixture (``conftest.py``) sets the
environment; these open a store the way the runtime would in that home."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from familiars.config import load_settings
from familiars.memory import MemoryStore, StoreListener, database_url, open_workspace


def in_database() -> bool:
    return database_url(load_settings()) is not None


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
        yield mw.store
