"""s34 U24: a widower's "The evenings are the worst" was kept as "you don't like The
evenings". A time of day or week said to be the worst is low mood, not a dislike; a thing
said to be the worst still is one."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from familiars.memory import offline_writes, understanding_for

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def understanding(real_embedder: Any) -> Any:
    return understanding_for(real_embedder.embed_batch, *real_embedder.space)


def _kept(text: str, understanding: Any) -> list[str]:
    writes = offline_writes(text, existing=[], now=NOW, understanding=understanding)
    return [w.entry.content for w in writes.writes]


@pytest.mark.parametrize(
    "text",
    [
        "The evenings are the worst. I still set two cups out for tea without thinking.",
        "Sundays are the worst, I just sit and stare at the clock",
    ],
)
def test_the_worst_time_of_day_is_not_a_dislike(text: str, understanding: Any) -> None:
    assert not any("dislike" in k or "doesn't like" in k for k in _kept(text, understanding))


def test_a_thing_said_to_be_the_worst_is_still_a_dislike(understanding: Any) -> None:
    kept = _kept("I think mushrooms are the worst", understanding)
    assert any("mushrooms" in k for k in kept)
