"""Shared helpers for the API tests: a workspace with records, an API served on 127.0.0.1
from a background thread. (No tests here.)"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from familiars.bot._api import ApiToken, StatusSources, create_app
from familiars.bot._api.server import ApiServer
from familiars.memory import MemoryIndex, MemoryRecord, MemoryStore, make_record
from tests.fakes import HashEmbedder

TOKEN = "test-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@dataclass
class Built:
    workspace: Path
    records: list[MemoryRecord]
    pinned: list[str]
    deprecated: list[str]
    expired: list[str]


async def build_workspace(workspace: Path, *, users: int = 3, per_user: int = 7) -> Built:
    """Records in every kind of scope; some pinned, deprecated and expired."""
    index = MemoryIndex(workspace, HashEmbedder())
    await index.open()
    store = MemoryStore(workspace, listeners=[index])
    await store.start()
    try:
        recs = [
            make_record(
                f"{name} likes topic {i} (hiking and tea)",
                scope="user",
                category="preference" if i % 2 else "knowledge",
                user_key=name,
            )
            for name in [f"user{u}" for u in range(users)]
            for i in range(per_user)
        ]
        recs.append(make_record("Always greet warmly", scope="identity", category="directive"))
        recs.append(
            make_record(
                "Agent one's own rule", scope="identity", category="procedure", agent_id="agent_1"
            )
        )
        recs.append(
            make_record(
                "The channel plans a trip",
                scope="dialogue",
                category="event",
                dialogue_id="dialogue_1",
            )
        )
        recs.append(
            make_record(
                "A sale ended long ago",
                scope="dialogue",
                category="knowledge",
                dialogue_id="dialogue_1",
                ttl={"kind": "absolute", "expires_at": "2020-01-01T00:00:00+00:00"},
            )
        )
        stored = await store.append_many(recs)
        pinned = [stored[0].id, stored[per_user].id]
        deprecated = [stored[1].id]
        for rid in pinned:
            await store.pin(rid)
        for rid in deprecated:
            await store.deprecate(rid)
    finally:
        await store.close()
        await index.close()
    return Built(workspace, stored, pinned, deprecated, [stored[-1].id])


class ServedApi:
    """An :class:`ApiServer` running its own event loop in a daemon thread."""

    def __init__(self, sources: StatusSources) -> None:
        app = create_app(sources, token=ApiToken(TOKEN, "test"))
        self.server = ApiServer(app, host="127.0.0.1", port=0, embedded=True)
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self.server.start())
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            self._error = exc
            self._ready.set()
            return
        self._ready.set()
        self.loop.run_until_complete(self.server.wait())

    def start(self) -> ServedApi:
        self._thread.start()
        self._ready.wait(30)
        if self._error is not None:
            raise self._error
        return self

    def call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(30)

    def stop(self) -> None:
        self.call(self.server.stop())
        self._thread.join(30)
        self.loop.close()

    @property
    def url(self) -> str:
        return self.server.url
