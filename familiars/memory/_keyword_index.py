"""BM25 over weighted term counts, kept in flat numpy arrays instead of dicts of dicts.

A workspace of 100k records held each document's terms twice as Python dicts (the index's
and the plain one's) and every posting as a dict entry: some 160 MB of small objects that a
process never gives back. Here a document's terms are a slice of two flat arrays (term ids,
weights), and each term's postings are arrays of rows and weights. Replacing a document (a
dialogue node gains its next neighbour's words) appends: the row's version goes up and its
old postings no longer count; they are dropped when a term's list has as many stale entries
as live ones, and at once for every term of a forgotten document (:meth:`purge`), so a
forgotten text leaves no posting behind. Scores are the same BM25, to the bit, as the dict
version's: the same terms, weights and lengths go into the same formula (the terms of a
query are summed in the order it names them; the dicts summed them in a set's order).

An index made with ``postings=False`` (the plain one, whose postings only a benchmark's
BM25 baseline reads) builds them on its first :meth:`KeywordIndex.scores`, never in a bot.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

_MIN_CAP = 4


class TermTable:
    """Stemmed term -> id, shared by the indexes of one :class:`RecallIndex`."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def id(self, term: str) -> int:
        found = self.ids.get(term)
        if found is None:
            found = self.ids[term] = len(self.ids)
        return found

    def ids_of(self, terms: Iterable[str]) -> list[int]:
        return [self.ids[t] for t in terms if t in self.ids]


