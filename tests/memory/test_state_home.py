"""The state home (``StateHome``) on both homes: documents by name, dialogue numbers, the
per-dialogue turn lock, each due reminder and each queued writer turn taken by exactly one
worker. A "worker" in the database is a home of its own (its own connections, as a process
would have) on its own workspace, over the same schema."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest

from familiars.config import load_settings
from familiars.memory import (
    MemoryStore,
    MemoryWriter,
    StateHome,
    TurnContext,
    WriterQueue,
    make_record,
    open_state_home,
)
from familiars.scheduler import ProactiveMessage, Scheduler
from tests.homes import home_of, open_store, state_home_at

DUE = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
NOW = DUE.isoformat()


@pytest.fixture
async def home(workspace: Path, memory_home: str) -> AsyncIterator[StateHome]:
    async with state_home_at(workspace) as h:
        yield h


@pytest.fixture
def second_workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "worker_b"
    ws.mkdir()
    return ws


@pytest.fixture
async def worker_b(second_workspace: Path, pg_url: str) -> AsyncIterator[StateHome]:
    """A second worker's home on the same database (its own workspace and connections)."""
    h = open_state_home(load_settings(workspace=second_workspace))
    try:
        yield h
    finally:
        await h.close()


# ------------------------------------------------------------------------------ documents


async def test_documents_are_kept_by_name_as_bytes(home: StateHome, workspace: Path) -> None:
    data = '{\n "x": "é"\n}\n'.encode()
    home.write("state/people/u_1.json", data)
    home.write("state/people/u_2.json", b"{}\n", durable=False)
    home.write("agents/agent_0/dialogue_0/chat.json", b"{}\n")
    assert home.read("state/people/u_1.json") == data
    assert home.read("state/people/nobody.json") is None
    assert home.names("state/people/", ".json") == [
        "state/people/u_1.json",
        "state/people/u_2.json",
    ]
    assert home.names("agents/", "/chat.json") == ["agents/agent_0/dialogue_0/chat.json"]
    home.delete("state/people/u_2.json")
    assert home.names("state/people/") == ["state/people/u_1.json"]
    on_disk = (workspace / "state/people/u_1.json").exists()
    assert on_disk == (home.kind == "files")  # the database keeps nothing in the workspace


async def test_a_dialogues_trees_are_found_by_its_id_on_both_homes(home: StateHome) -> None:
    home.append("agents/agent_0/dialogue_3/dialogue.journal.jsonl", "{}")
    home.write("agents/agent_1/dialogue_3/dialogue.json", b"{}")
    home.append("agents/agent_0/dialogue_33/dialogue.journal.jsonl", "{}")
    home.write("state/dialogue_3/x.json", b"{}")  # not a tree's
    assert home.tree_names("dialogue_3") == [
        "agents/agent_0/dialogue_3/dialogue.journal.jsonl",
        "agents/agent_1/dialogue_3/dialogue.json",
    ]


def test_a_dialogues_trees_are_found_by_an_index_not_a_scan_of_every_line(
    pg_url: str, workspace: Path
) -> None:
    """``stored(dialogue_id)`` (who has this dialogue: every forget asks) reads the journal
    lines of that dialogue only, by an index, not every line of every journal by LIKE."""
    from familiars.memory._pg._connect import connect
    from familiars.memory._pg._schema import migrate
    from familiars.memory._pg._state import TREE_NAMES

    schema = load_settings().database.schema_name
    with connect(pg_url, schema) as conn:
        migrate(conn, schema, pg_url)
        conn.execute("SET enable_seqscan = off")  # a small table would be scanned anyway
        rows = conn.execute("EXPLAIN " + TREE_NAMES, ("dialogue_3", "dialogue_3")).fetchall()
    plan = "\n".join(r[0] for r in rows)
    assert "state_lines_dialogue" in plan and "state_docs_dialogue" in plan, plan


async def test_a_dialogue_number_is_never_handed_out_twice(home: StateHome) -> None:
    first = home.next_dialogue_number("agent_0", [])
    second = home.next_dialogue_number("agent_0", [first])
    assert second > first
    if home.kind == "database":  # every worker reserves from one table
        assert home.next_dialogue_number("agent_0", []) > second
        assert home.next_dialogue_number("agent_1", []) == 0


