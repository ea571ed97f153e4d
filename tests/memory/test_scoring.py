"""Scoring functions: pure, named, explainable."""

from __future__ import annotations

import math

import numpy as np
import pytest

from familiars.memory._recall_signals import RECALL_KNOBS as KNOBS
from familiars.memory._scoring import (
    UnknownKnobError,
    cosine,
    cosine_all,
    explain,
    minmax,
    parse_knobs,
    recency_decay,
    reciprocal_rank_fusion,
    tree_decay,
    weighted_fusion,
)


def test_cosine() -> None:
    assert cosine([1, 0], [1, 0]) == pytest.approx(1.0)
    assert cosine([1, 0], [0, 2]) == pytest.approx(0.0)
    assert cosine([1, 1], [-1, -1]) == pytest.approx(-1.0)
    assert cosine([0, 0], [1, 0]) == 0.0
    m = np.eye(3, dtype=np.float32)
    assert cosine_all(m, np.array([0, 1, 0])).tolist() == [0, 1, 0]
    assert cosine_all(np.zeros((0, 3), np.float32), np.ones(3)).shape == (0,)


def test_decays() -> None:
    assert recency_decay(0, 600) == 1.0
    assert recency_decay(-5, 600) == 1.0  # the future is not fresher than now
    assert recency_decay(600, 600) == pytest.approx(math.exp(-1))
    arr = recency_decay(np.array([0.0, 600.0]), 600.0)
    assert np.allclose(arr, [1.0, math.exp(-1)])
    assert tree_decay(3, 3.0) == pytest.approx(math.exp(-1))
    assert tree_decay(np.array([np.inf]), 3.0)[0] == 0.0


def test_minmax_and_fusion() -> None:
    assert minmax(np.array([2.0, 4.0, 3.0])).tolist() == [0.0, 1.0, 0.5]
    assert minmax(np.array([5.0, 5.0])).tolist() == [0.0, 0.0]
    assert minmax(np.array([])).size == 0
    parts = {"dense": np.array([1.0, 0.0]), "keyword": np.array([0.0, 1.0])}
    fused = weighted_fusion(parts, {"dense": 0.7, "keyword": 0.3})
    assert np.allclose(fused, [0.7, 0.3])
    assert np.allclose(weighted_fusion(parts, {}), [0.0, 0.0])


def test_reciprocal_rank_fusion() -> None:
    fused = reciprocal_rank_fusion([["a", "b"], ["b", "c"]], k=60)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert max(fused, key=fused.__getitem__) == "b"
    assert reciprocal_rank_fusion([]) == {}


def test_explain() -> None:
    ex = explain({"dense": 0.5, "keyword": 1.0}, {"dense": 0.7, "keyword": 0.3}, {"speaker": 0.2})
    assert ex.total == pytest.approx(0.35 + 0.3 + 0.2)
    data = ex.as_dict()
    assert data["contributions"]["speaker"] == 0.2 and data["weights"]["dense"] == 0.7


def test_knob_names() -> None:
    assert parse_knobs(None, KNOBS) == frozenset()
    assert parse_knobs(" keyword , sentences,", KNOBS) == {"keyword", "sentences"}
    assert parse_knobs(["dedupe"], KNOBS) == {"dedupe"}
    with pytest.raises(UnknownKnobError) as err:
        parse_knobs("keyword,turbo", KNOBS)
    assert "turbo" in str(err.value)
    assert all(isinstance(v, str) and v for v in KNOBS.values())
