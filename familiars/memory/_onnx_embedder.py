"""The configured sentence-transformers model run with onnxruntime and tokenizers, no torch.

    spec = read_pipeline(model_folder)          # what sentence-transformers would do, from files
    embedder = OnnxEmbedder(name, cache_folder) # a folder _onnx_cache.export_model wrote
    embedder.open()                             # checks the files, loads the session

The pipeline is sentence-transformers' own for the models it covers (``modules.json``:
Transformer, Pooling, Normalize): tokenize with the model's fast tokenizer (``tokenizer.json``),
truncated to ``max_seq_length`` (``sentence_bert_config.json``), lower-cased first where that
file says so; the transformer (``model.onnx``) gives token embeddings; pooled as
``1_Pooling/config.json`` says (mean over the attention mask for all-MiniLM-L6-v2, the CLS
token for bge-m3); L2-normalised. Vectors match the torch model's to about 1e-6, so they live
in the same vector space (same model name and dimension in the index).

A cache folder holds ``manifest.json`` (the pipeline, and each file's size and sha256) beside
the model and tokenizer; :meth:`OnnxEmbedder.open` refuses a folder whose files do not match
(:class:`DamagedCacheError`), and the caller moves it aside and exports again.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from familiars.memory._embeddings import Embedder

MANIFEST = "manifest.json"
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
MANIFEST_FORMAT = 1
HASH_ALWAYS_BYTES = 512 * 1024 * 1024
#: Pooling modes run here; a model with another (weighted mean, last token, several at once,
#: or extra modules such as Dense) stays on sentence-transformers.
POOLING_MODES = ("mean", "cls", "max", "mean_sqrt_len_tokens")
_SUPPORTED_MODULES = ("Transformer", "Pooling", "Normalize")
_LEGACY_POOLING = {
    "pooling_mode_cls_token": "cls",
    "pooling_mode_mean_tokens": "mean",
    "pooling_mode_max_tokens": "max",
    "pooling_mode_mean_sqrt_len_tokens": "mean_sqrt_len_tokens",
    "pooling_mode_weightedmean_tokens": "weightedmean",
    "pooling_mode_lasttoken": "lasttoken",
}


class UnsupportedModelError(ValueError):
    """The model's pipeline has a part this runtime does not reproduce."""


class DamagedCacheError(OSError):
    """A cache folder whose files are missing, of the wrong size or hash, or do not load."""


@dataclass(frozen=True)
class Pipeline:
    """What sentence-transformers does around the transformer, read from the model's folder."""

    pooling: str
    max_length: int | None
    do_lower_case: bool = False
    normalize: bool = True


@dataclass
class Manifest:
    """``manifest.json``: the pipeline, the tokenizer's padding and the files, as exported."""

    model: str
    fingerprint: str
    dim: int
    pipeline: Pipeline
    input_names: list[str]
    pad_id: int = 0
    pad_token: str = "[PAD]"
    padding_side: str = "right"
    truncation_side: str = "right"
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    exported_with: dict[str, str] = field(default_factory=dict)
    format: int = MANIFEST_FORMAT

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Manifest:
        raw = json.loads(text)
        if raw.get("format") != MANIFEST_FORMAT:
            raise DamagedCacheError(f"unknown manifest format {raw.get('format')!r}")
        raw["pipeline"] = Pipeline(**raw["pipeline"])
        return cls(**raw)


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def read_pipeline(folder: Path) -> Pipeline:
    """The pipeline of the sentence-transformers model in ``folder``; raises
    :class:`UnsupportedModelError` for one this runtime does not reproduce exactly."""
    modules_file = folder / "modules.json"
    if not modules_file.is_file():
        raise UnsupportedModelError(f"{folder} has no modules.json")
    modules = _read_json(modules_file)
    kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
    if not kinds or kinds[0] != "Transformer" or modules[0].get("path", "") != "":
        raise UnsupportedModelError(f"{folder}: the first module is not a Transformer at the root")
    if any(kind not in _SUPPORTED_MODULES for kind in kinds) or "Pooling" not in kinds:
        raise UnsupportedModelError(f"{folder}: modules {kinds} are not all run here")
    pooling_dir = folder / modules[kinds.index("Pooling")].get("path", "1_Pooling")
    pooling = _pooling_mode(_read_json(pooling_dir / "config.json"))
    bert_file = folder / "sentence_bert_config.json"
    bert = _read_json(bert_file) if bert_file.is_file() else {}
    _check_no_default_prompt(folder)
    max_length = bert.get("max_seq_length")
    return Pipeline(
        pooling=pooling,
        max_length=int(max_length) if max_length else None,
        do_lower_case=bool(bert.get("do_lower_case", False)),
        normalize="Normalize" in kinds,
    )


def _pooling_mode(config: dict[str, Any]) -> str:
    mode = config.get("pooling_mode")
    if mode is None:
        modes = [name for key, name in _LEGACY_POOLING.items() if config.get(key)]
        mode = modes if len(modes) != 1 else modes[0]
    if isinstance(mode, list) and len(mode) == 1:
        mode = mode[0]
    if not isinstance(mode, str) or mode not in POOLING_MODES:
        raise UnsupportedModelError(f"pooling {mode!r} is not one of {POOLING_MODES}")
    return mode


def _check_no_default_prompt(folder: Path) -> None:
    """A model that prepends a prompt by default stays on sentence-transformers."""
    path = folder / "config_sentence_transformers.json"
    if path.is_file() and _read_json(path).get("default_prompt_name"):
        raise UnsupportedModelError(f"{folder} prepends a default prompt")


