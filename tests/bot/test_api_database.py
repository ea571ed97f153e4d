"""The HTTP API (and so the memory page and ``familiars status``) over the database home:
the same status counts, listing, filters and cursors as over the workspace's files."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from familiars.bot._api import ApiToken, StatusSources, create_app
from familiars.config import load_settings
from familiars.memory import make_record, open_workspace
from tests.bot.test_api_fixtures import AUTH, TOKEN
from tests.fakes import HashEmbedder

NOW = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.fixture
async def client(tmp_path: Path, memory_home: str) -> AsyncIterator[httpx.AsyncClient]:
    settings = load_settings(workspace=tmp_path / "ws")
    async with open_workspace(settings, embedder=HashEmbedder()) as mw:
        for u in range(2):
            for i in range(5):
                await mw.store.append(
                    make_record(
                        f"user{u} likes topic {i} (hiking and tea)",
                        scope="user",
                        category="preference" if i % 2 else "knowledge",
                        user_key=f"user{u}",
                    )
                )
        old = await mw.store.append(
            make_record("The channel plans a trip", scope="dialogue", category="event",
                        dialogue_id="dialogue_1")
        )  # fmt: skip
        await mw.store.update(old.id, "The channel plans a trip to the lake")
        await mw.store.append(
            make_record(
                "Sale ends soon", scope="dialogue", category="knowledge", dialogue_id="dialogue_1",
                ttl={"kind": "absolute", "expires_at": "2026-01-01T00:00:00+00:00"},
            )
        )  # fmt: skip
    app = create_app(StatusSources(settings, clock=lambda: NOW), token=ApiToken(TOKEN, "test"))
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://api") as c,
    ):
        yield c


async def _pages(client: httpx.AsyncClient, params: dict[str, Any]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        query = dict(params, **({"cursor": cursor} if cursor else {}))
        body = (await client.get("/api/memory", params=query, headers=AUTH)).json()
        items += body["items"]
        cursor = body["next_cursor"]
        if cursor is None:
            return items


async def test_status_listing_filters_and_cursors(client: httpx.AsyncClient) -> None:
    data = (await client.get("/api/memory_status", headers=AUTH)).json()
    cells = {(c["scope"], c["category"]): c for c in data["records"]["cells"]}
    assert cells[("user", "knowledge")]["live"] == 6
    assert cells[("dialogue", "event")] == {
        "scope": "dialogue", "category": "event",
        "live": 1, "deprecated": 1, "expired": 0, "pinned": 0,
    }  # fmt: skip
    assert cells[("dialogue", "knowledge")]["expired"] == 1
    everything = await _pages(client, {"limit": 3, "include_deprecated": True})
    ids = [i["id"] for i in everything]
    assert len(ids) == len(set(ids)) == 13 and ids == sorted(ids, reverse=True)
    live = await _pages(client, {"limit": 4})
    assert len(live) == 12
    hikes = await _pages(client, {"q": "hike", "user_key": "user1"})  # stemmed
    assert len(hikes) == 5 and all(i["user_key"] == "user1" for i in hikes)
    assert (await _pages(client, {"q": "!!!"})) == []
    lake = await _pages(client, {"q": "lake", "dialogue_id": "dialogue_1"})
    assert [i["path"] for i in lake] == ["agents/agent_0/dialogue_1/dialogue/event.md"]
