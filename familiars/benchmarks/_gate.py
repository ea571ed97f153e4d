"""``familiars bench gate``: many tasks contending for a budget that fits a third of the models.

Every acquire is checked against the budget (``overcommits`` must be 0) and every eviction
against CRITICAL (``critical_evictions`` must be 0). The acquire overhead (``p50_us`` / ``p95_us``:
the time inside ``acquire`` less the time spent waiting for another holder to free memory,
which no gate can avoid) is set next to a bare ``asyncio.Lock`` acquire/release round trip
measured by the same number of tasks in the same run; ``with_wait_*`` include the waiting.
"""

from __future__ import annotations

import asyncio
import functools
import random
import time
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from familiars.scheduler import Category, Priority, VRAMGate
from familiars.terminal import print_json, print_table, want_json


@dataclass(frozen=True)
class _Model:
    model_id: str
    mb: float
    priority: int
    category: Category


def _models(rng: random.Random, count: int) -> list[_Model]:
    models = [_Model("critical_stt", 300.0, Priority.CRITICAL, "sync")]
    for i in range(1, count):
        priority = (Priority.IMPORTANT, Priority.NICE, Priority.BACKGROUND)[i % 3]
        category: Category = "sync" if priority == Priority.IMPORTANT else "queue"
        models.append(
            _Model(f"model_{i}", float(rng.choice([300, 500, 800, 1200])), priority, category)
        )
    return models


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _run_gate(
    models: list[_Model], budget: float, cycles: int, tasks: int, seed: int
) -> dict[str, Any]:
    gate = VRAMGate(budget, idle_evict_sec=0, acquire_timeout_s=60.0)
    critical = {m.model_id for m in models if m.priority == Priority.CRITICAL}
    evicted: list[str] = []
    latencies: list[float] = []
    overheads: list[float] = []
    overcommits = 0
    per_task = cycles // tasks
    checkpoints: list[int] = []

    def checkpoint() -> None:
        checkpoints.append(1)

    async def worker(n: int) -> None:
        nonlocal overcommits
        rng = random.Random(seed * 1000 + n)
        for _ in range(per_task):
            model = rng.choice(models)
            start = time.perf_counter_ns()
            lease = await gate.acquire(
                model.model_id,
                model.mb,
                model.priority,
                category=model.category,
                on_evict=functools.partial(evicted.append, model.model_id),
                on_checkpoint=checkpoint if model.category == "queue" else None,
            )
            total_us = (time.perf_counter_ns() - start) / 1000.0
            latencies.append(total_us)
            overheads.append(total_us - lease.waited_s * 1e6)
            if gate.committed_mb > gate.budget_mb + 1e-6:
                overcommits += 1
            await asyncio.sleep(0)  # hold the model across one loop turn: real contention
            lease.release()

    await asyncio.gather(*(worker(n) for n in range(tasks)))
    return {
        "latencies": latencies,
        "overheads": overheads,
        "overcommits": overcommits,
        "critical_evictions": sum(1 for m in evicted if m in critical),
        "stats": gate.stats.as_dict(),
    }


async def _run_lock(cycles: int, tasks: int) -> list[float]:
    lock = asyncio.Lock()
    latencies: list[float] = []
    per_task = cycles // tasks

    async def worker() -> None:
        for _ in range(per_task):
            start = time.perf_counter_ns()
            async with lock:
                pass
            latencies.append((time.perf_counter_ns() - start) / 1000.0)
            await asyncio.sleep(0)

    await asyncio.gather(*(worker() for _ in range(tasks)))
    return latencies


async def _run_uncontended(rounds: int) -> dict[str, float]:
    """One task, no waiting: acquire+release of a resident model (hit) and of a model that
    must evict another to fit (miss), next to a bare lock round trip."""
    gate = VRAMGate(1000.0, idle_evict_sec=0)
    lock = asyncio.Lock()
    hits, misses, locks = [], [], []
    (await gate.acquire("hot", 100, Priority.IMPORTANT)).release()
    for i in range(rounds):
        start = time.perf_counter_ns()
        (await gate.acquire("hot", 100, Priority.IMPORTANT)).release()
        hits.append((time.perf_counter_ns() - start) / 1000.0)
        start = time.perf_counter_ns()
        (await gate.acquire(f"cold_{i % 8}", 600, Priority.NICE)).release()
        misses.append((time.perf_counter_ns() - start) / 1000.0)
        start = time.perf_counter_ns()
        async with lock:
            pass
        locks.append((time.perf_counter_ns() - start) / 1000.0)
    return {
        "uncontended_hit_p50_us": round(_percentile(hits, 0.5), 2),
        "uncontended_miss_evict_p50_us": round(_percentile(misses, 0.5), 2),
        "uncontended_lock_p50_us": round(_percentile(locks, 0.5), 2),
    }


def run(
    cycles: int = 10_000, tasks: int = 50, model_count: int = 12, seed: int = 0
) -> dict[str, Any]:
    rng = random.Random(seed)
    models = _models(rng, model_count)
    budget = sum(m.mb for m in models) / 3.0
    lock_lat = asyncio.run(_run_lock(cycles, tasks))
    gate_run = asyncio.run(_run_gate(models, budget, cycles, tasks, seed))
    lat = gate_run["latencies"]
    overhead = gate_run["overheads"]
    p95 = _percentile(overhead, 0.95)
    lock_p95 = _percentile(lock_lat, 0.95)
    stats = gate_run["stats"]
    return {
        "cycles": len(lat),
        "tasks": tasks,
        "models": len(models),
        "budget_mb": round(budget, 1),
        "models_total_mb": round(sum(m.mb for m in models), 1),
        "overcommits": gate_run["overcommits"],
        "max_committed_mb": round(stats["max_committed_mb"], 1),
        "critical_evictions": gate_run["critical_evictions"],
        "evictions": stats["evictions"],
        "checkpoints": stats["checkpoints"],
        "waits": stats["waits"],
        "timeouts": stats["timeouts"],
        "p50_us": round(_percentile(overhead, 0.50), 2),
        "p95_us": round(p95, 2),
        "with_wait_p50_us": round(_percentile(lat, 0.50), 2),
        "with_wait_p95_us": round(_percentile(lat, 0.95), 2),
        "lock_p50_us": round(_percentile(lock_lat, 0.50), 2),
        "lock_p95_us": round(lock_p95, 2),
        "ratio_p95": round(p95 / lock_p95, 2) if lock_p95 else None,
        **asyncio.run(_run_uncontended(min(cycles, 5000))),
    }


def command(
    ctx: typer.Context,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    cycles: Annotated[int, typer.Option(min=1, help="Acquire/release cycles in all.")] = 10_000,
    tasks: Annotated[int, typer.Option(min=1, help="Concurrent asyncio tasks.")] = 50,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
) -> None:
    """Gate acquire latency under contention vs a bare asyncio.Lock; over-commit and CRITICAL
    eviction counts (both must be 0)."""
    result = run(cycles=cycles, tasks=tasks, seed=seed)
    if want_json(ctx, json_output):
        print_json(result)
        return
    print_table("bench gate", ["figure", "value"], [[k, v] for k, v in result.items()])
