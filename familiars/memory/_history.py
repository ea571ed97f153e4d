"""Edit history: an append-only JSONL sidecar beside each memory file.

``profile.md`` has ``profile.history.jsonl``; each line is one event::

    {"event": "upsert" | "deprecate" | "delete", "ts": "...", "id": "m_...", "record": {...}}

The sidecar is never touched by index rebuilds. ``forget`` rewrites it twice: it purges the
forgotten record's content from every event and leaves a tombstone with its id; and it takes
out of a kept record's events the quotes of what was forgotten (:func:`unquote`: the events
stay, so the record's story and its live state are whole).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

from familiars.memory._atomic import append_lines_durably, atomic_write_text
from familiars.memory._entries import ParsedFile, record_header
from familiars.memory._records import MemoryRecord, iso_now

logger = logging.getLogger(__name__)

HISTORY_SUFFIX = ".history.jsonl"


def history_path(memory_file: Path) -> Path:
    return memory_file.with_name(memory_file.stem + HISTORY_SUFFIX)


def memory_file_of(history_file: Path) -> Path:
    """The memory file whose history ``history_file`` is."""
    return history_file.with_name(history_file.name[: -len(HISTORY_SUFFIX)] + ".md")


def holds_events(text: str, record_id: str) -> bool:
    """Whether the history ``text`` has a line of ``record_id`` other than the tombstone a
    forget leaves (a line that does not parse counts when it names the id)."""
    for line in text.split("\n"):
        if record_id not in line:
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            return True
        if not (isinstance(item, dict) and item.get("forgotten") and item.get("event") == "delete"):
            return True
    return False


def holding(workspace: Path, record_ids: list[str]) -> dict[Path, list[str]]:
    """Memory file -> the ids among ``record_ids`` with an event in its history (anywhere
    under ``workspace``) other than a forgotten tombstone."""
    out: dict[Path, list[str]] = {}
    for side in sorted(workspace.rglob("*" + HISTORY_SUFFIX)):
        text = side.read_bytes().decode("utf-8", "surrogateescape")
        held = [i for i in record_ids if i in text and holds_events(text, i)]
        if held:
            out[memory_file_of(side)] = held
    return out


def held_ids(memory_file: Path) -> list[str]:
    """The ids with an event in the history of ``memory_file`` other than the tombstone a
    forget leaves: what a purge of the whole file would take."""
    held: dict[str, None] = {}
    for e in read_events(memory_file).events:
        if not (e.get("forgotten") and e.get("event") == "delete"):
            held[e["id"]] = None
    return list(held)


def supersede_chain(events: list[dict[str, Any]], record_id: str) -> set[str]:
    """Ids linked to ``record_id`` through ``supersedes`` in either direction."""
    links: dict[str, set[str]] = {}
    for e in events:
        rec = e.get("record") or {}
        sup = rec.get("supersedes")
        rid = e.get("id")
        if isinstance(sup, str) and isinstance(rid, str):
            links.setdefault(rid, set()).add(sup)
            links.setdefault(sup, set()).add(rid)
    chain = {record_id}
    frontier = [record_id]
    while frontier:
        cur = frontier.pop()
        for nxt in links.get(cur, ()):
            if nxt not in chain:
                chain.add(nxt)
                frontier.append(nxt)
    return chain


def chain_events(events: list[dict[str, Any]], record_id: str) -> list[dict[str, Any]]:
    """The events of ``record_id``'s ``supersedes`` chain, oldest first."""
    chain = supersede_chain(events, record_id)
    picked = [e for e in events if e.get("id") in chain]
    picked.sort(key=lambda e: (str(e.get("ts", "")), str(e.get("id", ""))))
    return picked


def event(kind: str, record: MemoryRecord, *, ts: str | None = None) -> dict[str, Any]:
    data = record_header(record)
    data["content"] = record.content
    return {"event": kind, "ts": ts or iso_now(), "id": record.id, "record": data}


def append_events(memory_file: Path, events: list[dict[str, Any]]) -> None:
    lines = [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in events]
    append_lines_durably(history_path(memory_file), lines)


@dataclass
class HistoryRead:
    events: list[dict[str, Any]]
    bad_lines: list[int]


def read_events(memory_file: Path) -> HistoryRead:
    path = history_path(memory_file)
    events: list[dict[str, Any]] = []
    bad: list[int] = []
    if not path.exists():
        return HistoryRead(events, bad)
    text = path.read_bytes().decode("utf-8", "surrogateescape")
    for n, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            bad.append(n)
            continue
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            events.append(item)
        else:
            bad.append(n)
    if bad:
        logger.warning("%s: skipped unreadable history lines %s", path, bad)
    return HistoryRead(events, bad)


def purge(memory_file: Path, record_id: str, *more: str, ts: str | None = None) -> None:
    """Drop every event of ``record_id`` (and of each of ``more``: one rewrite of the file
    for a whole batch of forgets), its content included, and append a tombstone of each."""
    path = history_path(memory_file)
    gone = {record_id, *more}
    kept: list[str] = []
    if path.exists():
        text = path.read_bytes().decode("utf-8", "surrogateescape")
        for line in text.split("\n"):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError:
                # A line we cannot read cannot be checked for the forgotten content: drop it
                # only if it mentions the id, keep it otherwise.
                if any(rid in line for rid in gone):
                    continue
                kept.append(line)
                continue
            if isinstance(item, dict) and item.get("id") in gone:
                continue
            kept.append(line)
    for rid in dict.fromkeys([record_id, *more]):
        tombstone = {"event": "delete", "ts": ts or iso_now(), "id": rid, "forgotten": True}
        kept.append(json.dumps(tombstone, separators=(",", ":")))
    atomic_write_text(path, "".join(line + "\n" for line in kept))


