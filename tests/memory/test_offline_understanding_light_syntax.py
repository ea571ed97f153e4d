"""Issue 23, person-test misses: values read by light syntax, clause cutting, two-word names,
lists of pets, and a relative's change of mind that is not the person's."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from familiars.memory import MemoryRecord
from familiars.memory._offline._clauses import clauses
from familiars.memory._offline._meaning import Understanding, load_slot_model
from familiars.memory._offline._shifts import shifted
from familiars.memory._offline._values import capitalised_name, value_fact
from familiars.memory._offline._writes import facts_in

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)


def _contents(text: str) -> list[str]:
    return [f.content for f in facts_in(text, now=NOW)]


@pytest.mark.parametrize(
    ("slot", "clause", "content"),
    [
        ("like", "it's all wild swimming for me", "likes wild swimming"),
        ("like", "I'm a sucker for old westerns", "likes old westerns"),
        ("like", "weekends I go fishing", "likes fishing"),
        ("like", "Really enjoying pottery at the moment", "likes pottery"),
        ("like", "golf is my life", "likes golf"),
        ("allergy", "I get hay fever every summer", "has hay fever"),
        ("allergy", "bee stings are dangerous for me", "reacts badly to bee stings"),
        ("allergy", "I react badly to latex", "reacts badly to latex"),
        ("allergy", "dairy free here", "eats dairy-free"),
        ("workplace", "I stack shelves at Tesco", "works at Tesco"),
    ],
)
def test_more_values_are_read_by_general_syntax(slot: str, clause: str, content: str) -> None:
    facts = value_fact(slot, clause)
    assert facts and content in facts[0].content


def test_the_job_done_at_a_named_employer_is_kept_with_it_but_not_ones_own_chores() -> None:
    said = [f.content for f in value_fact("workplace", "I stack shelves at Tesco")]
    assert said == ["The user works at Tesco.", "The user stacks shelves for a living."]
    assert [f.content for f in value_fact("workplace", "I no longer work for Acme")] == [
        "The user works at Acme."
    ]
    assert value_fact("job", "I cook for my family", sure=True) == []


def test_a_name_written_with_a_capital_is_a_name_but_a_nation_or_a_state_is_not() -> None:
    named = capitalised_name("I'm Lena.")
    assert named is not None and named.content == "The user's name is Lena."
    for said in ("I'm Welsh", "I'm Tired.", "I'm Christian", "I'm fine", "im lena"):
        assert capitalised_name(said) is None, said


def test_clauses_cut_at_a_dash_before_a_saying_and_typed_contractions_are_read() -> None:
    assert clauses("Mia here - I look after horses") == ["Mia here", "I look after horses"]
    assert clauses("Set a reminder for 3 March at 9am - renew passport") == [
        "Set a reminder for 3 March at 9am - renew passport"
    ]
    assert clauses("I dont like olives") == ["I don't like olives"]
    assert _contents("cant eat shellfish, im allergic") == ["The user is allergic to shellfish."]


def test_the_second_pet_of_a_list_and_a_two_word_name_are_kept() -> None:
    said = _contents("I have a scruffy terrier, his name is Biscuit, and two goldfish")
    assert said == ["The user has a scruffy terrier called Biscuit.", "The user has two goldfish."]
    assert _contents("our cat Sunny Boy sleeps all day") == ["The user has a cat called Sunny Boy."]
    assert _contents("I have a dog called Max and a cat called Tigger") == [
        "The user has a dog called Max.",
        "The user has a cat called Tigger.",
    ]


def _understanding() -> Understanding:
    model = load_slot_model()

    def embed(texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), model.weights.shape[0]), dtype=np.float32)
        out[:, 0] = 1.0
        return out

    return Understanding(embed=embed, model=model)


def test_a_relatives_change_of_mind_is_not_the_persons() -> None:
    coffee = MemoryRecord(
        id="m1", scope="user", category="preference", content="The user likes coffee.",
        tags=["likes", "topic:coffee"], user_key="u",
    )  # fmt: skip
    rugby = MemoryRecord(
        id="m2", scope="user", category="preference", content="The user likes rugby.",
        tags=["likes", "topic:rugby"], user_key="u",
    )  # fmt: skip
    u = _understanding()
    assert shifted("my sister gave up coffee", [coffee], set(), u) == []
    assert shifted("my friend quit coffee", [coffee], set(), u) == []
    took_back = shifted("i used to play rugby but these days i play golf", [rugby], set(), u)
    assert [f.content for f in took_back] == ["The user no longer likes rugby."]


def test_a_relatives_home_is_not_the_persons_and_a_sure_slot_names_a_breed() -> None:
    assert value_fact("home", "My mum lives in Swansea") == []

    def nearest(noun: str) -> str:
        return "other"  # "westie" is nearest no labelled class

    said = "we've got a wee Westie called Haggis"
    assert value_fact("pet", said, noun_kind=nearest) == []
    assert value_fact("pet", said, noun_kind=nearest, sure=True)[0].content == (
        "The user has a wee westie called Haggis."
    )


def test_these_days_its_the_new_like_after_one_given_up() -> None:
    assert clauses("I'm not doing show jumping anymore, these days it's dressage") == [
        "I'm not doing show jumping anymore",
        "I'm into dressage now",
    ]
