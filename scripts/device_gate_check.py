#!/usr/bin/env python
"""Load the embedder on CUDA through the VRAM gate, evict it, and show NVML free memory
returning. Run on a machine with a GPU:

    .venv/bin/python scripts/device_gate_check.py [--model bundled] [--json]

With no GPU it says so and exits 0: nothing in the project depends on this script.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any


def _no_gpu(reason: str) -> int:
    print(f"device_gate_check: no GPU available ({reason}); nothing to measure.")
    return 0


def _free_mb(probe: Any) -> float:
    time.sleep(0.2)  # NVML figures lag the allocator by a moment
    return round(probe.free_mb(), 1)


async def _check(model: str, texts: int) -> dict[str, Any]:
    from familiars.config import GateSettings
    from familiars.memory import load_embedder
    from familiars.scheduler import NvmlProbe, Priority, VRAMGate
    from familiars.scheduler._registry import (
        GatedEmbedder,
        ModelRegistry,
        embedder_spec,
        free_torch_memory,
    )

    probe = NvmlProbe.open(0)
    assert probe is not None
    before_context = _free_mb(probe)
    embedder = load_embedder(model, device="cuda")
    embedder.unload()  # constructing it loaded the weights outside the gate: drop them
    free_torch_memory()
    baseline = _free_mb(probe)  # CUDA context up, no weights
    gate = VRAMGate.from_settings(GateSettings())
    registry = ModelRegistry(gate)
    registry.register(embedder_spec(embedder, estimated_mb=1200, priority=Priority.IMPORTANT))
    gated = GatedEmbedder(registry, "embedder", model_name=embedder.model_name, dim=embedder.dim)
    batch = [f"sentence number {i} about calling mom tomorrow at nine" for i in range(texts)]
    start = time.perf_counter()
    vectors = await gated.aembed_batch(batch)
    first_s = time.perf_counter() - start
    loaded = _free_mb(probe)
    resident = gate.snapshot()["residents"]
    evicted = await gate.evict("embedder", reason="device check")
    after_evict = _free_mb(probe)
    start = time.perf_counter()
    again = await gated.aembed_batch(batch[:8])
    reload_s = time.perf_counter() - start
    reloaded = _free_mb(probe)
    return {
        "gpu": "cuda:0",
        "model": embedder.model_name,
        "dim": embedder.dim,
        "texts": texts,
        "vectors_shape": list(vectors.shape),
        "reload_ok": bool(again.shape == (8, embedder.dim)),
        "gate_budget_mb": round(gate.budget_mb, 1),
        "nvml_free_mb": {
            "before_cuda_context": before_context,
            "baseline_context_only": baseline,
            "loaded_through_gate": loaded,
            "after_eviction": after_evict,
            "after_reload": reloaded,
        },
        "used_while_loaded_mb": round(baseline - loaded, 1),
        "returned_on_eviction_mb": round(after_evict - loaded, 1),
        "evicted": evicted,
        "resident_while_loaded": resident,
        "first_embed_s": round(first_s, 3),
        "reload_embed_s": round(reload_s, 3),
        "history": [(h["event"], h["model_id"]) for h in gate.history()],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="bundled", help="embedding model (default: bundled)")
    parser.add_argument("--texts", type=int, default=512, help="texts in the first batch")
    parser.add_argument("--json", action="store_true", help="print only the JSON result")
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        return _no_gpu("torch is not installed")
    if not torch.cuda.is_available():
        return _no_gpu("torch sees no CUDA device")
    from familiars.scheduler import NvmlProbe

    if NvmlProbe.open(0) is None:
        return _no_gpu("NVML (nvidia-ml-py) cannot open GPU 0")
    result = asyncio.run(_check(args.model, args.texts))
    if args.json:
        print(json.dumps(result))
        return 0
    free = result["nvml_free_mb"]
    print(f"model {result['model']} (dim {result['dim']}) on {result['gpu']}")
    for name, value in free.items():
        print(f"  NVML free {name:>22}: {value:10.1f} MB")
    print(
        f"  used while loaded: {result['used_while_loaded_mb']} MB; "
        f"returned on eviction: {result['returned_on_eviction_mb']} MB; "
        f"reload ok: {result['reload_ok']}"
    )
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
