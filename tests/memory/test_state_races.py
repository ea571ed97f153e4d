"""Races between workers on one database that the state home must not lose to: a ledger
saved from a stale copy, a journal line appended while another worker compacts the tree.
A "worker" is a home of its own (its own connections) on its own workspace."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from familiars.config import load_settings
from familiars.memory import DialogTrees, StateHome
from familiars.scheduler import OpenLoop, SchedulerLedger, ledger_path
from tests.homes import state_home_at

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
async def worker_a(workspace: Path, pg_url: str) -> AsyncIterator[StateHome]:
    async with state_home_at(workspace) as h:
        yield h


@pytest.fixture
async def worker_b(tmp_path: Path, pg_url: str) -> AsyncIterator[StateHome]:
    ws = tmp_path / "worker_b"
    ws.mkdir()
    async with state_home_at(ws) as h:
        yield h


def test_a_ledger_saved_from_a_stale_copy_keeps_another_workers_opt_out(
    workspace: Path, worker_a: StateHome, worker_b: StateHome
) -> None:
    """A's tick read the ledger, B's person said /proactive off, A's tick saved a send:
    the opt-out stays (it was written over, and the person got messages again)."""
    ledger_a = SchedulerLedger(ledger_path(workspace), worker_a)
    ledger_b = SchedulerLedger(ledger_path(workspace), worker_b)
    ledger_b.set_proactive("agent_0/dialogue_1", False)
    ledger_b.care_pause("u1", NOW)
    ledger_a.record_sent("agent_0/dialogue_2", NOW)
    ledger_a.silence("agent_0/dialogue_3", NOW)
    ledger_a.save()
    fresh = SchedulerLedger(ledger_path(workspace), worker_b)
    assert not fresh.proactive_enabled("agent_0/dialogue_1")
    assert fresh.care_paused_until("u1") == NOW
    assert fresh.sent_times("agent_0/dialogue_2") == (NOW,)
    assert fresh.silenced_until("agent_0/dialogue_3") == NOW
    ledger_b.record_sent("agent_0/dialogue_2", NOW.replace(hour=10))  # B's copy was stale too
    ledger_b.save()
    again = SchedulerLedger(ledger_path(workspace), worker_a)
    assert again.sent_times("agent_0/dialogue_2") == (NOW, NOW.replace(hour=10))
    assert again.silenced_until("agent_0/dialogue_3") == NOW


def _add(trees: DialogTrees, text: str, at: float) -> None:
    tree = trees.get("agent_0", "dialogue_1", create=True)
    vec = np.zeros(4, dtype=np.float32)
    vec[int(at) % 4] = 1.0
    tree.add_node(text, vec, timestamp=at)


def test_a_node_appended_while_another_worker_compacts_is_kept(
    workspace: Path,
    worker_a: StateHome,
    worker_b: StateHome,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trees_a = DialogTrees(workspace, home=worker_a)
    trees_b = DialogTrees(workspace, home=worker_b)
    _add(trees_a, "first message", 1.0)
    _add(trees_a, "first reply", 2.0)
    trees_b.get("agent_0", "dialogue_1")  # B has the tree open, up to date
    write, fold = worker_a.write, getattr(worker_a, "fold", None)

    def write_then_b_appends(name: str, data: bytes, *, durable: bool = True) -> None:
        write(name, data, durable=durable)
        if name.endswith("dialogue.json"):  # B's turn adds its node in between
            _add(trees_b, "said on worker B while A compacts", 3.0)

    def b_appends_then_fold(name: str, data: bytes, journal: str, seen: str) -> str | None:
        if not trees_b.get("agent_0", "dialogue_1").node_list[-1].content.startswith("said"):
            _add(trees_b, "said on worker B while A compacts", 3.0)
        return fold(name, data, journal, seen)

    monkeypatch.setattr(worker_a, "write", write_then_b_appends)
    monkeypatch.setattr(worker_a, "fold", b_appends_then_fold, raising=False)
    trees_a.compact_all()
    monkeypatch.undo()
    reread = DialogTrees(workspace, home=worker_a).get("agent_0", "dialogue_1")
    assert [n.content for n in reread.node_list] == [
        "first message",
        "first reply",
        "said on worker B while A compacts",
    ]


async def test_forgetting_a_persons_turns_reaches_dialogues_another_worker_began(
    workspace: Path, tmp_path: Path, worker_b: StateHome
) -> None:
    """Each worker has a workspace folder of its own: a dialogue worker B began has no
    folder in A's. "Forget what I said" handled by A still reaches it (the words were kept
    in the database's tree, recallable by every worker)."""
    from familiars.memory import Forgetter, open_workspace

    trees_b = DialogTrees(tmp_path / "worker_b", home=worker_b)
    tree = trees_b.get("agent_0", "dialogue_7", create=True)
    vec = np.ones(4, dtype=np.float32) / 2
    tree.add_node("I live in Denver", vec, timestamp=10.0, metadata={"user_key": "u1"})
    trees_b.compact_all()
    tree.add_node("and I work at Acme", vec, timestamp=11.0, metadata={"user_key": "u1"})
    settings = load_settings(workspace=workspace)
    async with open_workspace(settings, embedder=False, reconcile=False) as mw:
        forgetter = Forgetter.for_workspace(mw)
        assert len(await forgetter.turns_between("u1", since=0.0)) == 2
        report = await forgetter.forget_turns("u1", since=0.0, now=20.0)
    assert len(report.nodes) == 2
    fresh = DialogTrees(tmp_path / "worker_b", home=worker_b).get("agent_0", "dialogue_7")
    assert [n.content for n in fresh.node_list] == ["", ""]


