"""The writer's dedupe knows a different fact from a rewording (issue 13): cosine is the first
gate, then :func:`same_fact`'s word rules decide. A different fact that reads alike is added,
a rewording is skipped, a flipped negation updates in place."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np
import pytest

from familiars.memory import MemoryStore
from familiars.memory._writer._apply import apply_writes_report
from familiars.memory._writer._dedupe import EmbedderVectors, refines, says_nothing_new

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)


class AllAlike:
    """Vectors under which every text is the same direction: cosine 1.0 for every pair, so
    only the word rules tell facts apart."""

    async def vectors_for(self, texts: Sequence[str]) -> np.ndarray:
        return np.ones((len(texts), 4), dtype=np.float32) / 2.0


@pytest.fixture
async def store(tmp_path):
    async with MemoryStore(tmp_path / "ws") as s:
        yield s


def add(content: str) -> dict:
    return {"op": "add", "scope": "user", "category": "preference", "entry": {"content": content}}


async def tell(store, vectors, *texts: str) -> list[str]:
    """Each text as its own turn's "add"; the live contents afterwards, oldest first."""
    for text in texts:
        await apply_writes_report(
            {"writes": [add(text)]}, store=store, user_key="u1", vectors=vectors, now=NOW
        )
    records = await store.list(scope="user", user_key="u1", now=NOW)
    return [r.content for r in sorted(records, key=lambda r: r.ts)]


LOST_BEFORE = [
    ("The user loves red wine.", "The user loves white wine."),
    ("The user plays tennis.", "The user plays table tennis."),
    ("The user plays table tennis.", "The user plays tennis."),
    ("The user has a sister.", "The user has a brother."),
]


@pytest.mark.parametrize(("first", "second"), LOST_BEFORE)
async def test_a_different_fact_that_reads_alike_is_stored(store, first, second):
    assert await tell(store, AllAlike(), first, second) == [first, second]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The user loves hiking.", "The user enjoys hiking."),
        ("The user's name is Alice.", "The user is called Alice."),
        ("The user likes green tea.", "The user likes green tea very much."),
    ],
)
async def test_a_rewording_is_still_a_copy(store, first, second):
    assert await tell(store, AllAlike(), first, second) == [first]


async def test_a_negation_flip_still_updates_in_place(store):
    contents = await tell(
        store, AllAlike(), "The user likes coffee.", "The user doesn't like coffee."
    )
    assert contents == ["The user doesn't like coffee."]


async def test_the_issue_pairs_with_the_real_model(store, real_embedder):
    """With all-MiniLM-L6-v2, "I play tennis" / "I play table tennis" score 0.90 (cosine
    alone merged them); "red" / "white wine" 0.79 (the AllAlike tests cover it above 0.85)."""
    vectors = EmbedderVectors(real_embedder)
    texts = ["I love red wine", "I love white wine", "I play tennis", "I play table tennis"]
    assert await tell(store, vectors, *texts) == texts


def test_says_nothing_new_needs_the_same_fact_not_only_a_subset_of_words():
    assert not says_nothing_new("I play tennis", "I play table tennis")
    assert not says_nothing_new("The user likes wine.", "The user likes red wine.")
    # Repeating one item of a list is a copy.
    assert says_nothing_new("The user likes coffee", "The user likes coffee and tea")
    assert says_nothing_new("The user likes jazz.", "The user likes coffee, tea and jazz.")


def test_refines_only_for_one_valued_slots():
    assert refines("The user lives in Berlin, Germany.", "The user resides in Berlin.")
    assert refines("The user lives in Berlin.", "The user lives in Berlin, Germany.")
    assert not refines("The user lives in Paris.", "The user lives in Berlin.")
    assert not refines("The user likes tea and coffee.", "The user likes tea.")
