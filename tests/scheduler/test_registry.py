"""Models loaded through the gate, reloaded after eviction; queue work checkpoints and resumes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from familiars.scheduler import (
    GatedEmbedder,
    Lease,
    ModelRegistry,
    ModelSpec,
    Priority,
    UnknownModelError,
    VRAMGate,
    boost_thread_priority,
    embedder_spec,
    run_resumable,
)
from tests.fakes import HashEmbedder


class UnloadableHash(HashEmbedder):
    def __init__(self) -> None:
        super().__init__(dim=16)
        self.unloads = 0

    def unload(self) -> None:
        self.unloads += 1


async def test_a_model_loads_on_use_and_reloads_after_eviction() -> None:
    gate = VRAMGate(1000, acquire_timeout_s=0.05)
    registry = ModelRegistry(gate)
    unloaded: list[str] = []
    registry.register(
        ModelSpec(
            "reranker",
            600,
            load=lambda: "weights",
            unload=lambda m: unloaded.append(m),
            priority=Priority.NICE,
        )
    )
    async with registry.use("reranker") as model:
        assert model == "weights"
    async with registry.use("reranker"):
        pass
    assert registry.loads == {"reranker": 1}
    await gate.acquire("decider", 600, Priority.IMPORTANT)  # evicts the idle reranker
    assert unloaded == ["weights"] and not registry.is_loaded("reranker")
    with pytest.raises(UnknownModelError, match="no model registered under 'nope'"):
        await registry.acquire("nope")


async def test_gated_embedder_goes_through_the_gate_and_reloads() -> None:
    gate = VRAMGate(1000, acquire_timeout_s=0.05)
    registry = ModelRegistry(gate)
    inner = UnloadableHash()
    registry.register(embedder_spec(inner, estimated_mb=700))
    emb = GatedEmbedder(registry, "embedder", model_name=inner.model_name, dim=inner.dim)
    first = await emb.aembed_batch(["hello there"])
    assert first.shape == (1, 16) and gate.is_resident("embedder")
    assert await gate.evict("embedder")
    assert inner.unloads == 1 and not registry.is_loaded("embedder")
    again = await emb.aembed_batch(["hello there"])
    np.testing.assert_allclose(first, again)
    assert registry.loads["embedder"] == 2
    # From a worker thread the sync API still goes through the gate on the owning loop.
    await gate.evict("embedder")
    vec = await asyncio.to_thread(emb.embed_batch, ["from a thread"])
    assert vec.shape == (1, 16) and registry.loads["embedder"] == 3
    assert not gate.entry("embedder").is_working
    # A boost in the calling thread reaches the gate: CRITICAL while it embeds.
    seen: list[int] = []
    inner.embed_batch = lambda texts: (  # type: ignore[method-assign]
        seen.append(gate.entry("embedder").priority) or HashEmbedder.embed_batch(inner, texts)
    )

    def boosted() -> None:
        with boost_thread_priority(Priority.CRITICAL):
            emb.embed_batch(["user is waiting"])

    await asyncio.to_thread(boosted)
    assert seen == [Priority.CRITICAL]
    assert gate.entry("embedder").priority == Priority.IMPORTANT


async def test_the_real_embedder_reloads_after_eviction(real_embedder: Any) -> None:
    gate = VRAMGate(4000, acquire_timeout_s=5)
    registry = ModelRegistry(gate)
    registry.register(embedder_spec(real_embedder, estimated_mb=100))
    emb = GatedEmbedder(
        registry, "embedder", model_name=real_embedder.model_name, dim=real_embedder.dim
    )
    before = await emb.aembed("call mom tomorrow")
    await gate.evict("embedder")
    assert not real_embedder.loaded  # the weights really went
    after = await emb.aembed("call mom tomorrow")
    assert real_embedder.loaded
    assert float(before @ after) > 0.999


async def test_queue_work_checkpoints_when_evicted_and_resumes(tmp_path: Path) -> None:
    gate = VRAMGate(1000, acquire_timeout_s=1)
    ckpt = tmp_path / "ckpt" / "consolidation.json"
    processed: list[int] = []
    interrupted = asyncio.Event()

    async def work(state: dict[str, Any], lease: Lease) -> None:
        while state.get("next", 0) < 10:
            lease.raise_if_preempted()
            i = state.get("next", 0)
            processed.append(i)
            state["next"] = i + 1
            if i == 3 and not interrupted.is_set():
                interrupted.set()
                # A person needs the GPU: the sync acquire evicts this working queue job.
                await gate.acquire("embedder", 600, Priority.IMPORTANT)
            await asyncio.sleep(0)

    assert (
        await run_resumable(gate, "consolidator", work, checkpoint_path=ckpt, estimated_mb=600)
        == "preempted"
    )
    assert ckpt.is_file() and processed == [0, 1, 2, 3]
    events = [(h["event"], h["model_id"]) for h in gate.history()]
    assert events == [
        ("admit", "consolidator"),
        ("checkpoint", "consolidator"),
        ("evict", "consolidator"),
        ("admit", "embedder"),
    ]
    for lease_holder in gate.entry("embedder").leases[:]:
        lease_holder.release()
    assert (
        await run_resumable(gate, "consolidator", work, checkpoint_path=ckpt, estimated_mb=600)
        == "done"
    )
    assert processed == list(range(10))  # every item exactly once
    assert not ckpt.exists()


async def test_add_embedder_and_release_idle() -> None:
    gate = VRAMGate(1000, acquire_timeout_s=0.05)
    registry = ModelRegistry(gate)
    inner = UnloadableHash()
    emb = registry.add_embedder(inner)
    assert (emb.model_name, emb.dim) == ("test-hash", 16)
    await emb.aembed_batch(["x"])
    assert gate.entry("embedder").estimated_mb == 700  # unknown model: the seed's ~700 MB
    (await gate.acquire("stt", 100, Priority.CRITICAL)).release()
    held = await gate.acquire("busy", 100, Priority.NICE)
    assert await gate.release_idle() == ["embedder"]
    assert sorted(gate.residents()) == ["busy", "stt"] and inner.unloads == 1
    held.release()
