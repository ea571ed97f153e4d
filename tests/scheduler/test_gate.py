"""The VRAM gate: admission, every eviction rule, waits, idle reclamation, boosts."""

from __future__ import annotations

import asyncio
import random
import threading

import pytest

from familiars.scheduler import (
    GateCapacityError,
    GateTimeoutError,
    PreemptedError,
    Priority,
    VRAMGate,
    boost_thread_priority,
    current_boost,
    effective_priority,
)


class FakeClock:
    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, dt: float) -> None:
        self.t += dt


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def make_gate(clock: FakeClock, budget: float = 1000.0, **kw: object) -> VRAMGate:
    return VRAMGate(budget, clock=clock, acquire_timeout_s=0.05, **kw)  # type: ignore[arg-type]


async def load_idle(
    gate: VRAMGate,
    clock: FakeClock,
    model: str,
    mb: float,
    prio: int,
    category: str = "sync",
    **kw: object,
) -> list[str]:
    evicted: list[str] = []
    lease = await gate.acquire(
        model,
        mb,
        prio,
        category=category,  # type: ignore[arg-type]
        on_evict=lambda: evicted.append(model),
        **kw,
    )  # type: ignore[arg-type]
    lease.release()
    clock.advance(1.0)
    return evicted


async def test_admits_within_budget_and_shares_a_resident(clock: FakeClock) -> None:
    gate = make_gate(clock)
    a = await gate.acquire("emb", 400, Priority.IMPORTANT)
    b = await gate.acquire("emb", 400, Priority.IMPORTANT)
    assert gate.committed_mb == 400
    assert gate.entry("emb").is_working and len(gate.entry("emb").leases) == 2
    a.release()
    assert gate.entry("emb").is_working
    b.release()
    b.release()  # idempotent
    assert not gate.entry("emb").is_working
    assert gate.is_resident("emb")  # idle models stay loaded


async def test_a_model_larger_than_the_budget_is_refused_at_once(clock: FakeClock) -> None:
    gate = make_gate(clock, budget=100)
    with pytest.raises(GateCapacityError, match="whole GPU budget is 100 MB"):
        await gate.acquire("huge", 101, Priority.CRITICAL)


async def test_bad_arguments_are_refused(clock: FakeClock) -> None:
    gate = make_gate(clock)
    with pytest.raises(ValueError, match="priority"):
        await gate.acquire("m", 10, 5)
    with pytest.raises(ValueError, match="category"):
        await gate.acquire("m", 10, 2, category="later")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="estimated_mb"):
        await gate.acquire("m", -1, 2)


async def test_sync_evicts_lowest_priority_first_then_least_recently_active(
    clock: FakeClock,
) -> None:
    gate = make_gate(clock, budget=1000)
    evicted: list[str] = []
    for name, prio in [("imp_old", 2), ("bg_old", 4), ("imp_new", 2), ("bg_new", 4)]:
        lease = await gate.acquire(name, 250, prio, on_evict=lambda n=name: evicted.append(n))
        lease.release()
        clock.advance(1.0)
    await gate.acquire("user", 250, Priority.IMPORTANT)
    assert evicted == ["bg_old"]
    (await gate.acquire("user2", 500, Priority.IMPORTANT))
    assert evicted == ["bg_old", "bg_new", "imp_old"]
    assert gate.committed_mb <= gate.budget_mb


async def test_critical_residents_are_never_evicted(clock: FakeClock) -> None:
    gate = make_gate(clock, budget=1000)
    evicted = await load_idle(gate, clock, "whisper", 800, Priority.CRITICAL)
    with pytest.raises(GateTimeoutError) as info:
        await gate.acquire("other", 300, Priority.CRITICAL, timeout=0.01)
    assert evicted == []
    assert "whisper" in str(info.value) and "nothing evictable" in str(info.value)
    assert gate.stats.critical_evictions == 0
    with pytest.raises(ValueError, match="never evicted"):
        await gate.evict("whisper")
    assert await gate.reclaim_idle(clock.t + 10**6) == []


