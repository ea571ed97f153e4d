"""Open a workspace's memory: the store, its index, and (when asked) the embedder."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from familiars.config import Settings
from familiars.memory._backend import RecordIndex
from familiars.memory._embedder_loading import load_embedder
from familiars.memory._embeddings import Embedder
from familiars.memory._index import MemoryIndex, ReconcileReport
from familiars.memory._migrations import MigrationSet
from familiars.memory._pg._url import database_url, driver_missing
from familiars.memory._state_home import FileStateHome, StateHome
from familiars.memory._store import MemoryStore

logger = logging.getLogger(__name__)


@dataclass
class MemoryWorkspace:
    settings: Settings
    store: MemoryStore
    index: RecordIndex
    embedder: Embedder | None
    reconcile_report: ReconcileReport | None = None
    #: Where the state other than records lives (the same home as the records).
    state_home: StateHome | None = None

    @property
    def home(self) -> StateHome:
        return self.state_home or FileStateHome(self.path)

    @property
    def path(self) -> Path:
        return self.store.workspace


def embedder_from_settings(settings: Settings) -> Embedder:
    """The configured embedder; a fallback to the bundled model is said once per workspace."""
    cfg = settings.embedding
    return load_embedder(
        cfg.model,
        fallback=cfg.fallback,
        device=cfg.device,
        batch_size=cfg.batch_size,
        notices=Path(settings.workspace) / "state" / "notices",
        backend=cfg.backend,
        models=cfg.onnx_dir or Path(settings.workspace) / "state" / "models",
    )


def open_state_home(settings: Settings) -> StateHome:
    """The state home alone (no store, no index), for a command or a test that needs only
    the state: the database ``[database] url_env`` names (migrated), else the files. The
    caller closes it (``await home.close()``)."""
    url = database_url(settings)
    if url is None:
        return FileStateHome(Path(settings.workspace))
    try:
        from familiars.memory._pg._open import open_state_database
    except ImportError:
        raise driver_missing() from None
    return open_state_database(settings, url)


async def _memory_home(
    settings: Settings, emb: Embedder | None, extra_migrations: Sequence[MigrationSet]
) -> tuple[MemoryStore, RecordIndex, StateHome]:
    """Where the records (and the rest of the state) live, chosen here and only here: the
    database that ``[database] url_env`` names, else the workspace's files with their SQLite
    index."""
    url = database_url(settings)
    if url is not None:
        try:
            from familiars.memory._pg._open import open_database_home
        except ImportError:
            raise driver_missing() from None
        return await open_database_home(settings, url, emb)
    index = MemoryIndex(Path(settings.workspace), emb, extra_migrations=extra_migrations)
    store = MemoryStore(
        Path(settings.workspace),
        listeners=[index],
        max_record_chars=settings.memory.max_record_chars,
        privacy=settings.privacy,
    )
    return store, index, FileStateHome(Path(settings.workspace))


@asynccontextmanager
async def open_workspace(
    settings: Settings,
    *,
    embedder: Embedder | None | bool | Awaitable[Embedder] = True,
    reconcile: bool = True,
    extra_migrations: Sequence[MigrationSet] = (),
    progress: Callable[[int, int], None] | None = None,
) -> AsyncIterator[MemoryWorkspace]:
    """Store + index for ``settings.workspace``; ``embedder=True`` loads the configured model,
    ``False``/``None`` opens without one (listing and editing need none), or pass an instance.
    On open the index catches up with files edited while nothing was running. An awaitable
    (a model loading in a thread) is awaited only after the database is open and the files
    reconciled, so those run while the model loads; the vectors follow (``embed_missing``)."""
    pending: Awaitable[Embedder] | None = None
    if embedder is True:  # loading a model blocks: off the event loop
        emb: Embedder | None = await asyncio.to_thread(embedder_from_settings, settings)
    elif embedder is False or embedder is None:
        emb = None
    elif isinstance(embedder, Embedder):
        emb = embedder
    else:
        emb, pending = None, embedder
    store, index, home = await _memory_home(settings, emb, extra_migrations)
    try:
        await index.open()
    except BaseException:
        await home.close()
        raise
    try:
        await store.start()
        try:
            mw = MemoryWorkspace(settings, store, index, emb, state_home=home)
            if reconcile:
                store.cleanup_temp_files()
                mw.reconcile_report = await index.reconcile(store, progress=progress)
                for err in mw.reconcile_report.errors:
                    logger.warning("%s", err)
            if pending is not None:
                mw.embedder = await pending
                await index.attach_embedder(mw.embedder)
            if reconcile and mw.embedder is not None:
                await index.embed_missing()
            yield mw
        finally:
            await store.close()
    finally:
        await index.close()
        await home.close()
