"""Scheduled jobs: a small JobQueue over APScheduler 3.x, and the Scheduler that uses it.

:class:`JobQueue` is in the spirit of python-telegram-bot's: callbacks are coroutine
functions, each run is a task of its own that is shielded from cancellation (stopping the
scheduler waits for a job that is half-way through sending), and every error goes to one
handler instead of vanishing into APScheduler's log.

:class:`Scheduler` is what the runtime starts. Its jobs: the decider tick, one exact job per
due reminder, nightly consolidation (queue work through the gate, resumed after eviction),
TTL / ephemeral sweeps, idle reclamation (and the gate snapshot for ``familiars gate
status``), batched access-stat flushes. :meth:`Scheduler.run_due` is the whole proactive path
for one moment in time; tests call it with ``now`` instead of waiting.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger

from familiars.memory import ForgetReport, MemoryError_, StateHome, forgotten_of
from familiars.scheduler._book import ReminderBook
from familiars.scheduler._decider import (
    ChatModelLike,
    DeciderPolicy,
    DeciderService,
    Decision,
    DialogueState,
    OpenLoop,
    decide,
)
from familiars.scheduler._errors import SchedulerError
from familiars.scheduler._files import atomic_write_json
from familiars.scheduler._gate import VRAMGate, save_snapshot, snapshot_path
from familiars.scheduler._registry import ResumableWork, run_resumable
from familiars.scheduler._reminders import (
    LoopSource,
    SchedulerLedger,
    StoreLoops,
    dialogue_key,
    ledger_path,
    reminder_rows,
)

logger = logging.getLogger(__name__)

JobCallback = Callable[[], Awaitable[Any]]
ErrorHandler = Callable[[str, BaseException], Any]


# ---------------------------------------------------------------------------------------------
# JobQueue


def _log_error(name: str, exc: BaseException) -> None:
    logger.error("scheduled job %s failed", name, exc_info=exc)


class JobQueue:
    """APScheduler's AsyncIOScheduler with shielded jobs and one error handler."""

    def __init__(self, *, timezone: str = "UTC", error_handler: ErrorHandler | None = None):
        self.scheduler = AsyncIOScheduler(timezone=timezone)
        self.error_handler: ErrorHandler = error_handler or _log_error
        self._running: set[asyncio.Task[Any]] = set()

    @property
    def running(self) -> bool:
        return bool(self.scheduler.running)

    def start(self) -> None:
        if not self.scheduler.running:
            self.scheduler.start()

    async def stop(self, timeout: float = 30.0) -> None:
        """Stop firing new jobs, then let running ones finish (up to ``timeout``)."""
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)
        if self._running:
            await asyncio.wait(set(self._running), timeout=timeout)

    async def _run(self, name: str, callback: JobCallback) -> None:
        task = asyncio.get_running_loop().create_task(self._guarded(name, callback))
        self._running.add(task)
        task.add_done_callback(self._running.discard)
        await asyncio.shield(task)

    async def _guarded(self, name: str, callback: JobCallback) -> None:
        try:
            await callback()
        except Exception as exc:  # noqa: BLE001 - handed to the one error handler, not lost
            await self.report_error(name, exc)

    async def report_error(self, name: str, exc: BaseException) -> None:
        """Send ``exc`` to the error handler (sync or async)."""
        try:
            result = self.error_handler(name, exc)
            if asyncio.iscoroutine(result):
                await result
        except Exception:  # noqa: BLE001 - a broken handler must not hide the first error
            logger.exception("error handler failed on job %s", name)
            _log_error(name, exc)

    def _add(self, name: str, callback: JobCallback, trigger: Any, job_id: str | None) -> str:
        job = self.scheduler.add_job(
            self._run,
            trigger=trigger,
            args=(name, callback),
            id=job_id or name,
            name=name,
            replace_existing=True,
            coalesce=True,
            misfire_grace_time=None,
            max_instances=1,
        )
        return str(job.id)

    def run_repeating(self, callback: JobCallback, interval_s: float, *, name: str) -> str:
        return self._add(name, callback, IntervalTrigger(seconds=interval_s), None)

    def run_daily(self, callback: JobCallback, *, hour: int, minute: int = 0, name: str) -> str:
        return self._add(name, callback, CronTrigger(hour=hour, minute=minute), None)

    def run_once(
        self, callback: JobCallback, when: datetime, *, name: str, job_id: str | None = None
    ) -> str:
        return self._add(name, callback, DateTrigger(run_date=when), job_id)

    def remove(self, job_id: str) -> bool:
        try:
            self.scheduler.remove_job(job_id)
        except JobLookupError:
            return False
        return True

    def job_ids(self) -> list[str]:
        return [str(job.id) for job in self.scheduler.get_jobs()]


