"""s36 person-test: values cut wrongly and questions kept. An emoji ends what it follows as a
full stop would ("allergic to cats 😿 bday is 9 april" kept the birthday inside the allergen),
an allergy "to them" takes what the sentence said to avoid ("I must avoid peanuts, as I have
a severe allergy to them" kept "allergic to severe"), "allergic of" is "allergic to", a
comment after a dislike is no part of it ("mushrooms they r so gross"), "lowkey obsessed w
kpop" and "very fond of Elgar" are likings, "it's all gone a bit dull" is no new liking, and
a question typed as texted ("wat am i allergic to again") keeps nothing. Rules alone."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from familiars.memory import MemoryRecord, offline_writes

#: Monday 30 November 2026.
NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)
CRICKET = {"content": "The user likes cricket.", "category": "preference", "tags": ["likes"]}


def _said(text: str, *prior: dict[str, object]) -> list[str]:
    existing = [
        MemoryRecord(id=f"m_p{i}", scope="user", user_key="u", **json.loads(json.dumps(p)))
        for i, p in enumerate(prior)
    ]
    writes = offline_writes(text, existing=existing, now=NOW, timezone="Europe/London")
    return [w.entry.content for w in writes.writes if w.op != "skip"]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        (
            "also im allergic to cats 😿 bday is 9 april!!",
            ["The user is allergic to cats.", "The user's birthday is on April 9."],
        ),
        (
            "I must avoid peanuts, as I have a severe allergy to them.",
            ["The user is allergic to peanuts."],
        ),
        ("I need to steer clear of shellfish, I have a nasty allergy to it", ["shellfish"]),
        ("I am allergic of the nuts.", ["The user is allergic to the nuts."]),
        ("i hate mushrooms they r so gross", ["The user doesn't like mushrooms."]),
        ("lowkey obsessed w kpop fr", ["The user likes kpop."]),
        ("I am very fond of Elgar and of gardening", ["The user likes Elgar and gardening."]),
    ],
)
def test_values_cut_where_they_end(text: str, wanted: list[str]) -> None:
    said = _said(text)
    for want in wanted:
        assert any(want in s for s in said), said
    assert not any("😿" in s or "severe" in s or "they r" in s for s in said), said


@pytest.mark.parametrize(
    "text",
    [
        "wat am i allergic to again",
        "wots my cats name again",
        "I love cats, I have an allergy to them",
    ],
)
def test_questions_and_unnamed_allergens_keep_no_allergy(text: str) -> None:
    assert not any("allergic" in s for s in _said(text))


def test_a_state_is_no_new_liking() -> None:
    said = _said("I'm not really into cricket anymore, it's all gone a bit dull.", CRICKET)
    assert not any("dull" in s for s in said), said


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        (
            "I have one cat, she is a siamese, her name is Luna.",
            "The user has one cat called Luna.",
        ),
        ("we have a dog, he's a beagle, his name is Bruno", "The user has a dog called Bruno."),
        ("I am working like cook in a restaurant, I make the pasta.", "The user works as a cook."),
    ],
)
def test_pets_named_after_what_they_are_and_jobs_said_like(text: str, wanted: str) -> None:
    assert wanted in _said(text)


def test_quitting_a_workplace_is_no_job() -> None:
    said = _said("i quit the salon, i work at greggs now lol")
    assert said == ["The user works at Greggs."], said


def test_relatives_typed_in_lower_case_are_named() -> None:
    said = _said("i live in cardiff w my mum jess n my stepdad rob")
    assert "The user's mum is called Jess." in said and "The user's stepdad is called Rob." in said
    assert not any("Today" in s for s in _said("i went shopping with my mum today"))


def test_where_the_work_is_done_is_no_part_of_it() -> None:
    assert _said("I fix boilers for a living round Bolton") == [
        "The user fixes boilers for a living."
    ]
