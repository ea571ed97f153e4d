"""What one writer batch of ``MemoryStore`` works with: its ops, and the log of what they did
(events, records changed, files to write), with per-file lookups built once per batch."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from familiars.memory import _history as history
from familiars.memory._entries import ParsedFile, Segment
from familiars.memory._records import MemoryRecord


def normalise_content(text: str) -> str:
    """What counts as "the same text" for exact-duplicate detection."""
    text = " ".join(text.casefold().split())
    return text.strip(" .!?;,")


@dataclass
class _Op:
    """One change to one file. ``apply`` mutates the parsed file and returns the result for
    the caller; it raises (before mutating) when the change is not possible."""

    path: Path
    apply: Callable[[ParsedFile, _BatchLog], Any]


@dataclass
class _BatchLog:
    events: dict[Path, list[dict[str, Any]]] = field(default_factory=dict)
    upserted: dict[str, MemoryRecord] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)
    purges: list[tuple[Path, str]] = field(default_factory=list)
    dirty: set[Path] = field(default_factory=set)
    norms: dict[Path, dict[str, Segment]] = field(default_factory=dict)
    id_sets: dict[Path, set[str]] = field(default_factory=dict)

    def ids(self, path: Path, parsed: ParsedFile) -> set[str]:
        found = self.id_sets.get(path)
        if found is None:
            found = {s.record.id for s in parsed.segments if s.record is not None}
            self.id_sets[path] = found
        return found

    def content_map(self, path: Path, parsed: ParsedFile) -> dict[str, Segment]:
        """Normalised content -> segment of the file's records, built once per batch."""
        found = self.norms.get(path)
        if found is None:
            found = {}
            for seg in parsed.segments:
                if seg.record is not None and not seg.record.deprecated:
                    found.setdefault(normalise_content(seg.record.content), seg)
            self.norms[path] = found
        return found

    def record_event(self, path: Path, kind: str, record: MemoryRecord) -> None:
        self.events.setdefault(path, []).append(history.event(kind, record))
        self.dirty.add(path)


__all__ = ["normalise_content"]
