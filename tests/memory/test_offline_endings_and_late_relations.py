"""Person-tester finds (s33 U3, U4, U6): a spouse who has died is kept as a late relation;
a change of life or plan said by the value it ends ("i quit starbucks", "me and priya broke
up", "scratch the Lanzarote thing") supersedes the record that holds the value, whatever its
kind; a question about a relative not kept is not answered with a near one. Sentences
written for these tests."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from familiars.memory import answer_records, kin_not_kept, offline_writes, understanding_for
from familiars.memory._people_graph import edges_in
from familiars.memory._records import MemoryRecord

NOW = datetime(2026, 12, 7, 13, 0, tzinfo=UTC)


def _told(*messages: str) -> tuple[list[MemoryRecord], list[tuple[str, str, str | None]]]:
    """The live records after ``messages``, and the last message's writes."""
    recs: list[MemoryRecord] = []
    last: list[tuple[str, str, str | None]] = []
    for i, text in enumerate(messages):
        out = offline_writes(text, existing=recs, now=NOW)
        last = [(w.op, w.entry.content, w.entry.supersedes_id) for w in out.writes]
        for n, w in enumerate(out.writes):
            if w.op == "skip":
                continue
            recs = [r for r in recs if r.id != w.entry.supersedes_id]
            recs.append(
                MemoryRecord(
                    id=f"m{i}-{n}",
                    scope="user",
                    category=w.category,
                    content=w.entry.content,
                    tags=list(w.entry.tags),
                    user_key="u",
                )
            )
    return recs, last


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        (
            "my late husband Geoffrey passed in 2019",
            "The user's late husband Geoffrey died in 2019.",
        ),
        ("my husband Geoffrey died in 2019", "The user's late husband Geoffrey died in 2019."),
        ("I lost my wife Mary to cancer two years ago", "The user's late wife Mary died in 2024."),
        ("my late mum Joan", "The user's late mother Joan died."),
    ],
)
def test_someone_who_died_is_kept_as_a_late_relation(said: str, kept: str) -> None:
    recs, _ = _told(said)
    assert [r.content for r in recs] == [kept]
    (edge,) = edges_in(kept)  # the people graph still reads the relation
    assert (edge.rel, edge.dst) == (kept.split()[3], kept.split()[4])


def test_a_death_told_of_someone_kept_as_living_takes_their_record() -> None:
    recs, last = _told("my husband is called Geoffrey", "my husband Geoffrey died in 2019")
    assert [r.content for r in recs] == ["The user's late husband Geoffrey died in 2019."]
    assert [op for op, _, _ in last] == ["update"]


def test_the_intro_keeps_the_late_husband_beside_the_rest() -> None:
    recs, _ = _told(
        "hello dear. my name is Margaret and i live in Harrogate. my late husband Geoffrey "
        "passed in 2019 and i have two daughters, Susan and Claire"
    )
    assert "The user's late husband Geoffrey died in 2019." in [r.content for r in recs]


@pytest.mark.parametrize(
    ("told", "change", "now", "gone"),
    [
        (
            "i work part time making coffee at a starbucks on campus",
            "i quit starbucks, im doing deliveries for doordash now",
            "The user is doing deliveries for doordash.",
            "starbucks",
        ),
        (
            "my girlfriend is called Priya",
            "me and priya broke up last night",
            "The user and Priya have broken up; Priya is no longer their girlfriend.",
            "girlfriend is called",
        ),
        (
            "We're off to Lanzarote on the 20th of February for a week",
            "Actually scratch the Lanzarote thing, we've decided on Tenerife instead",
            "The user is off to Tenerife on the 20th of February for a week "
            "(Saturday 20 February 2027).",
            "Lanzarote",
        ),
    ],
)
def test_a_change_said_by_the_value_it_ends_supersedes_that_record(
    told: str, change: str, now: str, gone: str
) -> None:
    recs, last = _told(told, change)
    assert [r.content for r in recs] == [now]
    assert [(op, sup) for op, _, sup in last] == [("update", "m0-0")]
    assert gone not in recs[0].content


@pytest.mark.parametrize(
    "unrelated",
    ["I left my keys at work", "me and my sister broke the vase", "we quit early today"],
)
def test_an_ending_that_names_no_kept_value_changes_nothing(unrelated: str) -> None:
    recs, _ = _told("I work at Tesco", "my girlfriend is called Priya", unrelated)
    contents = [r.content for r in recs]
    assert "The user works at Tesco." in contents
    assert "The user's girlfriend is called Priya." in contents


