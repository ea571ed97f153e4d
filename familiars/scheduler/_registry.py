"""In-process models loaded and unloaded through the VRAM gate, and resumable queue work.

The registry holds the only reference to each loaded model (§5.4.3: model instances are not
cached on the objects that use them), so an eviction really returns the memory; the next
``use`` loads the model again.

:class:`GatedEmbedder` is an :class:`~familiars.memory.Embedder` whose every call
goes through the gate (priority from the model spec, raised by ``boost_thread_priority`` for
a person waiting on a turn). :func:`run_resumable` runs queue-category work (consolidation,
re-indexing) that checkpoints when the gate evicts it and resumes where it stopped.
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np

from familiars.memory import Embedder
from familiars.scheduler._errors import PreemptedError, UnknownModelError
from familiars.scheduler._files import atomic_write_json
from familiars.scheduler._gate import Category, Lease, Priority, VRAMGate, effective_priority

logger = logging.getLogger(__name__)


@dataclass
class ModelSpec:
    """How to load and unload one model, and how the gate should treat it."""

    model_id: str
    estimated_mb: float
    load: Callable[[], Any]
    unload: Callable[[Any], None] | None = None
    priority: int = Priority.IMPORTANT
    category: Category = "sync"
    idle_ttl_sec: float | None = None


class ModelRegistry:
    """Loads models on use through the gate; the gate's eviction unloads them."""

    def __init__(self, gate: VRAMGate) -> None:
        self.gate = gate
        self._specs: dict[str, ModelSpec] = {}
        self._loaded: dict[str, Any] = {}
        self._load_locks: dict[str, asyncio.Lock] = {}
        self.loads: dict[str, int] = {}

    def register(self, spec: ModelSpec) -> None:
        self._specs[spec.model_id] = spec
        self._load_locks.setdefault(spec.model_id, asyncio.Lock())

    def spec(self, model_id: str) -> ModelSpec:
        try:
            return self._specs[model_id]
        except KeyError:
            raise UnknownModelError(model_id) from None

    def is_loaded(self, model_id: str) -> bool:
        return model_id in self._loaded

    def loaded(self, model_id: str) -> Any | None:
        return self._loaded.get(model_id)

    def _unload(self, model_id: str) -> None:
        model = self._loaded.pop(model_id, None)
        spec = self._specs.get(model_id)
        if model is not None and spec is not None and spec.unload is not None:
            spec.unload(model)
        logger.info("unloaded model %s", model_id)

    async def acquire(
        self,
        model_id: str,
        *,
        priority: int | None = None,
        on_checkpoint: Callable[[], Any] | None = None,
        timeout: float | None = None,
    ) -> tuple[Lease, Any]:
        """Admit ``model_id`` through the gate and load it if needed: (lease, model)."""
        spec = self.spec(model_id)
        lease = await self.gate.acquire(
            model_id,
            spec.estimated_mb,
            spec.priority if priority is None else priority,
            category=spec.category,
            on_evict=lambda: self._unload(model_id),
            on_checkpoint=on_checkpoint,
            idle_ttl_sec=spec.idle_ttl_sec,
            timeout=timeout,
        )
        try:
            model = await self._ensure_loaded(spec, lease)
        except BaseException:
            lease.release()
            raise
        return lease, model

    async def _ensure_loaded(self, spec: ModelSpec, lease: Lease) -> Any:
        async with self._load_locks[spec.model_id]:
            if spec.model_id in self._loaded:
                return self._loaded[spec.model_id]
            model = await asyncio.to_thread(spec.load)
            if lease.preempted:  # evicted while loading: do not keep it
                if spec.unload is not None:
                    spec.unload(model)
                raise PreemptedError(spec.model_id)
            self._loaded[spec.model_id] = model
            self.loads[spec.model_id] = self.loads.get(spec.model_id, 0) + 1
            return model

    def add_embedder(
        self,
        embedder: _Unloadable,
        *,
        model_id: str = "embedder",
        estimated_mb: float | None = None,
        priority: int = Priority.IMPORTANT,
        idle_ttl_sec: float | None = None,
    ) -> GatedEmbedder:
        """Register a SentenceTransformerEmbedder and return the gated embedder to hand to
        the memory package in its place."""
        name = embedder.model_name
        mb = estimate_embedder_mb(name) if estimated_mb is None else estimated_mb
        self.register(
            embedder_spec(
                embedder,
                model_id=model_id,
                estimated_mb=mb,
                priority=priority,
                idle_ttl_sec=idle_ttl_sec,
            )
        )
        return GatedEmbedder(self, model_id, model_name=name, dim=int(embedder.dim))

    @asynccontextmanager
    async def use(
        self, model_id: str, *, priority: int | None = None, timeout: float | None = None
    ) -> AsyncIterator[Any]:
        """``async with registry.use("embedder") as model:`` -- do not keep ``model``."""
        lease, model = await self.acquire(model_id, priority=priority, timeout=timeout)
        try:
            yield model
        finally:
            lease.release()


