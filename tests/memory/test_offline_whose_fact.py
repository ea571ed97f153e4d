"""Found by a person testing offline: a fact about someone else was kept as the speaker's
("Robin is allergic to peanuts, by the way." -> "Noted: you are allergic to peanuts."), and a
job interview as the speaker's employer ("I'm secretly interviewing at Google" -> "you work
at Google"). Sentences written for these tests, not from any bench set."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from familiars.memory._offline._meaning import PARTS, Understanding, by_meaning, load_slot_model
from familiars.memory._offline._values import value_fact
from familiars.memory._offline._writes import facts_in

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)


class _SureOf(Understanding):
    """A slot model sure the clause is about ``slot``: whose fact it is is the rules' call."""

    sure_slot = "none"

    def slots(self, clause: str) -> list[tuple[str, float]]:
        return [(self.sure_slot, 0.95), ("none", 0.05)]


def _sure_of(slot: str) -> Understanding:
    understanding = _SureOf(
        embed=lambda texts: np.ones((len(texts), 384), dtype=np.float32) / np.sqrt(384),
        model=load_slot_model(),
        parts=frozenset(PARTS),
    )
    understanding.sure_slot = slot
    return understanding


def _contents(text: str, slot: str) -> list[str]:
    facts = facts_in(text, now=NOW, timezone="Europe/London", understanding=_sure_of(slot))
    return [f.content for f in facts]


@pytest.mark.parametrize(
    ("text", "slot"),
    [
        ("Robin is allergic to peanuts, by the way.", "allergy"),
        ("Robin's allergic to peanuts", "allergy"),
        ("Sam is a nurse", "job"),
        ("Sam's a nurse", "job"),
        ("Jo loves jazz", "like"),
        ("Jo hates mushrooms", "dislike"),
        ("Sam lives in Leeds", "home"),
        ("Robin works at Google", "workplace"),
        ("she is allergic to cats", "allergy"),
        ("he is a nurse", "job"),
    ],
)
def test_a_named_other_persons_fact_is_never_the_speakers(text: str, slot: str) -> None:
    assert not [c for c in _contents(text, slot) if c.startswith("The user ")]


@pytest.mark.parametrize(
    ("slot", "clause"),
    [
        ("allergy", "Robin is allergic to peanuts"),
        ("job", "Sam is a nurse"),
        ("like", "Jo loves jazz"),
        ("home", "Sam lives in Leeds"),
    ],
)
def test_the_slot_readers_keep_nothing_of_another_persons(slot: str, clause: str) -> None:
    assert value_fact(slot, clause, sure=True) == []


def test_a_partner_by_name_keeps_the_fact_as_theirs() -> None:
    contents = _contents("my partner Robin is allergic to peanuts", "allergy")
    assert contents == ["The user's partner Robin is allergic to peanuts."]


@pytest.mark.parametrize(
    "text",
    [
        "I'm allergic to peanuts, Robin",  # said to Robin
        "Robin and I are both allergic to peanuts",  # true of the speaker too
    ],
)
def test_the_speakers_own_allergy_with_a_name_in_it_is_still_kept(text: str) -> None:
    assert "The user is allergic to peanuts." in _contents(text, "allergy")


@pytest.mark.parametrize(
    ("clause", "slot", "content"),
    [
        ("London is home", "home", "The user lives in London."),
        ("Priya is my sister", "family", "The user's sister is called Priya."),
        ("Max is my dog", "pet", "The user has a dog called Max."),
    ],
)
def test_a_capital_that_is_no_other_persons_subject_still_reads(
    clause: str, slot: str, content: str
) -> None:
    assert [f.content for f in by_meaning(clause, _sure_of(slot))] == [content]


@pytest.mark.parametrize(
    "text",
    [
        "I'm secretly interviewing at Google, don't tell anyone.",
        "I have an interview at Google",
        "I'm applying to Amazon",
        "I've applied at Monzo",
        "I'm hoping to work at Google",
        "I'm thinking of joining Microsoft",
        "I got an offer from Meta",
        "I'd love to work for the BBC one day",
    ],
)
def test_a_company_one_plans_or_hopes_to_work_at_is_not_ones_employer(text: str) -> None:
    assert not [c for c in _contents(text, "workplace") if c.startswith("The user works at")]


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("I work at Google", "The user works at Google."),
        ("I just started at Google", "The user works at Google."),
    ],
)
def test_ones_own_employer_is_still_read(text: str, content: str) -> None:
    assert content in _contents(text, "workplace")
