"""The flat-array BM25 index and word lists give what a plain computation gives, through
replacements, removals and the compactions they trigger."""

from __future__ import annotations

import math
import random

import numpy as np

from familiars.memory._keyword_index import KeywordIndex
from familiars.memory._row_lists import RowLists

WORDS = [f"w{i}" for i in range(40)]


def bm25(docs: dict[int, dict[str, float]], terms: list[str], size: int) -> np.ndarray:
    """BM25 (k1 1.2, b 0.75) the long way, over the documents as they are now."""
    out = np.zeros(size)
    n = len(docs)
    avg = sum(sum(d.values()) for d in docs.values()) / n or 1.0
    for term in dict.fromkeys(terms):
        having = [row for row, d in docs.items() if term in d]
        if not having:
            continue
        idf = math.log(1.0 + (n - len(having) + 0.5) / (len(having) + 0.5))
        for row in having:
            tf = docs[row][term]
            norm = 1.2 * (1.0 - 0.75 + 0.75 * sum(docs[row].values()) / avg)
            out[row] += idf * tf * 2.2 / (tf + norm)
    return out


def random_doc(rng: random.Random) -> dict[str, float]:
    return {w: rng.choice([1.0, 2.0, 0.5, 0.25]) for w in rng.sample(WORDS, rng.randint(1, 6))}


def test_scores_match_bm25_through_replacements_and_removals() -> None:
    rng = random.Random(4)
    index = KeywordIndex()
    docs: dict[int, dict[str, float]] = {}
    for step in range(3000):
        row = rng.randrange(300)
        if step % 7 == 0 and row in docs:
            index.remove(row)
            del docs[row]
        else:
            docs[row] = random_doc(rng)
            index.set_doc(row, docs[row])
        if step % 500 == 499:
            query = rng.sample(WORDS, 3)
            assert np.allclose(index.scores(query, 300), bm25(docs, query, 300))
            # one bincount over the terms' postings adds as the term-by-term scatter does
            added = np.zeros(300)
            index.add_scores(query + query[:1], added)
            assert index.scores(query + query[:1], 300).tobytes() == added.tobytes()
            assert all(index.doc_freq(w) == sum(w in d for d in docs.values()) for w in WORDS)


def test_an_index_without_postings_builds_them_when_first_scored() -> None:
    rng = random.Random(5)
    lazy, eager = KeywordIndex(postings=False), KeywordIndex()
    docs = {row: random_doc(rng) for row in range(200)}
    for row, doc in docs.items():
        lazy.set_doc(row, doc)
        eager.set_doc(row, doc)
    for row in range(0, 200, 3):
        lazy.remove(row)
        eager.remove(row)
        del docs[row]
    query = ["w1", "w2", "w3"]
    assert np.allclose(lazy.scores(query, 200), bm25(docs, query, 200))
    assert np.allclose(eager.scores(query, 200), lazy.scores(query, 200))


def test_row_lists_read_back_as_set_through_compaction() -> None:
    rng = random.Random(6)
    lists = RowLists()
    want: dict[int, list[int]] = {}
    for _ in range(5000):
        row = rng.randrange(400)
        ids = [rng.randrange(1, 10_000) for _ in range(rng.randint(0, 12))]
        lists.set(row, ids, [1.0] * len(ids))
        want[row] = ids
    rows = np.array(sorted(want))
    ids, weights = lists.padded(rows, 12)
    for i, row in enumerate(rows.tolist()):
        n = len(want[row])
        assert ids[i, :n].tolist() == want[row]
        assert not ids[i, n:].any() and not weights[i, n:].any()
        assert weights[i, :n].tolist() == [1.0] * n


def test_keyword_hits_are_the_masked_scan_of_every_row() -> None:
    """The recall index's BM25 hits come from the postings alone: the same scores and rows
    as scoring every row, zeroing the rows outside the mask and keeping the best k."""
    from familiars.memory._search_index import Doc, RecallIndex

    rng = random.Random(9)
    index = RecallIndex(4)
    vec = np.ones(4, dtype=np.float32) / 2
    for row in range(300):
        text = " ".join(rng.sample(WORDS, rng.randint(1, 6)))
        index.add(Doc(key=f"m{row}", kind="record", group=f"user:u{row % 3}", text=text,
                      timestamp=0.0), vec)  # fmt: skip
    for row in range(0, 300, 7):
        index.remove(f"m{row}")
    for groups in (["user:u0"], ["user:u0", "user:u1"], ["user:u0", "user:u1", "user:u2"]):
        mask = index.allowed_mask(groups)
        for query in (["w1", "w2", "w3"], ["w5"], ["nothing"], ["w7", "w7", "w30"]):
            full = np.zeros(len(index))
            index.keywords.add_scores(query, full)
            full *= mask
            for k in (3, 50, 1000):
                got, hits = index.keyword_hits(query, mask, k)
                assert np.array_equal(got, full)
                positive = np.flatnonzero(full)
                want = (
                    positive
                    if positive.size <= k
                    else positive[np.argsort(-full[positive], kind="stable")[:k]]
                )
                assert sorted(hits.tolist()) == sorted(want.tolist()) or (
                    np.sort(full[hits]).tolist() == np.sort(full[want]).tolist()
                )
