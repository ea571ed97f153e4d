"""The Scheduler over a real MemoryStore: reminders fire once, survive restarts, missed ones
are reported; the JobQueue shields jobs and sends errors to one handler."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from familiars.config import load_settings
from familiars.memory import MemoryStore, make_record
from familiars.scheduler import (
    DialogueInfo,
    JobQueue,
    Lease,
    Priority,
    ProactiveMessage,
    Scheduler,
    SchedulerStateError,
    VRAMGate,
    ledger_path,
    load_snapshot,
    snapshot_path,
)
from tests.homes import home_of, in_database, open_store

DUE = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


class Sender:
    def __init__(self, fail: int = 0) -> None:
        self.sent: list[ProactiveMessage] = []
        self.fail = fail

    async def send_proactive(self, message: ProactiveMessage) -> None:
        if self.fail:
            self.fail -= 1
            raise ConnectionError("platform unreachable")
        self.sent.append(message)


@pytest.fixture
async def store(workspace: Path, memory_home: str) -> AsyncIterator[MemoryStore]:
    """The reminders' records on both homes of the memory (files + SQLite, PostgreSQL)."""
    async with open_store(workspace) as s:
        yield s


def settings(workspace: Path, **scheduler: Any) -> Any:
    return load_settings(None, workspace=workspace, scheduler={"tick_s": 3600, **scheduler})


async def add_reminder(store: MemoryStore, due: datetime = DUE, task: str = "call mom") -> str:
    rec = make_record(
        f"Remind the user to {task} on Tuesday 1 December 2026 at 09:00 (UTC).",
        scope="dialogue",
        category="event",
        dialogue_id="dialogue_1",
        extra={"open_loop": {"kind": "reminder", "due": due.isoformat(), "status": "open"}},
    )
    return (await store.append(rec)).id


def make(
    workspace: Path, store: MemoryStore, sender: Sender, now: datetime, **kw: Any
) -> Scheduler:
    kw.setdefault("home", home_of(store))  # the ledger beside the records
    return Scheduler(
        settings(workspace, **kw.pop("cfg", {})), store, sender, clock=Clock(now), **kw
    )


async def test_a_due_reminder_is_sent_once_and_its_loop_closed(
    workspace: Path, store: MemoryStore
) -> None:
    rid = await add_reminder(store)
    sender = Sender()
    sched = make(workspace, store, sender, DUE)
    assert await sched.run_due(DUE - timedelta(minutes=1)) == []
    outcomes = await sched.run_due(DUE + timedelta(seconds=30))
    assert [o.sent for o in outcomes] == [True] and outcomes[0].closed == [rid]
    assert await sched.run_due(DUE + timedelta(minutes=2)) == []
    assert len(sender.sent) == 1
    msg = sender.sent[0]
    assert (msg.text, msg.kind, msg.dialogue_id, msg.loop_ids) == (
        "⏰ Reminder: call mom",
        "reminder",
        "dialogue_1",
        (rid,),
    )
    loop = (await store.get(rid)).open_loop
    assert loop is not None and loop["status"] == "done" and loop["outcome"] == "sent"
    assert sched.ledger.loop_status(rid) == "sent"


async def test_reminders_survive_a_restart_and_fire_at_start_within_grace(
    workspace: Path, store: MemoryStore
) -> None:
    rid = await add_reminder(store)
    sender = Sender()
    first = make(workspace, store, sender, DUE - timedelta(hours=12))
    await first.start()
    assert f"reminder:{rid}" in first.jobs.job_ids()  # an exact job at 09:00
    status = first.status()
    assert status["running"] and status["loop_fates"] == {}
    exact = [j for j in status["jobs"] if j["id"] == f"reminder:{rid}"]
    assert exact == [{"id": f"reminder:{rid}", "next_run": "2026-12-01T09:00:00+00:00"}]
    await first.stop()
    assert sender.sent == []
    # The bot was down at 09:00 and comes back at 11:00 (grace is 6 h): it fires at start.
    second = make(workspace, store, sender, DUE + timedelta(hours=2))
    await second.start()
    await second.run_due(DUE + timedelta(hours=2, minutes=1))
    await second.stop()
    third = make(workspace, store, sender, DUE + timedelta(hours=3))
    await third.start()
    await third.stop()
    assert [m.text for m in sender.sent] == ["⏰ Reminder: call mom (due 09:00, I was offline)"]