# ---------------------------------------------------------------------------------------------
# What the runtime hands in


@dataclass(frozen=True)
class ProactiveMessage:
    """A message the familiar sends first. The runtime sends it through the platform that
    owns the dialogue (a user-scope reminder with no dialogue goes to the person's DM) and
    records it as an A node with ``origin="proactive"``."""

    agent_id: str
    dialogue_id: str | None
    user_key: str | None
    text: str
    kind: str
    reason: str
    loop_ids: tuple[str, ...] = ()
    at: datetime | None = None
    #: Awaited by the sender the moment the platform took the message, before anything
    #: else (the scheduler records it sent there: a worker killed after the send and before
    #: its own bookkeeping does not leave the reminder to be sent again).
    delivered: Callable[[], Awaitable[None]] | None = field(default=None, compare=False)


class ProactiveSender(Protocol):
    async def send_proactive(self, message: ProactiveMessage) -> None:
        """Deliver ``message`` (awaiting its ``delivered`` once the platform took it);
        raise if it was not delivered (it is then tried again)."""


@dataclass(frozen=True)
class DialogueInfo:
    """What the runtime knows of one dialogue, for check-ins and the rules."""

    agent_id: str
    dialogue_id: str
    user_key: str | None = None
    display_name: str = ""
    timezone: str | None = None
    is_group: bool = False
    last_user_at: datetime | None = None


class DialogueDirectory(Protocol):
    async def active_dialogues(self, now: datetime) -> Sequence[DialogueInfo]: ...


@dataclass
class Outcome:
    """What happened in one dialogue at one ``run_due``."""

    key: str
    decision: Decision
    sent: bool = False
    text: str | None = None
    error: str | None = None
    closed: list[str] = field(default_factory=list)


_OUTCOME_STATUS = {"reminder": "sent", "missed_reminder": "missed", "follow_up": "followed_up"}


# ---------------------------------------------------------------------------------------------
# The Scheduler


def utcnow() -> datetime:
    return datetime.now(UTC)


