"""s35 U2: plurals of relation words ("Your wifes are ..." -> "wives") and the verb after a
plural ("your twin girls is called" -> "are called")."""

from __future__ import annotations

import pytest

from familiars.llm import plural, second_person


@pytest.mark.parametrize(
    ("noun", "many"),
    [
        ("wife", "wives"),
        ("child", "children"),
        ("niece", "nieces"),
        ("boss", "bosses"),
        ("nanny", "nannies"),
        ("boy", "boys"),
        ("half-sister", "half-sisters"),
        ("twin girl", "twin girls"),
        ("person", "people"),
    ],
)
def test_a_plural_is_made_as_english_makes_it(noun: str, many: str) -> None:
    assert plural(noun) == many


@pytest.mark.parametrize(
    ("record", "said"),
    [
        (
            "The user has twin girls called Ines and Frida.",  # U2, the tester's
            "Your twin girls are called Ines and Frida.",
        ),
        ("The user has three kids called Marcus and Nia.", "Your kids are called Marcus and Nia."),
        ("The user has children called Ada and Bo.", "Your children are called Ada and Bo."),
        ("The user has a cat called Iris.", "Your cat is called Iris."),
        ("The user has a boss called Jess.", "Your boss is called Jess."),
    ],
)
def test_the_verb_agrees_with_what_is_named(record: str, said: str) -> None:
    assert second_person(record) == said
