"""What the writer would have remembered of a replayed conversation, as records recalled next to
its turns (issue 15, "index-time meaning").

:func:`written_records` runs the offline writer (the one that works without a model) over
every turn as its speaker's own message, in order and at the turn's time, and turns each
write into a user-scope record of that speaker whose ``evidence`` points at the turn's node:
the reader then collapses a recalled record with the turn it came from, and the benchmark
counts a recalled record as its turn (``evidence["dia_id"]``). A record the writer replaces
later (a changed state) is dropped, as the real writer would deprecate it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from familiars.memory import MemoryRecord, make_record, offline_writes

logger = logging.getLogger(__name__)


def written_records(
    turns: Sequence[dict[str, Any]], node_ids: Sequence[int], *, agent_id: str, dialogue_id: str
) -> list[MemoryRecord]:
    """The records the offline writer keeps from ``turns`` (``node_ids`` in the same order)."""
    kept: dict[str, list[MemoryRecord]] = {}
    for turn, node_id in zip(turns, node_ids, strict=True):
        owner = str(turn["speaker"]).lower()
        mine = kept.setdefault(owner, [])
        now = datetime.fromtimestamp(turn["timestamp"], UTC)
        out = offline_writes(str(turn["content"]), existing=mine, now=now)
        for op in out.writes:
            if op.op == "skip" or op.scope != "user" or not op.entry.content.strip():
                continue
            if op.entry.supersedes_id:
                mine[:] = [r for r in mine if r.id != op.entry.supersedes_id]
            mine.append(
                make_record(
                    op.entry.content, scope="user", category=op.category, user_key=owner,
                    agent_id=agent_id, tags=list(op.entry.tags), salience=op.entry.salience,
                    ts=now.isoformat(), ttl=op.entry.ttl,
                    evidence={"dialogue_id": dialogue_id, "turn_id": node_id,
                              "dia_id": turn["dia_id"]},
                )
            )  # fmt: skip
    records = [r for mine in kept.values() for r in mine]
    logger.debug("the writer kept %d records of %d turns", len(records), len(turns))
    return records
