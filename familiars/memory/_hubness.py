"""Hubness: how similar a document is to everything, so that similarity to a query can be
read against it.

Sentence embeddings have *hubs*: short generic messages ("Hey! Good to see you, anything
new?", "Thanks, that's awesome!") sit close to almost any query and crowd the top of a
plain cosine ranking, most of all when the query shares no words with what it should find.
Cross-domain similarity local scaling (CSLS; Conneau et al. 2018) corrects for it: a
document's score is its cosine minus a share of its *hub value*, the mean cosine of its
``K`` nearest other documents. No label is involved; the value only depends on the index.

Measured with plain cosine over the LoCoMo dev conversations (the implicit dev pairs stitched
in, ``K`` = 10, share 0.5): implicit recall@10 0.391 -> 0.518, LoCoMo recall@10 0.446 ->
0.494.

:class:`HubTable` looks for neighbours among a *reference set* of at most ``reference`` rows
(every row while the index is smaller; then the rows that joined while there was room, and a
new row joins whenever one leaves). That keeps the cost bounded and the values comparable
from a young workspace to a large one: a row's list is computed the first time recall asks
for it (one product of the few candidates against the reference set), kept, and updated when
a row joins the reference. Nothing is computed at start-up. A removed row leaves the
reference and every list it was in, and those lists are computed again on the next read, so
a forgotten message leaves no similarity behind.
"""

from __future__ import annotations

import logging
import threading

import numpy as np

logger = logging.getLogger(__name__)

NEIGHBOURS = 10
REFERENCE = 2048


