"""MemoryWriter (§5.7): after a reply, decide what of the turn is worth remembering and
apply it within the turn's budget (§5.7.3), without ever adding a second copy of a fact.

Pieces, in the order a turn meets them:

- :class:`TurnContext`: what the runtime hands over after the reply (JSON-serialisable, so
  the :class:`WriterQueue` can persist it and a crash loses no turn);
- :class:`MemoryWriter`: asks the chat model for a :class:`WriterOutput` (one repair attempt
  when it is malformed; writes outside VALID_CELLS are rejected one by one), or, with no model,
  the rule-based writer in :mod:`familiars.memory._offline_writer`;
- :func:`apply_writes`: greedy character budget, ``add`` / ``update`` / ``skip``,
  ``supersedes_id`` deprecates the old record, and duplicates are stopped here independently of
  the model (same normalised text, or cosine above ``dedupe_cosine``, in the same cell and
  owner);
- :class:`WriterStats` persisted to ``<workspace>/state/writer_status.json`` so that
  ``familiars memory writer-status`` in another process can read it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from familiars.llm import ChatMessage, ChatModel, LLMError, extract_json
from familiars.memory._atomic import atomic_write_text
from familiars.memory._embeddings import Embedder, content_hash
from familiars.memory._errors import MemoryError_
from familiars.memory._records import VALID_CELLS, MemoryRecord, iso_now, new_id, parse_ts, utcnow
from familiars.memory._store import MemoryStore, make_record, normalise_content

logger = logging.getLogger(__name__)

# --------------------------------------------------------------------------- WriterOutput (§5.7.2)

OpenLoopKind = Literal["promise", "request", "question", "reminder"]
_TAG_OK = re.compile(r"^[\w .:/+-]{1,64}$", re.UNICODE)


class OpenLoop(BaseModel):
    """Something left open in a conversation; the scheduler acts on it, a later turn closes it."""

    model_config = ConfigDict(extra="ignore")

    kind: OpenLoopKind
    due: str | None = None
    status: Literal["open", "done"] = "open"

    @field_validator("due")
    @classmethod
    def _iso_due(cls, value: str | None) -> str | None:
        if value in (None, ""):
            return None
        try:
            dt = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        except ValueError as exc:
            raise ValueError(f"due must be an ISO 8601 time, got {value!r}") from exc
        if dt.tzinfo is None:
            raise ValueError("due must carry a time zone offset")
        return dt.isoformat()


class WriterEntry(BaseModel):
    model_config = ConfigDict(extra="ignore")

    content: str = Field(default="", max_length=2000)
    tags: list[str] = Field(default_factory=list)
    salience: float = Field(default=0.5, ge=0.0, le=1.0)
    ttl: dict[str, Any] | None = None
    supersedes_id: str | None = None
    epistemic_status: Literal["asserted", "inferred", "speculative"] = "asserted"
    pinned: bool = False
    source_quote: list[str] = Field(default_factory=list)
    #: An extension of §5.7.2 (DESIGN.md): promise / request / question / reminder.
    open_loop: OpenLoop | None = None

    @field_validator("content")
    @classmethod
    def _strip(cls, value: str) -> str:
        return value.strip()

    @field_validator("tags", mode="before")
    @classmethod
    def _clean_tags(cls, value: Any) -> list[str]:
        """Tags the store would refuse are dropped rather than failing the whole write."""
        if not isinstance(value, list):
            return []
        tags = [str(t).strip()[:64] for t in value if isinstance(t, str | int | float)]
        return list(dict.fromkeys(t for t in tags if _TAG_OK.match(t)))

    @field_validator("source_quote", mode="before")
    @classmethod
    def _quotes(cls, value: Any) -> list[str]:
        if isinstance(value, str):
            return [value]
        return [str(v)[:500] for v in value] if isinstance(value, list) else []

    @field_validator("supersedes_id", mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        return None if value in ("", "null") else value

    @field_validator("ttl")
    @classmethod
    def _known_ttl(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is None:
            return None
        kind = value.get("kind")
        if kind == "absolute":
            stamp = str(value.get("expires_at", "")).replace("Z", "+00:00")
            try:
                datetime.fromisoformat(stamp)
            except ValueError as exc:
                raise ValueError("absolute ttl needs an ISO 8601 expires_at") from exc
        elif kind == "turns":
            if not isinstance(value.get("turns"), int) or value["turns"] < 1:
                raise ValueError("turns ttl needs a positive integer 'turns'")
        elif kind == "scope":
            if value.get("scope") not in ("session", "dialogue"):
                raise ValueError("scope ttl needs scope 'session' or 'dialogue'")
        else:
            raise ValueError("ttl kind must be absolute, turns or scope")
        return value


class WriteOp(BaseModel):
    model_config = ConfigDict(extra="ignore")

    op: Literal["add", "update", "skip"]
    scope: str = "user"
    category: str = "knowledge"
    entry: WriterEntry = Field(default_factory=WriterEntry)

    @model_validator(mode="after")
    def _valid(self) -> WriteOp:
        if self.op == "skip":
            return self
        if (self.scope, self.category) not in VALID_CELLS:
            cells = ", ".join(f"{s}/{c}" for s, c in sorted(VALID_CELLS))
            raise ValueError(
                f"({self.scope}, {self.category}) is not a valid cell; valid cells: {cells}"
            )
        if not self.entry.content:
            raise ValueError(f"an {self.op} needs non-empty entry.content")
        return self


class WriterOutput(BaseModel):
    model_config = ConfigDict(extra="ignore")

    writes: list[WriteOp] = Field(default_factory=list)


def writer_output_schema() -> dict[str, Any]:
    return WriterOutput.model_json_schema()


class WriterOutputError(MemoryError_, ValueError):
    """The model's reply is not a WriterOutput at all (not JSON, or no ``writes`` list)."""


