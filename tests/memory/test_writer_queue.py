"""The writer queue: persisted turns survive a crash, a bad turn is set aside, the status is
readable from another process."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime

import pytest

from familiars.memory import MemoryStore
from familiars.memory._writer._model import MemoryWriter
from familiars.memory._writer._queue import WriterQueue
from familiars.memory._writer._status import load_status, pending_turn_files, queue_dir
from familiars.memory._writer._turn import TurnContext
from tests.homes import home_of, in_database, open_store

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)


def turn(text) -> TurnContext:
    return TurnContext(
        agent_id="agent_0",
        dialogue_id="dialogue_1",
        user_key="u1",
        user_text=text,
        now=NOW.isoformat(),
    )


async def live(store):
    return await store.list(scope="user", user_key="u1", now=NOW)


async def test_worker_processes_in_order_and_drain_waits(workspace, memory_home):
    async with open_store(workspace) as store:
        queue = WriterQueue(MemoryWriter(store), home_of(store))
        async with queue:
            await queue.enqueue(turn("I like coffee"))
            await queue.enqueue(turn("I don't like coffee anymore"))
            await queue.enqueue(turn("My name is Ann"))
            await queue.drain()
            assert queue.pending() == []
            stats = queue.stats()
        records = {r.content for r in await live(store)}
        assert records == {"The user doesn't like coffee.", "The user's name is Ann."}
        assert stats["turns_processed"] == 3 and stats["queue_depth"] == 0
        assert stats["added"] == 2 and stats["updated"] == 1


async def test_queued_turns_survive_a_crash_and_run_on_restart(workspace, memory_home):
    async with open_store(workspace) as store:
        queue = WriterQueue(MemoryWriter(store), home_of(store))  # never started: "dies"
        await queue.enqueue(turn("My name is Ann"))
        await queue.enqueue(turn("I live in Oslo"))
        assert len(queue.pending()) == 2
        del queue
    if not in_database():
        assert len(pending_turn_files(workspace)) == 2
        assert load_status(workspace).queue_depth == 2
    async with open_store(workspace) as store:
        async with WriterQueue(MemoryWriter(store), home_of(store)) as queue:
            await queue.drain()
            assert queue.pending() == []
        assert {r.content for r in await live(store)} == {
            "The user's name is Ann.",
            "The user lives in Oslo.",
        }
    assert pending_turn_files(workspace) == []
    status = load_status(workspace)
    assert status.turns_processed == 2 and status.queue_depth == 0


async def test_a_bad_turn_is_set_aside_and_the_rest_go_on(tmp_path):
    async with MemoryStore(tmp_path) as store:
        writer = MemoryWriter(store)
        queue = WriterQueue(writer)
        await queue.enqueue(turn("My name is Ann"))
        bad = queue_dir(tmp_path) / "t_00000000000000000000.json"
        bad.write_text("{not json", encoding="utf-8")
        evil = await queue.enqueue(
            TurnContext(
                agent_id="../etc",
                dialogue_id="dialogue_1",
                user_key="u1",
                user_text="I like tea",
                now=NOW.isoformat(),
            )
        )
        await queue.enqueue(turn("I live in Oslo"))
        assert await queue.process_pending() == 4
        failed = sorted(p.name for p in (queue_dir(tmp_path) / "failed").glob("*.json"))
        assert failed == sorted([bad.name, evil.name])
        reasons = sorted((queue_dir(tmp_path) / "failed").glob("*.reason.txt"))
        assert len(reasons) == 2
        assert writer.stats.failed_turns == 2
        assert len(await live(store)) == 2
        assert "set aside" in (load_status(tmp_path).last_error or "")


def test_status_is_read_by_another_process(tmp_path):
    import asyncio

    async def run() -> None:
        async with MemoryStore(tmp_path) as store:
            queue = WriterQueue(MemoryWriter(store))
            await queue.enqueue(turn("My name is Ann"))
            await queue.process_pending()
            await queue.enqueue(turn("I like tea"))  # left queued

    asyncio.run(run())
    code = (
        "import json, sys; from familiars.memory._writer._status import load_status; "
        "print(json.dumps(load_status(sys.argv[1]).as_dict()))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True
    )
    data = json.loads(out.stdout)
    assert data["turns_processed"] == 1 and data["added"] == 1 and data["queue_depth"] == 1
    assert data["mode"] == "offline"


@pytest.mark.parametrize("payload", ["[]", '"x"', '{"agent_id": 1}'])
def test_turn_from_json_refuses_bad_payloads(payload):
    with pytest.raises((ValueError, TypeError)):
        TurnContext.from_json(payload)


async def test_a_writer_bug_sets_the_turn_aside_and_the_queue_goes_on(tmp_path):
    class Broken(MemoryWriter):
        async def process_turn(self, turn):
            if "Ann" in turn.user_text:
                raise RuntimeError("bug in the writer")
            return await super().process_turn(turn)

    async with MemoryStore(tmp_path) as store:
        queue = WriterQueue(Broken(store))
        async with queue:
            first = await queue.enqueue(turn("My name is Ann"))
            await queue.enqueue(turn("I live in Oslo"))
            await queue.drain()
            assert queue.stats()["running"]  # the worker is still there
        assert [r.content for r in await live(store)] == ["The user lives in Oslo."]
    failed = queue_dir(tmp_path) / "failed"
    assert (failed / first.name).is_file()  # kept: moving it back queues it again
    reason = (failed / first.name).with_suffix(".reason.txt").read_text(encoding="utf-8")
    assert "RuntimeError: bug in the writer" in reason
    assert pending_turn_files(tmp_path) == []


async def test_a_turn_a_dead_worker_held_reaches_the_model_writer(workspace, tmp_path, memory_home):
    """A message's writer work held while its turn ran (issue 21), its worker killed before
    the reply: the model writer still reads the message (no reply in it), once."""
    import asyncio

    from familiars.config import load_settings
    from familiars.llm import OpenAIChatModel
    from familiars.memory import open_state_home
    from tests.fake_openai import FakeOpenAI, Reply

    def add(content):
        entry = {"content": content, "salience": 0.7}
        return {"op": "add", "scope": "user", "category": "preference", "entry": entry}

    async with FakeOpenAI() as server, open_store(workspace) as store:
        server.script(Reply.json({"writes": [add("The user likes jazz.")]}))
        dead_home = open_state_home(load_settings(workspace=tmp_path / "dead"))
        dead = WriterQueue(MemoryWriter(store), dead_home if in_database() else None)
        assert await dead.hold(turn("I like jazz")) is not None
        assert dead.pending() == []  # held: no writer takes it while its turn runs
        await dead_home.close()  # killed mid-turn: never released
        chat = OpenAIChatModel(name="local", base_url=server.base_url, model="m", timeout_s=5)
        queue = WriterQueue(MemoryWriter(store, model=chat), home_of(store))
        async with queue:
            for _ in range(200):
                await queue.drain()
                if queue.writer.stats.turns_processed:
                    break
                await asyncio.sleep(0.05)
        assert {r.content for r in await live(store)} == {"The user likes jazz."}
        assert queue.writer.stats.turns_processed == 1
        (request,) = server.requests
        assert "User: I like jazz" in request.body["messages"][1]["content"]


async def test_a_crash_between_a_held_turns_release_and_its_cleanup_queues_it_once(workspace):
    """Files: the release writes the final turn, then drops the held copy; a crash between
    the two leaves both, and the next start keeps the final one alone."""
    async with open_store(workspace) as store:
        dying = WriterQueue(MemoryWriter(store))
        name = await dying.hold(turn("I live in Oslo"))
        assert name is not None
        folder = queue_dir(workspace)
        final = turn("I live in Oslo")
        final.reply_text = "Noted."
        (folder / name).write_text(final.to_json(), encoding="utf-8")  # released, then killed
        queue = WriterQueue(MemoryWriter(store))
        assert queue._recover_held() == 0  # the next start: the held copy goes
        assert not list(folder.glob("h_*.json"))
        assert json.loads((folder / name).read_text(encoding="utf-8"))["reply_text"] == "Noted."
        assert await queue.process_pending() == 1
        assert {r.content for r in await live(store)} == {"The user lives in Oslo."}


async def test_a_stop_cut_short_in_its_drain_leaves_no_worker_running(tmp_path):
    """Review s33 #6: a hurried stop cancels the queue's stop inside its drain; the worker
    went on writing while the store was closed under it. ``abort`` stops it, bounded, and
    the turn is kept for the next start (a drain after it writes nothing here)."""
    import asyncio

    began = asyncio.Event()

    class Stuck(MemoryWriter):
        async def process_turn(self, turn):
            began.set()
            await asyncio.Event().wait()  # a write that does not end

    async with MemoryStore(tmp_path) as store:
        queue = WriterQueue(Stuck(store))
        await queue.start()
        await queue.enqueue(turn("My name is Ann"))
        await asyncio.wait_for(began.wait(), 10)
        stop = asyncio.ensure_future(queue.stop())
        await asyncio.sleep(0.05)
        stop.cancel()
        await asyncio.wait({stop})
        assert queue.stats()["running"]  # what the cut-short stop left behind
        await asyncio.wait_for(queue.abort(wait_s=5), 10)
        assert not queue.stats()["running"]
        await asyncio.wait_for(queue.drain(), 10)  # the turn is not tried again here