#: Record id -> the quotes of its ``source_quote`` to take out (:func:`unquote`).
Quotes: TypeAlias = Mapping[str, Collection[str]]


def unquoted(record: MemoryRecord, quotes: Quotes) -> MemoryRecord | None:
    """``record`` without the quotes ``quotes`` names for it; None when it has none of them."""
    drop = quotes.get(record.id, ())
    kept = [q for q in record.source_quote if q not in drop]
    return record.replace(source_quote=kept) if len(kept) < len(record.source_quote) else None


def unquote_entries(
    parsed: ParsedFile, quotes: Quotes, pending: list[dict[str, Any]]
) -> list[MemoryRecord]:
    """The file's records without the quotes, in place (and the ``pending`` events not yet
    written, so none brings one back); the records changed."""
    for item in pending:
        unquote_event(item, quotes)
    changed = []
    for seg in parsed.segments:
        new = unquoted(seg.record, quotes) if seg.record is not None else None
        if new is not None:
            seg.record = new
            changed.append(new)
    return changed


def unquote_event(item: dict[str, Any], quotes: Quotes) -> bool:
    """Take the quotes out of one event's record, in place; whether it changed."""
    record = item.get("record")
    drop = quotes.get(str(item.get("id")), ())
    held = record.get("source_quote") if isinstance(record, dict) else None
    if not drop or not isinstance(held, list):
        return False
    kept = [q for q in held if q not in drop]
    if len(kept) == len(held):
        return False
    assert isinstance(record, dict)
    record["source_quote"] = kept
    return True


def unquote_line(line: str, quotes: Quotes) -> str | None:
    """The history ``line`` without the quotes (the same line when it holds none of them);
    None for a line that does not parse but holds one (it cannot be mended, so it goes)."""
    if not any(record_id in line for record_id in quotes):
        return line
    try:
        item = json.loads(line)
    except json.JSONDecodeError:
        return None if any(q in line for qs in quotes.values() for q in qs) else line
    if not isinstance(item, dict) or not unquote_event(item, quotes):
        return line
    return json.dumps(item, ensure_ascii=False, separators=(",", ":"))


def unquote(memory_file: Path, quotes: Quotes) -> None:
    """Every event of the ids in ``quotes`` without those quotes; nothing added, nothing else
    changed (no tombstone: the records stay). Rewritten only when a line changes."""
    path = history_path(memory_file)
    if not path.exists():
        return
    text = path.read_bytes().decode("utf-8", "surrogateescape")
    lines = [line for line in text.split("\n") if line.strip()]
    kept = [new for new in (unquote_line(line, quotes) for line in lines) if new is not None]
    if kept != lines:
        atomic_write_text(path, "".join(line + "\n" for line in kept))


# --------------------------------------------------------------------------- hand edits

#: Fields that change without a history event (recall counts): never an "edit".
_UNTRACKED = ("access_count", "last_accessed_ts")


def last_states(memory_file: Path) -> dict[str, dict[str, Any] | None]:
    """Each id's record as its last event left it (None once deleted or removed)."""
    states: dict[str, dict[str, Any] | None] = {}
    for e in read_events(memory_file).events:
        gone = e.get("event") == "delete" or e.get("change") == "removed"
        record = e.get("record")
        states[e["id"]] = None if gone or not isinstance(record, dict) else record
    return states


def _comparable(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in _UNTRACKED}


def hand_edit_events(
    memory_file: Path,
    records: list[MemoryRecord],
    *,
    ts: str | None = None,
    partial: bool = False,
) -> list[dict[str, Any]]:
    """``edit`` events for what differs between the file's ``records`` and the last known
    state of each: text or fields changed (``old`` holds the text before), entries added,
    entries removed (``record`` holds what was removed; not reported when ``partial``: the
    file has entries that do not parse, which may be the missing ones). Our own writes
    leave nothing to report: their events are already the last state."""
    stamp = ts or iso_now()
    states = last_states(memory_file)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for rec in records:
        seen.add(rec.id)
        new = event("edit", rec, ts=stamp)
        old = states.get(rec.id)
        if old is None:
            new["change"] = "added"
        elif _comparable(old) != _comparable(new["record"]):
            new["change"] = "changed"
            new["old"] = old.get("content")
        else:
            continue
        new["by"] = "hand"
        out.append(new)
    for record_id, old in states.items():
        if old is not None and record_id not in seen and not partial:
            out.append(
                {
                    "event": "edit",
                    "ts": stamp,
                    "id": record_id,
                    "change": "removed",
                    "by": "hand",
                    "record": old,
                }  # fmt: skip
            )
    return out


def note_hand_edits(
    memory_file: Path, records: list[MemoryRecord], *, partial: bool = False
) -> int:
    """Append the ``edit`` events of a file changed outside the store; returns how many."""
    events = hand_edit_events(memory_file, records, partial=partial)
    if events:
        append_events(memory_file, events)
        logger.info("%s: %d hand edits noted in its history", memory_file, len(events))
    return len(events)
