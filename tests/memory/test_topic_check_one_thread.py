"""Issue 20: the check whether a message names its topic (one product over every row) runs
on one BLAS thread, as the ranking's products do: a threaded BLAS spins on a busy two-core
machine. Its cosines are the product's, bit for bit, and the ranking reads them again from
the index's memo; the thread setting is what it was afterwards."""

from __future__ import annotations

from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

from familiars.memory._recall_context import TOPIC_COSINE, names_its_topic
from familiars.memory._search_index import Doc, RecallIndex


def _blas_threads() -> list[int]:
    """Threads of the BLAS numpy's products run on (scipy's own OpenBLAS, loaded later by
    other tests, is not the one a recall uses, and the limiter never saw it)."""
    return [int(lib["num_threads"]) for lib in ThreadpoolController().info()
            if lib["user_api"] == "blas" and "numpy" in lib["filepath"]]  # fmt: skip


def _index(rng: np.random.Generator, n: int = 2000, dim: int = 64) -> RecallIndex:
    index = RecallIndex(dim)
    m = rng.standard_normal((n, dim)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    for i in range(n):
        index.add(Doc(key=f"k{i}", kind="record", group="user:u", text=f"text {i}",
                      timestamp=0.0), m[i])  # fmt: skip
    return index


def test_the_topic_check_is_the_product_on_one_thread_and_the_ranking_reuses_it() -> None:
    rng = np.random.default_rng(5)
    index = _index(rng)
    before = _blas_threads()
    seen: list[list[int]] = []
    dense_all = index.dense_all

    def watched(q: Any) -> np.ndarray:
        seen.append(_blas_threads())
        return dense_all(q)

    index.dense_all = watched  # type: ignore[method-assign]
    near = index.matrix[7] + 0.05 * rng.standard_normal(64).astype(np.float32)
    near /= np.linalg.norm(near)
    assert names_its_topic(index, near, None, "what about seven")  # row 7: cosine > .99
    assert float(index.matrix[7] @ near) >= TOPIC_COSINE
    assert seen and all(n == 1 for n in seen[0])
    assert _blas_threads() == before  # the setting is back
    index.dense_all = dense_all  # type: ignore[method-assign]
    kept = index.dense_all(near)
    assert np.array_equal(kept, index.matrix @ near)  # bit for bit, any thread count
    assert index.dense_all(near.copy()) is kept  # the ranking's product is the memo
