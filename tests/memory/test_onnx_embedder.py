"""The embedding model on ONNX (issue 20, "start fast"): exported once under the workspace,
then run with onnxruntime and tokenizers; its vectors are sentence-transformers' own, so
they share the model's vector space in the index; a damaged cache is moved aside and made
again, never a crash."""

from __future__ import annotations

import json
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from familiars.config import Settings
from familiars.memory import (
    BUNDLED_MODEL_NAME,
    EmbedderUnavailableError,
    MemoryStore,
    OnnxEmbedder,
    SentenceTransformerEmbedder,
    embedder_from_settings,
    load_embedder,
    make_record,
    open_workspace,
)
from familiars.memory import _embedder_loading as loading_mod
from familiars.memory import _embeddings as embeddings_mod
from familiars.memory import _onnx_cache as cache_mod
from familiars.memory import _onnx_embedder as onnx_mod
from familiars.memory._onnx_embedder import (
    MODEL_FILE,
    UnsupportedModelError,
    pool,
    read_pipeline,
)
from tests.fakes import HashEmbedder

TEXTS = [
    "hello",
    "My dog Rex and I walk by the river every morning before work.",
    "Remind me to call the dentist on Friday at 10am",
    "Wie geht's? 你好世界 🙂 ça va",
    " ".join(["a very long message that goes on and on"] * 80),  # truncated at 256 tokens
    "",
    "ok",
]


def _bundled_folder() -> Path:
    return Path(embeddings_mod.bundled_model_path())


