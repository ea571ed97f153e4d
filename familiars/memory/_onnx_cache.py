"""The ONNX export of the configured model, made once and cached under the workspace.

    folder = model_folder("BAAI/bge-m3")        # the local copy, found without torch
    cache = cache_folder(models_root, name, folder)  # state/models/<name>-<fingerprint>
    embedder = open_cached(name, cache)         # an OnnxEmbedder, or None (missing/damaged)
    export_model(name, folder, cache)           # torch: export, check against torch, publish

The fingerprint is a hash of the model folder's file names, sizes and modification times, so
a changed model gets a new cache folder. An export is written into a temp folder beside the
cache and renamed into place only once its vectors matched the torch model's on a probe set
(so a cache folder is complete or absent); a damaged one is moved aside (``*.damaged-<n>``)
and exported again. Files are 0600, folders 0700.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import os
import re
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from familiars.memory._atomic import DIR_MODE, FILE_MODE, atomic_write_text, ensure_private_dir
from familiars.memory._errors import EmbedderUnavailableError
from familiars.memory._onnx_embedder import (
    MANIFEST,
    MODEL_FILE,
    TOKENIZER_FILE,
    DamagedCacheError,
    Manifest,
    OnnxEmbedder,
    Pipeline,
    file_digest,
    read_pipeline,
)

logger = logging.getLogger(__name__)

#: The largest difference allowed between an export's vectors and torch's on the probe texts.
MAX_PROBE_DIFF = 1e-4
_PROBES = [
    "hello",
    "My sister Ana moved to Lisbon last spring and started a bakery near the river.",
    "Remind me to call the dentist on Friday at 10am",
    "Wie geht's? 你好世界 🙂 ça va",
    " ".join(["a long message that goes on"] * 120),  # past max_seq_length: truncation
    "",
]


def offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "0").lower() in ("1", "true", "yes", "on")


def model_folder(model: str) -> Path | None:
    """The local folder of ``model`` (a path, or a hub name in the local hub cache) without
    importing torch; ``None`` when there is no local copy."""
    path = Path(model).expanduser()
    if path.is_dir():
        return path.resolve()
    if model.count("/") > 1 or not re.fullmatch(r"[\w.-]+(/[\w.-]+)?", model):
        return None
    if not (_hub_cache() / ("models--" + model.replace("/", "--"))).is_dir():
        return None  # not downloaded: known without importing the hub library
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(repo_id=model, local_files_only=True))
    except Exception:  # noqa: BLE001 - not in the local cache (or no hub library)
        return None


def _hub_cache() -> Path:
    """Where huggingface_hub keeps downloaded models (its own environment variables)."""
    for name in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(name):
            return Path(os.environ[name]).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    home = os.environ.get("HF_HOME") or os.path.join(xdg, "huggingface")
    return Path(home).expanduser() / "hub"


def fingerprint(folder: Path) -> str:
    """A hash of the model folder's files (names, sizes, modification times)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if ".git" not in p.parts):
        if path.is_file():
            st = path.stat()  # follows the hub cache's symlinks to their blobs
            digest.update(f"{path.relative_to(folder)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def cache_folder(models_root: Path, model: str, folder: Path) -> Path:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", model)
    return models_root / f"{safe}-{fingerprint(folder)}"


def open_cached(
    model: str, cache: Path, *, batch_size: int = 64, fallback_from: str | None = None
) -> OnnxEmbedder | None:
    """The cached export, opened; ``None`` when there is none. A damaged one is moved aside
    (and ``None`` returned, so that it is exported again)."""
    if not (cache / MANIFEST).exists():
        return None
    embedder = OnnxEmbedder(model, cache, batch_size=batch_size, fallback_from=fallback_from)
    try:
        embedder.open()
    except DamagedCacheError as exc:
        logger.warning("the ONNX cache of %s is damaged (%s); it is moved aside", model, exc)
        move_aside(cache)
        return None
    return embedder


def move_aside(cache: Path) -> Path | None:
    for n in range(1, 1000):
        target = cache.with_name(f"{cache.name}.damaged-{n}")
        if not target.exists():
            try:
                cache.rename(target)
            except OSError:
                shutil.rmtree(cache, ignore_errors=True)
                return None
            return target
    shutil.rmtree(cache, ignore_errors=True)
    return None


