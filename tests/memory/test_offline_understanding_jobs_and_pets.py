"""Person-tester finds (s32): a job said with "these days" or with the "I" dropped, a job
noun no list knows, a pet said in passing ("we've got a lurcher in our house"), pets named
together, and a liking said with emphasis after an ironic interjection. Sentences written
for these tests, not from any bench set; the noun classifier is stood in for by a label."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.memory import offline_writes
from familiars.memory._offline._meaning import _readable_slots
from familiars.memory._offline._states import sarcastic
from familiars.memory._offline._tidy import untimed
from familiars.memory._offline._values import known_job, relative_job, value_fact

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)


def _kind(label: str):  # type: ignore[no-untyped-def]
    return lambda noun: label


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("I'm a postie these days", "I'm a postie"),
        ("been a plasterer for twenty years", "I've been a plasterer"),
        ("nowadays I'm a courier", "I'm a courier"),
        ("I'm a welder, been at it for years", "I'm a welder, been at it"),
        ("am a nurse at the moment", "I am a nurse"),
        ("I'm in Bath", "I'm in Bath"),
    ],
)
def test_a_time_that_only_says_now_and_a_dropped_subject_are_tidied(text: str, plain: str) -> None:
    assert untimed(text) == plain


def test_a_job_said_with_these_days_is_read_when_the_noun_reads_as_a_job() -> None:
    facts = value_fact("job", "I'm a childminder these days", noun_kind=_kind("job"), sure=True)
    assert [f.content for f in facts] == ["The user works as a childminder."]
    facts = value_fact("job", "been a glazier for ten years", noun_kind=_kind("job"), sure=True)
    assert [f.content for f in facts] == ["The user works as a glazier."]


def test_a_job_noun_no_list_knows_needs_the_job_slot_and_the_noun_to_agree() -> None:
    said = "hiya, I'm a postie these days"
    assert [f.content for f in known_job(said, 0.47, kind=_kind("job"))] == [
        "The user works as a postie."
    ]
    assert known_job(said, 0.47, kind=_kind("family")) == []  # the noun is no job
    assert known_job(said, 0.2, kind=_kind("job")) == []  # the clause is not about a job
    assert known_job(said, 0.47, unsure=True, kind=_kind("job")) == []


@pytest.mark.parametrize(
    ("text", "contents"),
    [
        ("we've got a lurcher in our house", ["The user has a lurcher."]),
        ("I keep two ferrets at home", ["The user has two ferrets."]),
        (
            "there's a spaniel in our house called Biscuit",
            ["The user has a spaniel called Biscuit."],
        ),
        (
            "we keep two guinea pigs, Salt and Pepper",
            ["The user has a guinea pig called Salt.", "The user has a guinea pig called Pepper."],
        ),
    ],
)
def test_a_pet_said_in_passing_is_kept(text: str, contents: list[str]) -> None:
    facts = value_fact("pet", text, noun_kind=_kind("pet"))
    assert [f.content for f in facts] == contents


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("we've got a new sofa in our house", "thing"),  # a thing, not a pet
        ("there's a spaniel called Biscuit in that film", "pet"),  # a story's pet
        ("my neighbour has got a lurcher", "pet"),  # someone else's
    ],
)
def test_a_thing_a_story_or_someone_elses_animal_is_no_pet(text: str, kind: str) -> None:
    assert value_fact("pet", text, noun_kind=_kind(kind)) == []


@pytest.mark.parametrize(
    "text",
    [
        "sure, I LOVE waiting on hold for an hour",
        "yeah I *adore* Monday mornings",
        "oh wow, I just LOVE it when the bus is late",
    ],
)
def test_an_emphasised_liking_after_an_ironic_interjection_is_sarcasm(text: str) -> None:
    assert sarcastic(text, strong=True)
    assert offline_writes(text, existing=[], now=NOW).writes == []


@pytest.mark.parametrize("text", ["I LOVE pizza", "sure, I love pizza", "I *love* hiking"])
def test_emphasis_or_an_interjection_alone_is_sincere(text: str) -> None:
    assert not sarcastic(text, strong=True)
    writes = offline_writes(text, existing=[], now=NOW).writes
    assert [w.category for w in writes] == ["preference"]


def _kinds(**labels: str):  # type: ignore[no-untyped-def]
    return lambda noun: labels.get(noun, "other")


def test_a_relatives_job_said_with_no_name_is_theirs() -> None:
    kind = _kinds(fella="family", scaffolder="job", **{"driving a taxi": "job"})
    facts = relative_job("my fella's a scaffolder these days", kind)
    assert [f.content for f in facts] == ["The user's fella is a scaffolder."]
    assert "family" in facts[0].tags
    facts = relative_job("my fella drives a taxi", kind)
    assert [f.content for f in facts] == ["The user's fella drives a taxi."]


@pytest.mark.parametrize(
    "text",
    [
        "my fella's a big kid",  # no job
        "my fella's a nightmare",
        "my landlord is a scaffolder",  # no relative of the speaker's
        "my fella lives in Swansea",  # living somewhere is no work
        "my mate's a scaffolder",  # a friend, no relative
        "my fella quit his job at the yard",  # "his" is no verb
    ],
)
def test_no_job_or_no_relative_keeps_nothing(text: str) -> None:
    kind = _kinds(
        fella="family", scaffolder="job", landlord="other", kid="family", mate="family",
        **{"fella quit": "family", "hiing job at the yard": "job"},
    )  # fmt: skip
    assert relative_job(text, kind) == []


def test_an_unsure_pet_or_relative_is_read_only_when_the_clause_names_it() -> None:
    ranked = [("pet", 0.49), ("home", 0.2), ("none", 0.1)]
    assert _readable_slots(ranked) == []
    assert _readable_slots(ranked, checked=True) == [("pet", 0.49)]
    assert _readable_slots([("job", 0.49), ("none", 0.2)], checked=True) == []


def test_a_pet_said_without_an_article_needs_a_plural() -> None:
    facts = value_fact("pet", "I keep chickens", noun_kind=_kind("pet"))
    assert [f.content for f in facts] == ["The user has chickens."]
    assert value_fact("pet", "I keep chicken", noun_kind=_kind("pet")) == []