class _Sender:
    def __init__(self) -> None:
        self.sent: list[Any] = []

    async def send_proactive(self, message: Any) -> None:
        await asyncio.sleep(0)  # another worker may run here
        self.sent.append(message)


class _Directory:
    def __init__(self, info: Any) -> None:
        self.info = info

    async def active_dialogues(self, now: datetime) -> list[Any]:
        return [self.info]


async def test_two_workers_send_one_check_in(workspace: Path, tmp_path: Path, pg_url: str) -> None:
    """A check-in has no reminder row to claim: two workers' ticks at once sent it twice."""
    from familiars.scheduler import DialogueInfo, Scheduler
    from tests.homes import home_of, open_store

    noon = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
    info = DialogueInfo("agent_0", "dialogue_2", user_key="u1", last_user_at=noon.replace(day=1))
    second = tmp_path / "worker_b"
    second.mkdir(exist_ok=True)
    async with open_store(workspace) as store_a, open_store(second) as store_b:
        senders = [_Sender(), _Sender()]
        scheds = [
            Scheduler(
                load_settings(workspace=ws, scheduler={"tick_s": 3600}),
                store,
                sender,
                clock=lambda: noon,
                home=home_of(store),
                dialogues=_Directory(info),
            )
            for ws, store, sender in zip(
                [workspace, second], [store_a, store_b], senders, strict=True
            )
        ]
        await asyncio.gather(*(s.run_due(noon) for s in scheds))
        await asyncio.gather(*(s.run_due(noon) for s in scheds))
    assert [m.kind for s in senders for m in s.sent] == ["check_in"]


async def test_an_export_never_writes_outside_its_folder(
    tmp_path: Path, worker_a: StateHome
) -> None:
    """A state row's name is a path under the new workspace: one that climbs out of it (a
    database others write to) is refused in one line, and nothing is written there."""
    from typer.testing import CliRunner

    from familiars.cli import app
    from familiars.config import UserFacingError

    worker_a.write("../escaped.json", b"{}\n")
    out = tmp_path / "out"
    exported = CliRunner().invoke(app, ["db", "export", "--to", str(out)])
    assert not (tmp_path / "escaped.json").exists()
    assert isinstance(exported.exception, UserFacingError)  # ``familiars``: one line, exit 1
    assert "'../escaped.json'" in str(exported.exception)
    assert not out.exists() or not any(out.rglob("*.*"))  # nothing half-exported