# ------------------------------------------------------------------------------ the dialogue lock


async def _holding(home: StateHome, dialogue: str, entered: list[str], release: asyncio.Event):
    async with home.dialogue_lock("agent_0", dialogue):
        entered.append(dialogue)
        await release.wait()


async def test_one_dialogue_waits_while_another_runs_in_one_process(home: StateHome) -> None:
    entered: list[str] = []
    release = asyncio.Event()
    first = asyncio.create_task(_holding(home, "dialogue_1", entered, release))
    while entered != ["dialogue_1"]:
        await asyncio.sleep(0.01)
    same = asyncio.create_task(_holding(home, "dialogue_1", entered, asyncio.Event()))
    async with home.dialogue_lock("agent_0", "dialogue_2"):  # another dialogue: not held up
        entered.append("dialogue_2")
    assert entered == ["dialogue_1", "dialogue_2"] and not same.done()
    release.set()
    await first
    while len(entered) < 3:
        await asyncio.sleep(0.01)
    assert entered == ["dialogue_1", "dialogue_2", "dialogue_1"]
    same.cancel()


def _advisory_locks(url: str) -> int:
    """Sessions of this server that hold an advisory lock or have one open (B's lock
    session is open once it tried)."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(DISTINCT pid) FROM pg_stat_activity WHERE backend_type = "
            "'client backend' AND pid <> pg_backend_pid() AND query ILIKE '%advisory%'"
        ).fetchone()
    return int(row[0]) if row else 0


async def test_a_second_worker_waits_on_a_dialogue_another_serves(
    pg_url: str, workspace: Path, worker_b: StateHome
) -> None:
    worker_a = open_state_home(load_settings(workspace=workspace))
    try:
        entered: list[str] = []
        release = asyncio.Event()
        held = asyncio.create_task(_holding(worker_a, "dialogue_1", entered, release))
        while entered != ["dialogue_1"]:
            await asyncio.sleep(0.01)
        waiting = asyncio.create_task(_holding(worker_b, "dialogue_1", entered, asyncio.Event()))
        while _advisory_locks(pg_url) < 2:  # B has tried (and holds its session's others)
            await asyncio.sleep(0.02)
        async with worker_b.dialogue_lock("agent_0", "dialogue_2"):
            entered.append("dialogue_2 by B")
        assert entered == ["dialogue_1", "dialogue_2 by B"] and not waiting.done()
        release.set()
        await held
        while len(entered) < 3:
            await asyncio.sleep(0.01)
        assert entered[-1] == "dialogue_1"  # B serves it once A's turn ended
        waiting.cancel()
        await asyncio.gather(waiting, return_exceptions=True)
    finally:
        await worker_a.close()


#: The dialogue locks' advisory lock class (docs/architecture.md, "The state seam").
DIALOGUE_LOCK = 0x6469616C


def _lock_is_free(url: str, schema: str, dialogue: str) -> bool:
    """Whether another session can take the dialogue's advisory lock (and let it go)."""
    key = f"{schema}/agent_0/{dialogue}"
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT pg_try_advisory_lock(%s, hashtext(%s))", (DIALOGUE_LOCK, key)
        ).fetchone()
        if row and row[0]:
            conn.execute("SELECT pg_advisory_unlock(%s, hashtext(%s))", (DIALOGUE_LOCK, key))
    return bool(row and row[0])