async def test_a_reminder_beyond_grace_is_reported_missed_once(
    workspace: Path, store: MemoryStore
) -> None:
    rid = await add_reminder(store)
    sender = Sender()
    late = DUE + timedelta(hours=7)
    sched = make(workspace, store, sender, late)
    await sched.start()
    await sched.run_due(late + timedelta(minutes=5))
    await sched.stop()
    assert len(sender.sent) == 1 and sender.sent[0].kind == "missed_reminder"
    assert "offline" in sender.sent[0].text and "call mom" in sender.sent[0].text
    assert sched.ledger.loop_status(rid) == "missed"
    assert (await store.get(rid)).open_loop["outcome"] == "missed"  # type: ignore[index]
    rows = await sched.reminders()
    assert [(r["id"], r["status"]) for r in rows] == [(rid, "missed")]


async def test_a_failed_send_is_retried_and_not_marked(workspace: Path, store: MemoryStore) -> None:
    rid = await add_reminder(store)
    errors: list[str] = []
    sender = Sender(fail=1)
    sched = make(workspace, store, sender, DUE, error_handler=lambda n, e: errors.append(str(e)))
    [outcome] = await sched.run_due(DUE)
    assert not outcome.sent and "platform unreachable" in (outcome.error or "")
    assert errors == ["platform unreachable"] and sched.ledger.loop_status(rid) is None
    await sched.run_due(DUE + timedelta(minutes=1))
    assert len(sender.sent) == 1


async def test_a_crash_mid_send_is_never_resent(workspace: Path, store: MemoryStore) -> None:
    rid = await add_reminder(store)

    class Crash(BaseException):
        pass

    class CrashingSender(Sender):
        async def send_proactive(self, message: ProactiveMessage) -> None:
            raise Crash  # the process dies here (not an ordinary send failure)

    with pytest.raises(Crash):
        await make(workspace, store, CrashingSender(), DUE).run_due(DUE)
    sender = Sender()
    restarted = make(workspace, store, sender, DUE + timedelta(minutes=1))
    await restarted.start()
    await restarted.stop()
    if in_database():  # "sending" is a lease of the claiming session, alive here: not
        # judged by a restarting worker (one that died is tested in test_state_home)
        assert sender.sent == [] and restarted.uncertain == []
        assert [r["status"] for r in await restarted.reminders()] == ["sending"]
        return
    assert sender.sent == [] and restarted.uncertain == [rid]
    assert [r["status"] for r in await restarted.reminders()] == ["uncertain"]


async def test_an_unreadable_ledger_stops_the_scheduler_and_is_left_alone(
    workspace: Path, store: MemoryStore
) -> None:
    home = home_of(store)  # the file, or its row in the database
    home.write("scheduler/state.json", b"{broken")
    with pytest.raises(SchedulerStateError, match="not valid JSON"):
        make(workspace, store, Sender(), DUE)
    assert home.read("scheduler/state.json") == b"{broken"


class Directory:
    def __init__(self, *infos: DialogueInfo) -> None:
        self.infos = list(infos)

    async def active_dialogues(self, now: datetime) -> list[DialogueInfo]:
        return self.infos


async def test_check_ins_respect_proactive_off_and_the_cap_across_restarts(
    workspace: Path, store: MemoryStore
) -> None:
    noon = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
    info = DialogueInfo(
        "agent_0",
        "dialogue_2",
        user_key="u1",
        display_name="Ana",
        last_user_at=noon - timedelta(days=4),
    )
    sender = Sender()
    sched = make(workspace, store, sender, noon, dialogues=Directory(info))
    await sched.set_proactive("agent_0", "dialogue_2", None, False)
    assert await sched.run_due(noon) == []
    await sched.set_proactive("agent_0", "dialogue_2", None, True)
    await sched.run_due(noon)
    assert [m.kind for m in sender.sent] == ["check_in"] and "Ana" in sender.sent[0].text
    # A restarted scheduler still knows a check-in went out for this silence.
    again = make(workspace, store, sender, noon, dialogues=Directory(info))
    assert await again.run_due(noon + timedelta(days=1)) == []
    assert again.proactive_enabled("agent_0", "dialogue_2", None)


