"""``POST /api/agents/{id}/release-memory``: evict an agent's resident models via the gate."""

from __future__ import annotations

import logging
from typing import Any

from familiars.bot._api.status import StatusSources, is_shared_model

logger = logging.getLogger(__name__)


async def release_agent_memory(sources: StatusSources, agent_id: str) -> dict[str, Any]:
    """Evict the residents the gate holds for ``agent_id`` (its own and shared ones, see
    :func:`default_agent_models`); report what was freed and what the gate refused (CRITICAL
    residents, sync residents serving a request)."""
    result: dict[str, Any] = {
        "agent_id": agent_id,
        "gate_available": sources.gate is not None,
        "freed": [],
        "freed_mb": 0.0,
        "refused": [],
    }
    gate = sources.gate
    if gate is None:
        return result
    residents = {
        str(r["model_id"]): float(r.get("estimated_mb") or 0.0)
        for r in gate.snapshot().get("residents", [])
        if isinstance(r, dict) and "model_id" in r
    }
    agent_ids = [a.id for a in sources.settings.agents]
    for model_id in sources.agent_models(agent_id, list(residents), agent_ids):
        try:
            evicted = await gate.evict(model_id, reason=f"release-memory {agent_id}")
        except ValueError as exc:
            result["refused"].append({"model_id": model_id, "reason": str(exc)})
            continue
        if evicted:
            mb = residents.get(model_id, 0.0)
            shared = is_shared_model(model_id, agent_ids)
            result["freed"].append({"model_id": model_id, "estimated_mb": mb, "shared": shared})
            result["freed_mb"] += mb
    result["freed_mb"] = round(result["freed_mb"], 1)
    logger.info(
        "release-memory %s: freed %s (%.1f MB), refused %s",
        agent_id,
        [f["model_id"] for f in result["freed"]],
        result["freed_mb"],
        [r["model_id"] for r in result["refused"]],
    )
    return result