def pool(hidden: np.ndarray, mask: np.ndarray, mode: str) -> np.ndarray:
    """sentence-transformers' pooling of token embeddings ``hidden`` (batch, tokens, dim)."""
    hidden = hidden.astype(np.float32, copy=False)
    if mode == "cls":
        first = mask.argmax(axis=1)
        return hidden[np.arange(hidden.shape[0]), first]
    weights = mask[..., None].astype(np.float32)
    if mode == "max":
        return np.where(weights > 0, hidden, -np.inf).max(axis=1).astype(np.float32)
    total = (hidden * weights).sum(axis=1)
    count = np.clip(weights.sum(axis=1), 1e-9, None)
    return total / (count if mode == "mean" else np.sqrt(count))


def l2_normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows to unit length, as ``torch.nn.functional.normalize`` does (eps 1e-12)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)


def file_digest(path: Path) -> dict[str, Any]:
    """A file's size and sha256, as the manifest keeps them."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 22):
            digest.update(chunk)
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": digest.hexdigest()}


def check_files(folder: Path, manifest: Manifest) -> None:
    """Raise :class:`DamagedCacheError` when a file of the manifest is missing or differs.
    Files up to :data:`HASH_ALWAYS_BYTES` are hashed on every load (0.15 s for
    all-MiniLM-L6-v2); a larger one (bge-m3's 2.2 GB) only when its modification time is
    not the one it was exported with, so a start does not read gigabytes twice."""
    for name, want in manifest.files.items():
        path = folder / name
        if not path.is_file():
            raise DamagedCacheError(f"{path} is missing")
        st = path.stat()
        if st.st_size != want.get("size"):
            raise DamagedCacheError(f"{path} is of the wrong size")
        if st.st_size > HASH_ALWAYS_BYTES and st.st_mtime_ns == want.get("mtime_ns"):
            continue
        if file_digest(path)["sha256"] != want.get("sha256"):
            raise DamagedCacheError(f"{path} does not match its hash")


def read_manifest(folder: Path) -> Manifest:
    try:
        return Manifest.from_json((folder / MANIFEST).read_text(encoding="utf-8"))
    except DamagedCacheError:
        raise
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise DamagedCacheError(f"{folder / MANIFEST} cannot be read ({exc})") from exc


class OnnxEmbedder(Embedder):
    """A cached export (see the module's docstring), loaded by :meth:`open` or on first use."""

    backend = "onnx"

    def __init__(
        self,
        model_name: str,
        folder: Path,
        *,
        batch_size: int = 64,
        fallback_from: str | None = None,
        threads: int = 0,
    ) -> None:
        self.model_name = model_name
        self.folder = Path(folder)
        self.batch_size = batch_size
        self.fallback_from = fallback_from
        self.threads = threads
        self._session: Any = None
        self._tokenizer: Any = None
        self._manifest: Manifest | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._session is not None

    def open(self) -> None:
        """Check the folder's files against the manifest and load them; raises
        :class:`DamagedCacheError` when they do not match or do not load."""
        with self._lock:
            if self._session is None:
                self._load()

    def _load(self) -> None:
        manifest = read_manifest(self.folder)
        if manifest.model != self.model_name:
            raise DamagedCacheError(f"{self.folder} holds {manifest.model}, not {self.model_name}")
        check_files(self.folder, manifest)
        try:
            tokenizer = _tokenizer(self.folder / TOKENIZER_FILE, manifest)
            session = _session(self.folder / MODEL_FILE, self.threads)
        except Exception as exc:  # noqa: BLE001 - any load failure means a damaged cache
            raise DamagedCacheError(f"{self.folder} does not load ({exc})") from exc
        self._manifest, self._tokenizer, self._session = manifest, tokenizer, session
        self.dim = manifest.dim

    def unload(self) -> None:
        with self._lock:
            self._session = None
            self._tokenizer = None

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        self.open()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Longest first, as sentence-transformers batches: little padding per batch.
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            chunk = order[start : start + self.batch_size]
            out[chunk] = self._encode([texts[i] for i in chunk])
        return out

    def _encode(self, texts: list[str]) -> np.ndarray:
        manifest, tokenizer, session = self._manifest, self._tokenizer, self._session
        assert manifest is not None and session is not None
        if manifest.pipeline.do_lower_case:
            texts = [t.lower() for t in texts]
        encodings = tokenizer.encode_batch(texts)
        columns = {
            "input_ids": [e.ids for e in encodings],
            "attention_mask": [e.attention_mask for e in encodings],
            "token_type_ids": [e.type_ids for e in encodings],
        }
        feed = {name: np.asarray(columns[name], dtype=np.int64) for name in manifest.input_names}
        hidden = session.run(None, feed)[0]
        mask = np.asarray(columns["attention_mask"], dtype=np.int64)
        pooled = pool(hidden, mask, manifest.pipeline.pooling)
        return l2_normalise(pooled)

    def describe(self) -> dict[str, Any]:
        info = super().describe()
        info.update(
            path=str(self.folder), device="cpu", backend="onnx", fallback_from=self.fallback_from
        )
        return info


def _tokenizer(path: Path, manifest: Manifest) -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    if manifest.pipeline.max_length:
        tokenizer.enable_truncation(
            max_length=manifest.pipeline.max_length,
            strategy="longest_first",
            direction=manifest.truncation_side,
        )
    tokenizer.enable_padding(
        direction=manifest.padding_side, pad_id=manifest.pad_id, pad_token=manifest.pad_token
    )
    return tokenizer


def _session(path: Path, threads: int) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3  # warnings of the graph optimiser are not the person's
    if threads:
        options.intra_op_num_threads = threads
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
