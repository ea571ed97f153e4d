"""The VRAM gate (§5.10): which in-process models may stay loaded on the GPU.

Every model is a *resident* while it holds memory. ``acquire`` makes a model resident and
working (loading it if needed, evicting others to make room); ``Lease.release`` marks it idle,
still loaded, until it is evicted for room or reclaimed after ``idle_ttl_sec`` /
``VRAM_GATE_IDLE_EVICT_SEC`` of inactivity.

Eviction rules, applied lowest priority first (4 BACKGROUND .. 2 IMPORTANT), then least
recently active first:

- a resident whose priority is 1 CRITICAL is never evicted;
- a *sync* acquire (a person is waiting) may evict any idle resident, and any *queue*
  resident, working or not, after that resident's ``on_checkpoint`` has run;
- a *queue* acquire may only evict idle residents (so background work never starves behind
  models nobody is using, yet never interrupts anyone);
- a working sync resident is never evicted;
- when nothing suitable can be evicted the acquire waits for a release, up to a timeout, and
  then fails with :class:`GateTimeoutError`; waiters retry most urgent first, so freed room
  goes to the person waiting before background work. The committed memory never exceeds
  the budget.

Priorities nest through :func:`boost_thread_priority`: a block that a person is waiting on
boosts every acquire made inside it (in the same thread or asyncio task) to the minimum of
the boosts in force.

Memory: with a GPU visible through NVML the budget is the free memory at start less a
reserve, and the live free memory is shown in snapshots; without one, the configured
``gate.budget_mb``. Admission is decided on the estimates in both cases so the same logic runs
and is tested everywhere.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import IntEnum
from pathlib import Path
from typing import Any, Literal, Protocol

from familiars.scheduler._errors import GateCapacityError, GateTimeoutError, PreemptedError
from familiars.scheduler._files import atomic_write_json

logger = logging.getLogger(__name__)

Category = Literal["sync", "queue"]
CATEGORIES: tuple[str, ...] = ("sync", "queue")


class Priority(IntEnum):
    CRITICAL = 1
    IMPORTANT = 2
    NICE = 3
    BACKGROUND = 4


# ---------------------------------------------------------------------------------------------
# Priority boosting (§5.10.4)

_boost: ContextVar[int | None] = ContextVar("familiars_gate_boost", default=None)


@contextmanager
def boost_thread_priority(priority: int) -> Iterator[None]:
    """Temporarily boost priority for a user-blocking thread (or asyncio task).

    Nesting takes the min: inner CRITICAL + outer NICE = inner CRITICAL, and an inner NICE
    inside an outer CRITICAL stays CRITICAL. A context variable carries the boost, so each
    thread and each asyncio task sees only its own (tasks inherit the boost in force when
    they were created; ``asyncio.to_thread`` carries it into the worker thread).
    """
    priority = _check_priority(priority)
    current = _boost.get()
    token = _boost.set(priority if current is None else min(current, priority))
    try:
        yield
    finally:
        _boost.reset(token)


def current_boost() -> int | None:
    return _boost.get()


def effective_priority(priority: int) -> int:
    """``priority`` raised to the boost in force, if any."""
    boost = _boost.get()
    return priority if boost is None else min(priority, boost)


def _check_priority(priority: int) -> int:
    if not isinstance(priority, int) or isinstance(priority, bool) or not 1 <= priority <= 4:
        raise ValueError(f"priority must be 1 (CRITICAL) .. 4 (BACKGROUND), got {priority!r}")
    return int(priority)


# ---------------------------------------------------------------------------------------------
# Memory probes


class MemoryProbe(Protocol):
    """Where real GPU memory figures come from (NVML); absent when there is no GPU."""

    def free_mb(self) -> float: ...

    def total_mb(self) -> float: ...


class NvmlProbe:
    """Free and total memory of one GPU through NVML (``nvidia-ml-py``, import ``pynvml``)."""

    def __init__(self, handle: Any, pynvml: Any, index: int) -> None:
        self._handle = handle
        self._nvml = pynvml
        self.index = index

    @classmethod
    def open(cls, index: int = 0) -> NvmlProbe | None:
        """The probe for GPU ``index``, or None when NVML or the GPU is not there."""
        try:
            import pynvml

            pynvml.nvmlInit()
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
        except Exception as exc:  # noqa: BLE001 - every NVML failure means "no GPU here"
            logger.debug("no GPU visible through NVML (%s); using the configured budget", exc)
            return None
        return cls(handle, pynvml, index)

    def _info(self) -> Any:
        return self._nvml.nvmlDeviceGetMemoryInfo(self._handle)

    def free_mb(self) -> float:
        return float(self._info().free) / (1024 * 1024)

    def total_mb(self) -> float:
        return float(self._info().total) / (1024 * 1024)


# ---------------------------------------------------------------------------------------------
# Residents and leases


@dataclass
class _Entry:
    model_id: str
    priority: int
    estimated_mb: float
    on_evict: Callable[[], None] | None = None
    category: Category = "sync"
    is_working: bool = False
    on_checkpoint: Callable[[], Any] | None = None
    last_active_at: float = field(default_factory=time.monotonic)
    idle_ttl_sec: float | None = None
    # Beyond the seed: the priority the model rests at when idle, and who holds it now.
    base_priority: int = 3
    leases: list[Lease] = field(default_factory=list)
    admitted_at: float = 0.0

    def refresh(self) -> None:
        """Working priority is the most urgent of the holders; idle, it rests at base."""
        self.is_working = bool(self.leases)
        held = [lease.priority for lease in self.leases]
        self.priority = min([self.base_priority, *held])

    def describe(self, now: float) -> dict[str, Any]:
        return {
            "model_id": self.model_id,
            "priority": self.priority,
            "priority_name": Priority(self.priority).name,
            "base_priority": self.base_priority,
            "estimated_mb": round(self.estimated_mb, 1),
            "category": self.category,
            "is_working": self.is_working,
            "holders": len(self.leases),
            "idle_s": None if self.is_working else round(now - self.last_active_at, 3),
            "idle_ttl_sec": self.idle_ttl_sec,
        }


class Lease:
    """One holder's claim on a resident model. Release it when the work is done; queue work
    checks :attr:`preempted` (or calls :meth:`raise_if_preempted`) between steps."""

    __slots__ = ("_gate", "model_id", "priority", "category", "preempted", "released", "waited_s")

    def __init__(self, gate: VRAMGate, model_id: str, priority: int, category: Category) -> None:
        self._gate = gate
        self.model_id = model_id
        self.priority = priority
        self.category: Category = category
        self.preempted = False
        self.released = False
        #: Time this acquire spent waiting for another holder to release memory.
        self.waited_s = 0.0

    def release(self) -> None:
        """Done working: the model stays loaded (idle) until evicted or reclaimed. Idempotent."""
        if not self.released:
            self.released = True
            self._gate._release(self)

    def touch(self) -> None:
        """Long-running work says it is still active (resets the idle clock)."""
        self._gate.touch(self.model_id)

    def raise_if_preempted(self) -> None:
        if self.preempted:
            raise PreemptedError(self.model_id)

    async def __aenter__(self) -> Lease:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release()


@dataclass
class GateStats:
    admits: int = 0
    reuses: int = 0
    evictions: int = 0
    critical_evictions: int = 0
    checkpoints: int = 0
    reclaimed: int = 0
    waits: int = 0
    timeouts: int = 0
    max_committed_mb: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


# ---------------------------------------------------------------------------------------------
# The gate


class VRAMGate:
    """Admits and evicts GPU residents by priority, category and idleness (§5.10)."""

    def __init__(
        self,
        budget_mb: float,
        *,
        idle_evict_sec: float = 900.0,
        acquire_timeout_s: float = 30.0,
        probe: MemoryProbe | None = None,
        clock: Callable[[], float] = time.monotonic,
        history_size: int = 200,
    ) -> None:
        if budget_mb <= 0:
            raise ValueError(f"gate budget must be positive, got {budget_mb!r} MB")
        self.budget_mb = float(budget_mb)
        self.idle_evict_sec = float(idle_evict_sec)
        self.acquire_timeout_s = float(acquire_timeout_s)
        self.probe = probe
        self.clock = clock
        self.stats = GateStats()
        self._residents: dict[str, _Entry] = {}
        self._committed = 0.0
        self._lock = asyncio.Lock()
        # Waiting acquires, woken most urgent first so they retry (and get the room) first.
        self._waiters: dict[asyncio.Future[None], int] = {}
        self._history: deque[tuple[Any, ...]] = deque(maxlen=history_size)

    @classmethod
    def from_settings(
        cls, settings: Any, *, clock: Callable[[], float] = time.monotonic
    ) -> VRAMGate:
        """From :class:`~familiars.config.GateSettings`; NVML decides the budget when a GPU
        is visible and ``use_nvml`` is on."""
        probe = NvmlProbe.open(settings.device_index) if settings.use_nvml else None
        budget = float(settings.budget_mb)
        if probe is not None:
            budget = max(probe.free_mb() - float(settings.reserve_mb), 1.0)
        return cls(
            budget,
            idle_evict_sec=settings.idle_evict_sec,
            acquire_timeout_s=settings.acquire_timeout_s,
            probe=probe,
            clock=clock,
            history_size=settings.history_size,
        )

    # -- figures ----------------------------------------------------------------------------

    @property
    def committed_mb(self) -> float:
        return self._committed

    @property
    def free_mb(self) -> float:
        return self.budget_mb - self._committed

    def residents(self) -> list[str]:
        return list(self._residents)

    def is_resident(self, model_id: str) -> bool:
        return model_id in self._residents

    def entry(self, model_id: str) -> _Entry | None:
        return self._residents.get(model_id)

    # -- acquire ----------------------------------------------------------------------------

    async def acquire(
        self,
        model_id: str,
        estimated_mb: float,
        priority: int = Priority.NICE,
        *,
        category: Category = "sync",
        on_evict: Callable[[], None] | None = None,
        on_checkpoint: Callable[[], Any] | None = None,
        idle_ttl_sec: float | None = None,
        timeout: float | None = None,
    ) -> Lease:
        """Make ``model_id`` resident and working; return the holder's lease.

        ``priority`` is raised by any :func:`boost_thread_priority` in force. A model that
        is already resident is shared (its callbacks are updated when given). Waits up to
        ``timeout`` (default ``acquire_timeout_s``) for room, then raises
        :class:`GateTimeoutError`; a model larger than the whole budget raises
        :class:`GateCapacityError` at once.
        """
        base = _check_priority(int(priority))
        prio = effective_priority(base)
        if category not in CATEGORIES:
            raise ValueError(f"category must be 'sync' or 'queue', got {category!r}")
        if estimated_mb < 0:
            raise ValueError(f"estimated_mb must be >= 0, got {estimated_mb!r}")
        if estimated_mb > self.budget_mb:
            raise GateCapacityError(model_id, estimated_mb, self.budget_mb)
        lease = Lease(self, model_id, prio, category)
        callbacks = (on_evict, on_checkpoint, idle_ttl_sec)
        # Fast path: a resident model and no eviction in progress (single event loop, no await).
        if not self._lock.locked() and self._reuse(lease, callbacks):
            return lease
        wait_s = self.acquire_timeout_s if timeout is None else float(timeout)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_s
        while True:
            async with self._lock:
                if self._reuse(lease, callbacks):
                    return lease
                if await self._admit(lease, estimated_mb, base, callbacks):
                    return lease
                waiter: asyncio.Future[None] = loop.create_future()
                self._waiters[waiter] = lease.priority
            await self._wait(waiter, deadline, lease, estimated_mb, wait_s)

    async def _wait(
        self,
        waiter: asyncio.Future[None],
        deadline: float,
        lease: Lease,
        estimated_mb: float,
        wait_s: float,
    ) -> None:
        self.stats.waits += 1
        loop = asyncio.get_running_loop()
        started = loop.time()
        remaining = deadline - started
        try:
            if remaining <= 0:
                raise TimeoutError
            await asyncio.wait_for(waiter, remaining)
            lease.waited_s += loop.time() - started
        except TimeoutError:
            self.stats.timeouts += 1
            detail = self._blocked_detail(estimated_mb)
            self._record("timeout", lease.model_id, estimated_mb, lease.priority, detail)
            raise GateTimeoutError(lease.model_id, estimated_mb, wait_s, detail) from None
        finally:
            self._waiters.pop(waiter, None)

    def _blocked_detail(self, estimated_mb: float) -> str:
        working = [
            f"{e.model_id} ({e.estimated_mb:.0f} MB, {Priority(e.priority).name}, "
            f"{'working' if e.is_working else 'idle'})"
            for e in self._residents.values()
        ]
        return (
            f"{self.free_mb:.0f} MB free of {self.budget_mb:.0f} MB and nothing evictable; "
            f"residents: {', '.join(working) or 'none'}"
        )

    def _reuse(
        self, lease: Lease, callbacks: tuple[Callable[[], None] | None, Any, float | None]
    ) -> bool:
        entry = self._residents.get(lease.model_id)
        if entry is None:
            return False
        on_evict, on_checkpoint, idle_ttl_sec = callbacks
        if on_evict is not None:
            entry.on_evict = on_evict
        if on_checkpoint is not None:
            entry.on_checkpoint = on_checkpoint
        if idle_ttl_sec is not None:
            entry.idle_ttl_sec = idle_ttl_sec
        lease.category = entry.category
        entry.leases.append(lease)
        entry.refresh()
        entry.last_active_at = self.clock()
        self.stats.reuses += 1
        return True

    async def _admit(
        self,
        lease: Lease,
        estimated_mb: float,
        base_priority: int,
        callbacks: tuple[Callable[[], None] | None, Any, float | None],
    ) -> bool:
        need = estimated_mb - self.free_mb
        if need > 0:
            victims = self._plan_evictions(need, lease)
            if victims is None:
                return False
            for victim in victims:
                await self._evict(victim, reason=f"room for {lease.model_id}")
        on_evict, on_checkpoint, idle_ttl_sec = callbacks
        now = self.clock()
        entry = _Entry(
            model_id=lease.model_id,
            priority=lease.priority,
            estimated_mb=float(estimated_mb),
            on_evict=on_evict,
            category=lease.category,
            on_checkpoint=on_checkpoint,
            last_active_at=now,
            idle_ttl_sec=idle_ttl_sec,
            base_priority=base_priority,
            leases=[lease],
            admitted_at=now,
        )
        entry.refresh()
        self._residents[lease.model_id] = entry
        self._committed += entry.estimated_mb
        self.stats.admits += 1
        self.stats.max_committed_mb = max(self.stats.max_committed_mb, self._committed)
        self._record("admit", lease.model_id, estimated_mb, lease.priority, lease.category)
        return True

    def _evictable_by(self, entry: _Entry, lease: Lease) -> bool:
        if entry.priority == Priority.CRITICAL:
            return False
        if lease.category == "sync":
            return not entry.is_working or entry.category == "queue"
        return not entry.is_working

    def _plan_evictions(self, need_mb: float, lease: Lease) -> list[_Entry] | None:
        """The residents to evict, in order, to free ``need_mb``; None if they cannot."""
        candidates = [
            e
            for e in self._residents.values()
            if e.model_id != lease.model_id and self._evictable_by(e, lease)
        ]
        candidates.sort(key=lambda e: (-e.priority, e.last_active_at))
        chosen: list[_Entry] = []
        freed = 0.0
        for entry in candidates:
            chosen.append(entry)
            freed += entry.estimated_mb
            if freed >= need_mb:
                return chosen
        return None

    # -- release, evict, reclaim ------------------------------------------------------------

    def _release(self, lease: Lease) -> None:
        entry = self._residents.get(lease.model_id)
        if entry is not None and lease in entry.leases:
            entry.leases.remove(lease)
            entry.refresh()
            entry.last_active_at = self.clock()
            if entry.is_working:
                return  # still held: nothing became evictable, nobody to wake
        self._wake()

    def _wake(self) -> None:
        for waiter in sorted(self._waiters, key=self._waiters.__getitem__):
            if not waiter.done():
                waiter.set_result(None)

    def touch(self, model_id: str) -> None:
        entry = self._residents.get(model_id)
        if entry is not None:
            entry.last_active_at = self.clock()

    async def _evict(self, entry: _Entry, *, reason: str) -> None:
        if entry.priority == Priority.CRITICAL:  # defended twice: a bug here loses a user turn
            raise AssertionError(f"refusing to evict CRITICAL resident {entry.model_id!r}")
        if entry.category == "queue" and entry.on_checkpoint is not None:
            await self._run_checkpoint(entry)
        for lease in entry.leases:
            lease.preempted = True
        self._residents.pop(entry.model_id, None)
        self._committed -= entry.estimated_mb
        if abs(self._committed) < 1e-6:
            self._committed = 0.0
        self.stats.evictions += 1
        self._run_on_evict(entry)
        self._record("evict", entry.model_id, entry.estimated_mb, entry.priority, reason)
        self._wake()

    async def _run_checkpoint(self, entry: _Entry) -> None:
        assert entry.on_checkpoint is not None
        try:
            result = entry.on_checkpoint()
            if inspect.isawaitable(result):
                await result
        except Exception as exc:  # noqa: BLE001 - the work redoes its steps since the last good one
            logger.error(
                "checkpoint of %s failed; it resumes from its previous checkpoint",
                entry.model_id,
                exc_info=True,
            )
            self._record(
                "checkpoint_failed", entry.model_id, entry.estimated_mb, entry.priority, repr(exc)
            )
            return
        self.stats.checkpoints += 1
        self._record("checkpoint", entry.model_id, entry.estimated_mb, entry.priority, "")

    def _run_on_evict(self, entry: _Entry) -> None:
        if entry.on_evict is None:
            return
        try:
            entry.on_evict()
        except Exception as exc:  # noqa: BLE001 - the gate must not wedge; the failure is recorded
            logger.error("unloading %s failed", entry.model_id, exc_info=True)
            self._record(
                "unload_failed", entry.model_id, entry.estimated_mb, entry.priority, repr(exc)
            )

    async def evict(self, model_id: str, *, reason: str = "manual") -> bool:
        """Evict one resident now (the ``release-memory`` API). Refuses CRITICAL and working
        sync residents with a ValueError; returns False when it was not resident."""
        async with self._lock:
            entry = self._residents.get(model_id)
            if entry is None:
                return False
            if entry.priority == Priority.CRITICAL:
                raise ValueError(f"{model_id!r} is CRITICAL and is never evicted")
            if entry.is_working and entry.category == "sync":
                raise ValueError(f"{model_id!r} is serving a request right now; try again")
            await self._evict(entry, reason=reason)
            return True

    async def release_idle(self, *, reason: str = "released on request") -> list[str]:
        """Evict every idle resident that is not CRITICAL (``POST .../release-memory``)."""
        async with self._lock:
            idle = [
                e
                for e in self._residents.values()
                if not e.is_working and e.priority != Priority.CRITICAL
            ]
            for entry in idle:
                await self._evict(entry, reason=reason)
            return [e.model_id for e in idle]

    async def reclaim_idle(self, now: float | None = None) -> list[str]:
        """§5.10.3: evict residents idle longer than their ``idle_ttl_sec`` (default
        ``idle_evict_sec``; 0 turns reclamation off). CRITICAL ones stay."""
        async with self._lock:
            now = self.clock() if now is None else now
            stale = [e for e in self._residents.values() if self._is_stale(e, now)]
            for entry in stale:
                await self._evict(entry, reason="idle")
                self.stats.reclaimed += 1
            return [e.model_id for e in stale]

    def _is_stale(self, entry: _Entry, now: float) -> bool:
        if entry.is_working or entry.priority == Priority.CRITICAL:
            return False
        ttl = self.idle_evict_sec if entry.idle_ttl_sec is None else entry.idle_ttl_sec
        return ttl > 0 and now - entry.last_active_at >= ttl

    # -- observability ----------------------------------------------------------------------

    def _record(self, event: str, model_id: str, mb: float, priority: int, detail: str) -> None:
        # A tuple now, formatted when someone looks: this runs on every admit and eviction.
        self._history.append((time.time(), event, model_id, mb, priority, detail, self._committed))

    def history(self) -> list[dict[str, Any]]:
        return [
            {
                "at": datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds"),
                "event": event,
                "model_id": model_id,
                "estimated_mb": round(float(mb), 1),
                "priority": int(priority),
                "detail": detail,
                "committed_mb": round(committed, 1),
            }
            for at, event, model_id, mb, priority, detail, committed in self._history
        ]

    def snapshot(self) -> dict[str, Any]:
        """Budget, residents, counters and recent events, as plain JSON-able data."""
        now = self.clock()
        gpu: dict[str, Any] | None = None
        if self.probe is not None:
            gpu = {
                "free_mb": round(self.probe.free_mb(), 1),
                "total_mb": round(self.probe.total_mb(), 1),
            }
        return {
            "at": datetime.now(UTC).isoformat(timespec="seconds"),
            "source": "nvml" if self.probe is not None else "budget",
            "budget_mb": round(self.budget_mb, 1),
            "committed_mb": round(self._committed, 1),
            "free_mb": round(self.free_mb, 1),
            "gpu": gpu,
            "idle_evict_sec": self.idle_evict_sec,
            "waiting": sum(1 for w in self._waiters if not w.done()),
            "residents": [e.describe(now) for e in self._residents.values()],
            "stats": self.stats.as_dict(),
            "history": self.history(),
        }


# ---------------------------------------------------------------------------------------------
# The latest snapshot on disk, for ``familiars gate status`` in another process

SNAPSHOT_FILE = "gate_status.json"


def snapshot_path(workspace: Path) -> Path:
    return Path(workspace) / "scheduler" / SNAPSHOT_FILE


def save_snapshot(snapshot: dict[str, Any], path: Path) -> None:
    """Write atomically (temp file in the same folder, fsync, rename)."""
    atomic_write_json(path, snapshot)


def load_snapshot(path: Path) -> dict[str, Any] | None:
    """The saved snapshot, or None when no running process has written one (or it is
    unreadable; it is only a status display, rewritten every few seconds)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        logger.warning("gate snapshot %s unreadable: %s", path, exc)
        return None
    return data if isinstance(data, dict) else None


def configured_snapshot(settings: Any) -> dict[str, Any]:
    """What ``gate status`` shows when nothing ran yet: the budget this config would use."""
    gate = VRAMGate.from_settings(settings)
    snap = gate.snapshot()
    snap["running"] = False
    return snap
