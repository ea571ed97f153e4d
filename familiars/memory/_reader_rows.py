"""Small row helpers of the read chain (``_reader``): timings, first-pass parts carried
through the fan-out, top-k, and who said or sourced a document."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping

import numpy as np

from familiars.memory._dialog_tree import Node
from familiars.memory._recall_items import Ranked, node_key
from familiars.memory._records import MemoryRecord
from familiars.memory._search_index import Doc


def add_ms(timings: dict[str, float] | None, key: str, since: float) -> None:
    """Add the milliseconds since ``since`` to ``timings[key]`` (when timings are kept)."""
    if timings is not None:
        timings[key] = timings.get(key, 0.0) + (time.perf_counter() - since) * 1000


def carry(
    values: np.ndarray, rows: np.ndarray, by_row: Mapping[int, int], missing: float = 0.0
) -> np.ndarray:
    """``values`` of the first pass, reordered to ``rows`` (``missing`` for rows it did not
    rank)."""
    return np.array([values[by_row[int(r)]] if int(r) in by_row else missing for r in rows])


def top(values: np.ndarray, k: int) -> np.ndarray:
    """The rows of the ``k`` largest finite values, in any order."""
    n = values.shape[0]
    # argpartition from the top end: no negated copy of every row
    idx = np.arange(n) if n <= k else np.argpartition(values, n - k)[n - k :]
    return idx[np.isfinite(values[idx])]


#: Below this many values one argpartition is as quick as :func:`top_set`'s shortcut.
TOP_SET_MIN = 16384


def top_set(values: np.ndarray, k: int) -> np.ndarray:
    """The rows of :func:`top`, ascending: the same set, for a caller that sorts them anyway.
    At 100k rows one introselect over every value is ~0.3 ms; most values are far below the
    ``k``-th, so a threshold read off a strided sample keeps a few hundred to select among.
    Wherever that could pick otherwise than :func:`top` (NaN, too few above the threshold,
    ties at the ``k``-th value, where argpartition's choice is its own), :func:`top` decides."""
    n = values.shape[0]
    if n < TOP_SET_MIN or k < 1 or 8 * k > n:
        return np.sort(top(values, k))
    step = 32
    sample = values[::step]
    # the sample's (4k/step + 8)-th largest: some 4k values lie above it, rarely under k
    at = sample.shape[0] - min(sample.shape[0], 4 * k // step + 8)
    bar = sample[np.argpartition(sample, at)[at]]
    rows = np.flatnonzero(values >= bar) if np.isfinite(bar) else np.zeros(0, np.int64)
    if rows.size < k or 4 * rows.size > n or np.count_nonzero(values != values):
        return np.sort(top(values, k))
    near = values[rows]
    kth = near[np.argpartition(near, rows.size - k)[rows.size - k]]
    above = near >= kth
    if int(np.count_nonzero(above)) != k or not np.isfinite(near).all():  # ties, or inf
        return np.sort(top(values, k))
    return rows[above]


def union_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.union1d`` of two row arrays (sorted, each row once) without its hash pass:
    a few hundred rows in ~8 us instead of ~30."""
    rows = np.sort(np.concatenate((a, b)))
    if rows.size < 2:
        return rows
    keep = np.empty(rows.shape[0], dtype=bool)
    keep[0] = True
    np.not_equal(rows[1:], rows[:-1], out=keep[1:])
    return rows[keep]


class RankedCells:
    """A ranking's values row by row as Python floats, for the few rows selection reads:
    each array is turned into a list once per block of rows (``tolist`` gives the same
    floats as ``float(values[j])``), not indexed and converted value by value."""

    def __init__(self, ranked: Ranked, first: int) -> None:
        self.ranked = ranked
        self.upto = 0
        self._scores: list[float] = []
        self._parts: dict[str, list[float]] = {}
        self._bonus: dict[str, list[float]] = {}
        self._raw: dict[str, list[float]] = {}
        self._grow(first)

    def _grow(self, upto: int) -> None:
        r = self.ranked
        self.upto = upto
        self._scores = r.scores[:upto].tolist()
        self._parts = {name: v[:upto].tolist() for name, v in r.parts.items()}
        self._bonus = {name: v[:upto].tolist() for name, v in r.bonus.items()}
        self._raw = {name: v[:upto].tolist() for name, v in r.raw.items()}

    def _reach(self, j: int) -> None:
        if j >= self.upto:
            self._grow(max(2 * self.upto, j + 1))

    def score(self, j: int) -> float:
        self._reach(j)
        return float(self._scores[j])

    def parts(self, j: int) -> dict[str, float]:
        self._reach(j)
        return {name: float(v[j]) for name, v in self._parts.items()}

    def bonus(self, j: int) -> dict[str, float]:
        """The bonuses that are not 0."""
        self._reach(j)
        return {name: float(v[j]) for name, v in self._bonus.items() if v[j]}

    def raw(self, j: int) -> dict[str, float]:
        """The raw evidence that is known (finite)."""
        self._reach(j)
        return {name: float(v[j]) for name, v in self._raw.items() if math.isfinite(v[j])}


def node_owner(node: Node) -> str | None:
    """The user_key of the person who said a dialogue message (None for the familiar's own)."""
    if node.origin != "user":
        return None
    value = node.metadata.get("user_key")
    return value if isinstance(value, str) and value else None


def source_node_key(doc: Doc) -> str | None:
    """The dialogue node a record was written from (its ``evidence``), as an index key."""
    if doc.kind != "record":
        return None
    rec: MemoryRecord = doc.ref
    ev = rec.evidence or {}
    dialogue_id, turn_id = ev.get("dialogue_id"), ev.get("turn_id")
    if not dialogue_id or turn_id is None:
        return None
    try:
        return node_key(rec.agent_id, str(dialogue_id), int(turn_id))
    except (TypeError, ValueError):
        return None
