"""F21: one telling is one record. "I really love my dog Biscuit" was noted twice with the
learned understanding: "The user likes their dog Biscuit." beside "The user's dog is called
Biscuit."."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from familiars.memory import offline_writes, understanding_for

NOW = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def understanding(real_embedder: Any) -> Any:
    return understanding_for(real_embedder.embed_batch, *real_embedder.space)


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("I really love my dog Biscuit", "The user's dog is called Biscuit."),
        ("I adore my wife Ana", "The user's wife is called Ana."),
        ("I love my sister Ana", "The user's sister is called Ana."),
    ],
)
def test_loving_someone_named_is_one_record(understanding: Any, said: str, kept: str) -> None:
    out = offline_writes(said, existing=[], now=NOW, understanding=understanding)
    assert [w.entry.content for w in out.writes if w.op != "skip"] == [kept]


def test_a_liking_of_something_else_is_still_kept(understanding: Any) -> None:
    out = offline_writes(
        "I love my dog Biscuit and I love hiking", existing=[], now=NOW, understanding=understanding
    )
    kept = [w.entry.content for w in out.writes if w.op != "skip"]
    assert "The user's dog is called Biscuit." in kept and "The user likes hiking." in kept
