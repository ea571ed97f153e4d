"""apply_writes (§5.7.3): one turn's WriterOutput onto the store.

Greedy character budget (highest salience first), ``add`` / ``update`` / ``skip``,
``supersedes_id`` deprecates the old record, and duplicates are stopped here
independently of the model (see :mod:`familiars.memory._writer._dedupe`), in the same
cell and owner. :func:`apply_writes_report` gives the counts in an :class:`ApplyReport`.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from familiars.memory._errors import MemoryError_
from familiars.memory._fact_identity import same_fact
from familiars.memory._limits import DEFAULT_MAX_RECORD_CHARS, check_record_length
from familiars.memory._records import VALID_CELLS, MemoryRecord, utcnow
from familiars.memory._store import MemoryStore, make_record
from familiars.memory._writer._dedupe import (
    Vectors,
    contradicts,
    most_similar,
    refines,
    says_nothing_new,
)
from familiars.memory._writer._rights import UNKNOWN_SPEAKER, Speaker, govern
from familiars.memory._writer._schema import (
    ParsedWriterOutput,
    WriteOp,
    WriterEntry,
    WriterOutput,
    parse_writer_output,
)

logger = logging.getLogger(__name__)


@dataclass
class ApplyReport:
    records: list[MemoryRecord] = field(default_factory=list)
    added: int = 0
    updated: int = 0
    skipped: int = 0
    rejected: int = 0
    truncated: int = 0
    closed_loops: int = 0
    #: Writes moved out of a scope the speaker may not change (see ``_rights``).
    redirected: int = 0
    problems: list[str] = field(default_factory=list)
    #: What :func:`~familiars.memory._writer._rights.govern` changed, one line a write.
    rulings: list[str] = field(default_factory=list)
    #: Why the model's answer could not be used (the turn went to the offline writer and a
    #: copy of it to the queue's ``failed/`` folder); None when it was used or never asked.
    set_aside: str | None = None

    def count(self, outcome: str, record: MemoryRecord | None) -> None:
        """Count one write's outcome: skipped, added, deprecated, closed (a loop) or updated."""
        if outcome == "skipped":
            self.skipped += 1
            return
        if record is not None:
            self.records.append(record)
        if outcome == "added":
            self.added += 1
            return
        self.updated += 1
        if outcome == "closed":
            self.closed_loops += 1

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
    speaker: Speaker = UNKNOWN_SPEAKER,
    max_record_chars: int = DEFAULT_MAX_RECORD_CHARS,
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
        speaker=speaker,
        max_record_chars=max_record_chars,
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
    speaker: Speaker = UNKNOWN_SPEAKER,
    max_record_chars: int = DEFAULT_MAX_RECORD_CHARS,
) -> ApplyReport:
    """Apply one turn's writes and count what became of each. ``speaker`` says who said
    the turn (default: a non-owner in a group); writes into a scope the speaker may not
    change are redirected or refused first (:func:`_governed`). A write longer than
    ``max_record_chars`` is refused (counted in ``rejected``, said in ``problems``); the
    others go on."""
    parsed = parse_writer_output(writer_output, max_chars=max_record_chars)
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
    writes = _governed(writes, speaker, batch, report)
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
            check_record_length(write.entry.content, max_record_chars)
            outcome, record = await _apply_one(write, batch)
        except (MemoryError_, ValueError) as exc:
            report.rejected += 1
            report.problems.append(f"rejected {write.scope}/{write.category}: {exc}")
            logger.warning("writer: write rejected (%s): %r", exc, write.entry.content[:200])
            continue
        report.count(outcome, record)
        used += 0 if outcome == "skipped" else cost
    return report


def _governed(
    writes: list[WriteOp], speaker: Speaker, batch: _Batch, report: ApplyReport
) -> list[WriteOp]:
    """The writes the speaker may make, after redirecting the others (counted in
    ``redirected``) or refusing them (counted in ``rejected`` and ``problems``)."""
    kept: list[WriteOp] = []
    for write in writes:
        ruling = govern(
            write,
            speaker,
            has_user=batch.user_key is not None,
            has_dialogue=batch.dialogue_id is not None,
        )
        if ruling.note is not None:
            report.rulings.append(ruling.note)
        if ruling.write is None:
            report.rejected += 1
            report.problems.append(ruling.note or "refused")
            continue
        report.redirected += ruling.note is not None
        kept.append(ruling.write)
    return kept


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
        extra["open_loop"] = _open_loop(entry, batch, base_extra.get("open_loop"))
    return {
        "tags": list(entry.tags),
        "salience": entry.salience,
        "ttl": _ttl(entry, batch.turn_counter),
        "evidence": {"dialogue_id": batch.dialogue_id, "turn_id": batch.turn_id},
        "epistemic_status": entry.epistemic_status,
        "source_quote": list(entry.source_quote),
        "extra": extra,
    }


