"""Issue 20: on files, the writer's worker lists its queue folder once a pass (it listed it
three times a turn), and lists it again only when a turn was queued meanwhile: that turn is
still written in the same pass."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from familiars.memory import MemoryStore
from familiars.memory._writer._model import MemoryWriter
from familiars.memory._writer._queue import WriterQueue
from familiars.memory._writer._turn import TurnContext

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)


def _turn(text: str) -> TurnContext:
    return TurnContext(
        agent_id="agent_0", dialogue_id="dialogue_1", user_key="u1", user_text=text,
        now=NOW.isoformat(),
    )  # fmt: skip


async def _names(store: MemoryStore) -> set[str]:
    return {r.content for r in await store.list(scope="user", user_key="u1", now=NOW)}


def _count_listings(queue: WriterQueue) -> list[int]:
    listed = [0]
    pending = queue.pending

    def counted() -> list[Any]:
        listed[0] += 1
        return pending()

    queue.pending = counted  # type: ignore[method-assign]
    return listed


async def test_a_worker_pass_lists_the_queue_folder_once(workspace):
    async with MemoryStore(workspace) as store:
        queue = WriterQueue(MemoryWriter(store))
        async with queue:
            await queue.settle()
            listed = _count_listings(queue)
            for text in ("My name is Ann", "I live in Oslo"):
                await queue.enqueue(_turn(text))
                await queue._idle.wait()  # the worker's pass is over (no drain lists here)
            assert listed[0] == 2  # one a turn
            assert await _names(store) == {"The user's name is Ann.", "The user lives in Oslo."}
            assert queue.stats()["queue_depth"] == 0


async def test_a_turn_queued_during_a_pass_is_written_in_that_pass(workspace):
    async with MemoryStore(workspace) as store:
        writer = MemoryWriter(store)
        queue = WriterQueue(writer)
        process = writer.process_turn
        later = [_turn("I live in Oslo")]

        async def and_another(turn: TurnContext) -> Any:
            if later:
                await queue.enqueue(later.pop())
            return await process(turn)

        writer.process_turn = and_another  # type: ignore[method-assign]
        async with queue:
            await queue.settle()
            listed = _count_listings(queue)
            await queue.enqueue(_turn("My name is Ann"))
            await queue._idle.wait()
            assert await _names(store) == {"The user's name is Ann.", "The user lives in Oslo."}
            assert listed[0] == 2  # the batch, and again for the turn queued meanwhile