class _Postings:
    """One term's postings: rows, weights, the row version each was written at and the
    row's document length then (a live posting's row kept that length: a new document is a
    new version), so scoring reads it in order, not gathered from every row's."""

    __slots__ = ("length", "n", "rows", "stale", "tf", "ver")

    def __init__(self) -> None:
        self.rows = np.zeros(_MIN_CAP, dtype=np.int32)
        self.tf = np.zeros(_MIN_CAP, dtype=np.float64)
        self.ver = np.zeros(_MIN_CAP, dtype=np.int32)
        self.length = np.zeros(_MIN_CAP, dtype=np.float64)
        self.n = 0
        self.stale = 0

    def append(self, row: int, tf: float, ver: int, length: float) -> None:
        if self.n == self.rows.shape[0]:
            cap = 2 * self.n
            self.rows = np.resize(self.rows, cap)
            self.tf = np.resize(self.tf, cap)
            self.ver = np.resize(self.ver, cap)
            self.length = np.resize(self.length, cap)
        self.rows[self.n] = row
        self.tf[self.n] = tf
        self.ver[self.n] = ver
        self.length[self.n] = length
        self.n += 1

    def extend(self, rows: np.ndarray, tf: np.ndarray, ver: np.ndarray, length: np.ndarray) -> None:
        """:meth:`append` of several postings at once, in order."""
        need = self.n + int(rows.shape[0])
        if need > self.rows.shape[0]:
            cap = max(need, 2 * self.n, _MIN_CAP)
            self.rows = np.resize(self.rows, cap)
            self.tf = np.resize(self.tf, cap)
            self.ver = np.resize(self.ver, cap)
            self.length = np.resize(self.length, cap)
        self.rows[self.n : need] = rows
        self.tf[self.n : need] = tf
        self.ver[self.n : need] = ver
        self.length[self.n : need] = length
        self.n = need

    def live(self, versions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The live postings' rows, weights and document lengths."""
        rows, tf, length = self.rows[: self.n], self.tf[: self.n], self.length[: self.n]
        if not self.stale:
            return rows, tf, length
        keep = self.ver[: self.n] == versions[rows]
        return rows[keep], tf[keep], length[keep]

    def compact(self, versions: np.ndarray) -> None:
        """Drop the stale entries (their rows were replaced or removed since)."""
        keep = self.ver[: self.n] == versions[self.rows[: self.n]]
        count = int(keep.sum())
        cap = max(_MIN_CAP, count)
        for name in ("rows", "tf", "ver", "length"):
            kept = getattr(self, name)[: self.n][keep]
            arr = np.zeros(cap, dtype=kept.dtype)
            arr[:count] = kept
            setattr(self, name, arr)
        self.n, self.stale = count, 0


class KeywordIndex:
    """BM25 (k1, b) over weighted term counts; a document's terms can be replaced later (a
    dialogue node gains its next neighbour's words)."""

    def __init__(
        self,
        k1: float = 1.2,
        b: float = 0.75,
        terms: TermTable | None = None,
        *,
        postings: bool = True,
    ) -> None:
        self.k1 = k1
        self.b = b
        self.terms = terms or TermTable()
        # a row's terms: ids and weights, the slice start:start+count of the flat arrays
        self._tid = np.zeros(1024, dtype=np.int32)
        self._tf = np.zeros(1024, dtype=np.float64)
        self._used = 0
        self._garbage = 0
        self._start = np.zeros(0, dtype=np.int64)
        self._count = np.zeros(0, dtype=np.int32)  # -1: no document in the row
        self._ver = np.zeros(0, dtype=np.int32)
        self._len = np.zeros(0, dtype=np.float64)
        self._total = 0.0
        self._n_docs = 0
        self._df: dict[int, int] = {}
        self._post: dict[int, _Postings] | None = {} if postings else None

    # ------------------------------------------------------------------ writes

    def set_doc(self, row: int, terms: Mapping[str, float]) -> None:
        ids = [self.terms.id(t) for t in terms]
        self.set_doc_ids(row, np.asarray(ids, dtype=np.int32), np.fromiter(terms.values(), float))

    def set_doc_ids(self, row: int, ids: np.ndarray, tf: np.ndarray) -> None:
        """Replace the row's document by these term ids and weights (ids distinct)."""
        self.remove(row)
        self._rows_up_to(row)
        count = int(ids.shape[0])
        start = self._reserve(count)
        self._tid[start : start + count] = ids
        self._tf[start : start + count] = tf
        self._start[row], self._count[row] = start, count
        length = float(sum(tf.tolist()))
        self._len[row] = length
        self._total += length
        self._n_docs += 1
        ver = int(self._ver[row])
        for tid, weight in zip(ids.tolist(), tf.tolist(), strict=True):
            self._df[tid] = self._df.get(tid, 0) + 1
            if self._post is not None:
                self._postings(tid).append(row, weight, ver, length)

    def set_docs_ids(
        self, rows: Sequence[int], docs: Sequence[tuple[list[int], list[float]]]
    ) -> None:
        """:meth:`set_doc_ids` for many distinct rows (each doc: distinct term ids and their
        weights), with the same outcome as one call per row in order (postings in row order,
        lengths and the total summed as there), but the arrays written once: a workspace's
        load (issue 20)."""
        if not rows:
            return
        for row in rows:
            self.remove(row)
        self._rows_up_to(max(rows))
        counts = np.asarray([len(ids) for ids, _ in docs], dtype=np.int64)
        lengths = [float(sum(tf)) for _, tf in docs]
        total = int(counts.sum())
        start = self._reserve(total)
        ids = np.fromiter((t for d, _ in docs for t in d), dtype=np.int32, count=total)
        tf = np.fromiter((w for _, d in docs for w in d), dtype=np.float64, count=total)
        self._tid[start : start + total] = ids
        self._tf[start : start + total] = tf
        row_arr = np.asarray(rows, dtype=np.int64)
        self._start[row_arr] = start + np.cumsum(counts) - counts
        self._count[row_arr] = counts
        self._len[row_arr] = lengths
        for length in lengths:
            self._total += length
        self._n_docs += len(rows)
        post_rows = np.repeat(row_arr, counts)
        self._add_postings(ids, tf, post_rows, np.repeat(np.asarray(lengths), counts))

    def _add_postings(
        self, ids: np.ndarray, tf: np.ndarray, rows: np.ndarray, length: np.ndarray
    ) -> None:
        """Count these (term, row) pairs in the document frequencies and append them to
        the terms' postings, each term's in the order given."""
        uniq, first, per_term = np.unique(ids, return_index=True, return_counts=True)
        seen = np.argsort(first)  # the terms in the order they came (as the dict had them)
        for tid, count in zip(uniq[seen].tolist(), per_term[seen].tolist(), strict=True):
            self._df[tid] = self._df.get(tid, 0) + count
        if self._post is None:
            return
        ver = self._ver[rows]
        order = np.argsort(ids, kind="stable")
        for tid, sel in zip(uniq.tolist(), np.split(order, np.cumsum(per_term)[:-1]), strict=True):
            self._postings(tid).extend(rows[sel], tf[sel], ver[sel], length[sel])

    def remove(self, row: int) -> None:
        if row >= self._count.shape[0] or self._count[row] < 0:
            return
        start, count = int(self._start[row]), int(self._count[row])
        old = self._tid[start : start + count].tolist()
        self._tid[start : start + count] = -1  # nothing of the old document is kept
        self._tf[start : start + count] = 0.0
        self._garbage += count
        self._count[row] = -1
        self._ver[row] += 1
        self._total -= float(self._len[row])
        self._len[row] = 0.0
        self._n_docs -= 1
        for tid in old:
            left = self._df[tid] - 1
            if left:
                self._df[tid] = left
            else:
                del self._df[tid]
            if self._post is not None and (post := self._post.get(tid)) is not None:
                post.stale += 1
                if post.stale >= max(post.n - post.stale, 8):
                    post.compact(self._ver)

    def purge(self, term_ids: Iterable[int]) -> None:
        """Drop every stale posting of these terms now (a forgotten document's words)."""
        if self._post is None:
            return
        for tid in term_ids:
            post = self._post.get(tid)
            if post is not None and post.stale:
                post.compact(self._ver)

    def _rows_up_to(self, row: int) -> None:
        size = self._count.shape[0]
        if row < size:
            return
        cap = max(row + 1, 2 * size, 1024)
        self._start = np.resize(self._start, cap)
        self._len = np.concatenate([self._len, np.zeros(cap - size)])
        self._ver = np.concatenate([self._ver, np.zeros(cap - size, dtype=np.int32)])
        self._count = np.concatenate([self._count, np.full(cap - size, -1, dtype=np.int32)])

    def _reserve(self, count: int) -> int:
        """Room for ``count`` more entries at the end of the flat arrays; its start."""
        if self._used + count > self._tid.shape[0]:
            if self._garbage > self._used // 2:
                self._compact_docs()
            need = self._used + count
            if need > self._tid.shape[0]:
                cap = max(need, self._tid.shape[0] + self._tid.shape[0] // 2)
                self._tid = np.resize(self._tid, cap)
                self._tf = np.resize(self._tf, cap)
        start = self._used
        self._used += count
        return start

    def _compact_docs(self) -> None:
        """Close the gaps replaced documents left in the flat arrays."""
        live = np.flatnonzero(self._count > 0)
        counts = self._count[live].astype(np.int64)
        starts = self._start[live]
        offsets = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
        self._tid[: offsets.size] = self._tid[offsets]
        self._tf[: offsets.size] = self._tf[offsets]
        self._tid[offsets.size : self._used] = -1
        self._tf[offsets.size : self._used] = 0.0
        self._start[live] = np.cumsum(counts) - counts
        self._used, self._garbage = int(offsets.size), 0

    # ------------------------------------------------------------------ reads

    def _postings(self, tid: int) -> _Postings:
        assert self._post is not None
        post = self._post.get(tid)
        if post is None:
            post = self._post[tid] = _Postings()
        return post

    def _build_postings(self) -> None:
        self._post = {}
        for row in np.flatnonzero(self._count > 0).tolist():
            start, count = int(self._start[row]), int(self._count[row])
            ver, length = int(self._ver[row]), float(self._len[row])
            ids = self._tid[start : start + count].tolist()
            for tid, weight in zip(ids, self._tf[start : start + count].tolist(), strict=True):
                self._postings(tid).append(row, weight, ver, length)

    def doc_terms(self, row: int) -> tuple[np.ndarray, np.ndarray]:
        """The row's term ids and weights (empty when it has no document)."""
        if row >= self._count.shape[0] or self._count[row] < 0:
            return np.zeros(0, dtype=np.int32), np.zeros(0)
        start, count = int(self._start[row]), int(self._count[row])
        return self._tid[start : start + count], self._tf[start : start + count]

    def add_scores(self, terms: Sequence[str], out: np.ndarray) -> list[np.ndarray]:
        """Add each row's BM25 for ``terms`` to ``out`` (one entry per row), term by term;
        the rows each term touched (a row may be in several)."""
        touched = []
        for rows, part in self._term_scores(terms):
            out[rows] += part
            touched.append(rows)
        return touched

    def scores(self, terms: Sequence[str], size: int) -> np.ndarray:
        """BM25 of every row (0 where no term matches), summed term by term in the order
        ``terms`` names them: one ``bincount`` over every term's postings adds each row's
        parts in that order, as :meth:`add_scores` into zeros does (the same sums, to the
        bit), without a pass over every row per term."""
        found = self._term_scores(terms)
        if not found:
            return np.zeros(size, dtype=np.float64)
        rows = np.concatenate([r for r, _ in found])
        parts = np.concatenate([p for _, p in found])
        return np.bincount(rows, weights=parts, minlength=size)[:size]

    def _term_scores(self, terms: Sequence[str]) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each matching term's live rows and their BM25 part (each row once per term), in
        the order ``terms`` names them."""
        if self._post is None:
            self._build_postings()
        n_docs = self._n_docs
        if not n_docs or self._post is None:
            return []
        avg = self._total / n_docs or 1.0
        found = []
        for tid in dict.fromkeys(self.terms.ids_of(dict.fromkeys(terms))):
            post = self._post.get(tid)
            if post is None:
                continue
            rows, tf, length = post.live(self._ver)
            if rows.size == 0:
                continue
            idf = math.log(1.0 + (n_docs - rows.size + 0.5) / (rows.size + 0.5))
            norm = self.k1 * (1.0 - self.b + self.b * length / avg)
            found.append((rows, idf * tf * (self.k1 + 1.0) / (tf + norm)))
        return found

    def doc_freq(self, term: str) -> int:
        tid = self.terms.ids.get(term)
        return 0 if tid is None else self._df.get(tid, 0)
