"""The shortcut top-k set (``top_set``) against one argpartition (``top``): the same rows
wherever the shortcut runs, and ``top`` deciding where it could differ."""

from __future__ import annotations

import numpy as np
import pytest

from familiars.memory._reader_rows import TOP_SET_MIN, top, top_set, union_rows


def _same(values: np.ndarray, k: int) -> None:
    got = top_set(values, k)
    assert np.array_equal(got, np.sort(top(values, k)))
    assert np.all(np.diff(got) > 0)  # ascending, no row twice


@pytest.mark.parametrize("seed", range(6))
def test_cosines_of_a_large_index(seed: int) -> None:
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(TOP_SET_MIN * 3).astype(np.float32)
    for k in (1, 10, 200, 1000):
        _same(values, k)


def test_rows_outside_the_mask_never_come_back() -> None:
    rng = np.random.default_rng(7)
    values = rng.standard_normal(50_000).astype(np.float32)
    for share in (0.02, 0.3, 0.9):
        masked = np.where(rng.random(values.shape[0]) < share, values, -np.inf)
        _same(masked.astype(np.float32), 200)
        assert np.isfinite(masked[top_set(masked, 200)]).all()


def test_ties_at_the_kth_value_nan_and_inf_are_left_to_argpartition() -> None:
    rng = np.random.default_rng(8)
    values = rng.standard_normal(40_000).astype(np.float32)
    kth = np.sort(values)[-200]
    values[rng.choice(40_000, 30)] = kth  # a duplicated text: equal cosines at the boundary
    _same(values, 200)
    with_nan = values.copy()
    with_nan[5] = np.nan
    _same(with_nan, 200)
    with_inf = values.copy()
    with_inf[9] = np.inf
    _same(with_inf, 200)


def test_small_and_short_inputs() -> None:
    rng = np.random.default_rng(9)
    for n in (0, 5, 200, TOP_SET_MIN - 1, TOP_SET_MIN):
        _same(rng.standard_normal(n).astype(np.float32), 200)


def test_union_rows_is_union1d() -> None:
    rng = np.random.default_rng(10)
    for n in (0, 1, 3, 400):
        a = rng.integers(0, 500, n)
        b = rng.integers(0, 500, n // 2 + 1)
        assert np.array_equal(union_rows(a, b), np.union1d(a, b))
    assert union_rows(np.zeros(0, np.int64), np.zeros(0, np.int64)).size == 0
