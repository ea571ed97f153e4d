"""An embedder that loads its model the first time something needs it.

    embedder = LazyEmbedder(lambda: load_embedder(cfg.model, fallback=cfg.fallback))

A vector, the model's name or its dimension (the vector space) loads it; nothing else does,
so a command that only lists or reads (``familiars files list``) never loads a model.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from familiars.memory._embeddings import Embedder


class LazyEmbedder(Embedder):
    """Forwards to the embedder ``load`` returns, calling it once, on first need."""

    def __init__(self, load: Callable[[], Embedder]) -> None:
        self._load = load
        self._inner: Embedder | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._inner is not None

    @property
    def inner(self) -> Embedder:
        with self._lock:
            if self._inner is None:
                self._inner = self._load()
            return self._inner

    @property  # type: ignore[override]
    def model_name(self) -> str:
        return self.inner.model_name

    @model_name.setter
    def model_name(self, value: str) -> None:  # the base class declares a plain attribute
        raise AttributeError("a LazyEmbedder's model is the one it loads")

    @property  # type: ignore[override]
    def dim(self) -> int:
        return self.inner.dim

    @dim.setter
    def dim(self, value: int) -> None:
        raise AttributeError("a LazyEmbedder's dimension is its model's")

    def open(self) -> None:
        self.inner.open()

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        return self.inner.embed_batch(texts)

    async def aembed_batch(self, texts: list[str]) -> np.ndarray:
        return await self.inner.aembed_batch(texts)

    def describe(self) -> dict[str, Any]:
        return self.inner.describe() if self.loaded else {"model": None, "dim": 0}
