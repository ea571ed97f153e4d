"""Edit history: one append-only JSONL sidecar per indexed file.

Owner files: ``workspace/files/edits/<file_id>.jsonl``; a person's attachments:
``workspace/users/<user_key>/files/.edits/<file_id>.jsonl`` (so forgetting a person removes
their history with their files). Each line is one event::

    {"event": "upsert", "ts": "...", "file_id": "...", "owner": "", "path": "...",
     "name": "...", "folder": "...", "ext": ".pdf", "kind": "pdf", "sha256": "...",
     "size": 123, "mtime": 1.0, "chunks": [{"seq": 0, "kind": "summary", "page": null,
     "text": "..."}, ...]}
    {"event": "delete", "ts": "...", "file_id": "...", "path": "..."}

The sidecars live on the filesystem, not in ``familiars.db``, so they survive a full rebuild
of the index (which happens whenever the embedding model changes); a rebuild replays them, and
every earlier version of a file stays findable as history.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from familiars.memory._atomic import append_line_durably
from familiars.memory._documents.chunking import Chunk
from familiars.memory._paths import check_user_key, user_dir

logger = logging.getLogger(__name__)

OWNER = ""  # the owner scope: watched folders and files added from the command line


def edits_dir(workspace: Path, owner: str) -> Path:
    if owner == OWNER:
        return Path(workspace) / "files" / "edits"
    return user_dir(workspace, check_user_key(owner)) / "files" / ".edits"


def sidecar_path(workspace: Path, owner: str, file_id: str) -> Path:
    return edits_dir(workspace, owner) / f"{file_id}.jsonl"


def iso_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class Version:
    """One upsert event: what a file said at one time."""

    file_id: str
    owner: str
    path: str
    name: str
    folder: str
    ext: str
    kind: str
    sha256: str
    size: int
    mtime: float
    ts: str
    chunks: tuple[Chunk, ...] = field(default_factory=tuple)

    @property
    def key(self) -> str:
        """Names this version in the index: sortable by time, distinct per content."""
        return f"{self.ts} {self.sha256[:12]}"

    def to_event(self) -> dict[str, Any]:
        return {
            "event": "upsert",
            "ts": self.ts,
            "file_id": self.file_id,
            "owner": self.owner,
            "path": self.path,
            "name": self.name,
            "folder": self.folder,
            "ext": self.ext,
            "kind": self.kind,
            "sha256": self.sha256,
            "size": self.size,
            "mtime": self.mtime,
            "chunks": [c.to_json() for c in self.chunks],
        }

    @classmethod
    def from_event(cls, data: dict[str, Any]) -> Version:
        return cls(
            file_id=str(data["file_id"]),
            owner=str(data.get("owner", OWNER)),
            path=str(data["path"]),
            name=str(data["name"]),
            folder=str(data.get("folder", "")),
            ext=str(data.get("ext", "")),
            kind=str(data.get("kind", "text")),
            sha256=str(data["sha256"]),
            size=int(data.get("size", 0)),
            mtime=float(data.get("mtime", 0.0)),
            ts=str(data["ts"]),
            chunks=tuple(Chunk.from_json(c) for c in data.get("chunks", [])),
        )


@dataclass
class FileHistory:
    """A file's sidecar, replayed: its versions oldest first, and whether it is deleted now."""

    file_id: str
    owner: str
    versions: list[Version] = field(default_factory=list)
    deleted_at: str | None = None
    bad_lines: list[int] = field(default_factory=list)

    @property
    def current(self) -> Version | None:
        if self.deleted_at is not None or not self.versions:
            return None
        return self.versions[-1]

    @property
    def earlier(self) -> list[Version]:
        """Versions that are history now (all of them once the file is deleted)."""
        return self.versions if self.current is None else self.versions[:-1]


class EditHistory:
    """Reads and appends the sidecars of one workspace."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = Path(workspace)

    def record_upsert(self, version: Version) -> None:
        line = json.dumps(version.to_event(), ensure_ascii=False, separators=(",", ":"))
        append_line_durably(sidecar_path(self.workspace, version.owner, version.file_id), line)

    def record_delete(self, owner: str, file_id: str, path: str, *, ts: str | None = None) -> None:
        event = {"event": "delete", "ts": ts or iso_now(), "file_id": file_id, "path": path}
        line = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
        append_line_durably(sidecar_path(self.workspace, owner, file_id), line)

    def erase(self, owner: str, file_id: str) -> None:
        """A forget: the file's whole history goes (its sidecar removed)."""
        sidecar_path(self.workspace, owner, file_id).unlink(missing_ok=True)

    def close(self) -> None:
        """Nothing held open (the database's history holds a connection)."""

    def read(self, owner: str, file_id: str) -> FileHistory:
        return read_sidecar(sidecar_path(self.workspace, owner, file_id), owner, file_id)

    def all(self) -> Iterator[FileHistory]:
        """Every sidecar of the workspace: the owner's, then each person's."""
        for owner, folder in self._edit_dirs():
            for path in sorted(folder.glob("*.jsonl")):
                yield read_sidecar(path, owner, path.stem)

    def _edit_dirs(self) -> Iterator[tuple[str, Path]]:
        owner_dir = edits_dir(self.workspace, OWNER)
        if owner_dir.is_dir():
            yield OWNER, owner_dir
        users = self.workspace / "users"
        if not users.is_dir():
            return
        for user in sorted(users.iterdir()):
            folder = user / "files" / ".edits"
            if folder.is_dir():
                yield user.name, folder


def read_sidecar(path: Path, owner: str, file_id: str) -> FileHistory:
    """Replay one sidecar. A line that does not parse (a crash mid-append, a hand edit) is
    reported and skipped; the rest still counts."""
    if not path.exists():
        return FileHistory(file_id=file_id, owner=owner)
    text = path.read_bytes().decode("utf-8", "replace")
    return replay_lines(text.split("\n"), owner, file_id, where=str(path))


def replay_lines(lines: Iterable[str], owner: str, file_id: str, *, where: str) -> FileHistory:
    """A file's history from its event lines, in order; unreadable ones are skipped."""
    history = FileHistory(file_id=file_id, owner=owner)
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            _apply(history, json.loads(line))
        except (ValueError, KeyError, TypeError) as exc:
            history.bad_lines.append(number)
            logger.warning("%s:%d: unreadable edit-history line skipped (%s)", where, number, exc)
    return history


def _apply(history: FileHistory, event: dict[str, Any]) -> None:
    kind = event["event"]
    if kind == "upsert":
        history.versions.append(Version.from_event(event))
        history.deleted_at = None
    elif kind == "delete":
        history.deleted_at = str(event["ts"])
    else:
        raise ValueError(f"unknown event {kind!r}")
