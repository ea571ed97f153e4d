"""The writer's counters on disk: :class:`WriterStats` in
``<workspace>/state/writer_status.json`` (so ``familiars memory writer-status`` in another
process can read them), and the paths of the state folder and the turn queue.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from familiars.memory._atomic import atomic_write_text
from familiars.memory._records import iso_now
from familiars.memory._writer._apply import ApplyReport

logger = logging.getLogger(__name__)


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
    #: Writes moved out of a scope the speaker may not change (issue 12).
    redirected: int = 0
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
        self.redirected += report.redirected
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