def export_model(model: str, folder: Path, cache: Path) -> bool:
    """Export the sentence-transformers model in ``folder`` into ``cache``, with an instance
    of its own (the running one goes on embedding meanwhile); True when the cache holds a good
    export afterwards. Never raises: a model that cannot be exported stays on torch (and the
    log says why)."""
    if (cache / MANIFEST).exists():
        return True
    try:
        pipeline = read_pipeline(folder)
        ensure_private_dir(cache.parent)
        tmp = Path(tempfile.mkdtemp(prefix=f".{cache.name}.", dir=cache.parent))
    except (OSError, ValueError) as exc:
        logger.info("%s stays on sentence-transformers (%s)", model, exc)
        return False
    try:
        os.chmod(tmp, DIR_MODE)
        started = time.monotonic()
        st_model = _load_for_export(folder)
        _write_export(st_model, model, folder, pipeline, tmp)
        _check_against_torch(st_model, model, tmp)
        _publish(tmp, cache)
        logger.info("exported %s to ONNX in %.1f s: %s", model, time.monotonic() - started, cache)
        return True
    except Exception as exc:  # noqa: BLE001 - whatever failed, torch still works
        logger.warning("could not export %s to ONNX (%s); it stays on torch", model, exc)
        return False
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _load_for_export(folder: Path) -> Any:
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(folder), device="cpu")


def _write_export(st_model: Any, model: str, folder: Path, pipeline: Pipeline, tmp: Path) -> None:
    import torch

    transformer = st_model[0]
    hf_tokenizer = transformer.tokenizer
    forward = set(_forward_params(transformer.auto_model))
    names = [n for n in hf_tokenizer.model_input_names if n in forward]
    if pipeline.max_length is None:
        pipeline = dataclasses.replace(pipeline, max_length=int(st_model.max_seq_length))
    _export_graph(transformer.auto_model, names, tmp / MODEL_FILE)
    (tmp / TOKENIZER_FILE).write_text(hf_tokenizer.backend_tokenizer.to_str(), encoding="utf-8")
    files = {p.name: file_digest(p) for p in sorted(tmp.iterdir()) if p.is_file()}
    for path in tmp.iterdir():
        os.chmod(path, FILE_MODE)
    manifest = Manifest(
        model=model,
        fingerprint=fingerprint(folder),
        dim=_dimension(st_model),
        pipeline=pipeline,
        input_names=names,
        pad_id=int(hf_tokenizer.pad_token_id or 0),
        pad_token=str(hf_tokenizer.pad_token or "[PAD]"),
        padding_side=str(getattr(hf_tokenizer, "padding_side", "right")),
        truncation_side=str(getattr(hf_tokenizer, "truncation_side", "right")),
        files=files,
        exported_with={"torch": str(torch.__version__)},
    )
    atomic_write_text(tmp / MANIFEST, manifest.to_json())


def _forward_params(module: Any) -> list[str]:
    import inspect

    return list(inspect.signature(module.forward).parameters)


def _dimension(st_model: Any) -> int:
    get_dim = getattr(st_model, "get_embedding_dimension", None)
    if get_dim is None:  # sentence-transformers before 5.0
        get_dim = st_model.get_sentence_embedding_dimension
    return int(get_dim())


def _export_graph(auto_model: Any, names: list[str], path: Path) -> None:
    """The transformer's token embeddings as an ONNX graph with dynamic batch and length.
    The TorchScript exporter (``dynamo=False``) where this torch still has it: one file, a
    few seconds; else the dynamo exporter (``onnxscript``)."""
    import warnings

    import torch

    wrapper = _token_embeddings(auto_model, names).eval()
    example = tuple(torch.ones((2, 8), dtype=torch.long) for _ in names)
    axes = {n: {0: "batch", 1: "tokens"} for n in [*names, "token_embeddings"]}
    # The tracer's notes are about branches the export does not take (process-wide filters:
    # catch_warnings is not safe on a thread of its own).
    warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
    warnings.filterwarnings("ignore", message="Exporting aten::index operator")
    with torch.no_grad():
        try:
            torch.onnx.export(
                wrapper,
                example,
                str(path),
                input_names=names,
                output_names=["token_embeddings"],
                dynamic_axes=axes,
                opset_version=17,
                dynamo=False,
            )
        except (TypeError, RuntimeError, ImportError) as exc:
            logger.info("TorchScript export unavailable (%s); using the dynamo exporter", exc)
            batch, tokens = torch.export.Dim("batch"), torch.export.Dim("tokens")
            torch.onnx.export(
                wrapper,
                example,
                str(path),
                input_names=names,
                output_names=["token_embeddings"],
                dynamic_shapes={n: {0: batch, 1: tokens} for n in names},
                dynamo=True,
            )


