"""One BLAS thread for the small matrix products on the event loop (recall's ranking, a
message's place in its dialogue tree)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Any

_blas: Any = None


def one_blas_thread() -> AbstractContextManager[Any]:
    """Recall's and the tree's matrix products are small (a query against a few thousand
    rows): on a busy two-core machine a multi-threaded BLAS spins on them and runs ~10x
    slower than one thread (measured: 8 ms vs 0.5 ms for 5 x 3000 x 384; a message's place
    among 5,000 nodes: 12-20 ms vs 0.2-1.5 ms). No awaits happen inside. The libraries
    are found once; each use only reads and sets their thread counts (threadpoolctl's own
    ``limit`` re-reads every library's info per call: ~30 us a recall)."""
    global _blas
    if _blas is None:
        try:
            from threadpoolctl import ThreadpoolController

            _blas = list(ThreadpoolController().select(user_api="blas").lib_controllers)
        except ImportError:  # pragma: no cover - threadpoolctl is a declared dependency
            _blas = []
    return _one_thread(_blas)


@contextlib.contextmanager
def _one_thread(libs: list[Any]) -> Iterator[None]:
    changed = [(lib, n) for lib in libs if (n := lib.num_threads) != 1]
    for lib, _ in changed:
        lib.set_num_threads(1)
    try:
        yield
    finally:
        for lib, n in changed:
            lib.set_num_threads(n)