@dataclass
class RejectedWrite:
    item: Any
    reason: str


@dataclass
class ParsedWriterOutput:
    output: WriterOutput
    rejected: list[RejectedWrite] = field(default_factory=list)


def parse_writer_output(
    raw: str | dict[str, Any] | WriterOutput | ParsedWriterOutput,
) -> ParsedWriterOutput:
    """Validate each write on its own: one bad write never discards the good ones.
    Raises :class:`WriterOutputError` when there is nothing to validate at all."""
    if isinstance(raw, ParsedWriterOutput):
        return raw
    if isinstance(raw, WriterOutput):
        return ParsedWriterOutput(raw)
    data: Any = raw
    if isinstance(raw, str):
        try:
            data = extract_json(raw)
        except ValueError as exc:
            raise WriterOutputError(str(exc)) from exc
    if isinstance(data, list):
        data = {"writes": data}
    if not isinstance(data, dict) or not isinstance(data.get("writes"), list):
        raise WriterOutputError('expected a JSON object {"writes": [...]}')
    good: list[WriteOp] = []
    rejected: list[RejectedWrite] = []
    for item in data["writes"]:
        try:
            good.append(WriteOp.model_validate(item))
        except ValidationError as exc:
            rejected.append(RejectedWrite(item, _short_errors(exc)))
    return ParsedWriterOutput(WriterOutput(writes=good), rejected)


def _short_errors(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(p) for p in err.get("loc", ()))
        parts.append(f"{loc}: {err.get('msg')}" if loc else str(err.get("msg")))
    return "; ".join(parts)


# --------------------------------------------------------------------------- dedupe

NEGATIONS = frozenset(
    [
        "not",
        "no",
        "never",
        "don't",
        "doesn't",
        "dont",
        "doesnt",
        "isn't",
        "wasn't",
        "won't",
        "can't",
        "cannot",
        "anymore",
        "longer",
        "hate",
        "hates",
        "dislike",
        "dislikes",
    ]
)
_WORD = re.compile(r"[\w']+", re.UNICODE)


def content_tokens(text: str) -> set[str]:
    return set(_WORD.findall(text.casefold()))


def says_nothing_new(new: str, old: str) -> bool:
    """True when ``new`` is the same text as ``old`` or only repeats some of its words (and
    flips no negation): writing it would add a copy, not a fact."""
    if normalise_content(new) == normalise_content(old):
        return True
    a, b = content_tokens(new), content_tokens(old)
    if len(a) < 3 or (a & NEGATIONS) != (b & NEGATIONS):
        return False
    return a <= b


def contradicts(new: str, old: MemoryRecord) -> bool:
    """Two texts close in meaning whose negations differ ("likes" / "doesn't like")."""
    return (content_tokens(new) & NEGATIONS) != (content_tokens(old.content) & NEGATIONS)


class Vectors(Protocol):
    """Anything that turns texts into unit vectors; :class:`MemoryIndex` is one (it caches by
    content hash), :class:`EmbedderVectors` wraps a bare embedder."""

    async def vectors_for(self, texts: Sequence[str]) -> np.ndarray: ...


class EmbedderVectors:
    """Vectors from an :class:`Embedder` with a bounded in-memory cache by content hash."""

    def __init__(self, embedder: Embedder, *, max_cached: int = 20_000) -> None:
        self.embedder = embedder
        self.max_cached = max_cached
        self._cache: dict[str, np.ndarray] = {}

    async def vectors_for(self, texts: Sequence[str]) -> np.ndarray:
        hashes = [content_hash(t) for t in texts]
        missing = list(dict.fromkeys(h for h in hashes if h not in self._cache))
        if missing:
            by_hash = dict(zip(hashes, texts, strict=True))
            fresh = await self.embedder.aembed_batch([by_hash[h] for h in missing])
            if len(self._cache) + len(missing) > self.max_cached:
                self._cache.clear()
            self._cache.update(zip(missing, fresh, strict=True))
        if not texts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.stack([self._cache[h] for h in hashes]).astype(np.float32)


