"""Where ``familiars bench locomo --facts --database`` keeps the written records: in the
memory's real home, so the reader loads them as a running bot does (``attach_index``), from
the workspace's files with their SQLite index or from the database (a schema per replay,
dropped after). Both homes are measured in the same run on the same records."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from familiars.benchmarks._database import drop_schema, home_settings
from familiars.config import Settings
from familiars.memory import Embedder, MemoryReader, MemoryRecord, open_workspace


class RecordHome:
    """The files (``url`` None) or the database at ``url``."""

    def __init__(self, settings: Settings, url: str | None) -> None:
        self.settings = settings
        self.url = url
        self.loaded = 0  # records the reader loaded from the home's index, all replays

    @property
    def name(self) -> str:
        return "files" if self.url is None else "database"

    @asynccontextmanager
    async def holding(
        self,
        workspace: Path,
        embedder: Embedder,
        records: Sequence[MemoryRecord],
        reader: MemoryReader,
    ) -> AsyncIterator[None]:
        """``records`` written through the home's store and loaded into ``reader`` from its
        index, for as long as the block runs."""
        schema = f"bench_locomo_{uuid.uuid4().hex[:12]}" if self.url else None
        home = home_settings(self.settings, workspace, schema)
        try:
            async with open_workspace(home, embedder=embedder, reconcile=False) as mw:
                await mw.store.append_many(records, dedupe=False)
                self.loaded += await reader.attach_index(mw.index, subscribe=mw.index.subscribe)
                yield
        finally:
            if self.url is not None and schema is not None:
                drop_schema(self.url, schema)
