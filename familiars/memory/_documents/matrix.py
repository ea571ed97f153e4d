"""The search matrix: every chunk with a vector of the current model, as numpy arrays.

``load_matrix`` reads it from the index in one query; ``generation`` is the counter every
change bumps, so a process (the bot, the CLI) knows when its matrix is stale.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import aiosqlite
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


async def generation(db: aiosqlite.Connection) -> int:
    async with db.execute("SELECT value FROM doc_meta WHERE key = 'generation'") as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else 0


async def load_matrix(db: aiosqlite.Connection, model: str, dim: int) -> Matrix:
    """Every chunk with a vector of ``model`` (of ``dim`` dimensions), in chunk id order."""
    ids: list[int] = []
    files: dict[str, int] = {}
    owners: dict[str, int] = {}
    file_index: list[int] = []
    owner_index: list[int] = []
    current: list[bool] = []
    seqs: list[int] = []
    versions: list[str] = []
    blobs: list[bytes] = []
    async with db.execute(
        "SELECT c.chunk_id, c.file_id, d.owner, c.current, c.seq, c.version, v.vector "
        "FROM doc_chunks c JOIN doc_files d ON d.file_id = c.file_id "
        "JOIN doc_vectors v ON v.content_hash = c.content_hash AND v.model = ? "
        "AND v.dim = ? ORDER BY c.chunk_id",
        (model, dim),
    ) as cur:
        # Read to the end in one call: a cursor left open across awaits holds a read
        # transaction that a concurrent write on this connection cannot upgrade.
        for chunk_id, fid, owner, cur_flag, seq, version, blob in await cur.fetchall():
            ids.append(chunk_id)
            seqs.append(seq)
            file_index.append(files.setdefault(fid, len(files)))
            owner_index.append(owners.setdefault(owner, len(owners)))
            current.append(bool(cur_flag))
            versions.append(version)
            blobs.append(blob)
    vectors = (
        np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dim)
        if blobs
        else np.zeros((0, dim), dtype=np.float32)
    )
    return Matrix(
        chunk_ids=np.asarray(ids, dtype=np.int64),
        file_ids=list(files),
        file_index=np.asarray(file_index, dtype=np.int64),
        owners=list(owners),
        owner_index=np.asarray(owner_index, dtype=np.int64),
        current=np.asarray(current, dtype=bool),
        seqs=np.asarray(seqs, dtype=np.int64),
        versions=versions,
        vectors=vectors,
    )
