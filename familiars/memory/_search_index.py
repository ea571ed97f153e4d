"""In-memory search structures behind the reader: one dense matrix, a BM25 inverted index over
stemmed words, per-document sentence vectors and word lists for late interaction.

Rows are documents: memory records and dialogue nodes alike. Everything a query touches for
*all* rows is one numpy operation (the dense matrix product, BM25 postings per query term);
everything per document (sentences, words, neighbours) is only looked at for the few hundred
candidates. The index holds no embedder: callers hand vectors in.
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from familiars.llm import text_cache
from familiars.memory._hubness import HubTable
from familiars.memory._keyword_index import KeywordIndex, TermTable
from familiars.memory._row_lists import RowLists
from familiars.memory._small_talk import small_talk_share
from familiars.memory._text import content_words, keyword_terms, stem

MAX_WORDS = 96  # per document, for late interaction (own words first, then neighbours')
CONTEXT_TERM_WEIGHT = 0.5  # a neighbour's keyword counts half
CONTEXT_WORD_WEIGHT = 0.8  # a neighbour's word matches at 0.8 of an own word
CONTEXT_RING2 = 0.5  # the neighbours' neighbours count half as much (0: off)
#: Up to this many words, late interaction multiplies the query by the whole vocabulary;
#: past it, by the candidates' distinct words (a 10k-word vocabulary: 5-7 ms -> 1-2 ms).
SMALL_VOCABULARY = 2048
HUB_STEP = 256  # rows per step when hub values are worked out ahead (~10-40 ms a step)


@dataclass(slots=True)  # one per row: 100k of them without a __dict__ each
class Doc:
    """One searchable document. ``group`` is the scope owner it belongs to (see
    :func:`group_key`); ``ref`` points back to the record or the dialogue node."""

    key: str
    kind: str  # "record" | "node"
    group: str
    text: str
    timestamp: float
    speaker: str | None = None
    salience: float = 0.5
    ref: Any = None
    extra_terms: str = ""  # searchable words that are not in the text (a date)
    owner: str | None = None  # the user_key of the person who said it / whom it is about


def group_key(scope: str, *, user_key: str | None = None, agent_id: str | None = None,
              dialogue_id: str | None = None) -> str:  # fmt: skip
    """The owner a document is filed under; the reader allows a set of these per query."""
    if scope == "user":
        return f"user:{user_key}"
    if scope == "identity":
        return f"identity:{agent_id}"
    return f"{scope}:{agent_id}/{dialogue_id}"


class Vocabulary:
    """Word -> id -> vector (word vectors are embedded once and kept)."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.ids: dict[str, int] = {}
        self._matrix = np.zeros((0, dim), dtype=np.float32)
        self._n = 0

    def missing(self, items: Iterable[str]) -> list[str]:
        seen: set[str] = set()
        out = []
        for w in items:
            if w not in self.ids and w not in seen:
                seen.add(w)
                out.append(w)
        return out

    def add(self, items: Sequence[str], vectors: np.ndarray) -> None:
        need = self._n + len(items)
        if need > self._matrix.shape[0]:
            grown = np.zeros((max(need, 2 * self._matrix.shape[0], 1024), self.dim), np.float32)
            grown[: self._n] = self._matrix[: self._n]
            self._matrix = grown
        for w, v in zip(items, vectors, strict=True):
            if w in self.ids:
                continue
            self.ids[w] = self._n
            self._matrix[self._n] = v
            self._n += 1

    @property
    def matrix(self) -> np.ndarray:
        return self._matrix[: self._n]

    def lookup(self, items: Iterable[str]) -> list[int]:
        return [self.ids[w] for w in items if w in self.ids]


