"""s36 person-test: answers in other words while the records were kept. "And who's the
missus, remind me?" and "What do I do to pay the bills, then?" got "I don't know that yet"
(a partner's everyday name and a living's idiom are said plainly before the question's slot
is read; an unsure question takes its nearest labelled question's slot), "who do i live
with" named the town, not the mum and stepdad, and "whats my job rn" with only an employer
kept named nothing."""

from __future__ import annotations

from typing import Any

import pytest

from familiars.memory import MemoryRecord, answer_records, understanding_for


@pytest.fixture(scope="module")
def understanding(real_embedder: Any) -> Any:
    return understanding_for(real_embedder.embed_batch, *real_embedder.space)


def _rec(n: int, content: str, category: str, *tags: str) -> MemoryRecord:
    return MemoryRecord(
        id=f"m_{n}", scope="user", user_key="u", content=content, category=category, tags=list(tags)
    )


KEPT = [
    _rec(1, "The user lives in Cardiff.", "profile", "home"),
    _rec(2, "The user's wife is called Gwen.", "relation", "family", "topic:gwen"),
    _rec(3, "The user's stepdad is called Rob.", "relation", "family", "topic:rob"),
    _rec(4, "The user works at Greggs.", "profile", "work"),
]


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("And who's the missus, remind me?", "Gwen"),
        ("who's the hubby again", None),  # a wife kept, no husband: never the stepdad
        ("What do I do to pay the bills, then?", "Greggs"),
        ("how do I earn a crust?", "Greggs"),
        ("who do i live with", "Rob"),
        ("whats my job rn", "Greggs"),
    ],
)
def test_answers_in_other_words(question: str, wanted: str | None, understanding: Any) -> None:
    said = [r.content for r in answer_records(question, KEPT, understanding)]
    if wanted is None:
        assert not any("Rob" in s for s in said), said
    else:
        assert any(wanted in s for s in said), said


def test_a_question_about_the_world_is_no_slot(understanding: Any) -> None:
    assert answer_records("who won the match last night?", KEPT, understanding) == []