async def test_a_working_sync_resident_is_never_evicted_the_acquire_waits(
    clock: FakeClock,
) -> None:
    gate = make_gate(clock, budget=1000)
    busy = await gate.acquire("reranker", 700, Priority.NICE)
    waiter = asyncio.create_task(gate.acquire("decider", 500, Priority.IMPORTANT, timeout=5))
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert not waiter.done() and gate.is_resident("reranker")
    busy.release()  # now idle: the waiting sync acquire may evict it
    lease = await waiter
    assert not gate.is_resident("reranker") and gate.is_resident("decider")
    lease.release()


async def test_wait_times_out_with_a_clear_error(clock: FakeClock) -> None:
    gate = make_gate(clock, budget=1000)
    await gate.acquire("busy", 900, Priority.IMPORTANT)
    with pytest.raises(GateTimeoutError, match=r"could not load model 'next' \(200 MB\)"):
        await gate.acquire("next", 200, Priority.IMPORTANT, timeout=0.01)
    assert gate.stats.timeouts == 1
    assert gate.history()[-1]["event"] == "timeout"


async def test_sync_evicts_a_working_queue_resident_after_its_checkpoint(
    clock: FakeClock,
) -> None:
    gate = make_gate(clock, budget=1000)
    order: list[str] = []
    progress = {"done": 3}
    saved: dict[str, int] = {}

    async def checkpoint() -> None:
        order.append("checkpoint")
        saved.update(progress)

    job = await gate.acquire(
        "consolidator",
        800,
        Priority.NICE,
        category="queue",
        on_checkpoint=checkpoint,
        on_evict=lambda: order.append("unload"),
    )
    user = await gate.acquire("embedder", 400, Priority.IMPORTANT)
    assert order == ["checkpoint", "unload"]
    assert saved == {"done": 3}
    assert job.preempted
    with pytest.raises(PreemptedError, match="resumes from its checkpoint"):
        job.raise_if_preempted()
    job.release()  # releasing a preempted lease is harmless
    assert gate.committed_mb == 400
    user.release()


async def test_queue_acquire_evicts_only_idle_residents(clock: FakeClock) -> None:
    gate = make_gate(clock, budget=1000)
    await gate.acquire("indexer", 500, Priority.BACKGROUND, category="queue")  # working
    await gate.acquire("embedder", 300, Priority.IMPORTANT)  # working sync
    with pytest.raises(GateTimeoutError):
        await gate.acquire("writer", 300, Priority.NICE, category="queue", timeout=0.01)
    assert gate.is_resident("indexer") and gate.is_resident("embedder")
    # Idle residents are fair game, lowest priority first, so background work never starves.
    gate2 = make_gate(clock, budget=1000)
    ev_emb = await load_idle(gate2, clock, "emb", 400, Priority.IMPORTANT)
    ev_idx = await load_idle(gate2, clock, "old", 400, Priority.BACKGROUND, category="queue")
    await gate2.acquire("writer", 300, Priority.NICE, category="queue")
    assert (ev_emb, ev_idx) == ([], ["old"])


async def test_nothing_is_evicted_when_eviction_would_not_make_enough_room(
    clock: FakeClock,
) -> None:
    gate = make_gate(clock, budget=1000)
    evicted = await load_idle(gate, clock, "small", 200, Priority.BACKGROUND)
    await gate.acquire("held", 700, Priority.IMPORTANT)
    with pytest.raises(GateTimeoutError):
        await gate.acquire("big", 400, Priority.IMPORTANT, timeout=0.01)
    assert evicted == [] and gate.is_resident("small")


