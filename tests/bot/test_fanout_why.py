"""The bot with ``recall.profile = "full"`` and a model (a scripted server on 127.0.0.1):
the model writes the fan-out's sub-queries and ``/memory why`` says which ran, from where."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from familiars.bot import IncomingMessage
from familiars.bot._adapters.base import CommandInvocation
from familiars.config import load_settings
from tests.fake_openai import FakeOpenAI, Reply
from tests.harness import make_app

T0 = datetime(2026, 11, 2, 10, tzinfo=UTC)
SUBS = {"emotional": "nervous anticipation", "relational": "", "hyde": "I have a big exam soon"}


def _server_reply(body: dict[str, Any]) -> Reply:
    """Sub-queries for the fan-out's call, no writes for the writer, words for the reply."""
    name = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
    if name == "subqueries":
        return Reply.json(SUBS)
    if name == "writer_output":
        return Reply.json({"writes": []})
    return Reply.text("Good luck!")


def _msg(text: str, minutes: int) -> IncomingMessage:
    return IncomingMessage(
        platform="telegram", chat_id="dm-ann", user_id="ann", display_name="Ann", text=text,
        ts=T0 + timedelta(minutes=minutes),
    )  # fmt: skip


def _memory(*args: str) -> CommandInvocation:
    return CommandInvocation(
        platform="telegram", chat_id="dm-ann", user_id="ann", display_name="Ann",
        name="memory", args=args,
    )  # fmt: skip


async def _talk(workspace: Path, server: FakeOpenAI, profile: str, *, forget: bool = False) -> str:
    settings = load_settings(
        workspace=workspace,
        llm={"providers": [{"name": "fake", "base_url": server.base_url, "model": "m"}]},
        recall={"profile": profile, "budget_ms": {"lite": 30, "standard": 200, "full": 5000}},
    )
    app = make_app(settings)
    async with app:
        assert app.dialogues is not None
        for n, text in enumerate(("My exam is on Friday.", "I feel jittery about tomorrow")):
            _ = "".join([d async for d in app.dialogues.respond(_msg(text, n))])
            await app.settle()
        why = (await app.dialogues.command(_memory("why"))).text
        if forget:  # the sub-queries quote the message: a forget drops them with it
            used = why.split("`")[1]
            await app.dialogues.command(_memory("forget", used))  # asked first
            await app.dialogues.command(_memory("forget", used, "confirm"))
            why += "\n---\n" + (await app.dialogues.command(_memory("why"))).text
        return why


def _fanout_calls(server: FakeOpenAI) -> list[dict[str, Any]]:
    return [
        r.body
        for r in server.requests
        if json.dumps(r.body.get("response_format") or {}).find('"subqueries"') >= 0
    ]


async def test_memory_why_shows_the_models_sub_queries(workspace: Path) -> None:
    async with FakeOpenAI(_server_reply) as server:
        why, after = (await _talk(workspace, server, "full", forget=True)).split("\n---\n")
    assert "I searched for it as:" in why and "searched for it as" not in after
    assert "- literal (query): “I feel jittery about tomorrow”" in why
    assert "- hyde (model): “I have a big exam soon”" in why
    assert "relational" not in why  # the empty one is dropped
    assert len(_fanout_calls(server)) == 2  # one per message


async def test_the_standard_profile_never_asks_for_sub_queries(workspace: Path) -> None:
    async with FakeOpenAI(_server_reply) as server:
        why = await _talk(workspace, server, "standard")
    assert "searched for it as" not in why
    assert _fanout_calls(server) == []
