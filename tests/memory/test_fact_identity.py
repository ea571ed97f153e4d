"""same_fact: a rewording merges, a near-miss or a change does not, whatever the cosine."""

from __future__ import annotations

import pytest

from familiars.memory import FactMatch, fact_terms, same_fact, slot_of

HIGH = 0.95  # a cosine over the threshold: the words alone decide


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I love red wine", "I love white wine"),
        ("Plays tennis.", "Plays table tennis."),
        ("Has a dog.", "Has a cat."),
        ("User's sister Emma is vegetarian", "User's brother Emma is vegetarian"),
        ("Has 2 kids.", "Has 3 kids."),
        ("Runs in the morning.", "Runs in the evening."),
        ("Likes jazz.", "Dislikes jazz."),
        ("Drinks alcohol.", "Doesn't drink alcohol."),
        ("Smokes.", "Quit smoking."),
        ("Lives in Portland.", "Lives in Seattle."),
        ("Lives in Portland.", "Works in Portland."),
        ("Tom works at a bank.", "Tom's brother works at a bank."),
    ],
)
def test_near_misses_are_not_merged(old: str, new: str) -> None:
    match = same_fact(old, new, HIGH)
    assert match == FactMatch(False, match.reason) and match.reason


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Likes red wine.", "Enjoys red wine."),
        ("Lives in Portland.", "I live in Portland."),
        ("Has a dog named Biscuit.", "User has a dog called Biscuit."),
        ("User's sister Emma is vegetarian", "Emma, the user's sister, is a vegetarian."),
        ("Has two kids.", "Has 2 children."),
        ("Doesn't like country music.", "Dislikes country music."),
        ("Favourite colour is blue.", "User's favorite color is blue."),
        ("Birthday is on March 3.", "User's birthday: March 3rd."),
        ("Is 34 years old.", "User is 34."),
        ("Works as a nurse.", "Is a nurse."),
        ("Hates sparkling water.", "Can't stand sparkling water."),
    ],
)
def test_rewordings_merge(old: str, new: str) -> None:
    match = same_fact(old, new, HIGH)
    assert match.same, match.reason


def test_cosine_below_threshold_never_merges() -> None:
    match = same_fact("Likes red wine.", "Likes red wine.", 0.5)
    assert not match.same and "below" in match.reason
    assert same_fact("Likes red wine.", "Likes red wine.", 0.5, threshold=0.4).same


def test_reason_names_the_distinguishing_words() -> None:
    assert same_fact("I love red wine", "I love white wine", HIGH).reason == (
        "distinct (colour): red | white"
    )
    assert "table" in same_fact("Plays tennis.", "Plays table tennis.", HIGH).reason
    assert "contradiction" in same_fact("Likes jazz.", "Dislikes jazz.", HIGH).reason


def test_slot_and_terms() -> None:
    assert slot_of("Lives in Portland.") == "residence"
    assert slot_of("Has a cat named Luna.") == "pet"
    assert slot_of("Works at Google.") == "work"
    assert slot_of("Likes jazz.") is None
    assert fact_terms("User loves red wine.") == fact_terms("Likes red wine")