async def test_idle_reclamation_uses_the_default_and_per_model_ttl(clock: FakeClock) -> None:
    gate = make_gate(clock, budget=2000, idle_evict_sec=600)
    await load_idle(gate, clock, "default_ttl", 100, Priority.NICE)
    await load_idle(gate, clock, "short_ttl", 100, Priority.NICE, idle_ttl_sec=60)
    await load_idle(gate, clock, "critical", 100, Priority.CRITICAL)
    working = await gate.acquire("working", 100, Priority.NICE)
    start = clock.t
    assert await gate.reclaim_idle(start + 30) == []
    assert await gate.reclaim_idle(start + 60) == ["short_ttl"]
    assert await gate.reclaim_idle(start + 590) == []
    assert await gate.reclaim_idle(start + 700) == ["default_ttl"]
    assert sorted(gate.residents()) == ["critical", "working"]
    assert gate.stats.reclaimed == 2
    working.release()


async def test_touch_and_reuse_reset_the_idle_clock(clock: FakeClock) -> None:
    gate = make_gate(clock, idle_evict_sec=100)
    await load_idle(gate, clock, "m", 100, Priority.NICE)
    clock.advance(90)
    (await gate.acquire("m", 100, Priority.NICE)).release()
    assert await gate.reclaim_idle(clock.t + 50) == []
    assert await gate.reclaim_idle(clock.t + 100) == ["m"]


async def test_zero_idle_evict_sec_turns_reclamation_off(clock: FakeClock) -> None:
    gate = make_gate(clock, idle_evict_sec=0)
    await load_idle(gate, clock, "m", 100, Priority.NICE)
    assert await gate.reclaim_idle(clock.t + 10**9) == []


def test_boost_nesting_takes_the_minimum() -> None:
    assert current_boost() is None
    with boost_thread_priority(Priority.NICE):
        assert effective_priority(Priority.BACKGROUND) == Priority.NICE
        with boost_thread_priority(Priority.CRITICAL):
            assert current_boost() == Priority.CRITICAL
            with boost_thread_priority(Priority.BACKGROUND):  # inner weaker boost does not lower
                assert current_boost() == Priority.CRITICAL
        assert current_boost() == Priority.NICE
        assert effective_priority(Priority.IMPORTANT) == Priority.IMPORTANT
    assert current_boost() is None
    with pytest.raises(ValueError), boost_thread_priority(0):
        pass


def test_boosts_stay_in_their_own_thread() -> None:
    seen: dict[str, int | None] = {}
    inner_ready = threading.Event()
    outer_checked = threading.Event()

    def worker() -> None:
        with boost_thread_priority(Priority.CRITICAL):
            inner_ready.set()
            outer_checked.wait(5)
            seen["worker"] = current_boost()

    with boost_thread_priority(Priority.NICE):
        thread = threading.Thread(target=worker)
        thread.start()
        inner_ready.wait(5)
        seen["main"] = current_boost()
        outer_checked.set()
        thread.join(5)
    assert seen == {"main": Priority.NICE, "worker": Priority.CRITICAL}


async def test_boosts_stay_in_their_own_task_and_nest_inside_it() -> None:
    gate = make_gate(FakeClock(), budget=1000)
    barrier = asyncio.Event()
    seen: dict[str, object] = {}

    async def user_turn() -> None:
        with boost_thread_priority(Priority.IMPORTANT):
            with boost_thread_priority(Priority.CRITICAL):
                lease = await gate.acquire("emb", 100, Priority.NICE)
                seen["lease"] = lease.priority
                await barrier.wait()
                lease.release()
            seen["after_inner"] = current_boost()

    async def background() -> None:
        await asyncio.sleep(0)
        seen["bg_boost"] = current_boost()
        lease = await gate.acquire("idx", 100, Priority.BACKGROUND, category="queue")
        seen["bg"] = lease.priority
        lease.release()
        barrier.set()

    await asyncio.gather(user_turn(), background())
    assert seen == {"lease": 1, "bg_boost": None, "bg": 4, "after_inner": 2}
    # Idle again, the embedder rests at its requested priority and may be evicted.
    assert gate.entry("emb").priority == Priority.NICE


