"""s38 person-test: "Do I have diabetes?" was answered "You take sertraline every morning for
your low mood" (the nearest health record), and "do I have asthma?" or "am I allergic to
nuts?" by the penicillin allergy: a yes-or-no question about one thing is answered only by a
record that says it; one that names a kind of record ("do I have a pet?") by that kind."""

from __future__ import annotations

from typing import Any

import pytest

from familiars.memory import MemoryRecord, understanding_for
from familiars.memory._offline._asking import answer_records
from familiars.memory._offline._polar import asked_thing


def _rec(rid: str, content: str, category: str, *tags: str) -> MemoryRecord:
    return MemoryRecord(
        id=rid, scope="user", user_key="u", content=content, category=category, tags=list(tags)
    )


RECORDS = [
    _rec("m1", "The user takes sertraline every morning for their low mood.", "profile",
         "medication"),
    _rec("m2", "The user is allergic to penicillin.", "profile", "allergy"),
    _rec("m3", "The user's husband is called Tom.", "relation", "family"),
]  # fmt: skip


@pytest.fixture(scope="module")
def understanding(real_embedder: Any) -> Any:
    return understanding_for(real_embedder.embed_batch, *real_embedder.space)


@pytest.mark.parametrize(
    "question", ["Do I have diabetes?", "do i have asthma", "Am I allergic to nuts?"]
)
def test_a_thing_no_record_says_gets_no_record(question: str, understanding: Any) -> None:
    assert answer_records(question, RECORDS, understanding) == []


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("Am I allergic to penicillin?", "m2"),
        ("Am I allergic to anything?", "m2"),
        ("Am I married?", "m3"),
        ("Is my husband called Tom?", "m3"),
    ],
)
def test_a_record_that_says_it_answers(question: str, wanted: str, understanding: Any) -> None:
    assert [r.id for r in answer_records(question, RECORDS, understanding)][:1] == [wanted]


def test_one_value_slot_answers_by_its_value(understanding: Any) -> None:
    records = [*RECORDS, _rec("m4", "The user works as a nurse.", "profile", "job")]
    assert [r.id for r in answer_records("am I a doctor?", records, understanding)] == ["m4"]


def test_a_kind_of_record_is_no_thing() -> None:
    assert asked_thing("Do I have a pet?") is None
    assert asked_thing("Have I got any kids?") is None
    assert asked_thing("What is my job?") is None  # not a yes-or-no question
    assert asked_thing("Do I have diabetes?") == frozenset({"diabe"})