async def test_a_turn_cancelled_while_taking_its_dialogue_lock_leaves_it_free(
    pg_url: str, workspace: Path
) -> None:
    """Cancelled at any point of taking the lock (the server may have granted it before the
    answer came back): the lock is let go, and the dialogue is not shut for ever."""
    settings = load_settings(workspace=workspace)
    home = open_state_home(settings)
    entered = 0

    async def turn() -> None:
        nonlocal entered
        async with home.dialogue_lock("agent_0", "dialogue_1"):
            entered += 1
            await asyncio.Event().wait()  # the turn runs until cancelled

    try:
        for steps in range(40):  # cancelled after 0, 1, 2, ... passes of the event loop
            task = asyncio.create_task(turn())
            for _ in range(steps):
                await asyncio.sleep(0)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            free = await asyncio.to_thread(
                _lock_is_free, pg_url, settings.database.schema_name, "dialogue_1"
            )
            assert free, f"held after a cancel at step {steps}"
        # And one try left to take it (on a loaded machine none of the above may have got
        # that far): it runs, and its cancel lets the lock go too.
        task = asyncio.create_task(turn())
        for _ in range(3000):
            if entered:
                break
            await asyncio.sleep(0.01)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        assert entered, "the lock was never taken"
        assert await asyncio.to_thread(
            _lock_is_free, pg_url, settings.database.schema_name, "dialogue_1"
        )
    finally:
        await home.close()


# ------------------------------------------------------------------------------ reminders


class Sender:
    def __init__(self) -> None:
        self.sent: list[ProactiveMessage] = []

    async def send_proactive(self, message: ProactiveMessage) -> None:
        await asyncio.sleep(0)  # another worker may run here
        self.sent.append(message)


async def _reminder(store: MemoryStore) -> str:
    rec = make_record(
        "Remind the user to call mom on Tuesday 1 December 2026 at 09:00 (UTC).",
        scope="dialogue",
        category="event",
        dialogue_id="dialogue_1",
        extra={"open_loop": {"kind": "reminder", "due": NOW, "status": "open"}},
    )
    return (await store.append(rec)).id


def _scheduler(workspace: Path, store: MemoryStore, sender: Sender) -> Scheduler:
    settings = load_settings(workspace=workspace, scheduler={"tick_s": 3600})
    return Scheduler(settings, store, sender, clock=lambda: DUE, home=home_of(store))


async def test_two_workers_send_a_due_reminder_once(
    pg_url: str, workspace: Path, second_workspace: Path
) -> None:
    async with open_store(workspace) as store_a, open_store(second_workspace) as store_b:
        rid = await _reminder(store_a)
        a, b = Sender(), Sender()
        sched_a = _scheduler(workspace, store_a, a)
        sched_b = _scheduler(second_workspace, store_b, b)
        at = DUE + timedelta(seconds=30)
        await asyncio.gather(sched_a.run_due(at), sched_b.run_due(at), sched_a.run_due(at))
        assert len(a.sent) + len(b.sent) == 1
        assert [m.loop_ids for m in a.sent + b.sent] == [(rid,)]
        await asyncio.gather(sched_a.run_due(at), sched_b.run_due(at))  # and never again
        assert len(a.sent) + len(b.sent) == 1
        assert sched_b.ledger.loop_status(rid) == "sent"


def test_claims_racing_in_threads_give_each_loop_to_one_worker(
    home: StateHome, worker_b: StateHome
) -> None:
    """Sixteen claimers on two workers race for the same eight reminders at once."""
    asyncio.run(_eight_reminders(home))
    ids = [f"m_{n:024x}" for n in range(8)]
    entries = {rid: {"status": "sending"} for rid in ids}
    barrier = threading.Barrier(16)
    granted: list[set[str]] = []

    def claim(h: StateHome) -> None:
        barrier.wait()
        granted.append(h.claim_loops(entries))

    threads = [threading.Thread(target=claim, args=(h,)) for h in [home, worker_b] * 8]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    every = [rid for got in granted for rid in got]
    assert sorted(every) == sorted(ids)  # each claimed, and by one claimer only


async def _eight_reminders(home: StateHome) -> None:
    """Records with the ids the claim race uses (a claim locks the reminder's row)."""
    if home.kind != "database":
        pytest.skip("one process owns a workspace's files: nothing to race")
    ws = Path(load_settings().workspace)
    async with open_store(ws) as store:
        for n in range(8):
            rec = make_record(
                f"Remind the user of thing {n}.", scope="user", category="event", user_key="u1"
            )
            rec.id = f"m_{n:024x}"
            await store.append(rec)