# ---------------------------------------------------------------------------------------------
# The embedder behind the gate


def free_torch_memory() -> None:
    """Return freed CUDA blocks to the driver, so NVML shows the memory coming back."""
    gc.collect()
    try:
        import torch
    except ImportError:
        return
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


#: Rough GPU footprints (weights plus working memory for a batch), in MB.
_KNOWN_EMBEDDER_MB = {
    "BAAI/bge-m3": 700.0,  # §5.4.3: "allowing VRAM eviction to reclaim ~700MB"
    "sentence-transformers/all-MiniLM-L6-v2": 150.0,
}


def estimate_embedder_mb(model_name: str) -> float:
    return _KNOWN_EMBEDDER_MB.get(model_name, 700.0)


class _Unloadable(Protocol):
    model_name: str
    dim: int

    def embed_batch(self, texts: list[str]) -> np.ndarray: ...

    def unload(self) -> None: ...


def embedder_spec(
    embedder: _Unloadable,
    *,
    model_id: str = "embedder",
    estimated_mb: float = 700.0,
    priority: int = Priority.IMPORTANT,
    idle_ttl_sec: float | None = None,
) -> ModelSpec:
    """A spec for a :class:`SentenceTransformerEmbedder`: loading runs one tiny batch (its
    model loads on use), unloading drops the weights and empties the CUDA cache."""

    def load() -> _Unloadable:
        embedder.embed_batch(["warm-up"])
        return embedder

    def unload(_: Any) -> None:
        embedder.unload()
        free_torch_memory()

    return ModelSpec(model_id, estimated_mb, load, unload, priority, "sync", idle_ttl_sec)


class GatedEmbedder(Embedder):
    """An embedder whose model is fetched through the registry on every call."""

    def __init__(self, registry: ModelRegistry, model_id: str, *, model_name: str, dim: int):
        self.registry = registry
        self.model_id = model_id
        self.model_name = model_name
        self.dim = dim
        self._loop: asyncio.AbstractEventLoop | None = None

    async def aembed_batch(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self._loop = asyncio.get_running_loop()
        async with self.registry.use(self.model_id) as model:
            return await asyncio.to_thread(model.embed_batch, texts)

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        """From a worker thread the call goes through the gate on the owning loop. Called
        before any async use (no loop known) or on the loop thread itself (which cannot block
        on the gate), it runs the model directly: the gate does not account for that load
        until the next async use, so async code should call :meth:`aembed_batch`."""
        loop = self._loop
        if loop is not None and loop.is_running() and not _on_loop(loop):
            # The boost in force in this thread travels with the request.
            priority = effective_priority(self.registry.spec(self.model_id).priority)
            lease, model = asyncio.run_coroutine_threadsafe(
                self.registry.acquire(self.model_id, priority=priority), loop
            ).result()
            try:
                return model.embed_batch(texts)
            finally:
                loop.call_soon_threadsafe(lease.release)
        model = self.registry.loaded(self.model_id)
        if model is None:
            logger.debug("%s used outside the gate (no event loop known)", self.model_id)
            model = self.registry.spec(self.model_id).load()
        self.registry.gate.touch(self.model_id)
        return model.embed_batch(texts)


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


# ---------------------------------------------------------------------------------------------
# Resumable queue work


class ResumableWork(Protocol):
    """Queue-category work. It keeps its progress in ``state`` (JSON-able, updated after each
    step) and calls ``lease.raise_if_preempted()`` between steps; started again with the
    saved state, it carries on from there."""

    async def __call__(self, state: dict[str, Any], lease: Lease) -> None: ...


def load_checkpoint(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except ValueError:
        logger.warning("checkpoint %s unreadable; starting that work from the beginning", path)
        return {}
    return data if isinstance(data, dict) else {}


async def run_resumable(
    gate: VRAMGate,
    model_id: str,
    work: ResumableWork,
    *,
    checkpoint_path: Path,
    estimated_mb: float = 0.0,
    priority: int = Priority.NICE,
    timeout: float | None = None,
) -> Literal["done", "preempted"]:
    """Run ``work`` as a queue resident. When the gate evicts it, its state is saved to
    ``checkpoint_path`` and "preempted" is returned; the next call resumes from there."""
    state = load_checkpoint(checkpoint_path)
    if state:
        logger.info("%s resumes from its checkpoint", model_id)

    def checkpoint() -> None:
        atomic_write_json(checkpoint_path, state)

    lease = await gate.acquire(
        model_id,
        estimated_mb,
        priority,
        category="queue",
        on_checkpoint=checkpoint,
        timeout=timeout,
    )
    try:
        result = work(state, lease)
        if inspect.isawaitable(result):
            await result
    except PreemptedError:
        return "preempted"
    finally:
        lease.release()
    Path(checkpoint_path).unlink(missing_ok=True)
    return "done"
