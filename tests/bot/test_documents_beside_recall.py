"""Issue 20: a turn's document search runs beside recall, not after it (its index check is
a database hop, which then waits while recall ranks); the prompt still gets its passages,
and a group turn searches no documents."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import familiars.bot._stages as stages


class Recaller:
    """Recall that finishes only once the document search has started."""

    def __init__(self, started: asyncio.Event) -> None:
        self.started = started

    async def recall(self, query: str, **kwargs: Any) -> list[Any]:
        await asyncio.wait_for(self.started.wait(), timeout=2)  # a failed recall gives []
        return ["the ferry note"]


class Documents:
    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.asked: list[str] = []

    async def context(self, query: str, user_key: str, *, is_owner: bool) -> list[str]:
        self.asked.append(query)
        self.started.set()
        return ["[notes.md] the ferry leaves at nine"]


def _turn_and_services(is_group: bool) -> tuple[Any, Any, Documents]:
    documents = Documents()
    services = SimpleNamespace(
        recaller=Recaller(documents.started),
        documents=documents,
        settings=SimpleNamespace(recall=SimpleNamespace(k=5)),
        is_owner=lambda platform, user_id: True,
    )
    turn = SimpleNamespace(
        said="when does the ferry leave?",
        agent=SimpleNamespace(id="agent_0"),
        info=SimpleNamespace(dialogue_id="d1", is_group=is_group),
        user_key="ana",
        now=None,
        q_id=3,
        message=SimpleNamespace(platform="console", user_id="u1"),
        recalled=[],
        passages=[],
        recall_ms=0.0,
    )
    return turn, services, documents


async def test_the_document_search_runs_beside_recall() -> None:
    turn, services, documents = _turn_and_services(is_group=False)
    await stages.recall(turn, services)  # recall waits for the search: after it, it fails
    assert turn.recalled == ["the ferry note"]
    assert turn.passages == ["[notes.md] the ferry leaves at nine"]
    assert documents.asked == ["when does the ferry leave?"]


async def test_a_group_turn_searches_no_documents() -> None:
    turn, services, documents = _turn_and_services(is_group=True)
    services.recaller = SimpleNamespace(recall=lambda *a, **k: asyncio.sleep(0, result=[]))
    await stages.recall(turn, services)
    assert turn.passages == [] and documents.asked == []
