"""A person-tester's fresh-clone findings in the offline writer: discourse words kept in a
value, a name split before its digits, a list of names cut to the first."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.memory._offline._writes import facts_in

NOW = datetime(2026, 12, 2, 16, 0, tzinfo=UTC)


def _contents(text: str) -> list[str]:
    return [f.content for f in facts_in(text, now=NOW, timezone="UTC", dialogue_id=None)]


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I hate mushrooms though", "The user doesn't like mushrooms."),
        ("I love jazz tbh lol", "The user likes jazz."),
        ("I live in Leeds anyway.", "The user lives in Leeds."),
        ("I'm vegetarian to be honest", "The user is vegetarian."),
        ("I like the song Though", "The user likes the song Though."),  # a title stays
    ],
)
def test_trailing_discourse_words_are_not_kept_in_the_value(text: str, fact: str) -> None:
    assert _contents(text) == [fact]


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("My dog is called KQ7719.", "The user has a dog called KQ7719."),
        ("my cat is named Mx5", "The user has a cat called Mx5."),
        ("I have a robot dog named R2D2", "The user has a robot dog called R2D2."),
    ],
)
def test_a_name_with_digits_is_one_name(text: str, fact: str) -> None:
    """ "KQ7719" was read as "KQ" by one reader and "KQ7719" by another: two records."""
    assert _contents(text) == [fact]


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        ("we have two kids, Arjun and Maya", ["The user has two kids called Arjun and Maya."]),
        ("I have two kids called Arjun and Maya", ["The user has two kids called Arjun and Maya."]),
        (
            "my wife is called Priya and we have two kids, Arjun and Maya",
            ["The user's wife is called Priya.", "The user has two kids called Arjun and Maya."],
        ),
        (
            "I have three kids, Arjun, Maya and Leo",
            ["The user has three kids called Arjun, Maya and Leo."],
        ),
        ("I have a son called Tom", ["The user has a son called Tom."]),
        ("I have two kids, and they are great", ["The user has two kids."]),
    ],
)
def test_a_list_of_names_keeps_every_name(text: str, facts: list[str]) -> None:
    """Only the first name was kept ("two kids called Arjun"), or none after "we have"."""
    assert _contents(text) == facts


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        (
            "we adopted a ginger tom named Marmalade",
            ["The user has a ginger tom called Marmalade."],
        ),
        ("I have a mutt called Rex", ["The user has a mutt called Rex."]),
        ("my uncle Tom is a pilot", ["The user's uncle Tom is a pilot."]),  # a name stays one
        ("I have two kids, Tom and Maya", ["The user has two kids called Tom and Maya."]),
    ],
)
def test_a_pet_word_that_is_also_a_name_keeps_the_pets_name(text: str, facts: list[str]) -> None:
    """ "a ginger tom named Marmalade" kept nothing ("tom" was no pet word), or the kind
    without the name."""
    assert _contents(text) == facts
