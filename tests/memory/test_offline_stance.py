"""The writer_s36 wordings (issue 23, s36): what a clause claims, not only what it is about.

A slot says what a clause is about; whether the speaker claims it of themselves now is read
by syntax first (a denied being, a belief about someone else, a past that is over, a wish
claim nothing). Several facts in one chatty opener are each kept: a second verb after "and"
shares the clause's "I", a greeting or a pictograph ends what was said before it, a terse
introduction names a job and a town after the name. A friend's pet is not the user's
relation. Each through the offline writer as the runtime calls it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.memory import Understanding, offline_writes, understanding_for

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def understanding(real_embedder: object) -> Understanding:
    found = understanding_for(real_embedder.embed_batch, *real_embedder.space)  # type: ignore[attr-defined]
    assert found is not None
    return found


def _said(text: str, understanding: Understanding | None = None) -> list[str]:
    output = offline_writes(
        text, existing=[], now=NOW, timezone="Europe/London", understanding=understanding
    )
    return [w.entry.content for w in output.writes if w.op != "skip"]


@pytest.mark.parametrize(
    "text",
    [
        "I'm not vegan, my flatmate is",  # a denied being: the diet slot, not claimed
        "i'm pretty sure she's called Becky, the new receptionist",  # a belief about her
        "I had a hamster called Nibbles when I was little",  # a past that is over
        "my friend's dog is called Max",  # someone else's pet
        "My neighbour's dog is called Rex",
    ],
)
def test_a_clause_that_claims_nothing_of_the_speaker_now_keeps_nothing(
    text: str, understanding: Understanding
) -> None:
    assert _said(text, understanding) == []


def test_a_relatives_pet_is_still_kept_and_a_dislike_by_negation_still_read(
    understanding: Understanding,
) -> None:
    assert _said("my sister's dog is called Rex") == ["The user's sister's dog is called Rex."]
    assert any("coriander" in c for c in _said("can't stand coriander", understanding))


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        (
            "morning! jo here, I drive buses in Glasgow and have a greyhound called Dash",
            ["name is Jo", "drives buses in Glasgow", "greyhound called Dash"],
        ),
        (
            "I'm 45, a plumber, and I've got a Jack Russell named Pip",
            ["45 years old", "works as a plumber", "jack russell called Pip"],
        ),
        ("hiya, I'm Maren, a paediatric nurse in Leeds", ["name is Maren", "paediatric nurse"]),
        (
            "evening all 👋 Priyanka, 31, accountant, Birmingham",
            ["name is Priyanka", "31 years old", "accountant", "lives in Birmingham"],
        ),
        ("Yo. Marcus. Welder. Sheffield.", ["name is Marcus", "welder", "lives in Sheffield"]),
        ("hiya, Callum here. I drive a bin lorry", ["name is Callum", "bin lorry"]),
    ],
)
def test_each_fact_of_a_chatty_or_terse_opener_is_kept(
    text: str, wanted: list[str], understanding: Understanding
) -> None:
    said = " | ".join(_said(text, understanding))
    for part in wanted:
        assert part in said, (part, said)


@pytest.mark.parametrize(
    "text",
    [
        "I like rock and roll a lot",  # "and" before no verb: one liking
        "my husband drives buses and has a greyhound called Dash",  # his, not the user's
        "morning runs are the best",  # "morning" with no mark is no greeting
        "Milo, Luna, Coco",  # a list of names is no introduction
    ],
)
def test_look_alikes_of_openers_and_shared_verbs_keep_no_fact_of_the_users_own(
    text: str,
) -> None:
    said = _said(text)
    assert not any("The user's name" in c or "The user has a greyhound" in c for c in said)
    assert not any(c.startswith("The user lives") for c in said)


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("three kids, Marcus, Jaylen and little Nia", "three kids called Marcus, Jaylen and Nia"),
        ("grew up in Whitby, live in York now", "The user lives in York."),
        ("hubby's name is craig, he's a sparky", "The user's hubby is called Craig."),
    ],
)
def test_a_fond_word_before_a_name_a_bare_verb_after_a_comma_and_a_bare_kin_word_are_read(
    text: str, wanted: str, understanding: Understanding
) -> None:
    said = _said(text, understanding)
    assert any(wanted in c for c in said), said
    assert not any("sparky is called" in c for c in said)


def test_a_move_said_after_someone_missed_is_theirs() -> None:
    said = _said("I miss my brother, moved to Australia last year")
    assert not any(c.startswith("The user lives") or "moved" in c for c in said)
