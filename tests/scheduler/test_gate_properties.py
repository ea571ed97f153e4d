"""Property test: any sequence of acquires, releases, reclamations and manual evictions keeps
every gate invariant."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from familiars.scheduler import GateTimeoutError, Lease, VRAMGate, boost_thread_priority

MODELS = {  # model_id: (mb, base priority, category)
    "stt": (200.0, 1, "sync"),
    "emb": (300.0, 2, "sync"),
    "rerank": (250.0, 2, "sync"),
    "writer": (400.0, 3, "queue"),
    "ocr": (350.0, 3, "sync"),
    "index": (500.0, 4, "queue"),
}
BUDGET = 1000.0

op = st.one_of(
    st.tuples(st.just("acquire"), st.sampled_from(sorted(MODELS)), st.integers(1, 4)),
    st.tuples(st.just("release"), st.integers(0, 50), st.just(0)),
    st.tuples(st.just("reclaim"), st.floats(0, 2000), st.just(0)),
    st.tuples(st.just("tick"), st.floats(0, 500), st.just(0)),
)


class Clock:
    t = 0.0

    def __call__(self) -> float:
        return self.t


async def play(ops: list[tuple[str, object, int]]) -> None:
    clock = Clock()
    gate = VRAMGate(BUDGET, clock=clock, idle_evict_sec=600, acquire_timeout_s=0)
    held: list[Lease] = []
    violations: list[str] = []

    def on_evict(model_id: str) -> None:
        mine = [lease for lease in held if lease.model_id == model_id and not lease.released]
        if MODELS[model_id][1] == 1 or any(lease.priority == 1 for lease in mine):
            violations.append(f"CRITICAL {model_id} evicted")
        if MODELS[model_id][2] == "sync" and mine:
            violations.append(f"working sync {model_id} evicted")

    for kind, arg, prio in ops:
        if kind == "acquire":
            model_id = str(arg)
            mb, base, category = MODELS[model_id]
            try:
                with boost_thread_priority(prio):  # sometimes a person is waiting
                    lease = await gate.acquire(
                        model_id,
                        mb,
                        base,
                        category=category,  # type: ignore[arg-type]
                        on_evict=lambda m=model_id: on_evict(m),
                    )
            except GateTimeoutError:
                continue
            held.append(lease)
        elif kind == "release" and held:
            held.pop(int(arg) % len(held)).release()  # type: ignore[call-overload]
        elif kind == "reclaim":
            await gate.reclaim_idle(clock.t + float(arg))  # type: ignore[arg-type]
        elif kind == "tick":
            clock.t += float(arg)  # type: ignore[arg-type]
        residents = [gate.entry(m) for m in gate.residents()]
        total = sum(e.estimated_mb for e in residents if e is not None)
        assert gate.committed_mb <= BUDGET + 1e-6
        assert abs(total - gate.committed_mb) < 1e-6
        for lease in held:
            if not lease.released and not lease.preempted:
                assert gate.is_resident(lease.model_id), "a live lease lost its model"
    assert violations == []
    assert gate.stats.critical_evictions == 0


@settings(max_examples=150, deadline=None)
@given(st.lists(op, max_size=60))
def test_gate_invariants_hold_for_any_sequence(ops: list[tuple[str, object, int]]) -> None:
    asyncio.run(play(ops))
