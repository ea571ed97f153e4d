"""Forgetting a source forgets its words in every entry derived from it (issue 25).

A consolidated record (``derived_from`` its sources) may hold a forgotten source's words: its
text, a quote, a tag. :func:`rederive_after_forget` runs inside the one
:class:`~familiars.memory.Forgetter` (never a second forgetting road): each record derived
from a forgotten one is itself forgotten, and made again from the sources that remain (two
or more: an offline, extractive merge; one: that source is live again), or dropped when none
remains. Derived-from-derived entries follow, until nothing derives from a forgotten id.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from familiars.memory._consolidator import merged_record, plan_of
from familiars.memory._errors import RecordNotFoundError
from familiars.memory._promotion import CORE_TAG, EPISODE_TAG, promote_core_profile
from familiars.memory._records import MemoryRecord
from familiars.memory._store import MemoryStore

logger = logging.getLogger(__name__)


@dataclass
class Rederivation:
    """What a forget did to derived entries: old id -> the entry that now stands for it,
    and the ids dropped with nothing left to derive them from; ``texts`` are words to scrub."""

    rederived: dict[str, str] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)
    forgotten: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)


async def rederive_after_forget(store: MemoryStore, forgotten: Sequence[str]) -> Rederivation:
    out = Rederivation()
    gone = set(forgotten)
    while True:
        affected = [
            r
            for r in await store.list(live_only=False)
            if r.id not in gone and gone.intersection(r.derived_from)
        ]
        if not affected:
            return out
        for rec in affected:
            await _redo(store, rec, gone, out)


async def _redo(store: MemoryStore, rec: MemoryRecord, gone: set[str], out: Rederivation) -> None:
    remaining = await _remaining(store, rec, gone)
    await store.forget(rec.id)
    gone.add(rec.id)
    out.forgotten.append(rec.id)
    if rec.content not in {r.content for r in remaining}:
        out.texts.append(rec.content)
    if CORE_TAG in rec.tags and rec.user_key and not rec.deprecated:
        again_id, _ = await promote_core_profile(store, rec.user_key)
        if again_id is None:
            out.dropped.append(rec.id)
        else:
            out.rederived[rec.id] = again_id
    elif rec.deprecated or not remaining or EPISODE_TAG in rec.tags:
        out.dropped.append(rec.id)  # an episode is cut again from the turns left next pass
    elif len(remaining) == 1:
        await store.modify(remaining[0].id, deprecated=False)
        out.rederived[rec.id] = remaining[0].id
    else:
        again = await store.append(merged_record(plan_of(remaining)), dedupe=False)
        out.rederived[rec.id] = again.id
    logger.info("forget: derived %s -> %s", rec.id, out.rederived.get(rec.id, "dropped"))


async def _remaining(store: MemoryStore, rec: MemoryRecord, gone: set[str]) -> list[MemoryRecord]:
    found = []
    for source_id in rec.derived_from:
        if source_id in gone or source_id.startswith("node:"):
            continue
        try:
            found.append(await store.get(source_id))
        except RecordNotFoundError:
            continue
    return found


__all__ = ["Rederivation", "rederive_after_forget"]
