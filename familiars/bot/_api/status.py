"""The memory status: counts, sizes, embedding space, recall and writer statistics, provider
cooldowns and gate residents.

The runtime hands in what it has as :class:`StatusSources` (the other services are not
imported here: they arrive as small protocols and callables). Parts that are absent, such as
the gate when ``familiars status`` runs in a separate process, are reported as absent, and
whatever those services persisted in the workspace is read instead where it exists.
"""

from __future__ import annotations

import inspect
import json
import logging
import os
import time
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from familiars.bot._api.guards import without_workspace
from familiars.bot._api.queries import IndexReader
from familiars.bot._state_files import EMBEDDER_FIELDS
from familiars.config import Settings
from familiars.memory import HISTORY_SUFFIX, last_pass, read_owner, utcnow
from familiars.memory import load_status as load_writer_status
from familiars.memory import status_path as writer_status_path
from familiars.scheduler import jobs_snapshot_path
from familiars.scheduler import snapshot_path as gate_snapshot_path

logger = logging.getLogger(__name__)

Stats = Mapping[str, Any]
StatsFn = Callable[[], Stats | Awaitable[Stats]]
#: The running bot's ``Forgetter.forget`` (its report has ``records`` and ``nodes``).
ForgetFn = Callable[[str], Awaitable[Any]]


@runtime_checkable
class GateLike(Protocol):
    """What the status and ``release-memory`` need of the VRAM gate."""

    def snapshot(self) -> dict[str, Any]: ...

    async def evict(self, model_id: str, *, reason: str = "manual") -> bool: ...


class EmbedderInfo(Protocol):
    model_name: str
    dim: int

    def describe(self) -> dict[str, Any]: ...


class ProviderStateLike(Protocol):
    def as_dict(self, now: float | None = None) -> dict[str, Any]: ...


ProvidersFn = Callable[[], Sequence[ProviderStateLike | Mapping[str, Any]]]
#: Which resident model ids ``release-memory`` evicts for an agent:
#: ``fn(agent_id, resident_ids, all_agent_ids)``; defaults to :func:`default_agent_models`.
AgentModelsFn = Callable[[str, Iterable[str], Collection[str]], Iterable[str]]


#: Where other services leave their state for a separate process to read (JSON objects; a
#: missing or unreadable file means "absent"): the writer's and the gate's own files, and the
#: names the reader and the provider router are expected to use under ``state/``.
def _persisted_paths(workspace: Path) -> dict[str, Path]:
    return {
        "writer": writer_status_path(workspace),
        "recall": workspace / "state" / "recall_stats.json",
        "providers": workspace / "state" / "provider_states.json",
        "gate": gate_snapshot_path(workspace),
        "jobs": jobs_snapshot_path(workspace),
        "embedder": workspace / "state" / "embedder.json",
    }


def _named_agents(model_id: str, agent_ids: Collection[str]) -> set[str]:
    parts = model_id.replace("/", ":").replace("@", ":").split(":")
    return {p for p in parts if p in agent_ids}


def default_agent_models(
    agent_id: str, resident_ids: Iterable[str], agent_ids: Collection[str]
) -> list[str]:
    """Residents naming the agent as one part of their id (``decider:agent_1``,
    ``agent_1/writer``, ``writer@agent_1``), and shared ones naming no configured agent
    (``embedder``, ``consolidator``: they load again on next use). Residents of other agents
    stay."""
    known = set(agent_ids) | {agent_id}
    out = []
    for model_id in resident_ids:
        named = _named_agents(model_id, known)
        if not named or agent_id in named:
            out.append(model_id)
    return out


def is_shared_model(model_id: str, agent_ids: Collection[str]) -> bool:
    return not _named_agents(model_id, agent_ids)


@dataclass
class StatusSources:
    """Everything the status is collected from. Only ``settings`` is required."""

    settings: Settings
    embedder: EmbedderInfo | None = None
    writer_stats: StatsFn | None = None
    recall_stats: StatsFn | None = None
    gate: GateLike | None = None
    providers: ProvidersFn | None = None
    agent_models: AgentModelsFn = default_agent_models
    #: Forgetting through the API: only the running bot's one Forgetter (the API served
    #: alone has none, and says so).
    forget: ForgetFn | None = None
    clock: Callable[[], datetime] = field(default=utcnow)

    @property
    def workspace(self) -> Path:
        return Path(self.settings.workspace)


async def _call(fn: Callable[[], Any]) -> Any:
    result = fn()
    if inspect.isawaitable(result):
        result = await result
    return result


def _read_persisted(workspace: Path, name: str) -> dict[str, Any] | None:
    path = _persisted_paths(workspace)[name]
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        logger.warning("ignoring unreadable %s: %s", path, exc)
        return None
    return data if isinstance(data, dict) else None


