"""What the finder hands back: index results, found files, listings, fetched files."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class IndexResult:
    """What happened to one file: ``indexed``, ``unchanged``, ``skipped`` or ``removed``."""

    path: str
    status: str
    file_id: str | None = None
    chunks: int = 0
    reason: str | None = None
    code: str | None = None
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass(frozen=True)
class FoundFile:
    """One search hit: the file, the page (None when unpaginated), the passage, and the
    score with its parts (``dense``/``keyword`` normalised, ``cosine`` raw, knob effects)."""

    file_id: str
    name: str
    path: str
    owner: str | None
    page: int | None
    passage: str
    score: float
    parts: dict[str, float]
    chunk_kind: str
    version: str
    is_history: bool
    explain: dict[str, Any] = field(default_factory=dict)  # the score, part by part

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class FileInfo:
    file_id: str
    owner: str | None
    path: str
    name: str
    kind: str
    size: int
    chunks: int
    indexed_at: str
    versions: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class FileBlob:
    """A found file's bytes, to send back."""

    file_id: str
    name: str
    path: str
    data: bytes


@dataclass
class RebuildReport:
    files: int = 0
    versions: int = 0
    history_versions: int = 0
    bad_lines: int = 0
    reindexed: list[IndexResult] = field(default_factory=list)