class Scheduler:
    """The familiar's proactive side and its housekeeping (see the module docstring).

    ``store`` is the MemoryStore (open loops are read from it and closed in it); ``sender``
    delivers messages. Everything else is optional: a ``dialogues`` directory for check-ins,
    a chat ``model`` to write messages, the ``gate`` for idle reclamation and queue work,
    ``consolidate`` (resumable work), ``sweep(now)`` and ``flush_stats()`` callables.
    """

    def __init__(
        self,
        settings: Any,
        store: Any,
        sender: ProactiveSender,
        *,
        clock: Callable[[], datetime] = utcnow,
        loops: LoopSource | None = None,
        dialogues: DialogueDirectory | None = None,
        model: ChatModelLike | None = None,
        gate: VRAMGate | None = None,
        consolidate: ResumableWork | None = None,
        consolidation_mb: float = 0.0,
        sweep: Callable[[datetime], Awaitable[Any]] | None = None,
        consolidation_due: Callable[[datetime], Awaitable[bool]] | None = None,
        flush_stats: Callable[[], Awaitable[Any]] | None = None,
        error_handler: ErrorHandler | None = None,
        wait_for_sender: bool = False,
        home: StateHome | None = None,
    ) -> None:
        self.settings = settings
        self.config = settings.scheduler
        self.workspace = Path(settings.workspace)
        self.sender = sender
        self.clock = clock
        self.loops: LoopSource | None = loops or (StoreLoops(store) if store is not None else None)
        self.dialogues = dialogues
        self.policy = DeciderPolicy.from_settings(self.config, started_at=clock())
        self.decider = DeciderService(self.policy, model=model)
        self.gate = gate
        self.consolidate = consolidate
        self.consolidation_mb = consolidation_mb
        self.sweep = sweep
        self.consolidation_due = consolidation_due
        self.flush_stats = flush_stats
        self.ledger = SchedulerLedger(ledger_path(self.workspace), home)
        #: ``/reminders``: a person's own reminders, on this ledger (its changes reach the
        #: exact jobs through :meth:`records_changed`).
        self.book = ReminderBook(
            store,
            self.ledger,
            grace_s=self.policy.reminder_grace_s,
            default_timezone=self.config.timezone,
        )
        self.jobs = JobQueue(
            timezone=_checked_zone(self.config.timezone), error_handler=error_handler
        )
        self._due_lock = asyncio.Lock()
        self._uncertain: list[str] = []
        #: Set once the sender can deliver (``wait_for_sender``: the runtime says so after
        #: its adapters start); until then no job sends, and the start-up run waits for it.
        self._sender_ready = not wait_for_sender

    # -- lifecycle --------------------------------------------------------------------------

    async def start(self) -> None:
        """Recover from the last run, then (when ``scheduler.enabled``) start the jobs. Due
        reminders are handled once the sender is ready (at once, unless ``wait_for_sender``;
        then in :meth:`sender_ready`): within the grace period they fire, else they are
        reported as missed."""
        self._uncertain = await self.ledger.off_loop(self.ledger.recover, self.clock())
        if not self.config.enabled:
            logger.info("scheduler disabled in the configuration")
            return
        self.jobs.start()
        self._schedule_housekeeping()
        if self.gate is not None:
            await self._snapshot_job()
        if self._sender_ready:
            await self._startup_run_due()
        await self.jobs._guarded("schedule_reminders", self.schedule_reminders)
        self._save_jobs_snapshot()

    async def sender_ready(self) -> None:
        """The sender can deliver now (the runtime calls this once its adapters run): what
        fell due while nothing could send it is handled here, once."""
        if self._sender_ready:
            return
        self._sender_ready = True
        if self.jobs.running:
            await self._startup_run_due()

    async def _startup_run_due(self) -> None:
        # A failure here (the store briefly unreadable, say) goes to the error handler; the
        # next tick tries again, so the bot still starts.
        await self.jobs._guarded("startup_run_due", self.run_due)

    async def _job_run_due(self) -> list[Outcome]:
        """``run_due`` for the tick and the exact jobs: nothing before the sender is ready
        (the start-up run in :meth:`sender_ready` catches up)."""
        if not self._sender_ready:
            logger.debug("a due run waits: no adapter can send yet")
            return []
        return await self.run_due()

    async def stop(self) -> None:
        await self.jobs.stop()
        if self.config.enabled:
            await asyncio.to_thread(self._save_jobs_snapshot)  # status: no longer running
        if self.gate is not None:
            self.write_gate_snapshot()

    async def __aenter__(self) -> Scheduler:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _schedule_housekeeping(self) -> None:
        cfg = self.config
        self.jobs.run_repeating(self._job_run_due, cfg.tick_s, name="decider_tick")
        if self.consolidate is not None:
            self.jobs.run_daily(
                self.run_consolidation, hour=cfg.consolidation_hour, name="consolidation"
            )
        if self.consolidate is not None and self.consolidation_due is not None:
            self.jobs.run_repeating(
                self._consolidate_if_due, cfg.sweep_s, name="consolidation_when_due"
            )
        if self.sweep is not None:
            self.jobs.run_repeating(self._sweep_job, cfg.sweep_s, name="ttl_sweep")
        self.jobs.run_repeating(self._jobs_snapshot_job, cfg.tick_s, name="jobs_snapshot")
        if self.flush_stats is not None:
            self.jobs.run_repeating(self.flush_stats, cfg.flush_s, name="access_stats_flush")
        if self.gate is not None:
            self.jobs.run_repeating(self.reclaim_idle, cfg.sweep_s, name="idle_reclamation")
            gate_cfg = self.settings.gate
            self.jobs.run_repeating(self._snapshot_job, gate_cfg.snapshot_s, name="gate_snapshot")

    # -- reminders and the decider ----------------------------------------------------------

    async def schedule_reminders(self) -> list[str]:
        """One exact job per open reminder due in the future (ticks catch the rest)."""
        if self.loops is None or not self.jobs.running:
            return []
        now = self.clock()
        scheduled = []
        for loop in await self.loops.open_loops():
            if self._schedule_exact(loop, now):
                scheduled.append(loop.record_id)
        return scheduled

    def _schedule_exact(self, loop: OpenLoop, now: datetime) -> bool:
        if loop.kind != "reminder" or loop.due is None or loop.due <= now:
            return False
        if self.ledger.loop_status(loop.record_id) is not None:
            return False
        self.jobs.run_once(
            self._job_run_due, loop.due, name="reminder", job_id=f"reminder:{loop.record_id}"
        )
        return True

    async def forget(self, report: ForgetReport) -> None:
        """A forget hook: the ledger in memory (and its file) without the forgotten
        reminders' words; a file scrub alone would be undone by the next save. In the
        database saved off the event loop, as every ledger save there."""
        holds = forgotten_of((), report.texts, report.records).holds
        await self.ledger.off_loop(self.ledger.forget, report.records, holds)
        if report.people:  # a whole person: their loops go, not only their words
            await self.ledger.off_loop(self.ledger.forget_people, report.people)

    async def records_changed(self, change: Any) -> None:
        """A :class:`~familiars.memory.StoreListener`: new or moved reminders get their exact
        job (a moved one's replaces the old), cancelled or removed ones lose it."""
        if not self.jobs.running:
            return
        now = self.clock()
        for rec in getattr(change, "upserted", []):
            loop = OpenLoop.from_record(rec)
            if loop is not None:
                self._schedule_exact(loop, now)
            elif rec.open_loop is not None:
                self.jobs.remove(f"reminder:{rec.id}")
        for record_id in getattr(change, "removed", []):
            self.jobs.remove(f"reminder:{record_id}")

    async def run_due(self, now: datetime | None = None) -> list[Outcome]:
        """Decide for every dialogue with something due (or a check-in), and act."""
        async with self._due_lock:  # a tick and an exact job never race on one reminder
            now = now or self.clock()
            await asyncio.to_thread(self.ledger.refresh)  # other workers' fates (database)
            states = await self._states(now)
            outcomes = []
            for key, state in states.items():
                decision = decide(now, state, self.policy)
                if decision.send:
                    outcomes.append(await self._act(key, state, decision, now))
            return outcomes

    async def _states(self, now: datetime) -> dict[str, DialogueState]:
        infos = list(await self.dialogues.active_dialogues(now)) if self.dialogues else []
        open_loops = await self.loops.open_loops() if self.loops is not None else []
        by_key = {dialogue_key(i.agent_id, i.dialogue_id, None): i for i in infos}
        dm_of: dict[tuple[str, str | None], DialogueInfo] = {
            (i.agent_id, i.user_key): i for i in infos if i.user_key and not i.is_group
        }
        grouped: dict[str, list[OpenLoop]] = {key: [] for key in by_key}
        for loop in open_loops:
            if self.ledger.loop_status(loop.record_id) is not None:
                continue  # already acted on (the memory file may not say so yet)
            grouped.setdefault(self._target_key(loop, dm_of), []).append(loop)
        return {key: self._state(key, by_key.get(key), loops) for key, loops in grouped.items()}

    def _target_key(self, loop: OpenLoop, dm_of: dict[tuple[str, str | None], DialogueInfo]) -> str:
        if loop.dialogue_id:
            return dialogue_key(loop.agent_id, loop.dialogue_id, None)
        dm = dm_of.get((loop.agent_id, loop.user_key))
        if dm is not None:
            return dialogue_key(dm.agent_id, dm.dialogue_id, None)
        return dialogue_key(loop.agent_id, None, loop.user_key)

    def _state(self, key: str, info: DialogueInfo | None, loops: list[OpenLoop]) -> DialogueState:
        first = loops[0] if loops else None
        agent_id = info.agent_id if info else (first.agent_id if first else "agent_0")
        return DialogueState(
            agent_id=agent_id,
            dialogue_id=info.dialogue_id if info else (first.dialogue_id if first else None),
            user_key=(info.user_key if info else None) or (first.user_key if first else None),
            display_name=info.display_name if info else "",
            timezone=(info.timezone if info else None) or self.config.timezone,
            is_group=info.is_group if info else False,
            proactive_enabled=self.ledger.proactive_enabled(key),
            last_user_at=info.last_user_at if info else None,
            proactive_sent=self.ledger.sent_times(key),
            silenced_until=self.ledger.silenced_until(key),
            loops=tuple(loops),
            care_paused_until=self.ledger.care_paused_until(
                (info.user_key if info else None) or (first.user_key if first else None)
            ),
        )

    async def _act(
        self, key: str, state: DialogueState, decision: Decision, now: datetime
    ) -> Outcome:
        """Act on one dialogue's decision, one worker at a time (the database: a lease per
        dialogue, tried, not waited for), and only when no proactive message went there
        since ``state`` was read: a check-in has no reminder row to claim, and two workers'
        ticks at once sent it twice."""
        async with self.ledger.home.job_lease(f"proactive/{key}") as mine:
            if mine:
                await asyncio.to_thread(self.ledger.refresh)  # what the others sent
            if not mine or self.ledger.sent_times(key) != state.proactive_sent:
                return Outcome(key, decision)  # another worker acts, or acted, on it
            return await self._act_alone(key, state, decision, now)

    async def _act_alone(
        self, key: str, state: DialogueState, decision: Decision, now: datetime
    ) -> Outcome:
        outcome = Outcome(key, decision)
        composed = await self.decider.compose(decision, self._persona(state.agent_id))
        if composed.text is None:
            self.ledger.silence(key, now + timedelta(seconds=self.policy.min_gap_s))
            await self.ledger.off_loop(self.ledger.save)
            return outcome
        loops = {lp.record_id: lp for lp in state.loops}
        wanted = [loops[rid] for rid in (*decision.loop_ids, *decision.missed_ids)]
        # Claimed before sending: a crash now leaves "sending", never a resend; in the
        # database another worker's claim of a loop is seen here (each is sent once).
        acted = await self.ledger.off_loop(self.ledger.claim, wanted, now)  # a row lock may wait
        if len(acted) < len(wanted):
            for loop in acted:  # another worker sends (some of) these: the next tick decides
                self.ledger.forget_attempt(loop.record_id)
            await self.ledger.off_loop(self.ledger.save)
            return outcome
        message = ProactiveMessage(
            agent_id=state.agent_id,
            dialogue_id=state.dialogue_id,
            user_key=state.user_key,
            text=composed.text,
            kind=decision.kind or "",
            reason=decision.reason,
            loop_ids=tuple(lp.record_id for lp in acted),
            at=now,
        )
        fates: dict[str, str] = {}
        recorded: list[bool] = []

        async def delivered() -> None:  # the platform took it: recorded before all else
            if not recorded:
                recorded.append(True)
                # The fates first (in memory): a save that fails leaves them to the next
                # save, and the loops are still closed below, not left open by a KeyError.
                fates.update(self._record_sent(key, decision, acted, now))
                await self.ledger.off_loop(self.ledger.save)

        try:
            await self.sender.send_proactive(replace(message, delivered=delivered))
        except Exception as exc:  # noqa: BLE001 - not delivered: undo the marks, retry next tick
            if not recorded:
                for loop in acted:
                    self.ledger.forget_attempt(loop.record_id)
                await self.ledger.off_loop(self.ledger.save)
                outcome.error = f"{type(exc).__name__}: {exc}"
                await self.jobs.report_error(f"proactive send to {key}", exc)
                return outcome
            logger.warning("proactive message to %s sent; what followed failed: %s", key, exc)
        await delivered()  # (a sender that does not say when the platform took it)
        outcome.sent, outcome.text = True, composed.text
        outcome.closed = await self._close(acted, fates, now)
        await self._recur(acted, now)
        return outcome

    def _record_sent(
        self, key: str, decision: Decision, acted: list[OpenLoop], now: datetime
    ) -> dict[str, str]:
        """Mark each loop with its fate (sent / missed / followed_up) in the ledger's memory
        (the caller saves); returns them."""
        missed = set(decision.missed_ids)
        fates = {}
        for loop in acted:
            kind = "missed_reminder" if loop.record_id in missed else (decision.kind or "")
            fates[loop.record_id] = _OUTCOME_STATUS.get(kind, "sent")
            self.ledger.mark(loop, fates[loop.record_id], now)
        self.ledger.record_sent(key, now)
        return fates

    async def _close(
        self, acted: list[OpenLoop], fates: dict[str, str], now: datetime
    ) -> list[str]:
        if self.loops is None:
            return []
        closed = []
        for loop in acted:
            try:
                await self.loops.close_loop(loop.record_id, fates[loop.record_id], now)
            except (MemoryError_, OSError) as exc:
                # The ledger already holds the fate, so it is never sent again.
                logger.warning("could not mark loop %s done in memory: %s", loop.record_id, exc)
                continue
            closed.append(loop.record_id)
        return closed

    async def _recur(self, acted: list[OpenLoop], now: datetime) -> None:
        """A reminder that comes back gets its next occurrence once this one fired."""
        for loop in acted:
            if not loop.every:
                continue
            try:
                await self.book.recur(loop.record_id, now)
            except (MemoryError_, OSError) as exc:
                logger.warning("could not set the next of %s: %s", loop.record_id, exc)

    def _persona(self, agent_id: str) -> str:
        try:
            return str(self.settings.agent(agent_id).persona)
        except KeyError:
            return ""

    # -- commands the runtime exposes -------------------------------------------------------

    async def set_proactive(
        self, agent_id: str, dialogue_id: str | None, user_key: str | None, enabled: bool
    ) -> None:
        """``/proactive on|off`` for one dialogue (persisted; in the database saved off the
        event loop, on files on it: see ``SchedulerLedger.off_loop``)."""
        key = dialogue_key(agent_id, dialogue_id, user_key)
        await self.ledger.off_loop(self.ledger.set_proactive, key, enabled)

    async def care_pause(self, user_key: str, until: datetime) -> None:
        """No unsolicited nudges for this person before ``until`` (persisted as
        :meth:`set_proactive`; reminders they asked for still go out)."""
        await self.ledger.off_loop(self.ledger.care_pause, user_key, until)

    def proactive_enabled(
        self, agent_id: str, dialogue_id: str | None, user_key: str | None
    ) -> bool:
        return self.ledger.proactive_enabled(dialogue_key(agent_id, dialogue_id, user_key))

    async def reminders(self, user_key: str | None = None) -> list[dict[str, Any]]:
        loops = await self.loops.open_loops() if self.loops is not None else []
        return reminder_rows(loops, self.ledger, user_key=user_key)

    def status(self) -> dict[str, Any]:
        """For the HTTP API and status output: jobs and when they run next, loop fates."""
        jobs = (
            [
                {"id": str(job.id), "next_run": _iso_or_none(job.next_run_time)}
                for job in self.jobs.scheduler.get_jobs()
            ]
            if self.jobs.running
            else []
        )
        fates: dict[str, int] = {}
        for entry in self.ledger.loops().values():
            fates[str(entry.get("status"))] = fates.get(str(entry.get("status")), 0) + 1
        return {
            "enabled": bool(self.config.enabled),
            "running": self.jobs.running,
            "jobs": jobs,
            "loop_fates": fates,
            "uncertain": self.uncertain,
            "model": self.decider.model is not None,
        }

    @property
    def uncertain(self) -> list[str]:
        """Loops that may or may not have been sent before the last crash."""
        return list(self._uncertain)

    # -- housekeeping -----------------------------------------------------------------------

    async def run_consolidation(self) -> str:
        """Nightly consolidation as queue work through the gate; preempted, it is retried in
        ten minutes and resumes from its checkpoint."""
        if self.consolidate is None:
            return "skipped"
        async with self.ledger.home.job_lease("consolidation") as mine:
            if not mine:  # another worker on the database runs it now
                return "elsewhere"
            result = await self._consolidate_now()
        if result == "preempted" and self.jobs.running:
            self.jobs.run_once(
                self.run_consolidation,
                self.clock() + timedelta(minutes=10),
                name="consolidation_retry",
            )
        return result

    async def _consolidate_now(self) -> str:
        assert self.consolidate is not None
        if self.gate is None:
            await self.consolidate({}, _NoGateLease())  # type: ignore[arg-type]
            return "done"
        return await run_resumable(
            self.gate,
            "consolidator",
            self.consolidate,
            checkpoint_path=self.workspace / "scheduler" / "checkpoints" / "consolidation.json",
            estimated_mb=self.consolidation_mb,
        )

    async def _sweep_job(self) -> Any:
        """The TTL sweep, by one worker at a time on a shared database."""
        assert self.sweep is not None
        async with self.ledger.home.job_lease("ttl_sweep") as mine:
            return await self.sweep(self.clock()) if mine else None

    async def _consolidate_if_due(self) -> str:
        """A pass when some person has said enough since the last one and gone quiet."""
        assert self.consolidation_due is not None
        if not await self.consolidation_due(self.clock()):
            return "not due"
        return await self.run_consolidation()

    def write_jobs_snapshot(self) -> None:
        """The jobs and their next run, for ``familiars status`` in another process."""
        atomic_write_json(jobs_snapshot_path(self.workspace), self.status())

    def _save_jobs_snapshot(self) -> None:
        """At start, without yielding to the loop (a job due now must not run before
        ``start`` returns), and at stop; the repeating job keeps it fresh. Status only: a
        disk error is logged, never stops a start or a stop."""
        try:
            self.write_jobs_snapshot()
        except OSError as exc:
            logger.warning("could not write the jobs snapshot: %s", exc)

    async def _jobs_snapshot_job(self) -> None:
        await asyncio.to_thread(self.write_jobs_snapshot)

    async def reclaim_idle(self) -> list[str]:
        if self.gate is None:
            return []
        reclaimed = await self.gate.reclaim_idle()
        if reclaimed:
            logger.info("reclaimed idle models: %s", ", ".join(reclaimed))
        return reclaimed

    async def _snapshot_job(self) -> None:
        await asyncio.to_thread(self.write_gate_snapshot)

    def write_gate_snapshot(self) -> None:
        if self.gate is None:
            return
        snap = self.gate.snapshot()
        snap.update(running=True, pid=os.getpid())
        save_snapshot(snap, snapshot_path(self.workspace))


def jobs_snapshot_path(workspace: Path) -> Path:
    """Where the running scheduler leaves its jobs and their next run."""
    return Path(workspace) / "scheduler" / "jobs.json"


def _iso_or_none(value: datetime | None) -> str | None:
    return value.isoformat(timespec="seconds") if value is not None else None


def _checked_zone(name: str) -> str:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise SchedulerError(
            f"scheduler.timezone {name!r} is not a known time zone (e.g. 'Europe/Berlin')"
        ) from exc
    return name


class _NoGateLease:
    """Stands in for a lease when no gate is configured: never preempted."""

    preempted = False
    model_id = "consolidator"

    def raise_if_preempted(self) -> None:
        return None

    def touch(self) -> None:
        return None

    def release(self) -> None:
        return None
