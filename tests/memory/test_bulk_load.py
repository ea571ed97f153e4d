"""Records loaded in one batch (``RecallIndex.add_many``, issue 20) make the same index as
records added one by one: the same rows, terms, postings, lengths, words and BM25 scores."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from familiars.memory import make_record
from familiars.memory._reader import MemoryReader
from familiars.memory._search_index import Doc, RecallIndex
from familiars.memory._text import _STEMMER, content_words, stem
from tests.fakes import HashEmbedder

WORDS = ["walks", "walking", "river", "rivers", "tea", "green", "sister", "swims", "dawn"]
WORDS += ["note", "42", "2024", "07", "café", "北京烤鸭", "running", "runs", "the", "and"]


def _docs(seed: int, count: int) -> list[Doc]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 9)))
        key = f"m_{rng.randint(0, count // 2)}"  # repeats: a record replaced, in one batch too
        speaker = rng.choice([None, "Ana", "bo", " "])
        out.append(
            Doc(key=key, kind="record", group=f"user:{speaker}", text=f"{text} {i}",
                timestamp=1.7e9 + i, speaker=speaker, owner=speaker, salience=rng.random(),
                extra_terms=rng.choice(["", "monday 7 december 2026", "friday 1 may 2025"]))
        )  # fmt: skip
    return out


def _index(docs: list[Doc], ablated: frozenset[str]) -> RecallIndex:
    index = RecallIndex(4, ablated=ablated)
    words = list(dict.fromkeys(w for d in docs for w in content_words(f"{d.text} {d.speaker}")))
    index.vocab.add(words, np.random.default_rng(0).normal(size=(len(words), 4)))
    return index


def _state(index: RecallIndex) -> list[object]:
    n = len(index.docs)
    state: list[object] = [
        [d.key if d else None for d in index.docs],
        list(index.terms.ids.items()),
        index._own_words,
        index.matrix.tobytes(),
        index._alive[:n].tobytes(),
        index._speaker[:n].tobytes(),
        index._sent_count[:n].tobytes(),
        [a.tobytes() for a in index._words.padded(np.arange(n), 96)],
    ]
    for kw in (index.keywords, index.keywords_plain):
        state += [kw._total, kw._n_docs, list(kw._df.items()), kw._len[:n].tobytes()]
        state += [[a.tobytes() for a in kw.doc_terms(row)] for row in range(n)]
        scores = kw.scores([stem(w) for w in WORDS] + ["ana", "monday", "2026"], n)
        state.append(scores.tobytes())
    assert index.keywords._post is not None
    for tid in sorted(index.keywords._post):
        live = index.keywords._post[tid].live(index.keywords._ver)
        state.append((tid, [a.tobytes() for a in live]))
    return state


@pytest.mark.parametrize("ablated", [frozenset(), frozenset({"keyword_date", "keyword_speaker"})])
def test_a_batch_makes_the_index_adding_one_by_one_makes(ablated: frozenset[str]) -> None:
    docs = _docs(7, 300)
    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(len(docs), 4)).astype(np.float32)
    sents = [None if i % 3 else rng.normal(size=(2, 4)).astype(np.float32) for i in range(300)]
    one_by_one, batched = _index(docs, ablated), _index(docs, ablated)
    for doc, vec, sv in zip(docs, vectors, sents, strict=True):
        one_by_one.add(doc, vec, sentence_vectors=sv)
    for lo, hi in ((0, 1), (1, 120), (120, 300)):  # the later batches replace earlier rows
        batched.add_many(docs[lo:hi], list(vectors[lo:hi]), sents[lo:hi])
    assert _state(batched) == _state(one_by_one)
    batched.forget(docs[5].key)
    one_by_one.forget(docs[5].key)
    assert _state(batched) == _state(one_by_one)


def test_a_number_is_its_own_stem_as_the_stemmer_says() -> None:
    numbers = [str(i) for i in range(0, 100_000, 7)] + ["007", "2026", "0"]
    assert all(stem(n) == n == _STEMMER.stemWord(n) for n in numbers)
    assert stem("running") == "run" and stem("rivers") == "river"
    assert stem("2nd") == _STEMMER.stemWord("2nd")


async def test_a_record_changed_twice_in_one_batch_ends_as_its_last_word() -> None:
    reader = MemoryReader(HashEmbedder(dim=32), ablated=[], reranker=None)
    kept = make_record("Ana walks by the river", scope="user", category="profile", user_key="ana")
    gone = make_record("Ana keeps a green parrot", scope="user", category="profile", user_key="ana")
    kept_again = dataclasses.replace(kept, content="Ana walks by the river at dawn")
    gone_after = dataclasses.replace(gone, deprecated=True)
    await reader.add_records([kept, gone, kept_again, gone_after])
    index = reader.index
    assert set(index.rows) == {kept.id} and index.live_count == 1
    row = index.rows[kept.id]
    assert index.doc(row).text == "Ana walks by the river at dawn"
    n = len(index.docs)
    assert index.keywords.scores(["parrot"], n).sum() == 0.0
    assert index.keywords.scores(["dawn"], n)[row] > 0.0
    assert index.keywords._n_docs == 1 and index.keywords_plain._n_docs == 1
