"""``WriterQueue.settle``: a turn's read waits for the last turn's writes (issue 20), and
costs nothing when the worker has nothing of this process's left."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from familiars.memory import MemoryStore
from familiars.memory._writer._model import MemoryWriter
from familiars.memory._writer._queue import WriterQueue
from familiars.memory._writer._turn import TurnContext
from tests.homes import home_of, open_store

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)


def _turn(text: str) -> TurnContext:
    return TurnContext(
        agent_id="agent_0", dialogue_id="dialogue_1", user_key="u1", user_text=text,
        now=NOW.isoformat(),
    )  # fmt: skip


async def _names(store: MemoryStore) -> set[str]:
    return {r.content for r in await store.list(scope="user", user_key="u1", now=NOW)}


async def test_settle_waits_for_each_turn_queued_or_released(workspace, memory_home):
    async with open_store(workspace) as store:
        queue = WriterQueue(MemoryWriter(store), home_of(store))
        async with queue:
            await queue.enqueue(_turn("My name is Ann"))
            await queue.settle()
            assert await _names(store) == {"The user's name is Ann."}
            held = await queue.hold(_turn("I live in Oslo"))
            assert held is not None
            await queue.release(held)
            await queue.settle()
            assert "The user lives in Oslo." in await _names(store)
            assert queue.pending() == []


async def test_settle_without_a_worker_processes_the_queue(workspace):
    store = MemoryStore(workspace)
    await store.start()
    try:
        queue = WriterQueue(MemoryWriter(store))  # never started
        await queue.enqueue(_turn("My name is Ann"))
        await queue.settle()
        assert await _names(store) == {"The user's name is Ann."}
    finally:
        await store.close()


async def test_settle_waits_for_a_turn_the_worker_is_processing(workspace, memory_home):
    """In the database a turn the worker has taken is locked and no longer listed (SKIP
    LOCKED): settle waited for the list alone and returned before its write (CI, stop 31)."""
    async with open_store(workspace) as store:
        writer = MemoryWriter(store)
        queue = WriterQueue(writer, home_of(store))
        process = writer.process_turn

        async def slow(turn: TurnContext):  # type: ignore[no-untyped-def]
            await asyncio.sleep(0.5)
            return await process(turn)

        writer.process_turn = slow  # type: ignore[method-assign]
        async with queue:
            held = await queue.hold(_turn("I live in Oslo"))
            assert held is not None
            await queue.release(held)
            await asyncio.sleep(0.2)  # the worker has taken it and is writing
            await queue.settle()
            assert "The user lives in Oslo." in await _names(store)
