"""Issue 20: one BLAS thread for a turn's small products, held by the event loop and a
worker thread at once (the dialogue tree's attach rule runs in one while recall ranks):
the setting stays one thread until the last holder is out, then is what it was."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from threadpoolctl import ThreadpoolController

import familiars.memory._dialog_tree as dialog_tree
from familiars.memory._blas import one_blas_thread
from familiars.memory._dialog_tree import DialogTree


def _blas_threads() -> list[int]:
    return [int(lib["num_threads"]) for lib in ThreadpoolController().info()
            if lib["user_api"] == "blas" and "numpy" in lib["filepath"]]  # fmt: skip


def test_two_holders_keep_one_thread_until_the_last_is_out() -> None:
    before = _blas_threads()
    if not before or max(before) < 2:
        pytest.skip("numpy's BLAS runs on one thread here: nothing to tell apart")
    inside, leave = threading.Event(), threading.Event()

    def worker() -> None:
        with one_blas_thread():
            inside.set()
            leave.wait(5)

    thread = threading.Thread(target=worker)
    thread.start()
    assert inside.wait(5)
    with one_blas_thread():
        leave.set()
        thread.join(5)
        alone = _blas_threads()  # the worker is out, this holder is not
    assert not thread.is_alive()
    assert all(n == 1 for n in alone)
    assert _blas_threads() == before


def test_the_attach_rule_runs_on_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    held: list[list[int]] = []

    @contextmanager
    def watched() -> Iterator[None]:
        with one_blas_thread():
            held.append(_blas_threads())
            yield

    monkeypatch.setattr(dialog_tree, "one_blas_thread", watched)
    tree = DialogTree()
    rng = np.random.default_rng(3)
    for i in range(3):
        vec = rng.standard_normal(16).astype(np.float32)
        tree.add_node(f"message {i}", vec / np.linalg.norm(vec), timestamp=1.7e9 + i)
    assert len(held) >= 2 and all(n == [1] * len(n) for n in held)
