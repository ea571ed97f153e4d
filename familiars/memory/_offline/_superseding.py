"""The one write that replaces a kept record with what the person now says of it."""

from __future__ import annotations

from collections.abc import Sequence

from familiars.memory._records import MemoryRecord
from familiars.memory._writer._schema import WriteOp, WriterEntry


def superseding(
    rec: MemoryRecord, content: str, text: str, tags: Sequence[str] | None = None
) -> WriteOp:
    """An update of ``rec`` to ``content`` (its tags, or ``tags``), asserted, quoting the
    message ``text`` that said it: "Updated: ... (was ...)"."""
    entry = WriterEntry(
        content=content,
        tags=list(rec.tags if tags is None else tags),
        salience=rec.salience,
        epistemic_status="asserted",
        supersedes_id=rec.id,
        source_quote=[f"User message: '{text.strip()[:200]}'"],
    )
    return WriteOp(op="update", scope=rec.scope, category=rec.category, entry=entry)