class RecallIndex:
    """Every searchable document of a workspace, in rows."""

    def __init__(
        self, dim: int, *, context_gap_s: float = 6 * 3600.0, ablated: frozenset[str] = frozenset()
    ) -> None:
        self.dim = dim
        self.ablated = ablated
        self.context_gap_s = context_gap_s
        self.docs: list[Doc | None] = []
        self.rows: dict[str, int] = {}
        self.vocab = Vocabulary(dim)
        self.terms = TermTable()
        self.keywords = KeywordIndex(terms=self.terms)
        #: Text only: the switched-off knobs' baseline, word idf and each row's own terms.
        self.keywords_plain = KeywordIndex(terms=self.terms, postings=False)
        self.groups: dict[str, int] = {}
        self.speakers: dict[str, int] = {}
        self.owners: dict[str, int] = {}
        self._cap = 0
        self._matrix = np.zeros((0, dim), dtype=np.float32)
        self._alive = np.zeros(0, dtype=bool)
        self._group = np.zeros(0, dtype=np.int32)  # read for every row per recall: half of int64
        self._speaker = np.zeros(0, dtype=np.int64)
        self._owner = np.zeros(0, dtype=np.int64)
        self._node = np.zeros(0, dtype=np.int64)  # a dialogue node's id in its tree, else -1
        self._ts = np.zeros(0, dtype=np.float64)
        self._salience = np.zeros(0, dtype=np.float64)
        self._small_talk = np.zeros(0, dtype=np.float64)
        self._record = np.zeros(0, dtype=bool)  # a memory record, not a dialogue node
        self.hubs = HubTable()
        self._neighbours = np.zeros((0, 2), dtype=np.int64)
        self._words = RowLists()  # each row's vocabulary ids and weights (late interaction)
        self._own_words: list[list[int]] = []
        self._sent_start = np.zeros(0, dtype=np.int64)
        self._sent_count = np.zeros(0, dtype=np.int64)
        self._sentences = np.zeros((0, dim), dtype=np.float32)
        self._n_sent = 0
        self._last_in_group: dict[str, int] = {}
        self._version = 0  # goes up with every change of the rows (dense_all's memo)
        self._dense_memo: tuple[bytes, int, np.ndarray] | None = None
        #: Goes up when a forget wipes a row's vector (the only change to a row's vector):
        #: a kept product (:meth:`dense_kept`) is then worked out again in full.
        self._wiped = 0
        self._kept: tuple[bytes, int, np.ndarray] | None = None
        self._mask_memo: tuple[tuple[str, ...], int, np.ndarray] | None = None

    # ------------------------------------------------------------------ sizes

    def __len__(self) -> int:
        return len(self.docs)

    @property
    def live_count(self) -> int:
        return int(self._alive[: len(self.docs)].sum())

    @property
    def matrix(self) -> np.ndarray:
        return self._matrix[: len(self.docs)]

    def _grow(self, more: int = 1) -> None:
        """Room for ``more`` rows after the last; the arrays are copied once, to the size as
        many single steps would give (a batch of records does not copy 100k rows 10 times)."""
        n = len(self.docs)
        if n + more <= self._cap:
            return
        cap = self._cap
        while n + more > cap:
            # doubling while small; past 64k rows a quarter more (100k records: 102k, not 131k)
            cap = max(1024, 2 * cap if cap < 65536 else cap + cap // 4)

        def grown(arr: np.ndarray, fill: Any) -> np.ndarray:
            out = np.full((cap, *arr.shape[1:]), fill, dtype=arr.dtype)
            out[:n] = arr[:n]
            return out

        self._matrix = grown(self._matrix, 0.0)
        self._alive = grown(self._alive, False)
        self._group = grown(self._group, -1)
        self._speaker = grown(self._speaker, -1)
        self._owner = grown(self._owner, -1)
        self._node = grown(self._node, -1)
        self._ts = grown(self._ts, 0.0)
        self._salience = grown(self._salience, 0.0)
        self._small_talk = grown(self._small_talk, 0.0)
        self._record = grown(self._record, False)
        self._neighbours = grown(self._neighbours, -1)
        self._sent_start = grown(self._sent_start, 0)
        self._sent_count = grown(self._sent_count, 0)
        self._cap = cap

    def _code(self, table: dict[str, int], name: str | None) -> int:
        if name is None:
            return -1
        code = table.get(name)
        if code is None:
            code = table[name] = len(table)
        return code

    # ------------------------------------------------------------------ writes

    def words_needing_vectors(self, texts: Iterable[str]) -> list[str]:
        return self.vocab.missing(w for t in texts for w in content_words(t))

    def add(
        self,
        doc: Doc,
        vector: np.ndarray,
        *,
        sentence_vectors: np.ndarray | None = None,
        contextual: bool = False,
    ) -> int:
        """Add (or replace) a document. ``contextual`` documents (dialogue messages) are
        linked to the previous document of their group when it is close in time, and each
        gets the other's words as context. Words need vectors in :attr:`vocab` first."""
        if doc.key in self.rows:
            self.remove(doc.key)
        row = self._new_row(doc, vector, sentence_vectors)
        said = content_words(doc.text)
        self._own_words.append(self._own_word_ids(doc, said))
        self.keywords_plain.set_doc(row, Counter(map(stem, said)))
        if contextual:
            prev = self._last_in_group.get(doc.group)
            if prev is not None and abs(doc.timestamp - self._ts[prev]) <= self.context_gap_s:
                self._neighbours[row, 0] = prev
                self._neighbours[prev, 1] = row
            self._last_in_group[doc.group] = row
        self._refresh(row)
        prev = int(self._neighbours[row, 0])
        if prev >= 0:
            self._refresh(prev)
            if CONTEXT_RING2 and self._neighbours[prev, 0] >= 0:
                self._refresh(int(self._neighbours[prev, 0]))
        return row

    def add_many(
        self,
        docs: Sequence[Doc],
        vectors: Sequence[np.ndarray],
        sentence_vectors: Sequence[np.ndarray | None],
    ) -> None:
        """:meth:`add` of each document in order (none ``contextual``: records), with the
        same rows, terms and words, but the keyword indexes written once for all of them: a
        workspace's 100k records load in seconds, not minutes (issue 20)."""
        rows: list[int] = []
        plain: list[tuple[list[int], list[float]]] = []
        full: list[tuple[list[int], list[float]]] = []
        self._grow(len(docs))
        for doc, vector, sv in zip(docs, vectors, sentence_vectors, strict=True):
            if doc.key in self.rows:  # what is pending goes in first: the removal sees it
                self._set_keyword_docs(rows, plain, full)
                rows, plain, full = [], [], []
                self.remove(doc.key)
            row = self._new_row(doc, vector, sv)
            said = content_words(doc.text)
            own_words = self._own_word_ids(doc, said)
            self._own_words.append(own_words)
            own = Counter(map(stem, said))
            ids = [self.terms.id(t) for t in own]
            counts = [float(c) for c in own.values()]
            terms = dict(zip(ids, counts, strict=True))
            for t in self._extra_terms(doc):
                tid = self.terms.id(t)
                terms[tid] = terms.get(tid, 0.0) + 1.0
            rows.append(row)
            plain.append((ids, counts))
            full.append((list(terms), list(terms.values())))
            self._words.set(row, own_words[:MAX_WORDS], [1.0] * min(len(own_words), MAX_WORDS))
        self._set_keyword_docs(rows, plain, full)

    def _set_keyword_docs(
        self,
        rows: list[int],
        plain: list[tuple[list[int], list[float]]],
        full: list[tuple[list[int], list[float]]],
    ) -> None:
        self.keywords_plain.set_docs_ids(rows, plain)
        self.keywords.set_docs_ids(rows, full)

    def _new_row(self, doc: Doc, vector: np.ndarray, sentence_vectors: np.ndarray | None) -> int:
        """A row for ``doc`` at the end, with everything but its words and terms."""
        self._version += 1
        self._grow()
        row = len(self.docs)
        self.docs.append(doc)
        self.rows[doc.key] = row
        self._matrix[row] = np.asarray(vector, dtype=np.float32)
        self._alive[row] = True
        self._group[row] = self._code(self.groups, doc.group)
        self._speaker[row] = self._code(self.speakers, _speaker_name(doc.speaker))
        self._owner[row] = self._code(self.owners, doc.owner)
        self._node[row] = _node_id(doc)
        self._ts[row] = doc.timestamp
        self._salience[row] = doc.salience
        self._small_talk[row] = small_talk_share(doc.text) if doc.kind == "node" else 0.0
        self._record[row] = doc.kind == "record"
        self.hubs.added(row)
        self._add_sentences(row, sentence_vectors)
        return row

    def _own_word_ids(self, doc: Doc, said: list[str]) -> list[int]:
        """The vocabulary ids of the document's content words ``said`` (distinct, in order),
        then of its speaker's name."""
        own_words = self.vocab.lookup(dict.fromkeys(said))
        if doc.speaker:
            own_words += self.vocab.lookup(content_words(_speaker_name(doc.speaker) or ""))
        return own_words

    def _extra_terms(self, doc: Doc) -> tuple[str, ...]:
        """The document's searchable terms that are not in its text: speaker, date."""
        extra = []
        if "keyword_speaker" not in self.ablated:
            extra.append(_speaker_name(doc.speaker) or "")
        if "keyword_date" not in self.ablated:
            extra.append(doc.extra_terms)
        return _terms_of(" ".join(extra))

    def _add_sentences(self, row: int, vectors: np.ndarray | None) -> None:
        count = 0 if vectors is None else int(vectors.shape[0])
        need = self._n_sent + count
        if need > self._sentences.shape[0]:
            grown = np.zeros((max(need, 2 * self._sentences.shape[0], 1024), self.dim), np.float32)
            grown[: self._n_sent] = self._sentences[: self._n_sent]
            self._sentences = grown
        self._sent_start[row] = self._n_sent
        self._sent_count[row] = count
        if count and vectors is not None:
            self._sentences[self._n_sent : need] = vectors
            self._n_sent = need

    def _context_rows(self, row: int) -> list[tuple[int, float]]:
        """Neighbours (scale 1) and, with ``CONTEXT_RING2``, their other neighbours."""
        out: list[tuple[int, float]] = []
        for side in (0, 1):
            nb = int(self._neighbours[row, side])
            if nb < 0 or self.docs[nb] is None:
                continue
            out.append((nb, 1.0))
            far = int(self._neighbours[nb, side])
            if CONTEXT_RING2 and far >= 0 and self.docs[far] is not None:
                out.append((far, CONTEXT_RING2))
        return out

    def _refresh(self, row: int) -> None:
        """Rebuild a row's keyword document and word list from its own and its neighbours'."""
        doc = self.docs[row]
        if doc is None:
            return
        own, own_tf = self.keywords_plain.doc_terms(row)
        terms: dict[int, float] = dict(zip(own.tolist(), own_tf.tolist(), strict=True))
        for t in self._extra_terms(doc):
            tid = self.terms.id(t)
            terms[tid] = terms.get(tid, 0.0) + 1.0
        ids = list(self._own_words[row])
        weights = [1.0] * len(ids)
        seen = set(ids)
        for nb, scale in self._context_rows(row):
            if "context_words" not in self.ablated:
                nb_terms, nb_tf = self.keywords_plain.doc_terms(nb)
                for tid, c in zip(nb_terms.tolist(), nb_tf.tolist(), strict=True):
                    terms[tid] = terms.get(tid, 0.0) + CONTEXT_TERM_WEIGHT * scale * c
            for w in self._own_words[nb]:
                if w not in seen:
                    seen.add(w)
                    ids.append(w)
                    weights.append(CONTEXT_WORD_WEIGHT * scale)
        self.keywords.set_doc_ids(
            row,
            np.fromiter(terms.keys(), dtype=np.int32, count=len(terms)),
            np.fromiter(terms.values(), dtype=np.float64, count=len(terms)),
        )
        self._words.set(row, ids[:MAX_WORDS], weights[:MAX_WORDS])

    def remove(self, key: str) -> bool:
        row = self.rows.pop(key, None)
        if row is None:
            return False
        self._version += 1
        self.docs[row] = None
        self._alive[row] = False
        self.hubs.removed(row)
        self.keywords.remove(row)
        self.keywords_plain.remove(row)
        return True

    def doc(self, row: int) -> Doc | None:
        return self.docs[row]

    # -- forget (issue 12): a forgotten document leaves nothing of its text in memory.
    def forget(self, key: str) -> bool:
        """:meth:`remove`, then wipe what the row still held of its text (vector, sentence
        vectors, words, terms) and refresh its neighbours, whose context included it."""
        row = self.rows.get(key)
        if row is None:
            return False
        said = self.keywords_plain.doc_terms(row)[0].tolist()
        self.remove(key)
        self._version += 1
        self._wiped += 1
        self._matrix[row] = 0.0
        start, count = int(self._sent_start[row]), int(self._sent_count[row])
        self._sentences[start : start + count] = 0.0
        self._sent_count[row] = 0
        self._own_words[row] = []
        self._words.clear(row)
        for side in (0, 1):
            nb = int(self._neighbours[row, side])
            if nb >= 0:
                self._refresh(nb)
        for keywords in (self.keywords, self.keywords_plain):
            keywords.purge(said)  # no posting of its words stays behind, the neighbours' too
        return True

    # ------------------------------------------------------------------ reads

    def allowed_mask(self, groups: Iterable[str]) -> np.ndarray:
        """Which rows are live and in ``groups`` (read-only). The last one is kept until the
        rows change, as :meth:`dense_all`'s product: a recall that checks its message's topic
        and then ranks, and the next recall in the same chat, take it once."""
        wanted = tuple(groups)
        memo = self._mask_memo
        if memo is not None and memo[0] == wanted and memo[1] == self._version:
            return memo[2]
        codes = [self.groups[g] for g in wanted if g in self.groups]
        n = len(self.docs)
        if not codes:
            out = np.zeros(n, dtype=bool)
        elif len(codes) == 1:
            out = self._alive[:n] & (self._group[:n] == codes[0])
        else:
            out = self._alive[:n] & np.isin(self._group[:n], codes)
        out.flags.writeable = False
        self._mask_memo = (wanted, self._version, out)
        return out

    def dense_all(self, query: np.ndarray) -> np.ndarray:
        """Cosine of every row (read-only). The last query's is kept until the index
        changes: a message that names its topic is checked and then ranked with the same
        vector, one product over every row, not two."""
        q = np.asarray(query, dtype=np.float32)
        key = q.tobytes()
        memo = self._dense_memo
        if memo is not None and memo[0] == key and memo[1] == self._version:
            return memo[2]
        out = self._matrix[: len(self.docs)] @ q
        out.flags.writeable = False
        self._dense_memo = (key, self._version, out)
        return out

    def dense_kept(self, query: np.ndarray) -> np.ndarray:
        """Cosine of every row with a vector kept from turn to turn (the conversation read
        ahead of the next message), kept current: worked out in full once, then only for
        the rows added since (a row's vector never changes, but for a forget that wipes it:
        then in full again). Read-only."""
        q = np.asarray(query, dtype=np.float32)
        key, n = q.tobytes(), len(self.docs)
        kept = self._kept
        if kept is None or kept[0] != key or kept[1] != self._wiped or kept[2].shape[0] > n:
            out = self._matrix[:n] @ q
        elif kept[2].shape[0] < n:
            out = np.concatenate([kept[2], self._matrix[kept[2].shape[0] : n] @ q])
        else:
            return kept[2]
        out.flags.writeable = False
        self._kept = (key, self._wiped, out)
        return out

    def keep_dense(self, query: np.ndarray, values: np.ndarray) -> None:
        """``values`` are :meth:`dense_all`'s for ``query`` on the rows as they are now
        (worked out from products at hand): the next :meth:`dense_all` of it takes them."""
        values.flags.writeable = False
        self._dense_memo = (np.asarray(query, dtype=np.float32).tobytes(), self._version, values)

    def keyword_hits(
        self, terms: Sequence[str], mask: np.ndarray, k: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """BM25 of every row (0 outside ``mask``), and the rows of its ``k`` best positive
        values (in any order): only the rows the terms' postings name are looked at."""
        n = len(self.docs)
        out = self.keywords.scores(terms, n)
        if not mask.all():
            # BM25 is positive and finite where a term matched: times 0 is 0, times 1 itself
            np.multiply(out, mask, out=out)
        # the rows a term touched are the nonzero ones (one pass over a bool, not a float,
        # array: float nonzero is ~6x slower at 100k rows)
        hits = np.flatnonzero(out != 0.0)
        if hits.size > k:
            hits = hits[np.argpartition(-out[hits], k - 1)[:k]]
        return out, hits

    def sentence_max(self, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Best sentence cosine per row (``-inf`` where a row has no sentence vectors)."""
        counts = self._sent_count[rows]
        out = np.full(rows.shape[0], -np.inf)
        has = counts > 0
        if not has.any():
            return out
        starts = self._sent_start[rows][has]
        cnt = counts[has]
        offsets = np.repeat(starts - np.cumsum(cnt) + cnt, cnt) + np.arange(int(cnt.sum()))
        sims = self._sentences[offsets] @ np.asarray(query, dtype=np.float32)
        bounds = np.concatenate(([0], np.cumsum(cnt)[:-1]))
        out[has] = np.maximum.reduceat(sims, bounds)
        return out

    def neighbours(self, rows: np.ndarray) -> np.ndarray:
        return self._neighbours[rows]

    def late_interaction(
        self, rows: np.ndarray, query_word_ids: Sequence[int], idf: np.ndarray, *,
        neighbours: bool = True,
    ) -> np.ndarray:  # fmt: skip
        """Sum over query words of ``idf * max cosine to the row's words`` / sum of idf."""
        if not len(query_word_ids) or rows.size == 0:
            return np.zeros(rows.shape[0])
        width = max(1, int(self._words.counts[rows].max()))
        # (width, rows): the max over a row's few words runs element-wise along the rows,
        # not as a reduction over a last axis of ~6 (3x quicker, the same maxima)
        ids, weights = self._words.padded(rows, width, transposed=True)
        if not neighbours:
            weights = np.where(weights >= 1.0, weights, 0.0)
        vocab = self.vocab.matrix
        qmat = vocab[np.asarray(query_word_ids)]
        if vocab.shape[0] <= min(4 * ids.size, SMALL_VOCABULARY):
            sims, cols = qmat @ vocab.T, ids  # a small vocabulary: one product, no sort
        else:
            uniq, inverse = np.unique(ids, return_inverse=True)
            sims, cols = qmat @ vocab[uniq].T, inverse.reshape(ids.shape)
        per = sims.take(cols, axis=1)  # (q, width, rows)
        # padding has weight 0: a weighted similarity there is 0, never above a real match
        # unless every real match is negative, which the floor of -1 below keeps right
        per = np.where(weights > 0, per * weights, -1.0)
        best = per.max(axis=1)  # (q, rows)
        return (idf[:, None] * best).sum(axis=0) / max(float(idf.sum()), 1e-9)

    def word_idf(self, word_ids: Sequence[int], words: Sequence[str]) -> np.ndarray:
        n = max(1, len(self.rows))
        return np.array(
            [math.log(1.0 + n / (1.0 + self.keywords_plain.doc_freq(stem(w)))) for w in words]
        )

    def speaker_rows(self, rows: np.ndarray, speaker: str) -> np.ndarray:
        code = self.speakers.get(speaker, -2)
        return self._speaker[rows] == code

    def owner_rows(self, rows: np.ndarray, user_key: str) -> np.ndarray:
        """Which rows the person said (their messages) or are about them (their records)."""
        code = self.owners.get(user_key, -2)
        return self._owner[rows] == code

    def record_rows(self, rows: np.ndarray) -> np.ndarray:
        """1.0 for the rows that are records, 0.0 for dialogue nodes (the re-ranker's
        ``record`` feature)."""
        return (self._record[rows] & self._alive[rows]).astype(np.float64)

    def node_ids(self, rows: np.ndarray, group: str) -> np.ndarray:
        """Each row's node id in its dialogue tree when it is a live node of ``group``,
        else -1 (one lookup for all candidates, not a loop over their documents)."""
        code = self.groups.get(group, -2)
        mine = (self._group[rows] == code) & self._alive[rows] & (self._node[rows] >= 0)
        return np.where(mine, self._node[rows], -1)

    def timestamps(self, rows: np.ndarray) -> np.ndarray:
        return self._ts[rows]

    def salience(self, rows: np.ndarray) -> np.ndarray:
        return self._salience[rows]

    def small_talk(self, rows: np.ndarray) -> np.ndarray:
        """Each row's share of small talk (``_small_talk``; 0 for records)."""
        return self._small_talk[rows]

    def hub_values(self, rows: np.ndarray) -> np.ndarray:
        """Each row's mean cosine to its nearest other rows (``_hubness``)."""
        n = len(self.docs)
        return self.hubs.values(rows, self._matrix[:n], self._alive[:n])

    async def awarm_hubs(self, step: int = HUB_STEP) -> int:
        """Every live row's hub value worked out ahead of recall, ``step`` rows at a time in
        a thread (a recall meanwhile waits for one step at most); how many rows were done."""
        done = 0
        while count := await asyncio.to_thread(self.warm_hubs, step):
            done += count
        return done

    def warm_hubs(self, limit: int) -> int:
        """Work out the hub values of up to ``limit`` rows ahead of recall (safe in a
        thread); how many were done, 0 when all are current."""
        n = len(self.docs)
        return self.hubs.warm(self._matrix[:n], self._alive[:n], limit)


def _node_id(doc: Doc) -> int:
    """A dialogue node's id in its tree (its ref is ``(agent_id, dialogue_id, node)``)."""
    ref = doc.ref
    if doc.kind == "node" and isinstance(ref, tuple) and len(ref) == 3:
        return int(getattr(ref[2], "id", -1))
    return -1


@text_cache  # speakers' names: emptied with every forget
@lru_cache(maxsize=4096)
def _terms_of(text: str) -> tuple[str, ...]:
    """:func:`keyword_terms`, kept for the texts every row repeats (speakers, dates)."""
    return tuple(keyword_terms(text))


def _speaker_name(speaker: str | None) -> str | None:
    return speaker.strip().lower() if speaker and speaker.strip() else None