# ------------------------------------------------------------------------------ the writer queue


def _turn(text: str) -> TurnContext:
    return TurnContext(
        agent_id="agent_0", dialogue_id="dialogue_1", user_key="u1", user_text=text, now=NOW
    )


@pytest.fixture
async def store(workspace: Path, memory_home: str) -> AsyncIterator[MemoryStore]:
    async with open_store(workspace) as s:
        yield s


async def test_queued_turns_are_written_once_on_both_homes(store: MemoryStore) -> None:
    queue = WriterQueue(MemoryWriter(store), home_of(store))
    await queue.enqueue(_turn("My name is Ann"))
    await queue.enqueue(_turn("I live in Oslo"))
    assert len(queue.pending()) == 2
    assert await queue.process_pending() == 2
    assert queue.pending() == []
    live = await store.list(scope="user", user_key="u1")
    assert {r.content for r in live} == {"The user's name is Ann.", "The user lives in Oslo."}


async def test_a_turn_taken_by_a_worker_that_dies_stays_queued(
    pg_url: str, workspace: Path, worker_b: StateHome
) -> None:
    worker_a = open_state_home(load_settings(workspace=workspace))
    try:
        worker_a.put_turn("t_0001.json", "{}")
        worker_a.put_turn("t_0002.json", "{}")
        with pytest.raises(RuntimeError):
            async with worker_a.take_turn() as item:
                assert item is not None and item.name == "t_0001.json"
                async with worker_b.take_turn() as other:  # skips the one A holds
                    assert other is not None and other.name == "t_0002.json"
                    other.done()
                raise RuntimeError("worker A dies mid-turn")
        assert worker_b.queued_turns() == ["t_0001.json"]  # A's claim was rolled back
    finally:
        await worker_a.close()


async def test_two_workers_drain_one_queue_each_turn_once(
    pg_url: str, workspace: Path, worker_b: StateHome
) -> None:
    worker_a = open_state_home(load_settings(workspace=workspace))
    done: list[str] = []

    async def drain(h: StateHome) -> None:
        while True:
            async with h.take_turn() as item:
                if item is None:
                    return
                await asyncio.sleep(0)
                done.append(item.name)
                item.done()

    try:
        for n in range(40):
            worker_a.put_turn(f"t_{n:04d}.json", "{}")
        await asyncio.gather(*(drain(h) for h in [worker_a, worker_b] * 3))
        assert sorted(done) == [f"t_{n:04d}.json" for n in range(40)]
        assert worker_b.queued_turns() == []
    finally:
        await worker_a.close()


async def test_a_housekeeping_job_runs_in_one_worker_at_a_time(
    pg_url: str, workspace: Path, worker_b: StateHome
) -> None:
    worker_a = open_state_home(load_settings(workspace=workspace))
    try:
        async with worker_a.job_lease("consolidation") as a_runs:
            async with worker_b.job_lease("consolidation") as b_runs:
                assert a_runs and not b_runs  # tried, not waited for
            async with worker_b.job_lease("ttl_sweep") as other_job:
                assert other_job
        async with worker_b.job_lease("consolidation") as b_runs:
            assert b_runs  # free once A's pass ended
    finally:
        await worker_a.close()


async def test_one_worker_runs_two_different_jobs_at_once(home: StateHome) -> None:
    async with home.job_lease("consolidation") as mine, home.job_lease("ttl_sweep") as also:
        assert mine and also


async def test_a_pass_one_worker_ran_is_undone_on_another(
    pg_url: str, workspace: Path, second_workspace: Path
) -> None:
    """Consolidation passes are kept beside the records: ``--undo`` works on any worker."""
    from familiars.memory import Consolidator, EmbedderVectors, load_pass, pass_ids, undo_pass
    from tests.fakes import HashEmbedder

    async with open_store(workspace) as store_a, open_store(second_workspace) as store_b:
        for text in ("The user likes tea.", "The user likes tea a lot."):
            await store_a.append(
                make_record(text, scope="user", category="preference", user_key="u1")
            )
        vectors = EmbedderVectors(HashEmbedder(dim=256))
        report = await Consolidator(store_a, vectors, threshold=0.0, max_share=1.0).run(now=DUE)
        assert report.pass_id is not None
        assert pass_ids(store_b.state_home) == [report.pass_id]
        assert not (second_workspace / "consolidation").exists()
        undone = await undo_pass(store_b, report.pass_id)
        assert undone.undone_at is not None
        assert load_pass(store_a.state_home, report.pass_id).undone_at == undone.undone_at


