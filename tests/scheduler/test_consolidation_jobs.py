"""Issue 25, wired: the scheduler runs the consolidation pass (queue work through the gate,
resumed after eviction) when a person has said enough and gone quiet, and the TTL sweep;
``scheduler/jobs.json`` tells ``familiars status`` the jobs and their next run."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from familiars.config import load_settings
from familiars.memory import (
    EmbedderVectors,
    MemoryStore,
    consolidation_due,
    consolidation_work,
    last_pass,
    make_record,
    sweep_expired,
)
from familiars.scheduler import ProactiveMessage, Scheduler, VRAMGate, jobs_snapshot_path
from tests.fakes import HashEmbedder

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


class Sender:
    async def send_proactive(self, message: ProactiveMessage) -> None:
        return None


@pytest.fixture
async def store(workspace: Path) -> AsyncIterator[MemoryStore]:
    async with MemoryStore(workspace) as s:
        yield s


def scheduler(workspace: Path, store: MemoryStore, gate: VRAMGate | None) -> Scheduler:
    settings = load_settings(None, workspace=workspace, scheduler={"tick_s": 3600})
    vectors = EmbedderVectors(HashEmbedder(dim=256))
    return Scheduler(
        settings,
        store,
        Sender(),
        clock=lambda: NOW,
        gate=gate,
        consolidate=consolidation_work(store, vectors, max_share=1.0, clock=lambda: NOW),
        sweep=lambda now: sweep_expired(store, now),
        consolidation_due=lambda now: consolidation_due(store, now, min_new=4),
    )


async def add(store: MemoryStore, text: str, **kw: Any) -> None:
    rec = make_record(
        text, scope="user", category="preference", user_key="ria", ts="2026-11-30T20:00:00Z", **kw
    )
    await store.append(rec, dedupe=False)


async def test_jobs_are_scheduled_and_shown_with_their_next_run(
    workspace: Path, store: MemoryStore
) -> None:
    sched = scheduler(workspace, store, VRAMGate(1000, acquire_timeout_s=1))
    await sched.start()
    try:
        wanted = {"consolidation", "consolidation_when_due", "ttl_sweep", "jobs_snapshot"}
        assert wanted <= set(sched.jobs.job_ids())
        snap = json.loads(jobs_snapshot_path(workspace).read_text())
        shown = {j["id"]: j["next_run"] for j in snap["jobs"]}
        assert wanted <= set(shown) and all(shown[j] for j in wanted)
    finally:
        await sched.stop()


async def test_a_due_pass_runs_through_the_gate_and_is_kept(
    workspace: Path, store: MemoryStore
) -> None:
    sched = scheduler(workspace, store, VRAMGate(1000, acquire_timeout_s=1))
    await add(store, "The user likes green tea")
    await add(store, "The user loves green tea")
    await add(store, "Ria plays tennis")
    assert await sched._consolidate_if_due() == "not due"  # 3 new, 4 needed
    expiry = {"kind": "absolute", "expires_at": (NOW - timedelta(hours=1)).isoformat()}
    await add(store, "The user is at the dentist today", ttl=expiry)
    await add(store, "Ria plays table tennis")
    assert await sched._consolidate_if_due() == "done"
    log = last_pass(workspace)
    assert log is not None and len(log.merges) == 1 and len(log.expired) == 1
    assert not (workspace / "scheduler" / "checkpoints" / "consolidation.json").exists()
    live = await store.list(now=NOW)
    texts = sorted(r.content for r in live if "core-profile" not in r.tags)
    assert texts == ["Ria plays table tennis", "Ria plays tennis", "The user loves green tea"]
    (core,) = [r for r in live if "core-profile" in r.tags]  # the person's few lines
    assert log.cores[0]["created"] == core.id and len(core.derived_from) == 3


async def test_two_passes_started_together_run_one_after_the_other(
    workspace: Path, store: MemoryStore
) -> None:
    """The nightly job, the when-due job and a retry are three jobs: started together, the
    second pass waits for the first (it then finds nothing to merge) instead of merging the
    same sources again from the same snapshot."""
    import asyncio

    from familiars.memory import load_pass, pass_ids

    sched = scheduler(workspace, store, VRAMGate(1000, acquire_timeout_s=5))
    for text in ("The user likes green tea", "The user loves green tea", "Ria plays tennis"):
        await add(store, text)
    await add(store, "Ria plays table tennis")
    await asyncio.gather(sched.run_consolidation(), sched._consolidate_if_due())
    merges = [m for p in pass_ids(workspace) for m in load_pass(workspace, p).merges]
    assert len(merges) == 1
    live = [r.content for r in await store.list(now=NOW) if "core-profile" not in r.tags]
    assert sum("green tea" in text for text in live) == 1


async def test_a_full_disk_at_stop_does_not_stop_the_stop(
    workspace: Path, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The jobs snapshot written at stop is status only: a disk error there is logged, and
    the rest of the stop (the gate's snapshot) still runs."""
    import familiars.scheduler._jobs as jobs_module

    sched = scheduler(workspace, store, VRAMGate(1000, acquire_timeout_s=1))
    await sched.start()
    saved: list[bool] = []
    monkeypatch.setattr(sched, "write_gate_snapshot", lambda: saved.append(True))

    def full(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(jobs_module, "atomic_write_json", full)
    await sched.stop()
    assert saved == [True]