async def test_a_user_scope_reminder_goes_to_the_persons_dm(
    workspace: Path, store: MemoryStore
) -> None:
    rec = make_record(
        "Remind the user to stretch.",
        scope="user",
        category="event",
        user_key="u1",
        extra={"open_loop": {"kind": "reminder", "due": DUE.isoformat()}},
    )
    await store.append(rec)
    group = DialogueInfo("agent_0", "dialogue_9", user_key="u1", is_group=True)
    dm = DialogueInfo("agent_0", "dialogue_4", user_key="u1")
    sender = Sender()
    await make(workspace, store, sender, DUE, dialogues=Directory(group, dm)).run_due(DUE)
    assert [(m.dialogue_id, m.user_key) for m in sender.sent] == [("dialogue_4", "u1")]


async def test_a_model_that_chooses_silence_holds_off_for_the_min_gap(
    workspace: Path, store: MemoryStore
) -> None:
    class Silent:
        async def chat(self, messages: Any, **kw: Any) -> Any:
            from familiars.llm import ChatResult

            return ChatResult(text="SILENT")

    noon = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
    info = DialogueInfo("agent_0", "dialogue_2", last_user_at=noon - timedelta(days=4))
    sender = Sender()
    sched = make(workspace, store, sender, noon, dialogues=Directory(info), model=Silent())
    [outcome] = await sched.run_due(noon)
    assert not outcome.sent and sender.sent == []
    assert sched.ledger.silenced_until("agent_0/dialogue_2") == noon + timedelta(hours=4)
    assert await sched.run_due(noon + timedelta(hours=1)) == []


async def test_new_reminders_get_exact_jobs_through_the_store_listener(
    workspace: Path, store: MemoryStore
) -> None:
    # APScheduler keeps real time: a job dated in the real past would fire (and vanish) at
    # once, so this reminder is due a year from the real today, whatever day the test runs.
    due = datetime.now(UTC).replace(microsecond=0) + timedelta(days=365)
    sched = make(workspace, store, Sender(), due - timedelta(days=1))
    store.add_listener(sched)
    await sched.start()
    rid = await add_reminder(store, due=due)  # the store tells its listeners before it acks
    assert f"reminder:{rid}" in sched.jobs.job_ids()
    assert {"decider_tick"} <= set(sched.jobs.job_ids())
    await sched.stop()


async def test_job_errors_go_to_one_handler_and_running_jobs_are_shielded() -> None:
    errors: list[tuple[str, str]] = []
    jobs = JobQueue(error_handler=lambda name, exc: errors.append((name, str(exc))))

    async def boom() -> None:
        raise ValueError("bad job")

    await jobs._run("boom", boom)
    assert errors == [("boom", "bad job")]
    release = asyncio.Event()
    finished: list[str] = []

    async def slow() -> None:
        await release.wait()
        finished.append("slow")

    outer = asyncio.create_task(jobs._run("slow", slow))
    await asyncio.sleep(0)
    outer.cancel()  # APScheduler shutting down, say
    await asyncio.sleep(0)
    release.set()
    await jobs.stop(timeout=5)
    assert finished == ["slow"]


async def test_consolidation_runs_as_queue_work_and_is_retried_when_preempted(
    workspace: Path, store: MemoryStore
) -> None:
    gate = VRAMGate(1000, acquire_timeout_s=1)
    done: list[int] = []
    interrupted: list[bool] = []

    async def consolidate(state: dict[str, Any], lease: Lease) -> None:
        while state.get("n", 0) < 3:
            lease.raise_if_preempted()
            state["n"] = state.get("n", 0) + 1
            done.append(state["n"])
            if not interrupted:
                interrupted.append(True)
                (await gate.acquire("embedder", 800, Priority.IMPORTANT)).release()
            await asyncio.sleep(0)

    sched = make(
        workspace, store, Sender(), DUE, gate=gate, consolidate=consolidate, consolidation_mb=500
    )
    await sched.start()
    assert "consolidation" in sched.jobs.job_ids() and "idle_reclamation" in sched.jobs.job_ids()
    assert await sched.run_consolidation() == "preempted"
    assert "consolidation_retry" in sched.jobs.job_ids()
    assert await sched.run_consolidation() == "done"
    assert done == [1, 2, 3]
    await sched.stop()
    snap = load_snapshot(snapshot_path(workspace))
    assert snap is not None and snap["running"] is True
    assert [r["model_id"] for r in snap["residents"]] == ["consolidator"]


def test_ledger_file_is_plain_json(workspace: Path) -> None:
    path = ledger_path(workspace)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"loops": {}, "dialogues": {}}), encoding="utf-8")
    from familiars.scheduler import SchedulerLedger

    ledger = SchedulerLedger(path)
    ledger.set_proactive("agent_0/dialogue_1", False)
    assert json.loads(path.read_text())["dialogues"]["agent_0/dialogue_1"]["proactive_off"]


