"""A person-tester's misses (issue 23, s37), each in words no earlier test had: a value put
right ("actually it's amoxicillin I'm allergic to, not penicillin"), several facts of one
message each read in a clause of its own, relatives kept one per person and an age that
changes ("Rosie turned 8"), and a change that is not what it first looks like (a diet is no
dislike, retraining as X is not working as X). Each through the offline writer as the
runtime calls it, with the bundled understanding."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.memory import MemoryRecord, Understanding, offline_writes, understanding_for

NOW = datetime(2026, 12, 7, 18, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def understanding(real_embedder: object) -> Understanding:
    found = understanding_for(real_embedder.embed_batch, *real_embedder.space)  # type: ignore[attr-defined]
    assert found is not None
    return found


def _talk(said: list[str], understanding: Understanding) -> list[tuple[str, str | None]]:
    """The records kept after each message in turn; the writes of the last message."""
    kept: list[MemoryRecord] = []
    last: list[tuple[str, str | None]] = []
    for number, text in enumerate(said):
        out = offline_writes(
            text, existing=kept, now=NOW, timezone="Europe/London", understanding=understanding
        )
        last = [(w.entry.content, w.entry.supersedes_id) for w in out.writes if w.op != "skip"]
        for i, w in enumerate(w for w in out.writes if w.op != "skip"):
            kept = [r for r in kept if r.id != w.entry.supersedes_id]
            kept.append(
                MemoryRecord(
                    id=f"m{number}-{i}", scope="user", category=w.category,
                    content=w.entry.content, tags=list(w.entry.tags), user_key="u",
                    ts=NOW.isoformat(),
                )
            )  # fmt: skip
    return last


@pytest.mark.parametrize(
    ("first", "then", "wanted"),
    [
        (
            "I'm allergic to penicillin",
            "actually it's amoxicillin I'm allergic to, not penicillin",
            "The user is allergic to amoxicillin.",
        ),
        ("I'm allergic to peanuts", "not peanuts, cashews", "The user is allergic to cashews."),
        ("I love jazz", "sorry, I meant blues", "The user likes blues."),
        ("I work at Tesco", "no, it's Asda I work at, not Tesco", "The user works at Asda."),
    ],
)
def test_a_value_put_right_replaces_the_record_that_held_the_wrong_one(
    first: str, then: str, wanted: str, understanding: Understanding
) -> None:
    assert _talk([first, then], understanding) == [(wanted, "m0-0")]


def test_a_value_no_record_holds_is_not_put_right(understanding: Understanding) -> None:
    said = _talk(["I'm allergic to penicillin", "it's fine, not a problem"], understanding)
    assert all("penicillin" not in content for content, _ in said)


def _kept(text: str, understanding: Understanding) -> list[str]:
    return [content for content, _ in _talk([text], understanding)]


def test_a_job_after_a_dash_in_a_longer_introduction_is_kept(
    understanding: Understanding,
) -> None:
    said = _kept(
        "I'm Mia, 34, and I basically spend my days fixing people's teeth - dental hygienist "
        "in Leeds",
        understanding,
    )
    assert "The user works as a dental hygienist." in said
    assert "The user's name is Mia." in said and "The user is 34 years old." in said


def test_a_home_said_with_its_street_keeps_the_street_and_the_town(
    understanding: Understanding,
) -> None:
    said = _kept("My name is Sam and I live at 14 Marlow Road, Bristol", understanding)
    assert said == ["The user's name is Sam.", "The user lives at 14 Marlow Road, Bristol."]


def test_relatives_of_one_message_are_kept_one_record_each(understanding: Understanding) -> None:
    said = _kept(
        "my daughter Rosie is 7 and my husband's called Tom, he's a bus driver", understanding
    )
    assert said == ["The user's daughter Rosie is 7.", "The user's husband Tom is a bus driver."]


@pytest.mark.parametrize(
    ("then", "wanted"),
    [
        ("oh and Rosie turned 8 last week!", "The user's daughter Rosie is 8."),
        ("Rosie's 8 now", "The user's daughter Rosie is 8."),
        ("Tom is now 41", "The user's husband Tom is a bus driver; Tom is 41."),
    ],
)
def test_a_new_age_of_someone_kept_updates_their_record(
    then: str, wanted: str, understanding: Understanding
) -> None:
    first = "my daughter Rosie is 7 and my husband's called Tom, he's a bus driver"
    [(content, replaced)] = _talk([first, then], understanding)
    assert content == wanted and replaced is not None


def test_a_food_given_up_for_a_diet_is_not_a_dislike(understanding: Understanding) -> None:
    said = _talk(
        [
            "I love proper northern chippy teas",
            "I've gone vegetarian so no more chippy teas for me, just the chips",
        ],
        understanding,
    )
    assert said == [("The user is vegetarian.", None)]


def test_retraining_as_a_job_is_not_working_as_it(understanding: Understanding) -> None:
    said = _talk(
        [
            "I'm a dental hygienist",
            "I quit the dental job last month, I'm retraining as a plumber now",
        ],
        understanding,
    )
    wanted = "The user is retraining as a plumber and no longer works as a dental hygienist."
    assert [content for content, _ in said] == [wanted]


def test_a_job_left_for_training_says_both(understanding: Understanding) -> None:
    said = _talk(
        [
            "I'm a cashier",
            "I left the supermarket in May and I'm training to be an electrician now",
        ],
        understanding,
    )
    wanted = "The user is training as an electrician and no longer works as a cashier."
    assert [content for content, _ in said] == [wanted]


def test_a_new_age_of_someone_only_named_before(understanding: Understanding) -> None:
    said = _talk(["my son's called Alfie", "Alfie just turned 9 btw"], understanding)
    assert [content for content, _ in said] == ["The user's son Alfie is 9."]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        (
            "I live at 22 Church Lane, Derby with my partner",
            "The user lives at 22 Church Lane, Derby.",
        ),
        (
            "most days I'm up a ladder rewiring houses - electrician",
            "The user works as an electrician.",
        ),
    ],
)
def test_a_street_with_more_after_the_town_and_a_job_after_a_dash_with_its_article(
    text: str, wanted: str, understanding: Understanding
) -> None:
    assert wanted in _kept(text, understanding)
