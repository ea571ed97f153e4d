"""Tester s39 finding 6, wrong or garbled memories of the offline writer, each in the
tester's words and in other words: an employer said before the job swallowed the rest of the
message ("gardening at Tesco my cat is called Mochi"), a forget request was kept as a fact
("allergic to forget the"), a break-up said in passing kept the partner as current, a filler
word was part of a value ("actually fontaines dc"), and the ages of named children were lost.
The bundled model reads as the offline bot does."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from familiars.memory import MemoryRecord, offline_writes, understanding_for

NOW = datetime(2026, 12, 9, 13, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def understanding(real_embedder: Any) -> Any:
    return understanding_for(real_embedder.embed_batch, *real_embedder.space)


def _rec(i: int, content: str, tags: list[str], cat: str = "profile") -> MemoryRecord:
    return MemoryRecord(
        id=f"m_{i}", scope="user", category=cat, content=content, tags=tags,
        ts=(NOW - timedelta(days=3)).isoformat(),
    )  # fmt: skip


def _said(text: str, understanding: Any, existing: list[MemoryRecord] | None = None) -> list[str]:
    out = offline_writes(
        text,
        existing=existing or [],
        now=NOW,
        timezone="Europe/London",
        understanding=understanding,
    )
    return [f"{w.op} {w.entry.content}" for w in out.writes if w.op != "skip"]


def test_an_employer_before_the_job_keeps_the_rest_of_the_message(understanding: Any) -> None:
    said = _said(
        "I work at Tesco as a shift manager and I love gardening. my cat is called Mochi",
        understanding,
    )
    assert said == [
        "add The user works as a shift manager.",
        "add The user works at Tesco.",
        "add The user likes gardening.",
        "add The user has a cat called Mochi.",
    ]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (
            "I work for Aldi as a cashier, I love hiking",
            [
                "add The user works as a cashier.",
                "add The user works at Aldi.",
                "add The user likes hiking.",
            ],
        ),  # fmt: skip
        (
            "I work at Barclays as a QA engineer now. my dog is called Rex",
            [
                "add The user works as a qa engineer.",
                "add The user works at Barclays.",
                "add The user has a dog called Rex.",
            ],
        ),  # fmt: skip
    ],
)
def test_an_employer_before_the_job_in_other_words(
    understanding: Any, text: str, want: list[str]
) -> None:
    assert _said(text, understanding) == want


@pytest.mark.parametrize(
    "text",
    [
        "actually forget the allergy thing, i got that wrong",
        "please delete the bit about my job",
        "can you drop the stuff about my allergy",
        "forget what i said about my sister being called Jane",
    ],
)
def test_a_forget_request_is_never_a_fact(understanding: Any, text: str) -> None:
    allergy = _rec(1, "The user is allergic to peanuts.", ["allergy", "topic:peanut"])
    assert _said(text, understanding, [allergy]) == []


def test_a_fact_beside_a_forget_request_is_still_kept(understanding: Any) -> None:
    said = _said("scratch the thing about my sister, I'm allergic to walnuts", understanding)
    assert said == ["add The user is allergic to walnuts."]


@pytest.mark.parametrize(
    "text",
    [
        "also me and my gf Priya broke up last month so thats been rough tbh",
        "my girlfriend Priya and I broke up",
        "my boyfriend Tom dumped me",
    ],
)
def test_a_partner_named_with_a_break_up_is_no_partner(understanding: Any, text: str) -> None:
    assert not [s for s in _said(text, understanding) if "friend is called" in s]


@pytest.mark.parametrize(
    "text",
    [
        "also me and my gf Priya broke up last month so thats been rough tbh",
        "Priya and I are not together anymore",
        "me and Priya aren't together anymore",
        "I ended things with Priya",
    ],
)
def test_a_break_up_ends_the_partner_kept(understanding: Any, text: str) -> None:
    priya = _rec(1, "The user's girlfriend is called Priya.", ["family", "topic:priya"], "relation")
    assert _said(text, understanding, [priya]) == [
        "update The user and Priya have broken up; Priya is no longer their girlfriend."
    ]


def test_together_is_no_break_up(understanding: Any) -> None:
    sister = _rec(1, "The user's sister is called Priya.", ["family", "topic:priya"], "relation")
    assert _said("Priya and I are not together anymore", understanding, [sister]) == []
    assert _said("my girlfriend is called Priya and we are very happy", understanding) == [
        "add The user's girlfriend is called Priya."
    ]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("scratch that, my fav band is actually fontaines dc",
         "add The user's favourite band is fontaines dc."),
        ("my favourite film is honestly Alien", "add The user's favourite film is Alien."),
        ("my favourite colour is now green", "add The user's favourite colour is green."),
        ("my favourite food is really sushi tbh", "add The user's favourite food is sushi."),
        ("i'm allergic to peanuts actually", "add The user is allergic to peanuts."),
        ("my cat is actually called Mochi", "add The user has a cat called Mochi."),
        ("I actually work at Lidl", "add The user works at Lidl."),
    ],
)  # fmt: skip
def test_a_filler_word_is_no_part_of_a_value(understanding: Any, text: str, want: str) -> None:
    assert _said(text, understanding) == [want]


KIDS = _rec(1, "The user's kids are Leo and Ava.", ["family", "topic:kid"], "relation")


def test_ages_of_named_children_said_plainly_are_kept(understanding: Any) -> None:
    assert _said("Leo is 7 and Ava is 4", understanding, [KIDS]) == [
        "update The user's kids are Leo and Ava; Leo is 7; Ava is 4."
    ]


def test_a_later_age_of_one_child_changes_only_theirs(understanding: Any) -> None:
    aged = _rec(2, "The user's kids are Leo and Ava; Leo is 7; Ava is 4.", ["family"], "relation")
    assert _said("Ava is 5 now", understanding, [aged]) == [
        "update The user's kids are Leo and Ava; Leo is 7; Ava is 5."
    ]


@pytest.mark.parametrize(
    "text", ["Leo is 7 foot tall", "Leo is 7 minutes away", "is Leo 7?", "Leo is 2-1 down"]
)
def test_a_number_that_is_no_age_changes_nothing(understanding: Any, text: str) -> None:
    son = _rec(1, "The user's son is called Leo.", ["family", "topic:leo"], "relation")
    assert not [s for s in _said(text, understanding, [son]) if "Leo is" in s]
