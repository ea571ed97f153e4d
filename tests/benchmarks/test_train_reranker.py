"""``scripts/train_reranker.py``'s leave-one-out report: a companion moment's figures go under
the way it was asked (the message alone, or read in its conversation), not pooled."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

from familiars.benchmarks import _rerank_data as rerank_data
from tests.fakes import HashEmbedder

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "train_reranker.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("train_reranker_under_test", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class _FirstColumn:
    def score(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(x[:, 0], dtype=np.float64)


def _rows(conv: int, source: str, category: int, gold_first: bool) -> rerank_data.QueryRows:
    """A pool of 12 whose evidence the first column ranks first (or last)."""
    col = np.linspace(1.0, 0.0, 12)
    y = np.zeros(12)
    y[0 if gold_first else 11] = 1.0
    return rerank_data.QueryRows(conv, source, category, col[:, None], y, 1)


def test_leave_one_out_reports_companion_moments_per_way_of_asking() -> None:
    script = _script()
    rows = [_rows(0, "locomo", 1, True), _rows(1, "locomo", 2, True)]
    for person in (100, 101):  # the message alone misses, read in its conversation it finds
        rows += [_rows(person, "companion", 0, False), _rows(person, "companion", 1, True)]
    out = script.loco(rows, lambda train, **_: _FirstColumn())
    assert set(out) == {"locomo", "companion message", "companion conversation"}
    assert out["companion message"]["rerank R@10"] == 0.0
    assert out["companion conversation"]["rerank R@10"] == 1.0
    assert out["locomo"]["rerank R@5"] == 1.0


async def test_companion_pools_are_labelled_with_the_way_they_were_asked(tmp_path) -> None:
    lines = [
        {"type": "episode", "id": f"ana-{i:02d}", "person": "ana",
         "text": f"Ana remembers event number {i} with a feeling of type {i % 7}."}
        for i in range(45)
    ]  # fmt: skip
    lines.append(
        {"type": "moment", "id": "cm-1", "person": "ana", "split": "dev",
         "context": ["I was thinking about things", "and about event number 3"],
         "message": "that feeling of type 3 again", "gold": ["ana-03"]}
    )  # fmt: skip
    data = tmp_path / "set.jsonl"
    data.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    rows = await rerank_data.collect_companion(data, HashEmbedder(dim=64))
    assert [r.category for r in rows] == [0, 1]
    assert [rerank_data.WAYS[r.category] for r in rows] == ["message", "conversation"]
    assert all(r.source == "companion" and r.conv == 100 for r in rows)


def test_k_fold_fits_one_model_a_fold_and_never_sees_the_held_conversations() -> None:
    script = _script()
    rows = [_rows(c, "locomo", 1, True) for c in range(6)]
    seen: list[set[int]] = []

    def trainer(train: list[rerank_data.QueryRows], **_: float) -> _FirstColumn:
        seen.append({r.conv for r in train})
        return _FirstColumn()

    script.loco(rows, trainer, folds=3)
    assert seen == [{1, 2, 4, 5}, {0, 2, 3, 5}, {0, 1, 3, 4}]
    seen.clear()
    script.loco(rows, trainer)  # leave one out: a model a conversation
    assert len(seen) == 6 and all(len(s) == 5 for s in seen)