# ------------------------------------------------------------------------------ leases


async def test_a_telegram_update_is_claimed_while_answered_and_dropped_once_done(
    home: StateHome,
) -> None:
    assert home.claim_update("42", 7) == "mine"
    assert home.claim_update("42", 7) == "busy"  # being answered: asked for again later
    assert home.claim_update("43", 7) == "mine"  # another bot's update 7
    home.finish_update("42", 7, done=False)  # the turn was dropped: a re-post is answered
    assert home.claim_update("42", 7) == "mine"
    home.finish_update("42", 7, done=True)
    assert home.claim_update("42", 7) == "done"


async def _until(check, tries: int = 200) -> bool:  # type: ignore[no-untyped-def]
    """Whether ``check()`` came true (a closed session leaves the server soon, not at once)."""
    for _ in range(tries):
        if await check():
            return True
        await asyncio.sleep(0.05)
    return False


async def test_an_update_claimed_by_a_worker_that_died_is_answered_by_another(
    pg_url: str, workspace: Path, worker_b: StateHome
) -> None:
    worker_a = open_state_home(load_settings(workspace=workspace))
    assert worker_a.claim_update("42", 9) == "mine"
    assert worker_b.claim_update("42", 9) == "busy"  # A lives: its turn runs
    await worker_a.close()  # A dies before its turn was done

    async def taken() -> bool:
        return worker_b.claim_update("42", 9) == "mine"

    assert await _until(taken)
    worker_b.finish_update("42", 9, done=True)
    assert worker_b.claim_update("42", 9) == "done"


async def test_a_reminder_whose_sender_died_is_sent_by_another_worker(
    pg_url: str, workspace: Path, second_workspace: Path
) -> None:
    """The claim is a lease of the claiming worker's session: while it lives no one else
    sends and a restarting worker does not call it uncertain; once it died before recording
    the send, another worker sends the reminder, once."""
    at = DUE + timedelta(seconds=30)
    async with open_store(second_workspace) as store_b:
        b = Sender()
        sched_b = _scheduler(second_workspace, store_b, b)
        async with open_store(workspace) as store_a:
            rid = await _reminder(store_a)
            sched_a = _scheduler(workspace, store_a, Sender())
            loops = [lp for lp in await sched_a.loops.open_loops() if lp.record_id == rid]
            assert [lp.record_id for lp in sched_a.ledger.claim(loops, at)] == [rid]
            assert _scheduler(second_workspace, store_b, Sender()).ledger.recover(at) == []
            await sched_b.run_due(at)
            assert b.sent == []  # A holds it, alive
            assert sched_b.ledger.loop_status(rid) == "sending"
        # A died between its claim and the send

        async def sent() -> bool:
            await sched_b.run_due(at)
            return bool(b.sent)

        assert await _until(sent)
        await sched_b.run_due(at)
        assert [m.loop_ids for m in b.sent] == [(rid,)]
        assert sched_b.ledger.loop_status(rid) == "sent"


async def test_an_update_whose_answer_went_out_before_its_worker_died_is_not_answered_again(
    pg_url: str, workspace: Path, worker_b: StateHome
) -> None:
    """A worker that dies after the platform took its answer, before the turn was done:
    the worker taking the update over is told ``replied`` (run the turn, send nothing)."""
    worker_a = open_state_home(load_settings(workspace=workspace))
    assert worker_a.claim_update("42", 11) == "mine"
    assert worker_a.claim_update("42", 12) == "mine"
    await worker_a.reply_sent("42", 11)  # the answer to 11 went out; 12 died before its send
    await worker_a.close()

    async def taken() -> bool:
        return worker_b.claim_update("42", 11) == "replied"

    assert await _until(taken)
    assert worker_b.claim_update("42", 12) == "mine"  # never answered: answered now