async def most_similar(
    text: str, candidates: Sequence[MemoryRecord], vectors: Vectors | None
) -> tuple[MemoryRecord | None, float]:
    """The candidate closest to ``text`` by cosine, and that cosine (None, 0 without vectors)."""
    if vectors is None or not candidates:
        return None, 0.0
    matrix = await vectors.vectors_for([text, *(c.content for c in candidates)])
    sims = matrix[1:] @ matrix[0]
    best = int(np.argmax(sims))
    return candidates[best], float(sims[best])


# --------------------------------------------------------------------------- apply_writes (§5.7.3)


@dataclass
class ApplyReport:
    records: list[MemoryRecord] = field(default_factory=list)
    added: int = 0
    updated: int = 0
    skipped: int = 0
    rejected: int = 0
    truncated: int = 0
    closed_loops: int = 0
    problems: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["records"] = [r.id for r in self.records]
        return data


@dataclass
class _Batch:
    """The owner of one turn's writes and the live records per cell (kept current as the
    batch writes, so two writes of one batch also never duplicate each other)."""

    store: MemoryStore
    agent_id: str
    dialogue_id: str | None
    user_key: str | None
    turn_counter: int | None
    turn_id: int | str | None
    now: datetime
    vectors: Vectors | None
    dedupe_cosine: float
    live: dict[tuple[str, str], list[MemoryRecord]] = field(default_factory=dict)

    def owner_kwargs(self, scope: str) -> dict[str, Any]:
        if scope == "user":
            if self.user_key is None:
                raise ValueError("a user-scope write needs the speaker's user_key")
            return {"user_key": self.user_key}
        if scope == "identity":
            return {"agent_id": self.agent_id}
        if self.dialogue_id is None:
            raise ValueError(f"a {scope}-scope write needs a dialogue_id")
        return {"agent_id": self.agent_id, "dialogue_id": self.dialogue_id}

    async def live_records(self, scope: str, category: str) -> list[MemoryRecord]:
        key = (scope, category)
        if key not in self.live:
            ctx = {"turn_counter": self.turn_counter} if self.turn_counter is not None else None
            self.live[key] = await self.store.list(
                scope=scope,
                category=category,
                now=self.now,
                live_context=ctx,
                **self.owner_kwargs(scope),
            )
        return self.live[key]

    async def live_records_any(self, scope: str) -> list[MemoryRecord]:
        """Live records of every category of ``scope`` for this owner."""
        out: list[MemoryRecord] = []
        for scope_, category in sorted(VALID_CELLS):
            if scope_ == scope:
                out += await self.live_records(scope, category)
        return out

    def replaced(self, old: MemoryRecord | None, new: MemoryRecord | None) -> None:
        if old is not None and old.cell in self.live:
            self.live[old.cell] = [r for r in self.live[old.cell] if r.id != old.id]
        if new is not None:
            self.live.setdefault(new.cell, []).append(new)


def _sorted_by_priority(writes: list[WriteOp]) -> list[WriteOp]:
    """Highest salience first (stable), so a turn over budget keeps its most important facts."""
    return sorted(writes, key=lambda w: -w.entry.salience)


async def apply_writes(
    writer_output: WriterOutput | ParsedWriterOutput | dict[str, Any] | str,
    *,
    store: MemoryStore,
    agent_id: str = "agent_0",
    dialogue_id: str | None = None,
    user_key: str | None = None,
    turn_counter: int | None = None,
    turn_id: int | str | None = None,
    max_chars_total: int = 1500,
    vectors: Vectors | None = None,
    dedupe_cosine: float = 0.85,
    now: datetime | None = None,
) -> list[MemoryRecord]:
    """Apply WriterOutput JSON to disk. Returns new records committed (§5.7.3).

    Greedy budget: accept writes in order until cumulative content exceeds max_chars_total.
    The first write is always allowed. Turns that exceed the budget retain the highest-priority
    facts. See :func:`apply_writes_report` for the counts."""
    report = await apply_writes_report(
        writer_output,
        store=store,
        agent_id=agent_id,
        dialogue_id=dialogue_id,
        user_key=user_key,
        turn_counter=turn_counter,
        turn_id=turn_id,
        max_chars_total=max_chars_total,
        vectors=vectors,
        dedupe_cosine=dedupe_cosine,
        now=now,
    )
    return report.records


