"""The runtime with real model providers (fake OpenAI-compatible servers on 127.0.0.1)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from familiars.bot import IncomingMessage
from familiars.config import load_settings
from tests.fake_openai import FakeOpenAI, Reply
from tests.harness import make_app


def _msg(text: str, chat: str) -> IncomingMessage:
    return IncomingMessage(
        platform="telegram", chat_id=chat, user_id="u1", display_name="Ann", text=text,
        ts=datetime(2026, 11, 2, 10, tzinfo=UTC),
    )  # fmt: skip


async def test_an_agent_that_names_a_provider_speaks_through_it(workspace: Path) -> None:
    async with FakeOpenAI(Reply.text("from A")) as a, FakeOpenAI(Reply.text("from B")) as b:
        settings = load_settings(
            workspace=workspace,
            llm={
                "providers": [
                    {"name": "a", "base_url": a.base_url, "model": "m"},
                    {"name": "b", "base_url": b.base_url, "model": "m"},
                ]
            },
            agents=[
                {"id": "agent_0", "name": "Default", "chats": ["telegram:c0"]},
                {"id": "agent_1", "name": "Bee", "provider": "b", "chats": ["telegram:c1"]},
            ],
        )
        app = make_app(settings)
        async with app:
            assert app.dialogues is not None
            first = "".join([d async for d in app.dialogues.respond(_msg("hi", "c0"))])
            second = "".join([d async for d in app.dialogues.respond(_msg("hi", "c1"))])
            await app.settle()
    assert first.strip().endswith("from A")  # after the first-reply AI disclosure
    assert second.strip().endswith("from B")
    # The prompt that reached the provider holds the persona and the message, masked.
    chat_requests = [r for r in b.requests if r.body.get("stream") or "tools" in r.body]
    assert chat_requests and chat_requests[0].body["messages"][-1]["content"] == "hi"


async def test_the_runtime_serves_the_api_with_live_sources(
    workspace: Path, monkeypatch: object
) -> None:
    import httpx

    monkeypatch.setenv("FAMILIARS_API_TOKEN", "s3cret-token")  # type: ignore[attr-defined]
    settings = load_settings(workspace=workspace, api={"enabled": True, "port": 0})
    app = make_app(settings, model=None)
    async with app:
        assert app.dialogues is not None and app.api is not None
        "".join([d async for d in app.dialogues.respond(_msg("My name is Ann.", "c0"))])
        await app.settle()
        async with httpx.AsyncClient(base_url=app.api.url) as client:
            assert (await client.get("/healthz")).status_code == 200
            assert (await client.get("/api/memory_status")).status_code == 401
            auth = {"Authorization": "Bearer s3cret-token"}
            status = (await client.get("/api/memory_status", headers=auth)).json()
            page = (
                await client.get("/api/memory", headers=auth, params={"user_key": "telegram_u1"})
            ).json()
    assert status["recall"]["source"] == "live"
    assert status["recall"]["recalls"] == 1
    assert any("Ann" in item["content"] for item in page["items"])