def test_a_forget_leaves_the_ledger_in_memory_and_on_disk_without_the_task(
    workspace: Path,
) -> None:
    """The running scheduler's ledger is what it saves next: a forget hook scrubs it there,
    not only in the file (issue 19: the task text of a forgotten reminder stayed)."""
    from familiars.scheduler import SchedulerLedger

    path = ledger_path(workspace)
    path.parent.mkdir(parents=True)
    loops = {
        "m_a": {"status": "sent", "task": "send the locksmith the code 4417"},
        "m_b": {"status": "sent", "task": "water the plants"},
    }
    path.write_text(json.dumps({"loops": loops, "dialogues": {}}), encoding="utf-8")
    ledger = SchedulerLedger(path)

    def holds(task: str) -> bool:  # the forgotten texts' rule, stubbed
        return "4417" in task

    assert ledger.forget(["m_a"], holds)
    ledger.set_proactive("agent_0/dialogue_1", False)  # a later save keeps it scrubbed
    saved = json.loads(path.read_text())["loops"]
    assert saved["m_a"] == {"status": "sent", "task": "[forgotten]"}
    assert saved["m_b"]["task"] == "water the plants"
    assert not ledger.forget(["m_a"], holds)  # nothing left to change, nothing saved


async def test_remind_me_tomorrow_at_9_through_the_offline_writer(
    workspace: Path, store: MemoryStore
) -> None:
    """The writer's reminder format end to end: said at 20:00, restart, past 09:00, once."""
    from familiars.memory import apply_writes, offline_writes

    said = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
    out = offline_writes(
        "remind me tomorrow at 9am to call mom", existing=[], now=said, dialogue_id="dialogue_1"
    )
    written = await apply_writes(
        out, store=store, dialogue_id="dialogue_1", user_key="ana", now=said
    )
    assert [r.open_loop["kind"] for r in written if r.open_loop] == ["reminder"]
    sender = Sender()
    before = make(workspace, store, sender, said)
    await before.start()
    await before.stop()
    after = make(workspace, store, sender, datetime(2026, 12, 1, 9, 1, tzinfo=UTC))
    await after.start()
    await after.run_due(datetime(2026, 12, 1, 9, 2, tzinfo=UTC))
    await after.stop()
    assert [(m.text, m.dialogue_id) for m in sender.sent] == [
        ("⏰ Reminder: call mom", "dialogue_1")
    ]


async def test_a_store_error_at_start_goes_to_the_handler_and_start_goes_on(
    workspace: Path, store: MemoryStore
) -> None:
    class BrokenLoops:
        async def open_loops(self) -> list[Any]:
            raise OSError("disk unavailable")

        async def close_loop(self, record_id: str, outcome: str, now: datetime) -> None:
            raise AssertionError("never reached")

    errors: list[str] = []
    sched = make(
        workspace,
        store,
        Sender(),
        DUE,
        loops=BrokenLoops(),
        error_handler=lambda name, exc: errors.append(f"{name}: {exc}"),
    )
    await sched.start()
    assert sched.jobs.running and "decider_tick" in sched.jobs.job_ids()
    await sched.stop()
    assert errors == ["startup_run_due: disk unavailable", "schedule_reminders: disk unavailable"]


async def test_a_due_promise_is_followed_up_once_and_closed(
    workspace: Path, store: MemoryStore
) -> None:
    rec = make_record(
        "I promised to send the pasta recipe.",
        scope="dialogue",
        category="event",
        dialogue_id="dialogue_1",
        extra={"open_loop": {"kind": "promise", "due": "2026-12-01T10:00:00+00:00"}},
    )
    rid = (await store.append(rec)).id
    sender = Sender()
    sched = make(workspace, store, sender, DUE)
    noon = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    assert await sched.run_due(DUE) == []  # not due yet
    await sched.run_due(noon)
    await sched.run_due(noon + timedelta(hours=5))
    assert [m.kind for m in sender.sent] == ["follow_up"]
    assert "pasta recipe" in sender.sent[0].text
    assert (await store.get(rid)).open_loop["outcome"] == "followed_up"  # type: ignore[index]
    assert sched.ledger.loop_status(rid) == "followed_up"


def test_an_unknown_scheduler_time_zone_is_a_clear_error(workspace: Path) -> None:
    from familiars.scheduler import SchedulerError

    with pytest.raises(SchedulerError, match="'Mars/Base' is not a known time zone"):
        Scheduler(settings(workspace, timezone="Mars/Base"), None, Sender())