async def apply_writes_report(
    writer_output: WriterOutput | ParsedWriterOutput | dict[str, Any] | str,
    *,
    store: MemoryStore,
    agent_id: str = "agent_0",
    dialogue_id: str | None = None,
    user_key: str | None = None,
    turn_counter: int | None = None,
    turn_id: int | str | None = None,
    max_chars_total: int = 1500,
    vectors: Vectors | None = None,
    dedupe_cosine: float = 0.85,
    now: datetime | None = None,
) -> ApplyReport:
    parsed = parse_writer_output(writer_output)
    report = ApplyReport(rejected=len(parsed.rejected))
    report.problems += [f"rejected: {r.reason}" for r in parsed.rejected]
    batch = _Batch(
        store,
        agent_id,
        dialogue_id,
        user_key,
        turn_counter,
        turn_id,
        now or utcnow(),
        vectors,
        dedupe_cosine,
    )
    writes = [w for w in parsed.output.writes if w.op != "skip"]
    report.skipped += len(parsed.output.writes) - len(writes)
    used = 0
    for i, write in enumerate(_sorted_by_priority(writes)):
        cost = len(write.entry.content)
        if used > 0 and used + cost > max_chars_total:
            report.truncated = len(writes) - i
            logger.info(
                "writer budget: %d write(s) over %d chars dropped",
                report.truncated,
                max_chars_total,
            )
            break
        try:
            outcome, record = await _apply_one(write, batch)
        except (MemoryError_, ValueError) as exc:
            report.rejected += 1
            report.problems.append(f"rejected {write.scope}/{write.category}: {exc}")
            logger.warning("writer: write rejected (%s): %r", exc, write.entry.content[:200])
            continue
        if outcome == "skipped":
            report.skipped += 1
            continue
        used += cost
        if record is not None:
            report.records.append(record)
        if outcome == "added":
            report.added += 1
        elif outcome == "deprecated":
            report.updated += 1
        elif outcome == "closed":
            report.closed_loops += 1
            report.updated += 1
        else:
            report.updated += 1
    return report


def _ttl(entry: WriterEntry, turn_counter: int | None) -> dict[str, Any] | None:
    ttl = entry.ttl
    if ttl and ttl.get("kind") == "turns" and "created_turn" not in ttl:
        if turn_counter is None:
            raise ValueError("a turns TTL needs the turn counter")
        ttl = {**ttl, "created_turn": turn_counter}
    return ttl


def _fields(write: WriteOp, batch: _Batch, base_extra: dict[str, Any]) -> dict[str, Any]:
    entry = write.entry
    extra = dict(base_extra)
    if entry.open_loop is not None:
        extra["open_loop"] = entry.open_loop.model_dump()
    return {
        "tags": list(entry.tags),
        "salience": entry.salience,
        "ttl": _ttl(entry, batch.turn_counter),
        "evidence": {"dialogue_id": batch.dialogue_id, "turn_id": batch.turn_id},
        "epistemic_status": entry.epistemic_status,
        "source_quote": list(entry.source_quote),
        "extra": extra,
    }


async def _named(write: WriteOp, batch: _Batch, live: list[MemoryRecord]) -> MemoryRecord | None:
    """The live record ``supersedes_id`` names, if it belongs to this owner and scope (it may
    sit in another category of that scope: the fact moves cell)."""
    wanted = write.entry.supersedes_id
    if not wanted:
        return None
    named = next((r for r in live if r.id == wanted), None)
    if named is not None:
        return named
    if wanted.startswith("m_"):
        others = await batch.live_records_any(write.scope)
        named = next((r for r in others if r.id == wanted), None)
    if named is None:
        logger.info("writer: supersedes_id %s is not a live record of this owner", wanted)
    return named


async def _similar_live(
    write: WriteOp, batch: _Batch, live: list[MemoryRecord]
) -> MemoryRecord | None:
    """A live record of the cell holding the same fact by cosine, if any."""
    best, cosine = await most_similar(write.entry.content, live, batch.vectors)
    if best is not None and cosine >= batch.dedupe_cosine:
        return best
    return None