async def test_a_boosted_critical_holder_protects_its_model_until_released(
    clock: FakeClock,
) -> None:
    gate = make_gate(clock, budget=1000)
    await load_idle(gate, clock, "emb", 600, Priority.IMPORTANT, category="queue")
    with boost_thread_priority(Priority.CRITICAL):
        held = await gate.acquire("emb", 600, Priority.IMPORTANT)
    assert gate.entry("emb").priority == Priority.CRITICAL
    with pytest.raises(GateTimeoutError):  # a queue resident, but CRITICAL while held
        await gate.acquire("other", 600, Priority.IMPORTANT, timeout=0.01)
    held.release()
    await gate.acquire("other", 600, Priority.IMPORTANT)
    assert not gate.is_resident("emb")


async def test_many_tasks_never_over_commit(clock: FakeClock) -> None:
    budget = 1000.0
    gate = make_gate(clock, budget=budget)
    gate.acquire_timeout_s = 30
    rng = random.Random(7)
    models = [
        (f"m{i}", rng.choice([100, 150, 250, 300]), 2 + i % 3, "queue" if i % 3 == 2 else "sync")
        for i in range(15)
    ]
    models.append(("critical", 100, 1, "sync"))
    worst = 0.0
    preempted = 0

    async def worker(seed: int) -> None:
        nonlocal worst, preempted
        r = random.Random(seed)
        for _ in range(40):
            name, mb, prio, cat = r.choice(models)
            lease = await gate.acquire(name, mb, prio, category=cat)  # type: ignore[arg-type]
            worst = max(worst, gate.committed_mb)
            assert gate.is_resident(name) or lease.preempted
            for _ in range(r.randint(0, 2)):
                await asyncio.sleep(0)
            preempted += lease.preempted
            lease.release()

    await asyncio.gather(*(worker(s) for s in range(60)))
    assert worst <= budget
    assert gate.stats.max_committed_mb <= budget
    assert gate.stats.critical_evictions == 0
    assert gate.stats.evictions > 0  # the budget really was contended
    assert sum(e.estimated_mb for e in map(gate.entry, gate.residents())) == gate.committed_mb


async def test_manual_evict_and_snapshot(clock: FakeClock) -> None:
    gate = make_gate(clock, budget=1000)
    held = await gate.acquire("emb", 300, Priority.IMPORTANT)
    with pytest.raises(ValueError, match="serving a request"):
        await gate.evict("emb")
    held.release()
    snap = gate.snapshot()
    assert snap["source"] == "budget" and snap["budget_mb"] == 1000
    assert snap["residents"][0]["model_id"] == "emb"
    assert snap["residents"][0]["priority_name"] == "IMPORTANT"
    assert await gate.evict("emb") is True
    assert await gate.evict("emb") is False
    events = [h["event"] for h in gate.snapshot()["history"]]
    assert events == ["admit", "evict"]
    assert gate.snapshot()["committed_mb"] == 0


async def test_a_failing_checkpoint_still_frees_memory_and_is_recorded(clock: FakeClock) -> None:
    gate = make_gate(clock, budget=1000)

    def bad_checkpoint() -> None:
        raise OSError("disk full")

    job = await gate.acquire(
        "job", 800, Priority.NICE, category="queue", on_checkpoint=bad_checkpoint
    )
    await gate.acquire("user", 400, Priority.IMPORTANT)
    assert job.preempted
    assert "checkpoint_failed" in [h["event"] for h in gate.history()]


async def test_the_most_urgent_waiter_gets_freed_room_first(clock: FakeClock) -> None:
    gate = make_gate(clock, budget=1000)
    gate.acquire_timeout_s = 5
    big = await gate.acquire("big", 1000, Priority.NICE)
    background = asyncio.create_task(gate.acquire("bg", 600, Priority.BACKGROUND))
    await asyncio.sleep(0)
    urgent = asyncio.create_task(gate.acquire("turn", 600, Priority.IMPORTANT))
    await asyncio.sleep(0)
    assert not background.done() and not urgent.done()
    big.release()
    turn = await urgent
    for _ in range(5):
        await asyncio.sleep(0)
    assert not background.done()  # the working "turn" model cannot be evicted for it
    turn.release()
    (await background).release()
    assert gate.is_resident("bg") and not gate.is_resident("turn")
