"""Consolidation passes kept in files: what each pass merged and expired, and its undo.

A pass is written to ``workspace/consolidation/passes/<pass_id>.json`` as it goes, so the
index can be lost and ``familiars memory consolidate --undo PASS`` still knows what to
restore. The file holds record ids and counts, never texts: forgetting a record must not
leave its words in a pass file. The records' own history events (deprecate / upsert) keep
the full previous state; the pass file says which events belong together.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from familiars.memory._errors import MemoryError_, RecordNotFoundError
from familiars.memory._records import utcnow
from familiars.memory._state_home import FileStateHome, StateHome
from familiars.memory._store import MemoryStore

logger = logging.getLogger(__name__)

PASS_ID_RE = re.compile(r"^p_\d{8}T\d{6}(?:_\d+)?$")


class UnknownPassError(MemoryError_):
    """No consolidation pass with that id was kept."""


@dataclass
class PassLog:
    """One pass: ``merges`` are ``{"created": id, "sources": [ids], "owner": key}``."""

    pass_id: str
    started_at: str
    finished_at: str | None = None
    merges: list[dict[str, Any]] = field(default_factory=list)
    expired: list[str] = field(default_factory=list)
    stopped: list[dict[str, Any]] = field(default_factory=list)
    #: Stage promotion: episodes made, and ``{"created": core, "replaced": [old cores]}``.
    episodes: list[str] = field(default_factory=list)
    cores: list[dict[str, Any]] = field(default_factory=list)
    max_share: float = 0.25
    undone_at: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> dict[str, Any]:
        """What ``familiars status`` shows of the last pass."""
        return {
            "pass_id": self.pass_id,
            "finished_at": self.finished_at,
            "merged": len(self.merges),
            "deprecated": sum(len(m["sources"]) for m in self.merges),
            "expired": len(self.expired),
            "stopped": len(self.stopped),
            "episodes": len(self.episodes),
            "core_profiles": len(self.cores),
            "undone_at": self.undone_at,
        }


PASSES = "consolidation/passes/"
#: Where passes are kept: a workspace's folder, or a state home (the database's rows).
Where = Path | StateHome


def passes_dir(workspace: Path) -> Path:
    return Path(workspace) / "consolidation" / "passes"


def _home(where: Where) -> StateHome:
    return FileStateHome(Path(where)) if isinstance(where, (Path, str)) else where


def new_pass(where: Where, now: datetime | None = None, *, max_share: float) -> PassLog:
    """A fresh pass with an id no earlier pass of this workspace holds."""
    stamp = (now or utcnow()).strftime("%Y%m%dT%H%M%S")
    pass_id, n = f"p_{stamp}", 1
    while _home(where).read(f"{PASSES}{pass_id}.json") is not None:
        n += 1
        pass_id = f"p_{stamp}_{n}"
    return PassLog(pass_id, (now or utcnow()).isoformat(timespec="seconds"), max_share=max_share)


def save_pass(where: Where, log: PassLog) -> None:
    text = json.dumps(log.as_dict(), indent=1)
    _home(where).write(f"{PASSES}{log.pass_id}.json", text.encode("utf-8", "surrogateescape"))


def load_pass(where: Where, pass_id: str) -> PassLog:
    if not PASS_ID_RE.match(pass_id):
        raise UnknownPassError(f"{pass_id!r} is not a pass id (expected p_YYYYMMDDTHHMMSS)")
    try:
        raw = _home(where).read(f"{PASSES}{pass_id}.json")
        if raw is None:
            raise FileNotFoundError(pass_id)
        data = json.loads(raw.decode("utf-8"))
        return _checked(data, pass_id)
    except FileNotFoundError:
        raise UnknownPassError(f"no consolidation pass {pass_id} in this workspace") from None
    except (ValueError, TypeError, KeyError, AttributeError) as exc:  # hand-edited, damaged
        raise UnknownPassError(
            f"consolidation/passes/{pass_id}.json is damaged ({exc}); "
            "it was left as it is and nothing was undone"
        ) from None


def _checked(data: Any, pass_id: str) -> PassLog:
    """The pass a file holds, its shape checked (ids are strings, lists are lists)."""
    if not isinstance(data, dict) or data.get("pass_id") != pass_id:
        raise ValueError(f"it does not hold pass {pass_id}")
    log = PassLog(**{k: v for k, v in data.items() if k in PassLog.__dataclass_fields__})
    if not isinstance(log.started_at, str):
        raise ValueError("started_at is not a time")
    for name in ("merges", "expired", "stopped", "episodes", "cores"):
        if not isinstance(getattr(log, name), list):
            raise ValueError(f"{name} is not a list")
    ids = [*log.expired, *log.episodes]
    for merge in log.merges:
        ids += [merge["created"], *merge["sources"]]
    for core in log.cores:
        ids += [core["created"], *core.get("replaced", [])]
    if not all(isinstance(i, str) for i in ids):
        raise ValueError("a record id is not a string")
    return log


def pass_ids(where: Where) -> list[str]:
    """Every kept pass, oldest first."""
    names = _home(where).names(PASSES, ".json")
    stems = [n.removeprefix(PASSES).removesuffix(".json") for n in names]
    return sorted(s for s in stems if s.startswith("p_") and "/" not in s)


def last_pass(where: Where) -> PassLog | None:
    """The newest finished pass, or None."""
    for pass_id in reversed(pass_ids(where)):
        try:
            log = load_pass(where, pass_id)
        except (UnknownPassError, ValueError, TypeError):
            continue
        if log.finished_at is not None:
            return log
    return None


async def undo_pass(store: MemoryStore, pass_id: str, now: datetime | None = None) -> PassLog:
    """Put back what pass ``pass_id`` changed: each merged record is deprecated and its
    sources are live again. What it expired stays expired (its TTL said so, not the pass).
    A record forgotten since is skipped, and so are the sources of a merged record (or the
    old core profiles of a core profile) forgotten or replaced since: forgetting and the
    person's later corrections win over an undo."""
    log = load_pass(store.state_home, pass_id)
    if log.undone_at is not None:
        return log
    for merge in log.merges:
        if await _retire(store, str(merge["created"])):
            for src in merge["sources"]:
                await _set_deprecated(store, str(src), False)
    for core in log.cores:
        if await _retire(store, str(core["created"])):
            for old in core["replaced"]:
                await _set_deprecated(store, str(old), False)
    for episode in log.episodes:
        await _set_deprecated(store, episode, True)
    log.undone_at = (now or utcnow()).isoformat(timespec="seconds")
    save_pass(store.state_home, log)
    return log


async def _retire(store: MemoryStore, record_id: str) -> bool:
    """Deprecate what the pass made, when it still stands as the pass left it; False when
    it was forgotten or replaced since (the person corrected it, a later pass made it
    again): what it came from then stays as it is, or the old words would come back."""
    try:
        rec = await store.get(record_id)
    except RecordNotFoundError:
        logger.info("undo: %s was forgotten since the pass; its sources stay", record_id)
        return False
    if rec.deprecated:
        logger.info("undo: %s was replaced since the pass; its sources stay", record_id)
        return False
    await store.deprecate(record_id)
    return True


async def _set_deprecated(store: MemoryStore, record_id: str, value: bool) -> None:
    try:
        rec = await store.get(record_id)
    except RecordNotFoundError:
        logger.info("undo: %s was forgotten since the pass; skipped", record_id)
        return
    if rec.deprecated != value:
        await store.modify(record_id, _event="deprecate" if value else "upsert", deprecated=value)


__all__ = [
    "PassLog",
    "UnknownPassError",
    "last_pass",
    "load_pass",
    "new_pass",
    "pass_ids",
    "passes_dir",
    "save_pass",
    "undo_pass",
]