async def _apply_one(write: WriteOp, batch: _Batch) -> tuple[str, MemoryRecord | None]:
    live = await batch.live_records(write.scope, write.category)
    entry = write.entry
    named = await _named(write, batch, live)
    same = next((r for r in live if says_nothing_new(entry.content, r.content)), None)
    if same is not None and named is not None and named.id != same.id:
        # Another live record already says the new fact: the named one is simply outdated.
        await batch.store.deprecate(named.id)
        batch.replaced(named, None)
        return "deprecated", None
    target = same or named
    if target is None:
        target = await _similar_live(write, batch, live)
        if target is not None and write.op == "add" and not contradicts(entry.content, target):
            # The same fact in other words, and the model did not say it changed: a copy.
            return "skipped", None
    if target is None:
        return await _add(write, batch)
    loop = entry.open_loop.model_dump() if entry.open_loop is not None else None
    closes = loop is not None and loop["status"] == "done" and target.open_loop is not None
    closes = closes and (target.open_loop or {}).get("status") != "done"
    if says_nothing_new(entry.content, target.content):
        if loop is None or loop == target.open_loop:
            return "skipped", None
        new = await batch.store.modify(target.id, extra={"open_loop": loop})
        batch.replaced(target, new)
        return ("closed" if closes else "updated"), new
    if target.pinned and target is not named:
        return "skipped", None  # a pinned record changes only when a write names it
    fields = _fields(write, batch, target.extra)
    fields["pinned"] = target.pinned or entry.pinned
    if target.category != write.category:
        fields["category"] = write.category
    new = await batch.store.update(target.id, entry.content, **fields)
    batch.replaced(target, new)
    return ("closed" if closes else "updated"), new


async def _add(write: WriteOp, batch: _Batch) -> tuple[str, MemoryRecord | None]:
    fields = _fields(write, batch, {})
    record = make_record(
        write.entry.content,
        scope=write.scope,
        category=write.category,
        pinned=write.entry.pinned,
        **batch.owner_kwargs(write.scope),
        **fields,
    )
    stored = await batch.store.append(record, dedupe=True)
    if stored.id != record.id:
        return "skipped", None
    batch.replaced(None, stored)
    return "added", stored


# --------------------------------------------------------------------------- the turn


@dataclass
class TurnContext:
    """What the runtime hands the writer after a reply. ``user_text`` is the message as the
    model may see it (privacy redactions already applied). JSON-serialisable."""

    agent_id: str
    dialogue_id: str | None
    user_key: str | None
    user_text: str
    reply_text: str = ""
    recent: list[str] = field(default_factory=list)
    turn_id: int | str | None = None
    turn_counter: int | None = None
    timezone: str = "UTC"
    now: str = ""

    def when(self) -> datetime:
        return parse_ts(self.now) or utcnow()

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> TurnContext:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("a queued turn must be a JSON object")
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})


# --------------------------------------------------------------------------- status


@dataclass
class WriterStats:
    """Counters for ``familiars memory writer-status``; saved after every turn."""

    mode: str = "offline"
    queue_depth: int = 0
    turns_processed: int = 0
    added: int = 0
    updated: int = 0
    skipped: int = 0
    rejected: int = 0
    budget_truncations: int = 0
    repairs: int = 0
    failures: int = 0
    closed_loops: int = 0
    offline_fallbacks: int = 0
    failed_turns: int = 0
    last_error: str | None = None
    last_error_at: str | None = None
    last_turn_at: str | None = None
    providers: list[dict[str, Any]] = field(default_factory=list)
    updated_at: str | None = None

    def count(self, report: ApplyReport) -> None:
        self.turns_processed += 1
        self.added += report.added
        self.updated += report.updated
        self.skipped += report.skipped
        self.rejected += report.rejected
        self.closed_loops += report.closed_loops
        self.budget_truncations += 1 if report.truncated else 0

    def error(self, message: str) -> None:
        self.last_error = message[:500]
        self.last_error_at = iso_now()

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> WriterStats:
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})


def state_dir(workspace: Path) -> Path:
    return Path(workspace) / "state"


def status_path(workspace: Path) -> Path:
    return state_dir(workspace) / "writer_status.json"


def queue_dir(workspace: Path) -> Path:
    return state_dir(workspace) / "writer_queue"


def load_status(workspace: Path) -> WriterStats:
    """The writer's last saved counters (defaults when it never ran); the queue depth is
    counted from the queue folder, so it is right even when no writer is running."""
    path = status_path(workspace)
    stats = WriterStats()
    if path.is_file():
        try:
            stats = WriterStats.from_dict(json.loads(path.read_text(encoding="utf-8")))
        except (ValueError, TypeError) as exc:
            stats.error(f"unreadable status file {path}: {exc}")
    stats.queue_depth = len(pending_turn_files(workspace))
    return stats


def save_status(workspace: Path, stats: WriterStats) -> None:
    stats.updated_at = iso_now()
    path = status_path(workspace)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(stats.as_dict(), ensure_ascii=False, indent=1))


#: How often a busy writer queue saves its status for other processes (``writer-status``).
STATUS_SAVE_EVERY_S = 1.0


def pending_turn_files(workspace: Path) -> list[Path]:
    folder = queue_dir(workspace)
    return sorted(folder.glob("t_*.json")) if folder.is_dir() else []


# --------------------------------------------------------------------------- MemoryWriter