async def _source(
    fn: Callable[[], Any] | None, workspace: Path, name: str
) -> tuple[str, dict[str, Any] | None]:
    """("live", data) from the running service, else ("persisted", data), else absent."""
    if fn is not None:
        data = await _call(fn)
        return "live", dict(data) if data is not None else {}
    persisted = _read_persisted(workspace, name)
    if persisted is not None:
        return "persisted", persisted
    return "absent", None


# ----------------------------------------------------------------------------------- parts


def _first(data: Mapping[str, Any], *keys: str) -> Any:
    for key in keys:
        if data.get(key) is not None:
            return data[key]
    return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def recall_block(source: str, data: Mapping[str, Any] | None) -> dict[str, Any]:
    """Normalise whatever the reader reports into the fields the API promises."""
    if data is None:
        return {"available": False, "source": "absent"}
    recalls = _number(_first(data, "recalls", "count", "queries"))
    nested = data.get("latency_ms")
    latency: Mapping[str, Any] = nested if isinstance(nested, Mapping) else {}
    return {
        "available": True,
        "source": source,
        "recalls": int(recalls) if recalls is not None else None,
        "items_per_recall": _number(_first(data, "items_per_recall", "mean_items")),
        "hit_rate": _number(_first(data, "hit_rate", "used_rate")),
        "latency_p50_ms": _number(
            _first(data, "latency_p50_ms", "p50_ms") or _first(latency, "p50", "p50_ms")
        ),
        "latency_p95_ms": _number(
            _first(data, "latency_p95_ms", "p95_ms") or _first(latency, "p95", "p95_ms")
        ),
        "detail": _jsonable(data),
    }


def _jsonable(data: Any) -> Any:
    return json.loads(json.dumps(data, default=str))


def providers_block(
    source: str, items: Sequence[Any] | None, now: float | None = None
) -> dict[str, Any]:
    if items is None:
        return {"available": False, "source": "absent", "providers": []}
    now = time.time() if now is None else now
    out = []
    for item in items:
        data = item.as_dict(now) if hasattr(item, "as_dict") else dict(item)
        if "name" not in data:
            continue
        until = _number(data.get("cooling_until"))
        if until is not None and "cooldown_left_s" not in data:
            data["cooldown_left_s"] = max(0.0, round(until - now, 1))
        out.append(_jsonable(data))
    return {"available": True, "source": source, "providers": out}


def gate_block(source: str, snap: Mapping[str, Any] | None) -> dict[str, Any]:
    if snap is None:
        return {"available": False, "source": "absent", "residents": []}
    residents = [dict(r) for r in snap.get("residents", []) if isinstance(r, Mapping)]
    detail = {k: v for k, v in snap.items() if k not in ("residents", "history")}
    return {
        "available": True,
        "source": source,
        "residents": _jsonable(residents),
        "budget_mb": _number(snap.get("budget_mb")),
        "committed_mb": _number(snap.get("committed_mb")),
        "free_mb": _number(snap.get("free_mb")),
        "detail": _jsonable(detail),
    }


def _walk_sizes(root: Path) -> tuple[int, int, int, int]:
    """(memory files, their bytes, history files, their bytes) under ``root``."""
    md = md_bytes = hist = hist_bytes = 0
    stack = [root]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except (FileNotFoundError, NotADirectoryError, PermissionError):
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
            elif entry.name.endswith(HISTORY_SUFFIX):
                hist += 1
                hist_bytes += entry.stat().st_size
            elif entry.name.endswith(".md"):
                md += 1
                md_bytes += entry.stat().st_size
    return md, md_bytes, hist, hist_bytes


def storage_block(workspace: Path, reader: IndexReader) -> dict[str, Any]:
    totals = [0, 0, 0, 0]
    for sub in ("users", "agents", "user"):
        for i, value in enumerate(_walk_sizes(workspace / sub)):
            totals[i] += value
    return {
        "memory_files": totals[0],
        "memory_bytes": totals[1],
        "history_files": totals[2],
        "history_bytes": totals[3],
        "index_path": str(reader.path),
        "index_present": reader.path.is_file(),
        "index_bytes": reader.index_bytes(),
    }


