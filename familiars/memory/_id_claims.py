"""One id, one entry, across every memory file of a workspace.

A record's id names it everywhere (``/memory show``, a forget, the index), so an entry copied
by hand into another file with the same id (another person's file, even) would be two
records under one name: listed for one person, shown and forgotten as the other's. The store
settles it as it reads, whatever order the files are read in: the entry kept is the one whose
own file's history has the id written by the bot (not only noted as a hand edit), failing
that the one in the file whose path sorts first; the other becomes a broken entry of its
file, reported with both places and kept as it was typed (:func:`set_aside`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, MutableMapping
from pathlib import Path

from familiars.memory import _history as history
from familiars.memory._entries import ParsedFile, Segment, set_aside

logger = logging.getLogger(__name__)


class IdClaims:
    """Settles ids used in two files, and remembers whose entry gave way to whose: when the
    kept file changes, the other's parse is dropped so that it is judged again."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = Path(workspace)
        #: kept file -> files with an entry set aside because of it
        self._shadows: dict[Path, set[Path]] = {}
        #: files to be judged again since their kept file changed (the index reads them)
        self._rejudged: set[Path] = set()

    def settle(
        self,
        path: Path,
        parsed: ParsedFile,
        id_paths: MutableMapping[str, Path],
        load: Callable[[Path], ParsedFile],
    ) -> None:
        """Claim the ids of ``parsed`` (just read from ``path``) in ``id_paths``; an id the
        map gives to another file still holding it is settled between the two. ``load``
        reads a file as the store does (it may settle the same id first)."""
        for i, seg in enumerate(parsed.segments):
            rec = seg.record
            if rec is None:
                continue
            other = id_paths.get(rec.id)
            if other is not None and other != path:
                held = load(other)
                if parsed.segments[i].record is None:  # set aside while ``other`` was read
                    continue
                j = _entry_of(held, rec.id)
                if j is not None:
                    if self.kept(other, path, rec.id) == other:
                        self._set_aside(path, parsed, i, other, held.segments[j])
                        continue
                    self._set_aside(other, held, j, path, seg)
                    logger.warning("%s", held.segments[j].error)
            id_paths[rec.id] = path

    def dependants(self, path: Path) -> set[Path]:
        """The files with an entry set aside for one in ``path`` (forgotten here: ``path``
        changed, so they are to be read and judged again)."""
        found = self._shadows.pop(Path(path), set())
        self._rejudged |= found
        return found

    def take_rejudged(self) -> set[Path]:
        """The files judged again since the last call: whose verdicts may have changed
        while the files themselves did not (the index reads them again)."""
        found, self._rejudged = self._rejudged, set()
        return found

    def kept(self, a: Path, b: Path, record_id: str) -> Path:
        """Which of two files holding ``record_id`` keeps it."""
        return min((a, b), key=lambda p: (not _written_by_bot(p, record_id), self._name(p)))

    def _name(self, path: Path) -> str:
        try:
            return Path(path).relative_to(self.workspace).as_posix()
        except ValueError:
            return str(path)

    def _set_aside(
        self, path: Path, parsed: ParsedFile, i: int, kept: Path, kept_seg: Segment
    ) -> None:
        where = self._name(kept) + (f":{kept_seg.line}" if kept_seg.line else "")
        rec = parsed.segments[i].record
        assert rec is not None
        reason = (
            f"the id {rec.id} is already the id of the entry at {where}; give this entry a "
            "new id (or remove it)"
        )
        parsed.segments[i] = set_aside(parsed.segments[i], path, reason)
        self._shadows.setdefault(Path(kept), set()).add(Path(path))


def _entry_of(parsed: ParsedFile, record_id: str) -> int | None:
    for j, seg in enumerate(parsed.segments):
        if seg.record is not None and seg.record.id == record_id:
            return j
    return None


def _written_by_bot(memory_file: Path, record_id: str) -> bool:
    """Whether the history of ``memory_file`` has an event of ``record_id`` the bot wrote
    (not one noting a hand edit)."""
    return any(
        e.get("id") == record_id and e.get("by") != "hand"
        for e in history.read_events(memory_file).events
    )


__all__ = ["IdClaims"]