_SYSTEM_PROMPT = """You are the memory writer of a companion bot. After each turn you decide \
what, if anything, is worth remembering long-term, and answer with a WriterOutput JSON object.

Each write has "op" ("add", "update" or "skip"), "scope", "category" and "entry". Valid \
(scope, category) cells, and nothing else:
{cells}
- user: facts about the person (profile, preferences, relations, knowledge, events).
- identity: how the assistant itself should behave from now on.
- dialogue: facts about this conversation or chat. ephemeral: only for this turn.

Rules:
- Write only what the person said or clearly implied; small talk needs no write ({{"writes": []}}).
- Content is one short third-person sentence ("The user's name is Alice.").
- If an existing memory below already says it, write nothing. If the fact changed (a new \
value, a preference reversed), use "update" with "supersedes_id" set to that memory's id.
- Promises, requests, open questions and reminders get "open_loop": {{"kind": "promise" | \
"request" | "question" | "reminder", "due": ISO 8601 time with offset or null, "status": \
"open"}}. When the turn shows an open loop below was done, "update" it with status "done".
- epistemic_status: "asserted" (said), "inferred" (implied), "speculative" (a guess).
- salience from 0 to 1; most important writes first.
- Never store passwords, keys, card numbers or other secrets."""


def _cells_text() -> str:
    return "\n".join(f"- {s}/{c}" for s, c in sorted(VALID_CELLS))


def _memory_line(rec: MemoryRecord) -> str:
    loop = rec.open_loop
    suffix = ""
    if loop:
        suffix = f" [open_loop {loop.get('kind')} {loop.get('status')} due {loop.get('due')}]"
    return f"- {rec.id} | {rec.scope}/{rec.category} | {rec.content}{suffix}"


def build_writer_messages(turn: TurnContext, similar: Sequence[MemoryRecord]) -> list[ChatMessage]:
    local = turn.when().astimezone(_zone(turn.timezone))
    parts = [f"Now: {local.isoformat(timespec='minutes')} ({turn.timezone})"]
    if turn.recent:
        parts.append("Recent dialogue:\n" + "\n".join(line[:500] for line in turn.recent[-12:]))
    lines = [_memory_line(r) for r in similar]
    parts.append("Existing memories most like this turn:\n" + ("\n".join(lines) or "(none)"))
    parts.append(f"This turn:\nUser: {turn.user_text}\nAssistant: {turn.reply_text}")
    parts.append("Answer with the WriterOutput JSON object.")
    return [
        ChatMessage("system", _SYSTEM_PROMPT.format(cells=_cells_text())),
        ChatMessage("user", "\n\n".join(parts)),
    ]


def _zone(name: str) -> Any:
    from familiars.memory._offline_writer import zone

    return zone(name)