async def test_a_reminder_the_platform_took_is_closed_though_recording_it_failed(
    workspace: Path, store: MemoryStore
) -> None:
    """The platform took the message; writing the ledger then fails once (a disk or a
    database blip): the reminder is still sent once, its loop closed, the error logged; the
    failure is not turned into another error that leaves the loop open."""
    rid = await add_reminder(store)
    failing: list[bool] = []

    class Delivering(Sender):
        async def send_proactive(self, message: ProactiveMessage) -> None:
            self.sent.append(message)
            assert message.delivered is not None
            failing.append(True)  # the save right after the platform took it fails
            await message.delivered()

    sender = Delivering()
    sched = make(workspace, store, sender, DUE)
    save = sched.ledger.save

    def flaky_save() -> None:
        if failing:
            failing.clear()
            raise OSError("no space left on device")
        save()

    sched.ledger.save = flaky_save  # type: ignore[method-assign]
    [outcome] = await sched.run_due(DUE)
    assert outcome.sent and outcome.closed == [rid]
    assert sched.ledger.loop_status(rid) == "sent"
    assert (await store.get(rid)).open_loop["status"] == "done"  # type: ignore[index]
    assert await sched.run_due(DUE + timedelta(minutes=1)) == []
    assert len(sender.sent) == 1


async def test_with_no_database_the_ledger_is_written_on_the_event_loop_alone(
    workspace: Path,
) -> None:
    """The files' home (no database URL) as before: the ledger's document is written from
    the loop only. Were a reminder's claim saved from a thread, a ``/proactive off`` said
    meanwhile on the loop would be written over by the thread's older copy, and lost."""
    async with open_store(workspace) as store:
        rid = await add_reminder(store)
        sched = make(workspace, store, Sender(), DUE)
        home, loop = sched.ledger.home, asyncio.get_running_loop()
        write, main = home.write, threading.current_thread()
        said = threading.Event()

        def proactive_off() -> None:  # what /proactive off does on files: on the loop
            sched.ledger.set_proactive("agent_0/dialogue_9", False)
            said.set()

        def racing_write(name: str, data: bytes, *, durable: bool = True) -> None:
            sent = b"sent" in data  # the last write: the reminder recorded sent
            if sent and threading.current_thread() is not main and not said.is_set():
                loop.call_soon_threadsafe(proactive_off)  # a chat turn, while this writes
                said.wait(10)
            write(name, data, durable=durable)

        home.write = racing_write  # type: ignore[method-assign]
        [outcome] = await sched.run_due(DUE)
        if not said.is_set():  # written from the loop: the chat turn comes after it
            proactive_off()
        assert outcome.closed == [rid]
        stored = json.loads(ledger_path(workspace).read_text())
        assert stored["dialogues"]["agent_0/dialogue_9"]["proactive_off"] is True


async def test_a_chat_change_to_the_ledger_is_saved_off_the_event_loop_in_the_database(
    workspace: Path, store: MemoryStore
) -> None:
    """``/proactive off``, a care pause and a forget change the ledger: in the database its
    save (a row lock may wait there) runs in a thread like every other ledger save; on the
    files on the event loop, as it always did (a thread's save could write an older copy
    over a change the loop saved meanwhile)."""
    from familiars.memory import ForgetReport

    sched = make(workspace, store, Sender(), DUE)
    rid = await add_reminder(store)
    sched.ledger.mark(next(lp for lp in await sched.loops.open_loops()), "sent", DUE)
    saved_on: list[threading.Thread] = []
    save = sched.ledger.save

    def noted_save() -> None:
        saved_on.append(threading.current_thread())
        save()

    sched.ledger.save = noted_save  # type: ignore[method-assign]
    await sched.set_proactive("agent_0", "dialogue_9", None, False)
    await sched.care_pause("u1", DUE + timedelta(days=1))
    await sched.forget(ForgetReport(records=[rid]))
    main = threading.current_thread()
    assert len(saved_on) == 3  # /proactive off, care pause, forget
    in_threads = sched.ledger.home.kind == "database"
    assert all((on is not main) == in_threads for on in saved_on), saved_on
    assert not sched.ledger.proactive_enabled("agent_0/dialogue_9")
    assert sched.ledger.care_paused_until("u1") == DUE + timedelta(days=1)
    assert sched.ledger.loops()[rid]["task"] == "[forgotten]"
