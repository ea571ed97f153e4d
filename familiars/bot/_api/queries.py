"""HTTP onto memory's read-only index view: pagination cursors and the record shape.

The queries themselves are memory's (:class:`familiars.memory.IndexView`, with a
:class:`~familiars.memory.RecordFilter`); ``IndexReader`` is the name the bot face exports.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import datetime
from typing import Any

from familiars.memory import RECORD_ID_RE, IndexView, MemoryRecord, RecordFilter, is_expired, utcnow

IndexReader = IndexView

__all__ = [
    "CURSOR_RE",
    "CursorError",
    "IndexReader",
    "RecordFilter",
    "decode_cursor",
    "encode_cursor",
    "record_out",
]

logger = logging.getLogger(__name__)

#: A cursor names the last record of the previous page: ``c1.<record id>``. Its pattern is
#: part of the OpenAPI document, so every cursor the schema allows is one the server reads.
CURSOR_PREFIX = "c1."
CURSOR_RE = re.compile(r"^c1\.m_[A-Za-z0-9_-]{1,64}$")


class CursorError(ValueError):
    """A pagination cursor this server did not hand out."""


def encode_cursor(record_id: str) -> str:
    return CURSOR_PREFIX + record_id


def decode_cursor(cursor: str) -> str:
    """The record id a cursor points after; :class:`CursorError` when it is not ours."""
    if not CURSOR_RE.fullmatch(cursor):
        raise CursorError("malformed cursor")
    record_id = cursor[len(CURSOR_PREFIX) :]
    if not RECORD_ID_RE.fullmatch(record_id):
        raise CursorError("malformed cursor")
    return record_id


def record_out(rec: MemoryRecord, path: str, now: datetime | None = None) -> dict[str, Any]:
    """A record as the API shows it."""
    return {
        "id": rec.id,
        "scope": rec.scope,
        "category": rec.category,
        "ts": rec.ts,
        "content": rec.content,
        "tags": list(rec.tags),
        "salience": rec.salience,
        "ttl": rec.ttl,
        "supersedes": rec.supersedes,
        "deprecated": rec.deprecated,
        "expired": is_expired(rec, now=now or utcnow()),
        "pinned": rec.pinned,
        "epistemic_status": rec.epistemic_status,
        "access_count": rec.access_count,
        "last_accessed_ts": rec.last_accessed_ts,
        "user_key": rec.user_key,
        "agent_id": rec.agent_id if rec.scope != "user" else None,
        "dialogue_id": rec.dialogue_id,
        "path": path,
        "extra": json.loads(json.dumps(rec.extra, default=str)),
    }