class MemoryWriter:
    """Decides what a turn adds to memory and applies it. With ``model=None`` the rule-based
    offline writer is used; when the model fails (no provider, every one cooling down) the
    turn falls back to the offline writer too, so a turn is never dropped."""

    def __init__(
        self,
        store: MemoryStore,
        *,
        model: ChatModel | None = None,
        vectors: Vectors | None = None,
        workspace: Path | None = None,
        budget_chars: int = 1500,
        dedupe_cosine: float = 0.85,
        similar_k: int = 12,
        reminder_grace_s: float = 6 * 3600.0,
        stats: WriterStats | None = None,
    ) -> None:
        self.store = store
        self.model = model
        self.vectors = vectors
        self.workspace = Path(workspace) if workspace is not None else store.workspace
        self.budget_chars = budget_chars
        self.dedupe_cosine = dedupe_cosine
        self.similar_k = similar_k
        self.reminder_grace_s = reminder_grace_s
        self.stats = stats or WriterStats.from_dict(
            {
                k: v
                for k, v in load_status(self.workspace).as_dict().items()
                if k not in ("last_error", "last_error_at")
            }
        )
        self.stats.mode = "model" if model is not None else "offline"
        restore = getattr(model, "restore", None)
        if restore is not None and self.stats.providers:
            restore(self.stats.providers)  # a restart does not hammer a provider still cooling

    @classmethod
    def from_settings(
        cls,
        settings: Any,
        store: MemoryStore,
        *,
        model: ChatModel | None = None,
        vectors: Vectors | None = None,
    ) -> MemoryWriter:
        return cls(
            store,
            model=model,
            vectors=vectors,
            workspace=Path(settings.workspace),
            budget_chars=settings.memory.writer_budget_chars,
            dedupe_cosine=settings.memory.dedupe_cosine,
            reminder_grace_s=settings.scheduler.reminder_grace_s,
        )

    async def owner_records(self, turn: TurnContext) -> list[MemoryRecord]:
        """Live records the turn may touch: the speaker's user scope, the agent's identity,
        and this dialogue's scopes."""
        now = turn.when()
        found: list[MemoryRecord] = []
        if turn.user_key:
            found += await self.store.list(scope="user", user_key=turn.user_key, now=now)
        found += await self.store.list(scope="identity", agent_id=turn.agent_id, now=now)
        if turn.dialogue_id:
            for scope in ("dialogue", "ephemeral"):
                found += await self.store.list(
                    scope=scope, agent_id=turn.agent_id, dialogue_id=turn.dialogue_id, now=now
                )
        return found

    async def similar(
        self, turn: TurnContext, records: Sequence[MemoryRecord]
    ) -> list[MemoryRecord]:
        if len(records) <= self.similar_k:
            return list(records)
        query = f"{turn.user_text}\n{turn.reply_text}"
        if self.vectors is not None:
            matrix = await self.vectors.vectors_for([query, *(r.content for r in records)])
            scores = list(matrix[1:] @ matrix[0])
        else:
            words = content_tokens(query)
            scores = [len(words & content_tokens(r.content)) for r in records]
        order = sorted(range(len(records)), key=lambda i: -scores[i])
        picked = [records[i] for i in order[: self.similar_k]]
        loops = [r for r in records if r.open_loop and r.open_loop.get("status") == "open"]
        return picked + [r for r in loops if r not in picked][:5]

    async def process_turn(self, turn: TurnContext) -> ApplyReport:
        existing = await self.owner_records(turn)
        output = await self._decide(turn, existing)
        if output is None:
            report = ApplyReport()
        else:
            report = await apply_writes_report(
                output,
                store=self.store,
                agent_id=turn.agent_id,
                dialogue_id=turn.dialogue_id,
                user_key=turn.user_key,
                turn_counter=turn.turn_counter,
                turn_id=turn.turn_id,
                max_chars_total=self.budget_chars,
                vectors=self.vectors,
                dedupe_cosine=self.dedupe_cosine,
                now=turn.when(),
            )
        self.stats.count(report)
        self.stats.last_turn_at = iso_now()
        if report.problems:
            self.stats.error(report.problems[-1])
        return report

    def offline_output(self, turn: TurnContext, existing: Sequence[MemoryRecord]) -> WriterOutput:
        from familiars.memory._offline_writer import offline_writes

        return offline_writes(
            turn.user_text,
            existing=existing,
            now=turn.when(),
            timezone=turn.timezone,
            dialogue_id=turn.dialogue_id,
            reminder_grace_s=self.reminder_grace_s,
        )

    async def _decide(
        self, turn: TurnContext, existing: Sequence[MemoryRecord]
    ) -> WriterOutput | ParsedWriterOutput | None:
        if self.model is None:
            return self.offline_output(turn, existing)
        try:
            return await self._ask_model(turn, await self.similar(turn, existing))
        except LLMError as exc:
            logger.warning("writer: model unavailable (%s); using the offline writer", exc)
            self.stats.error(f"{type(exc).__name__}: {exc}")
            self.stats.offline_fallbacks += 1
            return self.offline_output(turn, existing)

    async def _ask_model(
        self, turn: TurnContext, similar: Sequence[MemoryRecord]
    ) -> ParsedWriterOutput | None:
        model = self.model
        assert model is not None
        messages = build_writer_messages(turn, similar)
        schema = writer_output_schema()
        raw = (await model.chat_json(messages, schema=schema, name="writer_output")).text
        problem, parsed = _check(raw)
        if problem is None:
            return parsed
        self.stats.repairs += 1
        logger.info("writer: output invalid (%s); asking for one repair", problem)
        repair = [
            *messages,
            ChatMessage("assistant", raw),
            ChatMessage(
                "user",
                f"That output is invalid: {problem}. Answer again with only "
                "the corrected WriterOutput JSON object.",
            ),
        ]
        raw2 = (await model.chat_json(repair, schema=schema, name="writer_output")).text
        problem2, parsed2 = _check(raw2)
        if problem2 is None:
            return parsed2
        self.stats.failures += 1
        self.stats.rejected += len(parsed2.rejected) if parsed2 else 0
        self.stats.error(f"writer output invalid after repair: {problem2}")
        logger.warning(
            "writer: output invalid after one repair (%s); nothing written. raw output: %r",
            problem2,
            raw2[:2000],
        )
        return None

    def provider_states(self) -> list[dict[str, Any]]:
        states = getattr(self.model, "states", None)
        if states is None:
            return []
        clock = getattr(self.model, "clock", time.time)
        now = clock()
        return [s.as_dict(now) for s in states()]

    def save_status(self, queue_depth: int | None = None) -> None:
        self.stats.providers = self.provider_states()
        if queue_depth is not None:
            self.stats.queue_depth = queue_depth
        save_status(self.workspace, self.stats)


