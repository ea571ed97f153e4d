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
from typing import Any

import numpy as np

from familiars.memory._hubness import HubTable
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


@dataclass
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


class KeywordIndex:
    """BM25 (k1, b) over weighted term counts; a document's terms can be replaced later (a
    dialogue node gains its next neighbour's words)."""

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self._post: dict[str, dict[int, float]] = {}
        self._arrays: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._docs: dict[int, dict[str, float]] = {}
        self._len = np.zeros(0, dtype=np.float64)
        self._total = 0.0

    def set_doc(self, row: int, terms: dict[str, float]) -> None:
        self.remove(row)
        if row >= self._len.shape[0]:
            grown = np.zeros(max(row + 1, 2 * self._len.shape[0], 1024), dtype=np.float64)
            grown[: self._len.shape[0]] = self._len
            self._len = grown
        self._docs[row] = terms
        for term, tf in terms.items():
            self._post.setdefault(term, {})[row] = tf
            self._arrays.pop(term, None)
        length = float(sum(terms.values()))
        self._len[row] = length
        self._total += length

    def remove(self, row: int) -> None:
        old = self._docs.pop(row, None)
        if old is None:
            return
        for term in old:
            post = self._post.get(term)
            if post is not None:
                post.pop(row, None)
                self._arrays.pop(term, None)
        self._total -= float(self._len[row])
        self._len[row] = 0.0

    def _postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        arrays = self._arrays.get(term)
        if arrays is None:
            post = self._post.get(term, {})
            arrays = (
                np.fromiter(post.keys(), dtype=np.int64, count=len(post)),
                np.fromiter(post.values(), dtype=np.float64, count=len(post)),
            )
            self._arrays[term] = arrays
        return arrays

    def scores(self, terms: Sequence[str], size: int) -> np.ndarray:
        """BM25 of every row (0 where no term matches)."""
        out = np.zeros(size, dtype=np.float64)
        n_docs = len(self._docs)
        if not n_docs:
            return out
        avg = self._total / n_docs or 1.0
        for term in set(terms):
            rows, tf = self._postings(term)
            if rows.size == 0:
                continue
            idf = math.log(1.0 + (n_docs - rows.size + 0.5) / (rows.size + 0.5))
            norm = self.k1 * (1.0 - self.b + self.b * self._len[rows] / avg)
            out[rows] += idf * tf * (self.k1 + 1.0) / (tf + norm)
        return out

    def doc_freq(self, term: str) -> int:
        return len(self._post.get(term, ()))


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
        self.keywords = KeywordIndex()
        self.keywords_plain = KeywordIndex()  # text only: the switched-off knobs' baseline
        self.groups: dict[str, int] = {}
        self.speakers: dict[str, int] = {}
        self.owners: dict[str, int] = {}
        self._cap = 0
        self._matrix = np.zeros((0, dim), dtype=np.float32)
        self._alive = np.zeros(0, dtype=bool)
        self._group = np.zeros(0, dtype=np.int64)
        self._speaker = np.zeros(0, dtype=np.int64)
        self._owner = np.zeros(0, dtype=np.int64)
        self._node = np.zeros(0, dtype=np.int64)  # a dialogue node's id in its tree, else -1
        self._ts = np.zeros(0, dtype=np.float64)
        self._salience = np.zeros(0, dtype=np.float64)
        self._small_talk = np.zeros(0, dtype=np.float64)
        self.hubs = HubTable()
        self._neighbours = np.zeros((0, 2), dtype=np.int64)
        self._words = np.zeros((0, MAX_WORDS), dtype=np.int32)  # vocabulary ids (half of int64)
        self._word_w = np.zeros((0, MAX_WORDS), dtype=np.float32)
        self._n_words = np.zeros(0, dtype=np.int64)
        self._own_words: list[list[int]] = []
        self._own_terms: list[Counter[str]] = []
        self._sent_start = np.zeros(0, dtype=np.int64)
        self._sent_count = np.zeros(0, dtype=np.int64)
        self._sentences = np.zeros((0, dim), dtype=np.float32)
        self._n_sent = 0
        self._last_in_group: dict[str, int] = {}

    # ------------------------------------------------------------------ sizes

    def __len__(self) -> int:
        return len(self.docs)

    @property
    def live_count(self) -> int:
        return int(self._alive[: len(self.docs)].sum())

    @property
    def matrix(self) -> np.ndarray:
        return self._matrix[: len(self.docs)]

    def _grow(self) -> None:
        n = len(self.docs)
        if n < self._cap:
            return
        cap = max(1024, 2 * self._cap)

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
        self._neighbours = grown(self._neighbours, -1)
        self._words = grown(self._words, 0)
        self._word_w = grown(self._word_w, 0.0)
        self._n_words = grown(self._n_words, 0)
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
        self.hubs.added(row)
        self._add_sentences(row, sentence_vectors)
        own_words = self.vocab.lookup(dict.fromkeys(content_words(doc.text)))
        if doc.speaker:
            own_words += self.vocab.lookup(content_words(_speaker_name(doc.speaker) or ""))
        self._own_words.append(own_words)
        terms = Counter(keyword_terms(doc.text))
        self._own_terms.append(terms)
        self.keywords_plain.set_doc(row, dict(terms))
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
        terms: dict[str, float] = {t: float(c) for t, c in self._own_terms[row].items()}
        extra = []
        if "keyword_speaker" not in self.ablated:
            extra.append(_speaker_name(doc.speaker) or "")
        if "keyword_date" not in self.ablated:
            extra.append(doc.extra_terms)
        for t in keyword_terms(" ".join(extra)):
            terms[t] = terms.get(t, 0.0) + 1.0
        ids = list(self._own_words[row])
        weights = [1.0] * len(ids)
        seen = set(ids)
        for nb, scale in self._context_rows(row):
            if "context_words" not in self.ablated:
                for t, c in self._own_terms[nb].items():
                    terms[t] = terms.get(t, 0.0) + CONTEXT_TERM_WEIGHT * scale * c
            for w in self._own_words[nb]:
                if w not in seen:
                    seen.add(w)
                    ids.append(w)
                    weights.append(CONTEXT_WORD_WEIGHT * scale)
        self.keywords.set_doc(row, terms)
        ids, weights = ids[:MAX_WORDS], weights[:MAX_WORDS]
        self._words[row] = 0
        self._word_w[row] = 0.0
        self._words[row, : len(ids)] = ids
        self._word_w[row, : len(ids)] = weights
        self._n_words[row] = len(ids)

    def remove(self, key: str) -> bool:
        row = self.rows.pop(key, None)
        if row is None:
            return False
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
        self.remove(key)
        self._matrix[row] = 0.0
        start, count = int(self._sent_start[row]), int(self._sent_count[row])
        self._sentences[start : start + count] = 0.0
        self._sent_count[row] = 0
        self._own_words[row] = []
        self._own_terms[row] = Counter()
        self._words[row] = 0
        self._word_w[row] = 0.0
        self._n_words[row] = 0
        for side in (0, 1):
            nb = int(self._neighbours[row, side])
            if nb >= 0:
                self._refresh(nb)
        return True

    # ------------------------------------------------------------------ reads

    def allowed_mask(self, groups: Iterable[str]) -> np.ndarray:
        codes = [self.groups[g] for g in groups if g in self.groups]
        n = len(self.docs)
        if not codes:
            return np.zeros(n, dtype=bool)
        if len(codes) == 1:
            return self._alive[:n] & (self._group[:n] == codes[0])
        return self._alive[:n] & np.isin(self._group[:n], codes)

    def dense_all(self, query: np.ndarray) -> np.ndarray:
        return self._matrix[: len(self.docs)] @ np.asarray(query, dtype=np.float32)

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
        width = max(1, int(self._n_words[rows].max()))
        ids = self._words[rows, :width]
        weights = self._word_w[rows, :width]
        if not neighbours:
            weights = np.where(weights >= 1.0, weights, 0.0)
        vocab = self.vocab.matrix
        qmat = vocab[np.asarray(query_word_ids)]
        if vocab.shape[0] <= min(4 * ids.size, SMALL_VOCABULARY):
            per = (qmat @ vocab.T)[:, ids]  # a small vocabulary: one product, no sort
        else:
            uniq, inverse = np.unique(ids, return_inverse=True)
            per = (qmat @ vocab[uniq].T)[:, inverse.reshape(ids.shape)]
        # padding has weight 0: a weighted similarity there is 0, never above a real match
        # unless every real match is negative, which the floor of -1 below keeps right
        per = np.where(weights[None, :, :] > 0, per * weights[None, :, :], -1.0)
        best = per.max(axis=2)  # (q, rows)
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
        kinds = [getattr(self.docs[int(r)], "kind", None) for r in rows]
        return np.array([float(kind == "record") for kind in kinds])

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


def _speaker_name(speaker: str | None) -> str | None:
    return speaker.strip().lower() if speaker and speaker.strip() else None
