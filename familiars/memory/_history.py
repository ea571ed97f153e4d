"""Edit history: an append-only JSONL sidecar beside each memory file.

``profile.md`` has ``profile.history.jsonl``; each line is one event::

    {"event": "upsert" | "deprecate" | "delete", "ts": "...", "id": "m_...", "record": {...}}

The sidecar is never touched by index rebuilds. ``forget`` is the one rewrite: it purges the
forgotten record's content from every event and leaves a tombstone with its id.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from familiars.memory._atomic import append_lines_durably, atomic_write_text
from familiars.memory._entries import record_header
from familiars.memory._records import MemoryRecord, iso_now

logger = logging.getLogger(__name__)

HISTORY_SUFFIX = ".history.jsonl"


def history_path(memory_file: Path) -> Path:
    return memory_file.with_name(memory_file.stem + HISTORY_SUFFIX)


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


def purge(memory_file: Path, record_id: str, *, ts: str | None = None) -> None:
    """Drop every event of ``record_id`` (its content included) and append a tombstone."""
    path = history_path(memory_file)
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
                if record_id in line:
                    continue
                kept.append(line)
                continue
            if isinstance(item, dict) and item.get("id") == record_id:
                continue
            kept.append(line)
    tombstone = {"event": "delete", "ts": ts or iso_now(), "id": record_id, "forgotten": True}
    kept.append(json.dumps(tombstone, separators=(",", ":")))
    atomic_write_text(path, "".join(line + "\n" for line in kept))
