"""``bench turn`` on a tiny workspace: what it reports (no timing is asserted)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from familiars.benchmarks._turn import run_turn_bench
from familiars.benchmarks._turn_setup import SetupVectors
from familiars.config import Settings
from tests.fakes import HashEmbedder


async def test_turn_bench_reports_the_rerank_cost_and_both_ratios(workspace: Path) -> None:
    settings = Settings(workspace=workspace)
    out = await run_turn_bench(settings, 60, 40, 5, embedder=HashEmbedder(dim=384))
    assert out["turns"] == 5
    for key in ("p50_ms", "p95_ms", "ratio_p50", "ratio_p95", "rerank_p50_ms", "rerank_p95_ms"):
        assert out[key] >= 0.0
    assert set(out["rerank_off"]) == {"p50_ms", "p95_ms", "ratio_p50", "ratio_p95"}
    assert "without the re-ranker" in out["before_after"]
    # what memory adds: the turn less its answer, and up to the whole reply, per stage
    assert set(out["stage_ms"]) >= {"record_message", "recall", "compose", "answer", "after"}
    total = sum(out["stage_ms"].values())
    assert out["stage_ms"]["answer"] < total and out["stage_ms"]["after"] < total
    assert out["to_reply"]["p50_ms"] > 0 and out["memory"]["p50_ms"] > 0


async def test_turn_bench_says_which_setup_filled_the_workspace(workspace: Path) -> None:
    settings = Settings(workspace=workspace)
    inner = HashEmbedder(dim=384)
    out = await run_turn_bench(settings, 60, 40, 5, embedder=inner, setup="surrogate")
    assert out["setup_vectors"].startswith("surrogate:")
    assert "the baseline use the real model" in out["setup_vectors"]
    real = await run_turn_bench(settings, 60, 40, 5, embedder=HashEmbedder(dim=384))
    assert real["setup_vectors"].startswith("real:")


def test_surrogate_vectors_embed_only_words_while_seeding_then_the_real_model() -> None:
    inner = HashEmbedder(dim=64)
    emb = SetupVectors(inner, "surrogate")
    texts = ["My sister loves chess (note 1)", "My sister loves chess (note 2)", "12"]
    vecs = emb.embed_batch(texts)
    # the real model saw the distinct words only, in one batch, never a whole text
    assert inner.calls == 1 and inner.texts_embedded == 5  # my sister loves chess note
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert not np.allclose(vecs[0], vecs[1])  # a hashed perturbation keeps texts apart
    assert float(vecs[0] @ vecs[1]) > 0.9  # the same words: nearly the same direction
    assert np.allclose(emb.embed_batch(texts[:1]), vecs[:1])  # deterministic
    assert inner.calls == 1  # the words are kept
    emb.done()
    assert np.allclose(emb.embed_batch(texts[:1]), inner.embed_batch(texts[:1]))
    assert "2 words" not in emb.report() and "5 words embedded" in emb.report()


def test_real_setup_always_uses_the_model() -> None:
    inner = HashEmbedder(dim=64)
    emb = SetupVectors(inner)
    assert np.allclose(emb.embed_batch(["chess club"]), inner.embed_batch(["chess club"]))
    with pytest.raises(ValueError, match="setup vectors"):
        SetupVectors(inner, "fast")  # type: ignore[arg-type]
