"""Consolidation as the running bot's queue work: the TTL sweep, the pass, and when to run.

:func:`consolidation_work` is resumable work for the scheduler's gate (``run_resumable``):
its ``state`` names the pass and the owners already done, so a pass the gate evicts carries
on where it stopped, in the same pass file. :func:`sweep_expired` deprecates records whose
absolute TTL has passed (their history keeps them). :func:`consolidation_due` is the
companion-shaped trigger: enough new records of one person and enough quiet time since
their newest (the peers' 50 items / 8 hours).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Protocol

from familiars.llm import ChatModel
from familiars.memory._consolidation_passes import (
    PassLog,
    last_pass,
    load_pass,
    new_pass,
    save_pass,
)
from familiars.memory._consolidator import (
    DEFAULT_MAX_SHARE,
    ConsolidationReport,
    Consolidator,
    can_merge,
    owner_key,
)
from familiars.memory._dialog_trees import DialogTrees
from familiars.memory._promotion import promote_core_profile, promote_episodes
from familiars.memory._records import is_expired, parse_ts, utcnow
from familiars.memory._store import MemoryStore
from familiars.memory._writer._dedupe import Vectors

logger = logging.getLogger(__name__)

#: A person's new records before a pass is worth running, and the quiet time after them.
DUE_NEW_RECORDS = 50
DUE_QUIET = timedelta(hours=8)


#: One pass at a time per store: the nightly job, the when-due job, a retry and a pass run by
#: hand are separate callers, and two passes planned from the same records would merge the
#: same sources twice.
_PASS_LOCKS: weakref.WeakKeyDictionary[MemoryStore, asyncio.Lock] = weakref.WeakKeyDictionary()


def pass_lock(store: MemoryStore) -> asyncio.Lock:
    """The lock a pass over ``store`` holds from its first read to its last write."""
    lock = _PASS_LOCKS.get(store)
    if lock is None:
        lock = _PASS_LOCKS[store] = asyncio.Lock()
    return lock


class PreemptibleLease(Protocol):
    """What the gate's lease offers queue work (declared here: memory never imports the
    scheduler)."""

    def raise_if_preempted(self) -> None: ...


class NeverPreempted:
    """The lease of a pass run by hand (no gate): never evicted."""

    def raise_if_preempted(self) -> None:
        return None


class ConsolidationWork(Protocol):
    """The scheduler's ``ResumableWork`` shape: progress in ``state``, checked between
    owners against the lease."""

    async def __call__(self, state: dict[str, Any], lease: PreemptibleLease) -> None: ...


async def sweep_expired(store: MemoryStore, now: datetime) -> list[str]:
    """Deprecate every record whose absolute TTL has passed; their ids."""
    expired = []
    for rec in await store.list(live_only=False):
        if rec.deprecated or not rec.ttl or rec.ttl.get("kind") != "absolute":
            continue
        if is_expired(rec, now=now):
            await store.deprecate(rec.id)
            expired.append(rec.id)
    if expired:
        logger.info("TTL sweep: %d records expired", len(expired))
    return expired


def consolidation_work(
    store: MemoryStore,
    vectors: Vectors,
    *,
    model: ChatModel | None = None,
    max_share: float = DEFAULT_MAX_SHARE,
    clock: Callable[[], datetime] = utcnow,
    trees: DialogTrees | None = None,
    threshold: float = 0.85,
    reports: list[ConsolidationReport] | None = None,
) -> ConsolidationWork:
    """The pass as resumable work: sweep, episodes (with ``trees``), then one owner at a
    time (merge, then that person's core profile), checkpointed. Each owner's merge report
    is added to ``reports`` when given (``familiars memory consolidate`` shows them)."""
    cons = Consolidator(store, vectors, model=model, max_share=max_share, threshold=threshold)

    async def work(state: dict[str, Any], lease: PreemptibleLease) -> None:
        async with pass_lock(store):  # a second caller waits, then finds nothing to redo
            await one_pass(state, lease)

    async def one_pass(state: dict[str, Any], lease: PreemptibleLease) -> None:
        now = clock()
        if state.get("pass_id"):
            log = load_pass(store.state_home, str(state["pass_id"]))
        else:
            log = new_pass(store.state_home, now, max_share=max_share)
            state.update(pass_id=log.pass_id, done=[])
            save_pass(store.state_home, log)
        if not state.get("swept"):
            log.expired = await sweep_expired(store, now)
            if trees is not None:
                log.episodes = await promote_episodes(store, trees, today=now.date().isoformat())
            state["swept"] = True
            save_pass(store.state_home, log)
        for key in await _owners(store, now):
            if key in state["done"]:
                continue
            report = await cons.run(now=now, owners={key}, log=log)
            if reports is not None:
                reports.append(report)
            await _core(store, key, log)
            state["done"].append(key)
            lease.raise_if_preempted()
        log.finished_at = clock().isoformat(timespec="seconds")
        save_pass(store.state_home, log)
        logger.info("consolidation pass %s: %d merges", log.pass_id, len(log.merges))

    return work


async def _core(store: MemoryStore, key: str, log: PassLog) -> None:
    if not key.startswith("user:"):
        return
    made, replaced = await promote_core_profile(store, key.removeprefix("user:"))
    if made is not None:
        log.cores.append({"created": made, "replaced": replaced, "owner": key})
        save_pass(store.state_home, log)


async def _owners(store: MemoryStore, now: datetime) -> list[str]:
    return sorted({owner_key(r.owner()) for r in await store.list(now=now) if can_merge(r)})


async def consolidation_due(
    store: MemoryStore,
    now: datetime,
    *,
    min_new: int = DUE_NEW_RECORDS,
    quiet: timedelta = DUE_QUIET,
) -> bool:
    """Some person has ``min_new`` records since the last pass and has been quiet ``quiet``."""
    last = last_pass(store.state_home)
    since = parse_ts(last.started_at) if last is not None else None
    new: dict[str, list[datetime]] = {}
    for rec in await store.list(now=now):
        ts = parse_ts(rec.ts)
        if ts is None or (since is not None and ts <= since) or not can_merge(rec):
            continue
        new.setdefault(owner_key(rec.owner()), []).append(ts)
    return any(len(stamps) >= min_new and now - max(stamps) >= quiet for stamps in new.values())


__all__ = ["consolidation_due", "consolidation_work", "sweep_expired"]
