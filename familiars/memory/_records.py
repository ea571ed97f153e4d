"""Memory records: the scope x category matrix (§5.2), the record (§5.3.2) and TTL (§5.3.3)."""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from familiars.memory._errors import InvalidCellError, InvalidIdError

SCOPES: tuple[str, ...] = ("user", "identity", "dialogue", "ephemeral")

CATEGORIES: tuple[str, ...] = (
    "profile",
    "preference",
    "relation",
    "knowledge",
    "event",
    "state",
    "procedure",
    "directive",
)

VALID_CELLS: frozenset[tuple[str, str]] = frozenset(
    {
        ("user", "profile"),
        ("user", "preference"),
        ("user", "relation"),
        ("user", "knowledge"),
        ("user", "event"),
        ("identity", "preference"),
        ("identity", "procedure"),
        ("identity", "directive"),
        ("dialogue", "preference"),
        ("dialogue", "relation"),
        ("dialogue", "knowledge"),
        ("dialogue", "event"),
        ("dialogue", "state"),
        ("dialogue", "directive"),
        ("ephemeral", "state"),
        ("ephemeral", "directive"),
    }
)

SCHEMA_VERSION = 2
EPISTEMIC_STATUSES: tuple[str, ...] = ("asserted", "inferred", "speculative")


def valid_categories(scope: str) -> list[str]:
    """Categories allowed in ``scope``, in the canonical order of CATEGORIES."""
    return [c for c in CATEGORIES if (scope, c) in VALID_CELLS]


def check_cell(scope: str, category: str) -> None:
    if (scope, category) not in VALID_CELLS:
        raise InvalidCellError(scope, category, valid_categories(scope))


_id_lock = threading.Lock()
_last_ms = 0
_seq = 0


def new_id() -> str:
    """``m_`` + 12 hex digits of milliseconds + 4 of a counter + 8 random: time-ordered, and
    unique for far more than tens of thousands of records per workspace."""
    global _last_ms, _seq
    with _id_lock:
        ms = int(time.time() * 1000)
        if ms <= _last_ms:
            _seq += 1
            if _seq > 0xFFFF:
                _last_ms += 1
                _seq = 0
            ms = _last_ms
        else:
            _last_ms = ms
            _seq = 0
        seq = _seq
    return f"m_{ms:012x}{seq:04x}{os.urandom(4).hex()}"


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso_now() -> str:
    return utcnow().isoformat(timespec="seconds")


def parse_ts(value: str | None) -> datetime | None:
    """An ISO 8601 string as an aware datetime (naive ones are taken as UTC); None if unreadable."""
    if not value:
        return None
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


@dataclass
class MemoryRecord:
    """One memory entry. Field names and defaults follow §5.3.2 exactly.

    ``extra`` holds JSON keys this version does not know (``open_loop``, owner keys written by
    later versions, ...) so that a rewrite never drops them. Owner fields (``user_key``,
    ``agent_id``, ``dialogue_id``) are not written to the entry: the file's path carries them.
    """

    id: str
    scope: str
    category: str = "knowledge"
    ts: str = ""
    content: str = ""
    tags: list[str] = field(default_factory=list)
    salience: float = 0.5
    ttl: dict[str, Any] | None = None
    supersedes: str | None = None
    deprecated: bool = False
    schema_version: int = SCHEMA_VERSION
    evidence: dict[str, Any] | None = None
    epistemic_status: str = "asserted"
    last_accessed_ts: str | None = None
    access_count: int = 0
    pinned: bool = False
    derived_from: list[str] = field(default_factory=list)
    source_quote: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    # Owner of the record, derived from the file it lives in (never serialised in the entry).
    user_key: str | None = field(default=None, compare=False)
    agent_id: str = field(default="agent_0", compare=False)
    dialogue_id: str | None = field(default=None, compare=False)

    @property
    def open_loop(self) -> dict[str, Any] | None:
        loop = self.extra.get("open_loop")
        return loop if isinstance(loop, dict) else None

    @property
    def cell(self) -> tuple[str, str]:
        return (self.scope, self.category)

    def owner(self) -> tuple[str | None, str | None, str | None]:
        """(user_key, agent_id, dialogue_id) as far as the scope uses them."""
        if self.scope == "user":
            return (self.user_key, None, None)
        if self.scope == "identity":
            return (None, self.agent_id, None)
        return (None, self.agent_id, self.dialogue_id)

    def replace(self, **changes: Any) -> MemoryRecord:
        if changes:
            return dataclasses.replace(self, **changes)
        # A plain copy (every listing hands out one per record): the same shallow copy as
        # dataclasses.replace, without running __init__ again (5 us -> 0.5 us a record).
        copy = object.__new__(type(self))
        copy.__dict__.update(self.__dict__)
        return copy


# JSON key order of the on-disk header: §5.3.1 shows the first ten, §5.3.2 adds the rest.
ENTRY_FIELDS: tuple[str, ...] = (
    "id",
    "scope",
    "category",
    "ts",
    "tags",
    "salience",
    "ttl",
    "supersedes",
    "deprecated",
    "schema_version",
    "evidence",
    "epistemic_status",
    "last_accessed_ts",
    "access_count",
    "pinned",
    "derived_from",
    "source_quote",
)


def is_expired(
    rec: MemoryRecord,
    *,
    now: datetime | None = None,
    turn_counter: int | None = None,
    session_active: bool = True,
    dialogue_active: bool = True,
) -> bool:
    """§5.3.3. A TTL this version cannot evaluate (missing fields, no turn counter given) is
    treated as not expired: forgetting is never done on a guess."""
    ttl = rec.ttl
    if not ttl:
        return False
    kind = ttl.get("kind")
    if kind == "absolute":
        expires = parse_ts(ttl.get("expires_at"))
        if expires is None:
            return False
        return (now or utcnow()) >= expires
    if kind == "turns":
        try:
            n = int(ttl["turns"])
            created = int(ttl["created_turn"])
        except (KeyError, TypeError, ValueError):
            return False
        if turn_counter is None:
            return False
        return (turn_counter - created) >= n
    if kind == "scope":
        scope = ttl.get("scope")
        if scope == "session":
            return not session_active
        if scope == "dialogue":
            return not dialogue_active
    return False


def is_live(rec: MemoryRecord, **ctx: Any) -> bool:
    """§5.8.2: not deprecated and not expired. A record with no TTL never expires: the
    offline writer's passes ask this of each of the person's records, several times a turn."""
    if rec.deprecated:
        return False
    return not rec.ttl or not is_expired(rec, **ctx)


def make_record(
    content: str,
    *,
    scope: str,
    category: str,
    user_key: str | None = None,
    agent_id: str = "agent_0",
    dialogue_id: str | None = None,
    **fields: Any,
) -> MemoryRecord:
    """A new record with a fresh id, owner set as the scope needs it."""
    if scope == "user" and user_key is None:
        raise InvalidIdError("user_key", None, "user scope needs a user key")
    return MemoryRecord(
        id=fields.pop("id", None) or new_id(),
        scope=scope,
        category=category,
        content=content,
        user_key=user_key,
        agent_id=agent_id,
        dialogue_id=dialogue_id,
        **fields,
    )
