from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from familiars.bot._trees import SHORT_TEXT, RecentEmbeddings, length_groups
from tests.fakes import HashEmbedder


@given(st.lists(st.text(max_size=300), max_size=30))
def test_length_groups_keep_every_text_once_in_length_order(texts: list[str]) -> None:
    groups = length_groups(texts)
    flat = [t for g in groups for t in g]
    assert sorted(flat) == sorted(texts)
    assert [len(t) for t in flat] == sorted(len(t) for t in texts)
    for group in groups:
        assert len(group[-1]) <= 2 * max(SHORT_TEXT, len(group[0]))


def test_a_message_and_its_new_words_are_one_call() -> None:
    message = "what did we decide about the book club on fridays (12)"
    assert length_groups(["12", "fridays", message, "User: " + message]) == [
        ["12", "fridays", message, "User: " + message]
    ]
    reply = "A long reply. " * 20
    assert len(length_groups(["12", message, reply])) == 2  # the long one still waits alone


async def test_grouped_and_cached_vectors_match_plain_embedding() -> None:
    inner = HashEmbedder()
    cached = RecentEmbeddings(inner, size=4)
    texts = ["hi", "a much longer sentence about hiking in the alps", "x" * 300, "hi", "tea"]
    expected = inner.embed_batch(texts)
    got = await cached.aembed_batch(texts)
    assert np.allclose(got, expected)
    calls = inner.calls
    assert np.allclose(cached.embed_batch(["tea", "hi"]), inner.embed_batch(["tea", "hi"]))
    assert inner.calls == calls + 1  # only the comparison call above reached the model
