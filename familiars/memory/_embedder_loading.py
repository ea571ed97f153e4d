"""Which embedder a model name gives: the configured model on the backend asked for, or the
bundled all-MiniLM-L6-v2 when the configured one is not available offline.

    embedder = load_embedder("BAAI/bge-m3", backend="auto", models=ws / "state" / "models")

One instance per (model, fallback, device, backend, cache folder) per process, opened before
it is returned. On the CPU (``backend="auto"``) a model whose ONNX export is cached runs on
onnxruntime (``_onnx_embedder``) and torch is not imported; one without runs on
sentence-transformers and is exported in the background for the next start
(``_onnx_cache``).
"""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from familiars.memory._atomic import atomic_write_text, ensure_private_dir
from familiars.memory._embeddings import (
    BUNDLED_MODEL_NAME,
    Embedder,
    SentenceTransformerEmbedder,
    bundled_model_path,
)
from familiars.memory._errors import EmbedderUnavailableError
from familiars.memory._multilingual import MULTILINGUAL_MODEL_NAME, ScriptAwareEmbedder
from familiars.memory._onnx_cache import export_later, onnx_or_none

logger = logging.getLogger(__name__)


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


#: The model name (and ``fallback`` value) of the offline multilingual fallback: the bundled
#: MiniLM for English text, universal-sentence-encoder-multilingual v3 for the rest
#: (``_multilingual``).
MULTILINGUAL = "multilingual"


def _resolve(model: str, *, fallback: str, how: _How, notices: Path | None = None) -> Embedder:
    if model in ("bundled", BUNDLED_MODEL_NAME):
        return _open_model(BUNDLED_MODEL_NAME, bundled_model_path(), how)
    if model == MULTILINGUAL:
        return _multilingual(_open_model(BUNDLED_MODEL_NAME, bundled_model_path(), how))
    try:
        return _open_model(model, model, how)
    except Exception as exc:  # noqa: BLE001 - any load failure means "not available offline"
        if fallback not in ("bundled", MULTILINGUAL):
            raise EmbedderUnavailableError(
                f"embedding model {model!r} could not be loaded ({exc}) and fallback is off"
            ) from exc
        logger.log(
            logging.INFO if _said_before(notices, model) else logging.WARNING,
            "embedding model %r could not be loaded offline (%s: %s); using the bundled %s instead",
            model,
            type(exc).__name__,
            exc,
            BUNDLED_MODEL_NAME
            if fallback == "bundled"
            else f"{BUNDLED_MODEL_NAME} (English) and {MULTILINGUAL_MODEL_NAME} (other languages)",
            extra={"notice": fallback_notice(model, fallback)},
        )
        bundled = _open_model(BUNDLED_MODEL_NAME, bundled_model_path(), how, fallback_from=model)
        return bundled if fallback == "bundled" else _multilingual(bundled)


def fallback_notice(model: str, fallback: str) -> str:
    """The fallback from ``model`` as the person in the chat is told it: what it means for
    them, no exception class (the log file keeps that, F1)."""
    which = "a smaller built-in one" if fallback == "bundled" else "smaller built-in ones"
    return (
        f"the model I use to search my memory ({model}) could not be loaded on this "
        f"computer, so I'm using {which} instead. Remembering works as usual; finding "
        "things again may be a little less sharp. The details are in the log."
    )


def _multilingual(english: Embedder) -> Embedder:
    """``english`` for English text and the multilingual model for the rest, opened (a
    missing package is a clear error: the configuration asked for it)."""
    embedder = ScriptAwareEmbedder(english)
    embedder.open()
    return embedder


def _open_model(name: str, path: str, how: _How, *, fallback_from: str | None = None) -> Embedder:
    """``name`` (found at ``path``), opened on the backend ``how`` asks for."""
    if how.onnx:
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
    if how.onnx and how.backend == "auto":  # "onnx" tried the export already
        assert how.models is not None
        export_later(name, path, how.models)
    return embedder