def _open_loop(entry: WriterEntry, batch: _Batch, old: Any) -> dict[str, Any] | None:
    """The entry's open loop as stored, with the person who asked (``user_key``): kept from
    the loop it replaces, else the turn's speaker. A dialogue-scope reminder's file does not
    name the person, so ``/reminders`` and ``reminders list --user`` find it by this."""
    if entry.open_loop is None:
        return None
    loop = entry.open_loop.stored()
    due = loop.get("due") if loop["kind"] == "reminder" and loop["status"] == "open" else None
    if due and datetime.fromisoformat(due) < batch.now - _PAST_SLACK:
        raise ValueError(f"a reminder due before the turn was said ({due})")
    asker = (old.get("user_key") if isinstance(old, dict) else None) or batch.user_key
    if asker:
        loop["user_key"] = asker
    return loop


#: A model's reminder due earlier than this before its turn is refused (a clock's skew is not).
_PAST_SLACK = timedelta(minutes=1)


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
        named = next((r for r in others if r.id == wanted and not _someone_elses(r, batch)), None)
    if named is None:
        logger.info("writer: supersedes_id %s is not a live record of this owner", wanted)
    return named


async def _similar_live(
    write: WriteOp, batch: _Batch, live: list[MemoryRecord]
) -> tuple[MemoryRecord | None, float]:
    """The live record of the cell closest to the write by cosine and that cosine; the record
    is None below ``dedupe_cosine``."""
    best, cosine = await most_similar(write.entry.content, live, batch.vectors)
    if best is not None and cosine >= batch.dedupe_cosine:
        return best, cosine
    return None, cosine


def _same_or_changed(entry: WriterEntry, target: MemoryRecord, cosine: float, batch: _Batch) -> str:
    """What an ``add`` close by cosine to ``target`` is: "same" (the same fact in other words:
    a copy), "changed" (a negation flipped: update in place) or "other" (a different fact
    that reads alike, "white wine" after "red wine": add it)."""
    match = same_fact(target.content, entry.content, cosine, threshold=batch.dedupe_cosine)
    if match.same:
        return "same"
    if contradicts(entry.content, target):
        return "changed"
    if refines(entry.content, target.content):
        return "same"
    logger.debug("writer: kept apart from %s (%s)", target.id, match.reason)
    return "other"


def _someone_elses(rec: MemoryRecord, batch: _Batch) -> bool:
    """A shared record (a group's reminder) another person asked for: never the same as the
    speaker's own, so a write of theirs neither merges into it nor changes it."""
    asker = (rec.open_loop or {}).get("user_key")
    return rec.scope != "user" and asker is not None and asker != batch.user_key


async def _apply_one(write: WriteOp, batch: _Batch) -> tuple[str, MemoryRecord | None]:
    live = await batch.live_records(write.scope, write.category)
    live = [r for r in live if not _someone_elses(r, batch)]
    entry = write.entry
    named = await _named(write, batch, live)
    if entry.supersedes_id and named is None:
        # Another person's record, or none at all: a change of nothing the speaker holds is
        # dropped, never kept as a new fact of theirs ("The user's name is Hacked.").
        raise ValueError(
            f"it changes {entry.supersedes_id}, which is not a live record of the speaker's: "
            "dropped"
        )
    same = next((r for r in live if says_nothing_new(entry.content, r.content)), None)
    if same is not None and named is not None and named.id != same.id:
        # Another live record already says the new fact: the named one is simply outdated.
        await batch.store.deprecate(named.id)
        batch.replaced(named, None)
        return "deprecated", None
    target = same or named
    if target is None:
        target, cosine = await _similar_live(write, batch, live)
        if target is not None and write.op == "add":
            verdict = _same_or_changed(entry, target, cosine, batch)
            if verdict == "same":
                return "skipped", None  # the model did not say it changed: a copy
            if verdict == "other":
                target = None
    if target is None:
        return await _add(write, batch)
    loop = _open_loop(entry, batch, target.open_loop)
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
    # Another person's reminder may read the same: the checks above kept the speaker's own.
    shared_loop = write.scope != "user" and (record.open_loop or {}).get("user_key") is not None
    stored = await batch.store.append(record, dedupe=not shared_loop)
    if stored.id != record.id:
        return "skipped", None
    batch.replaced(None, stored)
    return "added", stored
