"""Person-tester finds (s31): jobs said by what one does with a town or an employer, pets by
breed or nickname, partner words, likings said by idiom, moves said by being somewhere for
good, pastimes that are a thing of the past. Sentences written for these tests, not from any
bench set; the noun classifier is stood in for by a fixed label."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.memory import MemoryRecord, offline_writes
from familiars.memory._offline._asking import _of_the_relative_asked
from familiars.memory._offline._patterns import match_preference
from familiars.memory._offline._values import known_home, known_job, named_mine, value_fact

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)


def _kind(label: str):  # type: ignore[no-untyped-def]
    return lambda noun: label


def _record(content: str, category: str, tags: list[str], rid: str = "m_old") -> MemoryRecord:
    return MemoryRecord(
        id=rid, scope="user", category=category, content=content, tags=tags, user_key="u"
    )


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("I'm daft about steam trains", "The user likes steam trains."),
        ("I'm partial to a bacon roll", "The user likes a bacon roll."),
        ("I've got a soft spot for old westerns", "The user likes old westerns."),
        ("birdwatching's right up my street", "The user likes birdwatching."),
        ("nothing beats a Sunday roast", "The user likes a Sunday roast."),
        ("I can't be arsed with golf", "The user doesn't like golf."),
        ("I'm not fussed about musicals", "The user doesn't like musicals."),
        ("rugby leaves me cold", "The user doesn't like rugby."),
        ("techno does nothing for me", "The user doesn't like techno."),
        ("jazz isn't really my cup of tea", "The user doesn't like jazz."),
        ("I have no time for reality shows", "The user doesn't like reality shows."),
    ],
)
def test_a_liking_said_by_idiom_has_its_polarity(text: str, content: str) -> None:
    fact = match_preference(text)
    assert fact is not None and fact.content == content


@pytest.mark.parametrize(
    "text",
    ["that does nothing for me", "it's not my cup of tea", "my mum is mad about bingo"],
)
def test_an_idiom_about_no_thing_or_someone_else_keeps_nothing(text: str) -> None:
    assert match_preference(text) is None


def test_a_job_said_by_what_one_does_keeps_the_town() -> None:
    facts = known_job("I drive vans in Derby", 0.4, kind=_kind("job"))
    assert [f.content for f in facts] == [  # the town is where the work is, not a home
        "The user works as a driver: drives vans in Derby for a living.",
    ]


def test_a_doing_that_reads_as_a_pastime_or_a_chore_is_no_job() -> None:
    assert known_job("I paint landscapes in Derby", 0.4, kind=_kind("pastime")) == []
    assert known_job("I drive my kids to school", 0.4, kind=_kind("job")) == []
    assert known_job("I drive vans in Derby", 0.1, kind=_kind("job")) == []


def test_an_employer_named_after_the_doing_is_the_workplace() -> None:
    facts = known_job("I drive lorries for Hargreaves", 0.45, kind=_kind("job"))
    contents = [f.content for f in facts]
    assert any("Hargreaves" in c for c in contents)
    assert any("lorries" in c for c in contents)
    assert not any("a living" in c for c in [f.content for f in known_job(
        "I fix roofs for a living", 0.9, kind=_kind("job"))] if "works at" in c)  # fmt: skip


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("we're in Whitby now", "Whitby"),
        ("I've been in Hove since March", "Hove"),
        ("we're settled in Bangor for good", "Bangor"),
        ("I'm in Rome this week", None),
        ("we're in Whitby for the weekend", None),
    ],
)
def test_a_home_said_by_being_somewhere_for_good(text: str, place: str | None) -> None:
    facts = known_home(text, 0.45)
    assert [f.content for f in facts] == ([f"The user lives in {place}."] if place else [])


def test_a_home_needs_the_home_slot_at_least_as_a_runner_up() -> None:
    assert known_home("we're in Whitby now", 0.2) == []


def test_someone_of_ones_own_named_is_read_by_the_nouns_kind() -> None:
    assert named_mine("my bloke is called Gaz")
    assert named_mine("our moggy's name is Smudge")
    assert not named_mine("my mate's bloke is called Gaz")
    facts = value_fact("family", "my bloke is called Gaz", noun_kind=_kind("family"))
    assert [f.content for f in facts] == ["The user's bloke is called Gaz."]
    assert value_fact("family", "my boss is called Dana", noun_kind=_kind("other")) == []


def test_a_pet_said_to_be_there_is_the_speakers_only_when_said_so() -> None:
    story = "there's a dog called Rex in that film"
    assert value_fact("pet", story, noun_kind=_kind("pet"), sure=True) == []
    ours = value_fact(
        "pet", "there's a whippet called Dot in our house", noun_kind=_kind("pet"), sure=True
    )
    assert [f.content for f in ours] == ["The user has a whippet called Dot."]


def test_a_chore_done_for_the_family_is_not_a_liking() -> None:
    chore = "I bake bread for the kids on Sundays"
    assert value_fact("like", chore, noun_kind=_kind("pastime"), sure=True) == []


def test_what_one_mostly_does_now_is_a_like() -> None:
    facts = value_fact("like", "these days it's mostly yoga", sure=True)
    assert [f.content for f in facts] == ["The user likes yoga."]


def test_a_liking_said_in_the_past_by_idiom_is_taken_back() -> None:
    prior = _record("The user likes darts.", "preference", ["likes", "topic:darts"])
    out = offline_writes("I was well into darts", existing=[prior], now=NOW)
    updates = [w for w in out.writes if w.entry.supersedes_id == "m_old"]
    assert [w.entry.content for w in updates] == ["The user no longer likes darts."]


def test_a_question_with_one_partner_word_finds_a_record_with_another() -> None:
    fella = _record("The user's fella Rohan is a paramedic.", "relation", ["family"])
    sister = _record("The user's sister Ana is a vet.", "relation", ["family"], "m_2")
    assert _of_the_relative_asked("what does my partner do?", [fella, sister]) == [fella]
    partner = _record("The user's partner Sam is a dentist.", "relation", ["family"])
    assert _of_the_relative_asked("what's my other half's job?", [partner, sister]) == [partner]


def test_a_pet_in_a_story_the_speaker_reads_is_not_theirs() -> None:
    """Found in the piped chat: the "I'm" of "that book I'm reading" made it the speaker's."""
    story = "there's a horse called Shadowfax in that book I'm reading"
    assert value_fact("pet", story, noun_kind=_kind("pet"), sure=True) == []


def test_a_terse_dislike_by_idiom_needs_no_i() -> None:
    """Found in the piped chat: "not fussed about football" was kept as nothing."""
    fact = match_preference("not fussed about football")
    assert fact is not None and fact.content == "The user doesn't like football."
    assert match_preference("not fussed about him") is None
