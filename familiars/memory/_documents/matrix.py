"""The search matrix: every chunk with a vector of the current model, as numpy arrays.

``DocRows.load_matrix`` reads it from the index in one query (:func:`matrix_from_rows`);
``DocRows.generation`` is the counter every change bumps, so a process (the bot, the CLI,
another worker) knows when its matrix is stale.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class Matrix:
    """Every chunk with a vector of the current model, as arrays for exact search."""

    chunk_ids: np.ndarray  # sorted int64
    file_ids: list[str]
    file_index: np.ndarray  # row -> index into file_ids
    owners: list[str]
    owner_index: np.ndarray  # row -> index into owners
    current: np.ndarray  # bool
    seqs: np.ndarray  # chunk number within its file; 0 is the summary
    versions: list[str]
    vectors: np.ndarray

    def rows_of(self, chunk_ids: Sequence[int]) -> np.ndarray:
        """Matrix rows of ``chunk_ids``; -1 for a chunk that has no vector here."""
        ids = np.asarray(chunk_ids, dtype=np.int64)
        if ids.size == 0 or self.chunk_ids.size == 0:
            return np.full(ids.shape, -1, dtype=np.int64)
        pos = np.clip(np.searchsorted(self.chunk_ids, ids), 0, self.chunk_ids.size - 1)
        return np.where(self.chunk_ids[pos] == ids, pos, -1)

    def visible(self, owners: Iterable[str], history: bool) -> np.ndarray:
        wanted = set(owners)
        allowed = [i for i, o in enumerate(self.owners) if o in wanted]
        mask = np.isin(self.owner_index, allowed)
        return mask if history else mask & self.current


def matrix_from_rows(rows: Sequence[tuple[Any, ...]], dim: int) -> Matrix:
    """The matrix of ``(chunk_id, file_id, owner, current, seq, version, vector)`` rows in
    chunk id order (``DocRows.load_matrix`` reads them)."""
    ids: list[int] = []
    files: dict[str, int] = {}
    owners: dict[str, int] = {}
    file_index: list[int] = []
    owner_index: list[int] = []
    current: list[bool] = []
    seqs: list[int] = []
    versions: list[str] = []
    vectors: list[np.ndarray] = []
    for chunk_id, fid, owner, cur_flag, seq, version, vector in rows:
        ids.append(int(chunk_id))
        seqs.append(int(seq))
        file_index.append(files.setdefault(fid, len(files)))
        owner_index.append(owners.setdefault(owner, len(owners)))
        current.append(bool(cur_flag))
        versions.append(version)
        vectors.append(vector)
    return Matrix(
        chunk_ids=np.asarray(ids, dtype=np.int64),
        file_ids=list(files),
        file_index=np.asarray(file_index, dtype=np.int64),
        owners=list(owners),
        owner_index=np.asarray(owner_index, dtype=np.int64),
        current=np.asarray(current, dtype=bool),
        seqs=np.asarray(seqs, dtype=np.int64),
        versions=versions,
        vectors=(
            np.stack(vectors).astype(np.float32, copy=False)
            if vectors
            else np.zeros((0, dim), dtype=np.float32)
        ),
    )
