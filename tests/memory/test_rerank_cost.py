"""The re-ranker's cheaper paths give the same numbers as the plain ones (issue 15, the
turn's memory cost): the trees scored all at once, explanations in one pass, its own time
in ``timings_ms["rerank"]``."""

from __future__ import annotations

import numpy as np
import pytest

from familiars.memory import make_record
from familiars.memory._reader import MemoryReader
from familiars.memory._rerank import FEATURES, TreeReranker, load_reranker, pool
from tests.fakes import HashEmbedder


def _shipped_trees() -> TreeReranker:
    model = load_reranker()
    assert isinstance(model, TreeReranker)
    return model


def _rows(n: int, seed: int = 4) -> np.ndarray:
    return np.random.default_rng(seed).normal(0.3, 0.6, size=(n, len(FEATURES)))


def test_tree_score_is_the_walk_to_the_bit() -> None:
    model = _shipped_trees()
    x = _rows(300)
    assert np.array_equal(model.score(x), model._walk(x, None))
    # one row and two (a single column is where numpy would sum pairwise), any layout
    for n in (1, 2, 3):
        x = _rows(n, seed=n)
        assert np.array_equal(model.score(x), model._walk(x, None))
        assert np.array_equal(model.score(np.asfortranarray(x)), model._walk(x, None))
    assert model.score(_rows(0)).shape == (0,)


def test_tree_score_is_the_walk_to_the_bit_at_any_depth() -> None:
    rng = np.random.default_rng(11)
    for levels in (1, 2, 3, 4, 5):
        inner = 2**levels - 1
        model = TreeReranker(
            feature=rng.integers(0, len(FEATURES), (6, inner)),
            threshold=rng.normal(0.3, 0.6, (6, inner)).round(1),  # ties with the rows too
            values=rng.normal(size=(6, 2 ** (levels + 1) - 1)),
            levels=levels,
        )
        for n in (1, 2, 7, 120):
            x = rng.normal(0.3, 0.6, size=(n, len(FEATURES))).round(1)
            assert np.array_equal(model.score(x), model._walk(x, None))


def test_pool_is_the_fused_top_and_the_meaning_top_in_fused_order() -> None:
    rng = np.random.default_rng(3)
    for n in (1, 7, 120):
        total, dense = rng.normal(size=n).round(1), rng.normal(size=n).round(1)  # ties too
        order = np.argsort(-total, kind="stable")
        want = set(order[:40].tolist()) | set(np.argsort(-dense, kind="stable")[:25].tolist())
        got = pool(total, dense, 40, 25)
        assert got.tolist() == [j for j in order.tolist() if j in want]
        assert got.dtype == np.int64


def test_explain_rows_equal_one_explain_per_row() -> None:
    model = _shipped_trees()
    x = _rows(9, seed=7)
    batch = model.explain_rows(x)
    for row, got in zip(x, batch, strict=True):
        contrib = np.zeros((1, len(FEATURES)))
        score = float(model._walk(row[None, :], contrib)[0])
        assert got["score"] == round(score, 6)
        assert got == model.explain(row)
        want = {n: round(float(v), 6) for n, v in zip(FEATURES, contrib[0], strict=True) if v}
        assert got["contributions"] == want


async def _reader_with(records: int, **kwargs: object) -> MemoryReader:
    # No stage is dropped for time on a busy machine: what runs is what is compared.
    reader = MemoryReader(HashEmbedder(dim=64), budgets_ms={"standard": 1e9}, **kwargs)  # type: ignore[arg-type]
    words = ["bees", "sails", "bread", "trail", "chess", "piano", "tea", "river"]
    recs = [
        make_record(f"Person {i} likes {words[i % 8]} and {words[(i * 3) % 8]} on day {i}",
                    scope="identity", category="knowledge")
        for i in range(records)
    ]  # fmt: skip
    await reader.add_records(recs)
    return reader


async def test_rerank_time_is_reported_and_absent_when_ablated() -> None:
    model = _shipped_trees()
    reader = await _reader_with(model.depth + 20, reranker=model)
    res = await reader.build_rag_context("who likes bees and tea", k=5)
    assert "rerank" in res.items[0].parts
    assert res.timings_ms["rerank"] >= 0.0
    off = await _reader_with(model.depth + 20, reranker=model, ablated=["rerank"])
    res_off = await off.build_rag_context("who likes bees and tea", k=5)
    assert "rerank" not in res_off.timings_ms
    assert "rerank" not in res_off.items[0].parts


async def test_batched_explanations_belong_to_their_items() -> None:
    model = _shipped_trees()
    reader = await _reader_with(model.depth + 20, reranker=model)
    res = await reader.build_rag_context("who likes piano on day 7", k=8)
    assert res.items
    for item in res.items:
        rr = item.explain["rerank"]
        assert rr["score"] == round(item.parts["rerank"], 6)
        assert item.explain["total"] == rr["score"]
        assert set(rr["features"]) == set(FEATURES)
        # each item's own contributions add up to its own score (rows were not mixed up)
        assert abs(rr["base"] + sum(rr["contributions"].values()) - rr["score"]) < 1e-4


async def test_explanations_are_worked_out_only_when_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A turn never reads ``explain`` (issue 20: it was 8% of a turn): recall leaves the
    trees unwalked for it, and the first read walks them once for every kept item."""
    model = _shipped_trees()
    reader = await _reader_with(model.depth + 20, reranker=model)
    calls: list[int] = []
    real = TreeReranker.explain_rows
    monkeypatch.setattr(
        TreeReranker, "explain_rows", lambda self, x: calls.append(len(x)) or real(self, x)
    )
    res = await reader.build_rag_context("who likes chess and bread", k=6)
    assert res.items and calls == []
    assert "rerank" in res.items[0].parts  # the score part is there without the explanation
    first = res.items[0].explain
    assert calls == [len(res.items)]
    assert [it.explain["total"] for it in res.items[1:]]
    assert calls == [len(res.items)]  # one walk for the lot
    assert (
        first["first_stage"]["total"] == res.items[0].as_dict()["explain"]["first_stage"]["total"]
    )
