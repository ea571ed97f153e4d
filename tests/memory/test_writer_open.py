"""The writer's constructor does no I/O: the saved counters and provider cooldowns are taken
over in ``open()`` (which the queue's ``start()`` calls), through the ChatModel ABC's
``restore`` rather than a duck-typed attribute."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from familiars.llm import ChatModel, ChatResult, ProviderRouter
from familiars.memory import MemoryStore
from familiars.memory._writer._model import MemoryWriter
from familiars.memory._writer._queue import WriterQueue
from familiars.memory._writer._status import WriterStats, save_status, status_path


class Restorable(ChatModel):
    """A model that records what it is asked to restore."""

    def __init__(self) -> None:
        super().__init__()
        self.restored: list[list[Mapping[str, Any]]] = []

    async def chat(self, messages, **kw) -> ChatResult:  # type: ignore[no-untyped-def]
        return ChatResult('{"writes": []}')

    def restore(self, saved: Sequence[Mapping[str, Any]]) -> None:
        self.restored.append(list(saved))


SAVED_PROVIDER = {"name": "local", "model": "m", "status": "cooling", "cooling_until": 4e9}


@pytest.fixture
async def store(tmp_path):
    async with MemoryStore(tmp_path) as s:
        yield s


def saved_counters(store: MemoryStore) -> None:
    stats = WriterStats(turns_processed=7, added=3, last_error="old", providers=[SAVED_PROVIDER])
    save_status(store.workspace, stats)


async def test_the_constructor_reads_nothing_open_takes_over_the_saved_status(store):
    saved_counters(store)
    model = Restorable()
    writer = MemoryWriter(store, model=model)
    assert writer.stats.turns_processed == 0 and model.restored == []
    await writer.open()
    assert writer.stats.turns_processed == 7 and writer.stats.added == 3
    assert writer.stats.last_error is None and writer.stats.mode == "model"
    assert model.restored == [[SAVED_PROVIDER]]
    await writer.open()  # once only
    assert model.restored == [[SAVED_PROVIDER]]


async def test_the_constructor_works_without_a_readable_workspace(tmp_path):
    async with MemoryStore(tmp_path / "ws") as s:
        status_path(s.workspace).parent.mkdir(parents=True, exist_ok=True)
        status_path(s.workspace).write_text("{not json", encoding="utf-8")
        writer = MemoryWriter(s)  # no read here, so nothing to fail
        await writer.open()
    assert writer.stats.turns_processed == 0


async def test_the_queue_start_opens_the_writer(store):
    saved_counters(store)
    model = Restorable()
    async with WriterQueue(MemoryWriter(store, model=model)) as queue:
        assert queue.writer.stats.turns_processed == 7
    assert model.restored == [[SAVED_PROVIDER]]
    data = json.loads(status_path(store.workspace).read_text(encoding="utf-8"))
    assert data["turns_processed"] == 7


async def test_a_model_without_providers_has_nothing_to_restore():
    class Plain(ChatModel):
        async def chat(self, messages, **kw) -> ChatResult:  # type: ignore[no-untyped-def]
            return ChatResult("")

    plain = Plain()
    plain.restore([SAVED_PROVIDER])  # the ABC's default: nothing to take over
    assert plain.states() == [] and plain.state_time() > 0


async def test_a_router_restores_and_states_on_its_own_clock():
    class Fixed(ChatModel):
        name = "local"

        async def chat(self, messages, **kw) -> ChatResult:  # type: ignore[no-untyped-def]
            return ChatResult("")

    router = ProviderRouter([Fixed()], clock=lambda: 100.0)
    router.restore([{"name": "local", "cooling_until": 160.0}])
    assert router.state_time() == 100.0
    assert router.states()[0].as_dict(router.state_time())["cooldown_left_s"] == 60