class HubTable:
    """Each asked-for row's ``k`` nearest other reference rows (cosine over unit vectors)
    and the mean of their similarities; rows that are not alive take no part."""

    def __init__(self, k: int = NEIGHBOURS, reference: int = REFERENCE) -> None:
        self.k = k
        self.reference = reference
        self._ref: list[int] = []
        self._sim = np.full((0, k), -np.inf, dtype=np.float32)
        self._ids = np.full((0, k), -1, dtype=np.int64)
        self._known = np.zeros(0, dtype=bool)
        #: Each row's hub value, kept with its list (recall reads it for a few hundred rows).
        self._mean = np.zeros(0, dtype=np.float64)
        self._pending: list[int] = []
        self._stale: set[int] = set()
        self._mutex = threading.Lock()
        #: The reference rows' ids and vectors as arrays, made when first needed after the
        #: reference changed (a live row's vector never changes: a new one is a new row), so
        #: a turn's few new rows are not multiplied against 2048 rows gathered afresh.
        self._ref_at: tuple[np.ndarray, np.ndarray] | None = None

    def added(self, row: int) -> None:
        """``row`` was appended; it joins the reference on the next read if there is room."""
        with self._mutex:
            self._pending.append(row)

    def removed(self, row: int) -> None:
        """``row`` left the index: it leaves the reference and every list on the next read."""
        with self._mutex:
            self._stale.add(row)

    def values(self, rows: np.ndarray, matrix: np.ndarray, alive: np.ndarray) -> np.ndarray:
        """The hub value (mean of the ``k`` best neighbour similarities, 0 without any) of
        ``rows``, after folding in what changed since the last read."""
        with self._mutex:
            self._upkeep(matrix, alive)
            need = rows[~self._known[rows]]
            if need.size:
                self._compute(np.unique(need), matrix)
            return self._mean[rows]

    def warm(self, matrix: np.ndarray, alive: np.ndarray, limit: int) -> int:
        """Work out the lists of at most ``limit`` live rows that have none yet; how many
        (0: every live row is current)."""
        with self._mutex:
            self._upkeep(matrix, alive)
            n = matrix.shape[0]
            todo = np.nonzero(alive[:n] & ~self._known[:n])[0][:limit]
            if todo.size:
                self._compute(todo, matrix)
            return int(todo.size)

    # ------------------------------------------------------------------ upkeep

    def _upkeep(self, matrix: np.ndarray, alive: np.ndarray) -> None:
        """Fold in the rows added and removed since the last read (under the lock)."""
        self._grow(matrix.shape[0])
        if self._stale:
            self._drop_stale()
        if self._pending:
            self._join(matrix, alive)

    def _grow(self, n: int) -> None:
        if n <= self._known.shape[0]:
            return
        cap = max(n, 2 * self._known.shape[0], 1024)
        sim = np.full((cap, self.k), -np.inf, dtype=np.float32)
        ids = np.full((cap, self.k), -1, dtype=np.int64)
        known = np.zeros(cap, dtype=bool)
        mean = np.zeros(cap, dtype=np.float64)
        old = self._known.shape[0]
        sim[:old], ids[:old], known[:old] = self._sim, self._ids, self._known
        mean[:old] = self._mean
        self._sim, self._ids, self._known, self._mean = sim, ids, known, mean

    def _drop_stale(self) -> None:
        """Removed rows leave the reference; lists that held one are computed again."""
        stale = np.array(sorted(self._stale), dtype=np.int64)
        self._stale = set()
        gone = set(stale.tolist())
        self._ref = [r for r in self._ref if r not in gone]
        self._ref_at = None
        self._pending = [r for r in self._pending if r not in gone]
        self._known[stale[stale < self._known.shape[0]]] = False
        touched = np.isin(self._ids, stale).any(axis=1)
        self._known[touched] = False
        self._sim[touched | ~self._known] = -np.inf
        self._ids[touched | ~self._known] = -1
        self._mean[touched | ~self._known] = 0.0

    def _join(self, matrix: np.ndarray, alive: np.ndarray) -> None:
        """New live rows join the reference while there is room, and are offered to every
        list already computed (each replaces the weakest neighbour it beats)."""
        new = [r for r in dict.fromkeys(self._pending) if alive[r] and r not in self._ref]
        self._pending = []
        room = max(0, self.reference - len(self._ref))
        joining = np.array(new[:room], dtype=np.int64)
        if not joining.size:
            return
        self._ref += joining.tolist()
        self._ref_at = None
        known = np.nonzero(self._known)[0]
        if not known.size:
            return
        if 2 * known.size > matrix.shape[0]:  # most rows: no copy of them to multiply
            block = (matrix @ matrix[joining].T)[known]  # (known, joining)
        else:
            block = matrix[known] @ matrix[joining].T
        block[known[:, None] == joining[None, :]] = -np.inf
        floor = self._sim[known].min(axis=1)  # each list's weakest, kept current below
        for j, row in enumerate(joining):
            takers = np.flatnonzero(block[:, j] > floor)  # only their lists are looked at
            rows = known[takers]
            weakest = self._sim[rows].argmin(axis=1)
            self._sim[rows, weakest] = block[takers, j]
            self._ids[rows, weakest] = row
            floor[takers] = self._sim[rows].min(axis=1)
            self._mean[rows] = _means(self._sim[rows])

    def _compute(self, need: np.ndarray, matrix: np.ndarray) -> None:
        """The lists of ``need`` against the whole reference set."""
        self._known[need] = True
        self._sim[need] = -np.inf
        self._ids[need] = -1
        self._mean[need] = 0.0
        if self._ref_at is None:
            ref = np.array(self._ref, dtype=np.int64)
            self._ref_at = (ref, matrix[ref])
        ref, vectors = self._ref_at
        k = min(self.k, ref.size)
        if not k:
            return
        block = matrix[need] @ vectors.T
        block[need[:, None] == ref[None, :]] = -np.inf
        top = np.argpartition(-block, k - 1, axis=1)[:, :k]
        sims = np.take_along_axis(block, top, axis=1)
        self._sim[need, :k] = sims
        self._ids[need, :k] = np.where(np.isfinite(sims), ref[top], -1)
        self._mean[need] = _means(self._sim[need])


def _means(sims: np.ndarray) -> np.ndarray:
    """Each row's hub value: the mean of its finite similarities, 0 without any."""
    found = np.isfinite(sims)
    count = found.sum(axis=1)
    total = np.where(found, sims, 0.0).sum(axis=1)
    return np.where(count > 0, total / np.maximum(count, 1), 0.0)