@pytest.fixture(scope="module")
def models_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A workspace's ``state/models`` holding the bundled model's export, made the way a
    first start makes it: torch now, the export in the background."""
    root = tmp_path_factory.mktemp("ws") / "state" / "models"
    loading_mod._cache.clear()
    first = load_embedder("bundled", backend="auto", models=root)
    assert isinstance(first, SentenceTransformerEmbedder)  # nothing cached yet: torch
    for thread in list(cache_mod.BackgroundExport._running.values()):
        thread.join(timeout=600)
    loading_mod._cache.clear()
    yield root
    loading_mod._cache.clear()


def _cache(models_root: Path) -> Path:
    return cache_mod.cache_folder(models_root, BUNDLED_MODEL_NAME, _bundled_folder())


def test_onnx_vectors_are_the_torch_models_own(models_root: Path, real_embedder: object) -> None:
    assert isinstance(real_embedder, SentenceTransformerEmbedder)
    onnx = OnnxEmbedder(BUNDLED_MODEL_NAME, _cache(models_root), batch_size=3)
    got = onnx.embed_batch(TEXTS)
    want = real_embedder.embed_batch(TEXTS)
    assert got.shape == want.shape == (len(TEXTS), 384) and got.dtype == np.float32
    assert float(np.abs(got - want).max()) < 1e-5
    assert float((got * want).sum(axis=1).min()) > 1 - 1e-5
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    single = onnx.embed(TEXTS[1])  # alone (no padding) as in a batch
    assert float(np.abs(single - want[1]).max()) < 1e-5
    assert onnx.embed_batch([]).shape == (0, 384)


def test_the_same_model_on_either_backend_is_one_vector_space(models_root: Path) -> None:
    """Issue 20: vectors are keyed by model name and dimension in the index; ONNX and torch
    vectors of one model match numerically, so they share the key."""
    loading_mod._cache.clear()
    settings = Settings(
        workspace=models_root.parent.parent,
        embedding={"model": "bundled", "backend": "auto", "onnx_dir": str(models_root)},
    )
    onnx = embedder_from_settings(settings)
    assert isinstance(onnx, OnnxEmbedder)
    torch_settings = settings.model_copy(
        update={"embedding": settings.embedding.model_copy(update={"backend": "torch"})}
    )
    torch = embedder_from_settings(torch_settings)
    assert isinstance(torch, SentenceTransformerEmbedder)
    assert onnx.space == torch.space == (BUNDLED_MODEL_NAME, 384)
    assert onnx.describe()["backend"] == "onnx"
    loading_mod._cache.clear()


def test_the_cache_is_private(models_root: Path) -> None:
    cache = _cache(models_root)
    assert cache.parent == models_root and cache.name.startswith(
        "sentence-transformers_all-MiniLM-L6-v2-"
    )
    for path in [models_root, cache]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o700
    names = sorted(p.name for p in cache.iterdir())
    assert names == ["manifest.json", "model.onnx", "tokenizer.json"]
    for path in cache.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    manifest = json.loads((cache / "manifest.json").read_text())
    assert manifest["pipeline"] == {
        "pooling": "mean",
        "max_length": 256,
        "do_lower_case": False,
        "normalize": True,
    }


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["truncate", "flip", "flip-large", "manifest", "missing"])
def test_a_damaged_cache_is_moved_aside_and_made_again(
    models_root: Path,
    tmp_path: Path,
    damage: str,
    real_embedder: object,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if damage == "flip-large":  # a file too large to hash each start: its mtime tells
        monkeypatch.setattr(onnx_mod, "HASH_ALWAYS_BYTES", 0)
    root = tmp_path / "models"
    shutil.copytree(models_root, root)
    cache = _cache(root)
    model = cache / MODEL_FILE
    if damage == "truncate":
        model.write_bytes(model.read_bytes()[:1000])
    elif damage.startswith("flip"):  # same size, one byte changed: only the hash tells
        data = bytearray(model.read_bytes())
        data[len(data) // 2] ^= 0xFF
        model.write_bytes(bytes(data))
    elif damage == "manifest":
        (cache / "manifest.json").write_text("{not json")
    else:
        model.unlink()
    if damage == "flip-large":
        untouched = _cache(models_root)
        assert cache_mod.open_cached(BUNDLED_MODEL_NAME, untouched) is not None  # not hashed
    assert cache_mod.open_cached(BUNDLED_MODEL_NAME, cache) is None
    assert not cache.exists() and (root / f"{cache.name}.damaged-1").is_dir()
    if damage != "truncate":
        return  # made again: once is enough (an export takes a while)
    again = cache_mod.onnx_or_none(
        BUNDLED_MODEL_NAME, str(_bundled_folder()), root, export_now=True
    )
    assert isinstance(again, OnnxEmbedder) and again.loaded and cache.is_dir()
    assert isinstance(real_embedder, SentenceTransformerEmbedder)
    diff = np.abs(again.embed_batch(TEXTS[:3]) - real_embedder.embed_batch(TEXTS[:3])).max()
    assert float(diff) < 1e-5


def test_the_pipeline_is_read_from_the_model_folder(tmp_path: Path) -> None:
    bundled = read_pipeline(_bundled_folder())
    assert (bundled.pooling, bundled.max_length, bundled.normalize) == ("mean", 256, True)
    folder = tmp_path / "bge-like"
    shutil.copytree(_bundled_folder(), folder, ignore=shutil.ignore_patterns("*.safetensors"))
    pooling = folder / "1_Pooling" / "config.json"
    pooling.write_text(json.dumps({"word_embedding_dimension": 384, "pooling_mode": "cls"}))
    (folder / "sentence_bert_config.json").write_text(
        json.dumps({"max_seq_length": 8192, "do_lower_case": True})
    )
    cls = read_pipeline(folder)
    assert (cls.pooling, cls.max_length, cls.do_lower_case) == ("cls", 8192, True)
    pooling.write_text(json.dumps({"pooling_mode_weightedmean_tokens": True}))
    with pytest.raises(UnsupportedModelError):
        read_pipeline(folder)
    pooling.write_text(json.dumps({"pooling_mode_cls_token": True}))
    modules = json.loads((folder / "modules.json").read_text())
    modules.insert(2, {"idx": 2, "name": "2", "path": "2_Dense", "type": "x.models.Dense"})
    (folder / "modules.json").write_text(json.dumps(modules))
    with pytest.raises(UnsupportedModelError):
        read_pipeline(folder)


def test_pooling_follows_the_attention_mask() -> None:
    hidden = np.arange(2 * 3 * 2, dtype=np.float32).reshape(2, 3, 2)
    mask = np.array([[1, 1, 0], [0, 1, 1]])  # right padding, then left padding
    assert pool(hidden, mask, "mean").tolist() == [[1.0, 2.0], [9.0, 10.0]]
    assert pool(hidden, mask, "cls").tolist() == [[0.0, 1.0], [8.0, 9.0]]
    assert pool(hidden, mask, "max").tolist() == [[2.0, 3.0], [10.0, 11.0]]
    root2 = np.sqrt(2.0)
    assert np.allclose(
        pool(hidden, mask, "mean_sqrt_len_tokens"),
        [[2 / root2, 4 / root2], [18 / root2, 20 / root2]],
    )


def test_offline_a_model_without_a_local_copy_is_unavailable_without_torch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default bge-m3 with no local copy offline: found missing without loading torch
    (the caller then falls back to the bundled model, as the torch path would)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(EmbedderUnavailableError, match="no local copy"):
        cache_mod.onnx_or_none("no-such/model-xyz", "no-such/model-xyz", tmp_path)


async def test_the_files_reconcile_while_the_model_loads(tmp_path: Path) -> None:
    """The workspace opens and reconciles before the model is awaited; the vectors of what
    it found follow once the model is there (``embed_missing``)."""
    ws = tmp_path / "ws"
    store = MemoryStore(ws)
    await store.start()
    await store.append(
        make_record("I have a cat named Miso", scope="user", category="knowledge", user_key="a")
    )
    await store.close()
    seen: list[int] = []

    async def model() -> HashEmbedder:  # awaited by open_workspace: runs at that moment
        seen.append(await _count(ws, "SELECT COUNT(*) FROM records"))
        return HashEmbedder(dim=16)

    async with open_workspace(Settings(workspace=ws), embedder=model()) as mw:
        assert seen == [1]  # the file was reconciled before the model was needed
        assert isinstance(mw.embedder, HashEmbedder)
        assert await _count(ws, "SELECT COUNT(*) FROM vectors") == 1


async def _count(ws: Path, sql: str) -> int:
    import aiosqlite

    async with aiosqlite.connect(ws / "familiars.db") as db:
        rows = list(await db.execute_fetchall(sql))
    return int(rows[0][0])
