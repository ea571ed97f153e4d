"""Short per-row lists of (id, weight) in two flat arrays: each row's list is a slice.

The late-interaction word lists were a ``(rows, 96)`` matrix of ids and one of weights: 100
MB at 100k records whose lists hold some ten words. Here a row's list is a slice of two flat
arrays; replacing it appends a new slice and blanks the old one (nothing of a replaced or
forgotten list stays readable), and the blanks are closed up when they are half the arrays.
:meth:`RowLists.padded` gives the few candidates' lists as the matrices the old layout held.
"""

from __future__ import annotations

import numpy as np


class RowLists:
    def __init__(self) -> None:
        self._ids: np.ndarray = np.zeros(1024, dtype=np.int32)  # vocabulary ids
        self._weights: np.ndarray = np.zeros(1024, dtype=np.float32)
        self._used = 0
        self._garbage = 0
        self._start = np.zeros(0, dtype=np.int64)
        self.counts = np.zeros(0, dtype=np.int64)

    def _rows_up_to(self, row: int) -> None:
        size = self.counts.shape[0]
        if row < size:
            return
        cap = max(row + 1, size + size // 2, 1024)
        self._start = np.concatenate([self._start, np.zeros(cap - size, dtype=np.int64)])
        self.counts = np.concatenate([self.counts, np.zeros(cap - size, dtype=np.int64)])

    def set(self, row: int, ids: list[int], weights: list[float]) -> None:
        """Replace the row's list."""
        self.clear(row)
        count = len(ids)
        if not count:
            return
        if self._used + count > self._ids.shape[0]:
            if self._garbage > self._used // 2:
                self._compact()
            need = self._used + count
            if need > self._ids.shape[0]:
                cap = max(need, self._ids.shape[0] + self._ids.shape[0] // 2)
                self._ids = np.resize(self._ids, cap)
                self._weights = np.resize(self._weights, cap)
        start = self._used
        self._ids[start : start + count] = ids
        self._weights[start : start + count] = weights
        self._used += count
        self._start[row], self.counts[row] = start, count

    def clear(self, row: int) -> None:
        """The row's list is emptied and its entries blanked."""
        self._rows_up_to(row)
        count = int(self.counts[row])
        if count:
            start = int(self._start[row])
            self._ids[start : start + count] = 0
            self._weights[start : start + count] = 0
            self._garbage += count
            self.counts[row] = 0

    def _compact(self) -> None:
        live = np.flatnonzero(self.counts > 0)
        counts = self.counts[live]
        offsets = _slices(self._start[live], counts)
        self._ids[: offsets.size] = self._ids[offsets]
        self._weights[: offsets.size] = self._weights[offsets]
        self._ids[offsets.size : self._used] = 0
        self._weights[offsets.size : self._used] = 0
        self._start[live] = np.cumsum(counts) - counts
        self._used, self._garbage = int(offsets.size), 0

    def padded(
        self, rows: np.ndarray, width: int, *, transposed: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """``rows``' lists as ``(len(rows), width)`` id and weight matrices, 0-padded
        (``transposed``: ``(width, len(rows))``, the layout late interaction reads)."""
        counts = np.minimum(self.counts[rows], width)
        steps = np.arange(width)
        starts = self._start[rows]
        if transposed:
            filled = steps[:, None] < counts[None, :]
            at = starts[None, :] + steps[:, None]
        else:
            filled = steps[None, :] < counts[:, None]
            at = starts[:, None] + steps[None, :]
        # past a row's own list ``at`` reads its neighbour's (or is clipped at the end):
        # those places are padding, set to 0
        ids = np.where(filled, self._ids.take(at, mode="clip"), 0).astype(
            self._ids.dtype, copy=False
        )
        weights = np.where(filled, self._weights.take(at, mode="clip"), 0)
        return ids, weights.astype(self._weights.dtype, copy=False)


def _slices(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The flat positions of the slices ``start:start+count``, one after the other."""
    return np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))