async def test_the_database_lost_mid_turn_keeps_the_turn_queued_and_the_queue_running(
    workspace: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not the turn's fault: it is not set aside (as a full disk on the files), and the
    worker's queue task goes on (it died, and this worker wrote no memory until restarted)."""
    import contextlib

    import psycopg

    from familiars.memory import MemoryWriter, TurnContext, WriterQueue
    from tests.homes import home_of, open_store

    async with open_store(workspace) as store:
        home = home_of(store)
        queue = WriterQueue(MemoryWriter(store), home)
        process, take = queue.writer.process_turn, home.take_turn
        failures = ["take", "process"]

        async def lost_once(turn: TurnContext) -> Any:
            if "process" in failures:
                failures.remove("process")
                raise psycopg.OperationalError("server closed the connection unexpectedly")
            return await process(turn)

        @contextlib.asynccontextmanager
        async def take_lost_once() -> Any:
            if "take" in failures:
                failures.remove("take")
                raise psycopg.OperationalError("server closed the connection unexpectedly")
            async with take() as item:
                yield item

        monkeypatch.setattr(queue.writer, "process_turn", lost_once)
        monkeypatch.setattr(home, "take_turn", take_lost_once)
        turn = TurnContext(
            agent_id="agent_0",
            dialogue_id="dialogue_1",
            user_key="u1",
            user_text="My name is Ann",
            now="2026-12-01T09:00:00+00:00",
        )
        await queue.enqueue(turn)
        await queue.start()  # its takes meet the database gone, then back
        await queue.drain()
        await queue.stop()
        assert home.turn_rows() == []
        live = await store.list(scope="user", user_key="u1")
        assert [r.content for r in live] == ["The user's name is Ann."]


def test_the_state_home_works_again_once_the_database_is_back(
    pg_url: str, worker_a: StateHome
) -> None:
    """The server dropped this worker's session (a restart): the call that met it fails,
    the next one opens the session again (the worker's state stayed broken until restart)."""
    import psycopg

    worker_a.write("state/people/u1.json", b"{}\n")
    pid = worker_a.conn.info.backend_pid  # type: ignore[attr-defined]
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    with pytest.raises(psycopg.OperationalError):
        worker_a.read("state/people/u1.json")
    assert worker_a.read("state/people/u1.json") == b"{}\n"
    assert worker_a.names("state/people/") == ["state/people/u1.json"]


# ------------------------------------------------------------------------------ the ledger's copy
# In the database home the scheduler's thread claims, saves and refreshes the ledger while chat
# commands mark it on the event loop. Each test below runs the loop's step at the moment the
# thread's step is in the database.


def _loop(n: int) -> OpenLoop:
    rid = f"m_{n:024x}"
    return OpenLoop(rid, "reminder", f"Remind the user of thing {n}.", NOW, NOW, user_key="u1")


def test_a_cancel_marked_while_a_refresh_reads_is_kept_and_saved(
    workspace: Path, worker_a: StateHome, worker_b: StateHome
) -> None:
    ledger = SchedulerLedger(ledger_path(workspace), worker_a)
    ledger.mark(_loop(1), "cancelled", NOW)  # on the loop; not saved yet
    ledger.refresh()  # the thread reads what the other workers did
    assert ledger.loop_status(_loop(1).record_id) == "cancelled"
    ledger.save()
    assert (
        SchedulerLedger(ledger_path(workspace), worker_b).loops()[_loop(1).record_id]["status"]
        == "cancelled"
    )


def test_a_mark_made_while_a_save_writes_is_saved_by_the_next(
    workspace: Path, worker_a: StateHome, worker_b: StateHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = SchedulerLedger(ledger_path(workspace), worker_a)
    ledger.mark(_loop(1), "sent", NOW)
    save_fates = worker_a.save_fates

    def meanwhile(entries: dict[str, Any]) -> None:
        ledger.mark(_loop(2), "cancelled", NOW)  # a cancel on the loop while this writes
        ledger.silence("agent_0/dialogue_1", NOW)
        save_fates(entries)

    monkeypatch.setattr(worker_a, "save_fates", meanwhile)
    ledger.save()
    monkeypatch.setattr(worker_a, "save_fates", save_fates)
    assert ledger.silenced_until("agent_0/dialogue_1") == NOW
    ledger.save()
    fresh = SchedulerLedger(ledger_path(workspace), worker_b)
    assert fresh.silenced_until("agent_0/dialogue_1") == NOW
    fates = fresh.loops()
    assert {rid: e["status"] for rid, e in fates.items()} == {
        _loop(1).record_id: "sent",
        _loop(2).record_id: "cancelled",
    }


async def test_a_connection_given_back_after_close_is_closed(worker_a: StateHome) -> None:
    """A thread still in the database when the home closes gives its connection back after:
    it is closed then, not kept in a pool nothing closes any more."""
    aside = worker_a._aside()  # type: ignore[attr-defined]  # the home's own pool
    conn = aside.__enter__()
    await worker_a.close()
    aside.__exit__(None, None, None)
    assert conn.closed
    assert worker_a._idle_sync == []  # type: ignore[attr-defined]


def test_a_save_begun_later_is_written_after_one_still_writing(
    workspace: Path, worker_a: StateHome, worker_b: StateHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The thread's save (a send) is in the database when a cancel is marked and saved: the
    cancel, the later fate, is the one kept."""
    ledger = SchedulerLedger(ledger_path(workspace), worker_a)
    ledger.mark(_loop(1), "sent", NOW)
    save_fates = worker_a.save_fates
    writing, go_on = threading.Event(), threading.Event()

    def slow(entries: dict[str, Any]) -> None:
        if not writing.is_set():
            writing.set()
            go_on.wait(10)
        save_fates(entries)

    monkeypatch.setattr(worker_a, "save_fates", slow)
    first = threading.Thread(target=ledger.save)
    first.start()
    writing.wait(10)
    ledger.mark(_loop(1), "cancelled", NOW)
    second = threading.Thread(target=ledger.save)
    second.start()
    second.join(0.5)  # unserialised, the later save would be written by now
    go_on.set()
    first.join()
    second.join()
    fresh = SchedulerLedger(ledger_path(workspace), worker_b)
    assert fresh.loops()[_loop(1).record_id]["status"] == "cancelled"
