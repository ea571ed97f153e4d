"""Issue 23, s37: a town said after a job is where the work is, not a home; what a message
says in brackets is read as said plainly; an aside that takes a claim back keeps nothing.
Each through the offline writer (rules alone)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.memory import offline_writes

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)


def _said(text: str) -> list[str]:
    writes = offline_writes(text, existing=[], now=NOW, timezone="Europe/London")
    return [w.entry.content for w in writes.writes]


@pytest.mark.parametrize(
    ("text", "job"),
    [
        ("I fix boilers for a living over in Frome", "fixes boilers in Frome for a living"),
        ("I clean windows for a living in Truro", "cleans windows in Truro for a living"),
        ("Ali, 29, baker in Hull", "works as a baker"),
    ],
)
def test_a_town_said_after_a_job_stays_with_the_job_and_is_no_home(text: str, job: str) -> None:
    said = _said(text)
    assert any(job in s for s in said)
    assert not any("lives in" in s for s in said)


def test_what_one_is_somewhere_is_no_home_but_from_still_is() -> None:
    assert not any("lives in" in s for s in _said("I'm a roofer up in Inverness"))
    assert "The user lives in Hull." in _said("Ali, 29, baker from Hull")


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("Milo (my son) starts school tomorrow", "son Milo"),
        ("Sanjay (my husband) is away all week", "husband Sanjay"),
        ("dinner was chaos, my kids (Ollie and Maya) refused the peas", "Ollie"),
        ("work's mad (I work at Tesco now) but fine", "works at Tesco"),
    ],
)
def test_an_aside_in_brackets_is_read_as_said_plainly(text: str, wanted: str) -> None:
    assert any(wanted in s for s in _said(text))


@pytest.mark.parametrize(
    "text",
    ["I love running (not really)", "I love running lol not really", "I'm a pilot (kidding)"],
)
def test_an_aside_that_takes_the_claim_back_keeps_nothing(text: str) -> None:
    assert _said(text) == []


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("how do I stop my cat Pudding scratching the sofa?", "The user has a cat called Pudding."),
        ("what should I get my wife Anna for our anniversary?", "The user's wife is called Anna."),
        ("any tips for my son Luca's first day?", "The user's son is called Luca."),
    ],
)
def test_a_question_keeps_the_name_it_gives_ones_own_relative_or_pet(
    text: str, wanted: str
) -> None:
    assert _said(text) == [wanted]


@pytest.mark.parametrize(
    "text",
    [
        "what's my dog called?",
        "what do you think of my friend's dog Max?",
        "do you like my new Nike trainers?",
        "should I get a cat called Pudding?",
    ],
)
def test_a_question_that_names_nothing_of_ones_own_keeps_nothing(text: str) -> None:
    assert _said(text) == []


@pytest.mark.parametrize(
    "text",
    ["My colleague works at Google", "my friend moved to Leeds", "my boss lives in Reading"],
)
def test_where_someone_outside_the_family_lives_or_works_is_not_kept(text: str) -> None:
    assert _said(text) == []


def test_where_a_relative_lives_is_still_kept() -> None:
    assert _said("my brother lives in Toronto") == ["The user's brother lives in Toronto."]