async def embedding_block(sources: StatusSources, reader: IndexReader) -> dict[str, Any]:
    spaces = await reader.embedding_spaces()
    info: dict[str, Any] = {
        "configured_model": sources.settings.embedding.model,
        "model": None,
        "dim": None,
        "fallback_from": None,
        "backend": None,
        "spaces": spaces,
    }
    if sources.embedder is not None:
        described = sources.embedder.describe()
        info.update(
            model=sources.embedder.model_name,
            dim=int(sources.embedder.dim),
            fallback_from=described.get("fallback_from"),
            backend=described.get("backend"),
        )
    elif (running := _running_embedder(sources.settings.workspace)) is not None:
        info.update(running)  # a bot beside this process says which it loaded, and where
    elif spaces:
        # Not loaded here: the space with the most vectors is the one the bot uses.
        busiest = max(spaces, key=lambda s: s["vectors"])
        info.update(model=busiest["model"], dim=busiest["dim"])
    return info


def _running_embedder(workspace: str | Path) -> dict[str, Any] | None:
    """The embedder a bot that owns ``workspace`` now wrote it uses (None: no bot runs, or
    it has not said; a file left by a bot that stopped is not read)."""
    where = Path(workspace)
    if read_owner(where) is None:
        return None
    said = _read_persisted(where, "embedder")
    return None if said is None else {k: said.get(k) for k in EMBEDDER_FIELDS}


def records_block(cells: list[dict[str, Any]]) -> dict[str, Any]:
    totals = {"total": 0, "live": 0, "deprecated": 0, "expired": 0, "pinned": 0}
    for cell in cells:
        for key in ("live", "deprecated", "expired", "pinned"):
            totals[key] += cell[key]
        totals["total"] += cell["live"] + cell["deprecated"] + cell["expired"]
    return {"totals": totals, "cells": cells}


def scheduler_block(workspace: Path) -> dict[str, Any]:
    """The jobs the running scheduler saved (``scheduler/jobs.json``), or none running."""
    data = _read_persisted(workspace, "jobs")
    if not data:
        return {"available": False, "jobs": []}
    listed = data.get("jobs")
    jobs = [
        {"id": job["id"], "next_run": job.get("next_run")}
        for job in (listed if isinstance(listed, list) else [])
        if isinstance(job, dict) and isinstance(job.get("id"), str)
    ]  # a hand-edited or half-written file shows what it can, never a traceback
    return {"available": True, "running": bool(data.get("running")), "jobs": jobs}


def consolidation_block(workspace: Path) -> dict[str, Any] | None:
    """What the last finished consolidation pass did (from its file), or None."""
    log = last_pass(workspace)
    return log.summary() if log is not None else None


async def collect_status(sources: StatusSources, reader: IndexReader) -> dict[str, Any]:
    """The whole status as plain JSON-able data (the ``MemoryStatus`` schema)."""
    started = time.perf_counter()
    now = sources.clock()
    workspace = sources.workspace
    cells = await reader.status_counts(now)
    writer_src, writer = await _writer(sources)
    recall_src, recall = await _source(sources.recall_stats, workspace, "recall")
    providers_src, providers = await _providers(sources)
    gate_src, gate = await _source(
        sources.gate.snapshot if sources.gate is not None else None, workspace, "gate"
    )
    status = {
        "generated_at": now.isoformat(timespec="seconds"),
        "workspace": str(workspace),
        "records": records_block(cells),
        "storage": storage_block(workspace, reader),
        "embedding": await embedding_block(sources, reader),
        "recall": recall_block(recall_src, recall),
        "writer": {
            "available": writer is not None,
            "source": writer_src,
            "data": _jsonable(writer or {}),
        },
        "providers": providers_block(providers_src, providers),
        "gate": gate_block(gate_src, gate),
        "scheduler": scheduler_block(workspace),
        "consolidation": consolidation_block(workspace),
        "elapsed_ms": round((time.perf_counter() - started) * 1000, 3),
    }
    # Paths as the workspace knows them; where it lies on the machine is not the API's to say.
    cleaned: dict[str, Any] = without_workspace(status, workspace)
    return cleaned


async def _writer(sources: StatusSources) -> tuple[str, dict[str, Any] | None]:
    """Live counters, else the writer's saved ones (with the queue depth counted from its
    queue folder, as ``memory writer-status`` shows them)."""
    if sources.writer_stats is not None:
        return "live", dict(await _call(sources.writer_stats))
    if writer_status_path(sources.workspace).is_file():
        return "persisted", load_writer_status(sources.workspace).as_dict()
    return "absent", None


async def _providers(sources: StatusSources) -> tuple[str, Sequence[Any] | None]:
    """Live states, else saved ones: the router's file, else those the writer saved."""
    if sources.providers is not None:
        return "live", list(await _call(sources.providers))
    persisted = _read_persisted(sources.workspace, "providers")
    if persisted is None:
        persisted = _read_persisted(sources.workspace, "writer")
    if persisted is None or not persisted.get("providers"):
        return "absent", None
    items = persisted.get("providers", [])
    return "persisted", [i for i in items if isinstance(i, Mapping)]