async def test_a_reminder_is_recorded_sent_the_moment_the_platform_took_it(
    pg_url: str, workspace: Path, second_workspace: Path
) -> None:
    """The sender says when the platform took the message (``delivered``) and the ledger
    records it sent there: what follows the send (the tree's node, say) failing, or the
    worker dying there, does not leave the reminder to be sent again."""

    class SentThenFailed(Sender):
        async def send_proactive(self, message: ProactiveMessage) -> None:
            self.sent.append(message)
            assert message.delivered is not None
            await message.delivered()
            raise OSError("the tree could not be written")

    at = DUE + timedelta(seconds=30)
    async with open_store(workspace) as store_a, open_store(second_workspace) as store_b:
        rid = await _reminder(store_a)
        a, b = SentThenFailed(), Sender()
        sched_a = _scheduler(workspace, store_a, a)
        await sched_a.run_due(at)
        assert [m.loop_ids for m in a.sent] == [(rid,)]
        assert sched_a.ledger.loop_status(rid) == "sent"
        await _scheduler(second_workspace, store_b, b).run_due(at)
        await sched_a.run_due(at)
        assert len(a.sent) == 1 and b.sent == []


async def test_the_loop_keeps_serving_while_a_reminder_claim_waits_on_a_row_lock(
    pg_url: str, workspace: Path
) -> None:
    """Another transaction holds the reminder's fate row (uncommitted): the claim waits for
    it off the event loop, which goes on serving (it is what lets go of the row here); a
    claim on the loop would hold it until the safety timer let go."""
    at = DUE + timedelta(seconds=30)
    schema = load_settings().database.schema_name
    async with open_store(workspace) as store:
        rid = await _reminder(store)
        sender = Sender()
        sched = _scheduler(workspace, store, sender)
        other = psycopg.connect(pg_url, options=f"-c search_path={schema},public")
        other.execute(
            "INSERT INTO reminder_fates (record_id, entry) VALUES (%s, %s)",
            (rid, json.dumps({"status": "sending"})),
        )  # not committed: the claim's insert of the same row waits for this transaction
        safety = threading.Timer(15, other.rollback)
        safety.start()

        def waiting() -> int:
            with psycopg.connect(pg_url, autocommit=True) as admin:
                row = admin.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                ).fetchone()
                return int(row[0]) if row else 0

        task = asyncio.create_task(sched.run_due(at))
        served_while_waiting = False
        for _ in range(300):
            await asyncio.sleep(0.02)
            if await asyncio.to_thread(waiting):
                served_while_waiting = safety.is_alive()
                break
        safety.cancel()
        await asyncio.to_thread(other.rollback)
        await task
        other.close()
        assert served_while_waiting
        assert [m.loop_ids for m in sender.sent] == [(rid,)]


async def test_a_forget_drops_a_kept_update_payload_that_holds_the_forgotten_words(
    workspace: Path, tmp_path: Path, memory_home: str
) -> None:
    """An update's payload is kept with its claim until it is done (a live worker answers
    it when its worker died). A forget of what it says drops the payload: the words are not
    kept, and no sweep answers (records) the forgotten message again."""
    from familiars.memory._forget_files import Forgotten, scrub_state

    if memory_home != "postgres":
        pytest.skip("the files' claims live in one process's memory only")
    said = '{"update_id": 5, "message": {"text": "I live in Oslo."}}'
    other = '{"update_id": 6, "message": {"text": "I like tea."}}'
    async with state_home_at(workspace) as dead, state_home_at(tmp_path / "live") as live:
        assert dead.claim_update("bot", 5, said) == "mine"
        assert dead.claim_update("bot", 6, other) == "mine"
        await dead.close()  # the worker died before either was done
        forgotten = Forgotten(turns=frozenset(), texts=("The user lives in Oslo.",))
        scrub_state(live, forgotten)
        assert [(u, p) for u, p, _ in live.orphaned_updates("bot")] == [(6, other)]