def _check(raw: str) -> tuple[str | None, ParsedWriterOutput | None]:
    """(None, parsed) when usable; (reason, parsed-or-None) when a repair is warranted: not a
    WriterOutput at all, or every write in it invalid."""
    try:
        parsed = parse_writer_output(raw)
    except WriterOutputError as exc:
        return str(exc), None
    if parsed.rejected and not parsed.output.writes:
        return "; ".join(r.reason for r in parsed.rejected[:3]), parsed
    return None, parsed


# --------------------------------------------------------------------------- the queue


class WriterQueue:
    """Turns waiting for the writer, off the reply's hot path. Each turn is a file in
    ``<workspace>/state/writer_queue/`` (written atomically before :meth:`enqueue` returns and
    removed only after its writes are applied), so a crash or restart loses no turn: on
    :meth:`start` the files left behind are processed first, in order. A turn whose
    processing raises is moved to ``failed/`` beside them, kept for a person to look at, and
    counted; the queue goes on with the next one."""

    def __init__(self, writer: MemoryWriter) -> None:
        self.writer = writer
        self.folder = queue_dir(writer.workspace)
        self.failed_folder = self.folder / "failed"
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    # lifecycle
    async def start(self) -> None:
        if self._task is not None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        self._stopping = False
        if self.pending():
            self._idle.clear()
            self._wake.set()
        self._task = asyncio.create_task(self._run(), name="memory-writer-queue")

    async def stop(self) -> None:
        """Finish every queued turn, then stop."""
        await self.drain()
        self._stopping = True
        self._wake.set()
        if self._task is not None:
            await self._task
            self._task = None

    async def __aenter__(self) -> WriterQueue:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # use
    def pending(self) -> list[Path]:
        return pending_turn_files(self.writer.workspace)

    async def enqueue(self, turn: TurnContext) -> Path:
        """Persist ``turn`` and wake the worker; returns at once after the file is on disk."""
        if not turn.now:
            turn.now = iso_now()
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"t_{new_id()[2:]}.json"
        await asyncio.to_thread(atomic_write_text, path, turn.to_json())
        self._idle.clear()
        self._wake.set()
        return path

    async def drain(self) -> None:
        """Wait until every queued turn is processed (used at shutdown and in tests). Without a
        running worker, processes them here."""
        if self._task is None:
            await self.process_pending()
            return
        task = self._task
        while self.pending():
            if task.done():
                task.result()  # the worker died: its error goes to the caller; the turns stay
                raise RuntimeError("the writer queue's worker stopped; queued turns are kept")
            self._idle.clear()
            self._wake.set()
            idle = asyncio.ensure_future(self._idle.wait())
            await asyncio.wait({idle, task}, return_when=asyncio.FIRST_COMPLETED)
            idle.cancel()

    flush = drain

    async def process_pending(self) -> int:
        """Process every queued turn now, in order; returns how many were processed."""
        done = 0
        for path in self.pending():
            await self._process_file(path)
            done += 1
        self.writer.save_status(queue_depth=len(self.pending()))
        return done

    def stats(self) -> dict[str, Any]:
        data = self.writer.stats.as_dict()
        data["queue_depth"] = len(self.pending())
        data["providers"] = self.writer.provider_states()
        data["running"] = self._task is not None and not self._task.done()
        return data

    # worker
    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while paths := self.pending():
                # One listing of the folder per batch (not per turn: with a long queue that
                # made draining quadratic), and the status saved about once a second.
                saved_at = time.monotonic()
                for n, path in enumerate(paths, start=1):
                    await self._process_file(path)
                    if time.monotonic() - saved_at >= STATUS_SAVE_EVERY_S:
                        self.writer.save_status(queue_depth=len(paths) - n)
                        saved_at = time.monotonic()
                self.writer.save_status(queue_depth=len(self.pending()))
            self._idle.set()
            if self._stopping:
                return

    async def _process_file(self, path: Path) -> None:
        try:
            turn = TurnContext.from_json(await asyncio.to_thread(path.read_text, "utf-8"))
            await self.writer.process_turn(turn)
        except FileNotFoundError:
            return  # another worker (or a drain) took it
        except (ValueError, TypeError, OSError, MemoryError_) as exc:
            self._set_aside(path, exc)
            return
        path.unlink(missing_ok=True)

    def _set_aside(self, path: Path, exc: BaseException) -> None:
        self.failed_folder.mkdir(parents=True, exist_ok=True)
        target = self.failed_folder / path.name
        path.replace(target)
        self.writer.stats.failed_turns += 1
        self.writer.stats.error(f"turn {path.name} set aside in failed/: {exc}")
        logger.error("writer: turn %s failed (%s); kept in %s", path.name, exc, target)
