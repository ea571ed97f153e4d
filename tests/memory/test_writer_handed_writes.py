"""The offline writer runs once a turn (issue 20): a turn that carries the writes its plan
worked out (``TurnContext.offline_writes``) has them applied as they are, and they survive
the queue's file; what does not read as writes is refused or worked out again."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from familiars.memory import MemoryStore, MemoryWriter, TurnContext, offline_writes

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)


def turn(text: str, **kw: Any) -> TurnContext:
    return TurnContext(
        agent_id="agent_0",
        dialogue_id="dialogue_1",
        user_key="u1",
        user_text=text,
        now=NOW.isoformat(),
        is_owner=True,
        is_group=False,
        **kw,
    )


async def _handed(store: MemoryStore, text: str) -> list[dict[str, Any]]:
    """What the turn's plan works out: the offline writer's writes over the live records."""
    existing = await store.list(scope="user", user_key="u1", now=NOW)
    output = offline_writes(text, existing=existing, now=NOW, dialogue_id="dialogue_1")
    return [w.model_dump(mode="json") for w in output.writes]


async def test_handed_writes_are_applied_without_reading_the_records_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with MemoryStore(tmp_path / "ws") as store:
        writer = MemoryWriter(store)
        await writer.process_turn(turn("I live in Portland."))
        handed = await _handed(store, "I live in Seattle now.")

        def again(*args: Any, **kw: Any) -> Any:
            raise AssertionError("the offline writer ran again")

        monkeypatch.setattr(writer, "owner_records", again)
        monkeypatch.setattr(writer, "offline_output", again)
        report = await writer.process_turn(turn("I live in Seattle now.", offline_writes=handed))
        live = [r.content for r in await store.list(scope="user", user_key="u1", now=NOW)]
    assert any("Seattle" in c for c in live) and not any("Portland" in c for c in live), live
    assert report.problems == []


async def test_handed_writes_store_what_the_writer_would_have(tmp_path: Path) -> None:
    texts = ["My name is Ana.", "I love hiking and my dog is called Biscuit.", "I hate jazz."]
    stored: list[list[str]] = []
    for hand in (False, True):
        async with MemoryStore(tmp_path / f"ws{hand}") as store:
            writer = MemoryWriter(store)
            for text in texts:
                handed = await _handed(store, text) if hand else None
                await writer.process_turn(turn(text, offline_writes=handed))
            live = await store.list(scope="user", user_key="u1", now=NOW)
            stored.append(sorted(r.content for r in live))
    assert stored[0] == stored[1] and stored[0]


def test_handed_writes_survive_the_queue_file() -> None:
    handed = [{"op": "add", "scope": "user", "category": "preference", "entry": {"content": "x"}}]
    back = TurnContext.from_json(turn("hi", offline_writes=handed).to_json())
    assert back.offline_writes == handed
    assert TurnContext.from_json(turn("hi").to_json()).offline_writes is None


def test_a_queued_turn_with_writes_that_are_not_objects_is_refused() -> None:
    data = json.loads(turn("hi").to_json())
    data["offline_writes"] = ["add everything"]
    with pytest.raises(TypeError, match="offline_writes"):
        TurnContext.from_json(json.dumps(data))


async def test_writes_that_do_not_read_are_worked_out_again(tmp_path: Path) -> None:
    async with MemoryStore(tmp_path / "ws") as store:
        writer = MemoryWriter(store)
        await writer.process_turn(turn("I love hiking.", offline_writes=[{"op": "explode"}]))
        live = await store.list(scope="user", user_key="u1", now=NOW)
    assert any("hiking" in r.content for r in live)