def test_a_relative_not_kept_is_not_answered_with_a_near_one() -> None:
    kept = ["The user's grandson is called Oliver.", "The user's daughter is called Susan."]
    assert kin_not_kept("do i have a son?", kept) == ("son", [("grandson", "Oliver")])
    assert kin_not_kept("what's my grandson called?", kept) is None  # kept: answered as ever
    assert kin_not_kept("what's my daughter's name?", kept) is None
    assert kin_not_kept("do i have a brother?", kept) is None  # nothing near: as before


@pytest.fixture(scope="module")
def understanding(real_embedder: Any) -> Any:
    return understanding_for(real_embedder.embed_batch, *real_embedder.space)


def test_what_pets_have_i_got_names_every_pet(understanding: Any) -> None:
    pets = [
        MemoryRecord(
            id=f"m{i}", scope="user", category="relation", content=c, tags=["pet"], user_key="u"
        )
        for i, c in enumerate(
            ["The user has a cockapoo called Dexter.", "The user has a tortoise called Shelly."]
        )
    ]
    said = {r.content for r in answer_records("what pets have I got", pets, understanding)}
    assert said == {r.content for r in pets}


# Second review of s33 (items 1-4): ordinary sentences are no deaths, breakups or endings.


@pytest.mark.parametrize(
    "said",
    [
        "my daughter Emma passed her driving test",
        "my son Jack lost his phone again",
        "my friend Jo died laughing at that",
        "my husband Tom passed on the message",
    ],
)
def test_a_living_relative_is_not_recorded_as_dead(said: str) -> None:
    recs, _ = _told(said)
    assert not any("late" in r.content or "died" in r.content for r in recs)


def test_a_living_husband_is_not_replaced_by_a_late_one() -> None:
    recs, _ = _told("my husband is called Tom", "my husband Tom passed the ball to me")
    assert {r.content for r in recs} == {"The user's husband is called Tom."}


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("my husband Geoffrey passed", "The user's late husband Geoffrey died."),
        ("my dad Frank passed away last year", "The user's late father Frank died in 2025."),
        ("my mum Joan passed on in 2010", "The user's late mother Joan died in 2010."),
        ("my dad Frank lost his battle with cancer", "The user's late father Frank died."),
    ],
)
def test_a_death_said_plainly_is_still_kept(said: str, kept: str) -> None:
    recs, _ = _told(said)
    assert [r.content for r in recs] == [kept]


@pytest.mark.parametrize(
    ("told", "said"),
    [
        ("my brother is called Tom", "me and Tom broke the vase"),
        ("my sister is called Sarah", "me and Sarah split the bill"),
        ("my sister is called Sarah", "me and Sarah broke up the fight"),
    ],
)
def test_breaking_or_splitting_something_with_family_is_no_breakup(told: str, said: str) -> None:
    recs, _ = _told(told, said)
    assert [r.content for r in recs] == [_told(told)[0][0].content]


@pytest.mark.parametrize(
    ("told", "said", "gone", "kept"),
    [
        (
            ("my girlfriend is called Priya", "my sister is called Priya"),
            "me and priya broke up",
            "The user's girlfriend is called Priya.",
            "The user's sister is called Priya.",
        ),
        (
            ("my sister is called Priya", "my girlfriend is called Priya"),
            "me and priya broke up",
            "The user's girlfriend is called Priya.",
            "The user's sister is called Priya.",
        ),
        (
            ("my husband is called Tom", "my son is called Tom"),
            "me and Tom broke up",
            "The user's husband is called Tom.",
            "The user's son is called Tom.",
        ),
        (
            ("I live in Leeds", "my sister lives in Leeds"),
            "I left Leeds last year",
            "The user lives in Leeds.",
            "The user's sister lives in Leeds.",
        ),
        (
            ("i work part time making coffee at a starbucks on campus", "I love Starbucks coffee"),
            "i quit starbucks, im doing deliveries for doordash now",
            "The user works part time making coffee at a starbucks on campus.",
            "The user likes Starbucks coffee.",
        ),
    ],
)
def test_an_ending_retires_the_record_of_its_kind_only(
    told: tuple[str, ...], said: str, gone: str, kept: str
) -> None:
    recs, _ = _told(*told, said)
    contents = [r.content for r in recs]
    assert kept in contents
    assert gone not in contents


@pytest.mark.parametrize(
    ("told", "said"),
    [
        ("I love the beach", "scrap the beach, it's raining"),
        ("my favourite day is Monday", "monday is off"),
        ("We're off to Paris on the 20th of February for a week", "we left Paris yesterday"),
        ("I love my car at the garage", "I left my car at the garage"),
        ("I live in Leeds", "I left Leeds this morning"),
    ],
)
def test_an_ordinary_sentence_ends_nothing(told: str, said: str) -> None:
    before = [r.content for r in _told(told)[0]]
    recs, _ = _told(told, said)
    assert [r.content for r in recs] == before