def _token_embeddings(model: Any, names: list[str]) -> Any:
    """``model`` as a module of positional inputs (``names``) giving its token embeddings."""
    import torch

    class TokenEmbeddings(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *inputs: Any) -> Any:
            return self.model(**dict(zip(names, inputs, strict=True))).last_hidden_state

    return TokenEmbeddings()


def _check_against_torch(st_model: Any, model: str, tmp: Path) -> None:
    """The export's vectors on the probe texts match torch's, or it is not published."""
    onnx = OnnxEmbedder(model, tmp, threads=1)
    onnx.open()
    got = onnx.embed_batch(_PROBES)
    want = st_model.encode(
        _PROBES, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )
    diff = float(np.abs(got - np.asarray(want, dtype=np.float32)).max())
    if diff > MAX_PROBE_DIFF:
        raise ValueError(f"the export differs from torch by {diff:.2e} on the probe texts")


def _publish(tmp: Path, cache: Path) -> None:
    """Rename the finished export into place (another process may have won the race)."""
    try:
        tmp.rename(cache)
    except OSError:
        if not (cache / MANIFEST).exists():
            raise


class BackgroundExport:
    """The export on a thread of its own, started once per cache folder per process. The
    thread is not a daemon: a short command waits for the export to finish at exit (a torn
    export is never published, but finishing it saves the next start the wait)."""

    _running: dict[Path, threading.Thread] = {}
    _lock = threading.Lock()

    @classmethod
    def start(cls, model: str, folder: Path, cache: Path) -> threading.Thread:
        with cls._lock:
            thread = cls._running.get(cache)
            if thread is None or not thread.is_alive():
                thread = threading.Thread(
                    target=export_model,
                    args=(model, folder, cache),
                    name=f"onnx-export-{model}",
                )
                cls._running[cache] = thread
                thread.start()
            return thread


def onnx_or_none(
    name: str,
    path: str,
    models: Path,
    *,
    batch_size: int = 64,
    fallback_from: str | None = None,
    export_now: bool = False,
) -> OnnxEmbedder | None:
    """``name``'s cached export, opened; ``None`` when torch is to run it (no export yet, a
    pipeline this runtime does not reproduce, or a model to download). ``export_now``: make
    the export first when it is missing (``backend = "onnx"``). Offline with no local copy,
    raises :class:`EmbedderUnavailableError` as loading it with torch would, without torch."""
    folder = model_folder(path)
    if folder is None:
        if offline():
            raise EmbedderUnavailableError(f"no local copy of {name!r} (offline)")
        return None
    try:
        read_pipeline(folder)
    except (OSError, ValueError) as exc:
        logger.info("%s runs on sentence-transformers (%s)", name, exc)
        return None
    cache = cache_folder(models, name, folder)
    found = open_cached(name, cache, batch_size=batch_size, fallback_from=fallback_from)
    if found is None and export_now and export_model(name, folder, cache):
        found = open_cached(name, cache, batch_size=batch_size, fallback_from=fallback_from)
    return found


def export_later(name: str, path: str, models: Path) -> threading.Thread | None:
    """Start the export of ``name`` in the background unless it is cached (or cannot be)."""
    folder = model_folder(path)
    if folder is None:
        return None
    try:
        read_pipeline(folder)
        cache = cache_folder(models, name, folder)
    except (OSError, ValueError):
        return None
    if (cache / MANIFEST).exists():
        return None
    logger.info("exporting %s to ONNX in the background (once): later starts skip torch", name)
    return BackgroundExport.start(name, folder, cache)
