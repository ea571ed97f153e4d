"""The one interface both homes of the memory's index implement.

``MemoryIndex`` (SQLite beside the workspace's markdown files) and ``PgMemoryIndex``
(PostgreSQL + pgvector, ``familiars.memory._pg``) answer the same calls; everything that
holds "the index" (the reader, the writer's dedupe, the Forgetter, the watcher, the CLI)
holds a :class:`RecordIndex`. The records themselves always go through ``MemoryStore``
(``PgMemoryStore`` in database mode). :func:`familiars.memory.open_workspace` picks the home,
in one place, from ``[database] url_env``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, Protocol

import numpy as np

from familiars.memory._embeddings import Embedder
from familiars.memory._index import IndexListener, ReconcileReport
from familiars.memory._records import MemoryRecord
from familiars.memory._store import MemoryStore, StoreChange


class RecordIndex(Protocol):
    embedder: Embedder | None

    @property
    def space_id(self) -> int | None: ...

    async def open(self) -> None: ...

    async def close(self) -> None: ...

    async def attach_embedder(self, embedder: Embedder) -> None: ...

    def subscribe(self, listener: IndexListener) -> None: ...

    async def records_changed(self, change: StoreChange) -> None: ...

    async def vectors_for(self, texts: Sequence[str]) -> np.ndarray: ...

    async def load_matrix(
        self, where: str = ..., params: Sequence[Any] = ...
    ) -> tuple[list[str], np.ndarray]: ...

    async def rows(self, ids: Sequence[str]) -> dict[str, MemoryRecord]: ...

    async def purge_texts(self, texts: Sequence[str]) -> int: ...

    async def forgotten_turns(self, keys: Sequence[str]) -> None:
        """Turns (``node:...``) forgotten by this worker: other workers' subscribers get them
        as removed (the database's change feed); files: one process, no one to tell."""

    async def catch_up(self) -> None:
        """What other workers changed and forgot, up to now, to the subscribers (the reader
        calls it before each recall); files: one process, nothing to catch up with."""

    async def reconcile(
        self,
        store: MemoryStore,
        *,
        paths: Any = ...,
        progress: Callable[[int, int], None] | None = ...,
    ) -> ReconcileReport: ...

    async def rebuild(
        self, store: MemoryStore, *, progress: Callable[[int, int], None] | None = ...
    ) -> ReconcileReport: ...

    async def embed_missing(self, *, batch: int = ...) -> int: ...

    def iter_records(
        self,
        *,
        scope: str | None = ...,
        category: str | None = ...,
        user_key: str | None = ...,
        agent_id: str | None = ...,
        dialogue_id: str | None = ...,
        include_deprecated: bool = ...,
        query: str | None = ...,
    ) -> AsyncIterator[MemoryRecord]: ...

    async def counts(self) -> list[dict[str, Any]]: ...
