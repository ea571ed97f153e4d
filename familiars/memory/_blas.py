"""One BLAS thread for the small matrix products of a turn (recall's, the dialogue tree's
attach rule), safe to hold from the event loop and a worker thread at once."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

_controller: Any = None
_lock = threading.Lock()
_holders = 0
_limiter: Any = None


def _blas() -> Any:
    global _controller
    if _controller is None:
        try:
            from threadpoolctl import ThreadpoolController

            _controller = ThreadpoolController()
        except ImportError:  # pragma: no cover - threadpoolctl is a declared dependency
            _controller = False
    return _controller


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """A turn's matrix products are small (a query against a few thousand rows): on a busy
    two-core machine a multi-threaded BLAS spins on them and runs ~10x slower than one thread
    (measured: 8 ms vs 0.5 ms for 5 x 3000 x 384; the tree's attach rule over 5,000 nodes
    took 31 ms in a worker thread). The setting is process-wide, so it is counted: the first
    holder sets one thread, the last one out puts back what was there (a worker thread and
    the event loop may hold it at once). No awaits happen inside."""
    global _holders, _limiter
    controller = _blas()
    if controller is False:
        yield
        return
    with _lock:
        if _holders == 0:
            _limiter = controller.limit(limits=1, user_api="blas")
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0:
                _limiter.restore_original_limits()
                _limiter = None
