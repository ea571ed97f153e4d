"""Person-tester finds (s30): a partner's or relative's job, a change of mind's new value,
titled pet names, pastimes kept as jobs, a hedged or past employer, a place that locates a
doing. Sentences written for these tests, not from any bench set."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.memory import MemoryRecord, offline_writes
from familiars.memory._offline._people import apposed, match_family
from familiars.memory._offline._relations import match_relations
from familiars.memory._offline._values import about_someone_else, gerund, value_fact

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)


def _kind(label: str):  # type: ignore[no-untyped-def]
    return lambda noun: label


@pytest.mark.parametrize(
    ("said", "plain"),
    [
        ("my boyfriend Luca, he's an electrician", "my boyfriend Luca is an electrician"),
        ("my daughter Isla's a midwife", "my daughter Isla is a midwife"),
        ("my husband, Tom, drives trains", "my husband Tom drives trains"),
        ("My partner Sam - she's a dentist", "My partner Sam is a dentist"),
        ("my office is at Google's London campus", "my office is at Google's London campus"),
    ],
)
def test_a_member_named_in_apposition_is_said_plainly(said: str, plain: str) -> None:
    assert apposed(said) == plain


def test_a_relatives_job_is_kept_with_their_name() -> None:
    assert [f.content for f in match_family("my boyfriend Luca, he's an electrician")] == [
        "The user's boyfriend Luca is an electrician."
    ]
    assert [f.content for f in match_family("my husband, Tom, drives trains")] == [
        "The user's husband Tom drives trains."
    ]


def test_a_member_known_by_meaning_keeps_what_is_said_of_them() -> None:
    facts = value_fact("family", "my fella Rohan, he's a paramedic", noun_kind=_kind("family"))
    assert [f.content for f in facts] == ["The user's fella Rohan is a paramedic."]


def test_a_named_members_job_is_never_the_speakers() -> None:
    assert about_someone_else("my bro Kieran works as a chef")
    assert value_fact("job", "my bro Kieran works as a chef", sure=True) == []
    assert not about_someone_else("my office is at Google's London campus")


def test_a_pastime_is_not_a_job_even_when_the_slot_is_sure() -> None:
    pastime = value_fact("job", "I read books", noun_kind=_kind("pastime"), sure=True)
    assert pastime == []
    job = value_fact("job", "I drive taxis", noun_kind=_kind("job"), sure=True)
    assert [f.content for f in job] == ["The user works as a driver: drives taxis for a living."]
    assert gerund("read", "books") == "reading books"
    assert gerund("drive", "taxis") == "driving taxis"


def test_a_liking_said_by_doing_is_a_like() -> None:
    facts = value_fact(
        "like", "I read a lot of crime novels", noun_kind=_kind("pastime"), sure=True
    )
    assert [f.content for f in facts] == ["The user likes reading crime novels."]


@pytest.mark.parametrize(
    ("text", "works_at"),
    [
        ("I work at Tesco, maybe for good", "Tesco"),
        ("I started at Lidl last week", "Lidl"),
        ("I've been at Philips for years", "Philips"),
        ("I'd love to work at Nintendo someday", None),
        ("I worked at Boots for years", None),
        ("I'm interviewing at Google", None),
        ("maybe I'll work at Tesco", None),
        ("hoping to work at Google", None),
    ],
)
def test_an_employer_is_read_by_the_verbs_tense_and_mood(text: str, works_at: str | None) -> None:
    facts = value_fact("workplace", text)
    said = [f.content for f in facts if "work" in f.tags]
    assert said == ([f"The user works at {works_at}."] if works_at else [])


def test_a_place_that_locates_a_doing_is_not_home() -> None:
    assert value_fact("home", "I mend bikes in a little shop in Cardiff") == []
    assert [f.content for f in value_fact("home", "I live in a flat in Hamburg")] == [
        "The user lives in Hamburg."
    ]


def test_titled_pet_names_are_kept_whole() -> None:
    facts = value_fact("pet", "we've a rabbit, Mrs Nibbles", noun_kind=_kind("pet"), sure=True)
    assert [f.content for f in facts] == ["The user has a rabbit called Mrs Nibbles."]
    said = [f.content for f in match_relations("my hamster is Professor Crumbs")]
    assert said == ["The user's hamster is called Professor Crumbs."]


def test_a_relatives_pet_is_not_the_speakers() -> None:
    assert value_fact("pet", "my daughter has a hamster called Nibbles", sure=True) == []


def _prior(content: str, category: str, tags: list[str]) -> MemoryRecord:
    return MemoryRecord(
        id="m_old", scope="user", category=category, content=content, tags=tags, user_key="u"
    )


@pytest.mark.parametrize(
    ("text", "prior", "new", "old"),
    [
        (
            "Actually I don't really like coffee anymore, I switched to tea",
            _prior("The user likes coffee.", "preference", ["likes", "topic:coffee"]),
            "tea",
            "coffee",
        ),
        (
            "I used to love chess but switched to go",
            _prior("The user likes chess.", "preference", ["likes", "topic:chess"]),
            "go",
            "chess",
        ),
        (
            "I don't live in Dublin anymore, I'm in Cork now",
            _prior("The user lives in Dublin.", "profile", ["home"]),
            "Cork",
            "",
        ),
    ],
)
def test_a_change_of_mind_keeps_the_new_value(
    text: str, prior: MemoryRecord, new: str, old: str
) -> None:
    out = offline_writes(text, existing=[prior], now=NOW)
    updates = [w for w in out.writes if w.entry.supersedes_id == "m_old"]
    assert len(updates) == 1
    content = updates[0].entry.content
    assert new in content and old in content and "no longer" not in content.split(new)[0]


def test_a_past_event_with_its_time_is_kept_and_asked_by_its_verb() -> None:
    from zoneinfo import ZoneInfo

    from familiars.memory._offline._past import match_seen, when_did

    tz = ZoneInfo("Europe/London")
    seen = match_seen("I saw Radiohead in Manchester last June", now=NOW, tz=tz)
    assert seen is not None
    assert seen.content == "The user saw Radiohead in Manchester in June 2026."
    assert match_seen("I watched the match last night", now=NOW, tz=tz) is None
    kept = [seen.content, "The user saw Coldplay in 2019."]
    assert when_did("When did I see them?", kept) == ["The user saw Coldplay in 2019."]
    assert when_did("when did I see Radiohead?", kept) == [seen.content]
    assert when_did("what did I see?", kept) == []


def test_what_do_you_know_about_me_names_every_pet_and_relative() -> None:
    from familiars.memory._offline._asking import about_me

    said = [
        "The user's name is Zoe.",
        "The user has a dog called Rex.",
        "The user has a dog called Fido.",
        "The user has a cat called Mr Pickles.",
        "The user's sister Meg is a vet.",
        "The user's brother is called Tom.",
        "The user likes jazz.",
        "The user lives in Leeds.",
    ]
    tags = [["name"], ["pet"], ["pet"], ["pet"], ["family"], ["family"], ["likes"], ["home"]]
    records = [
        MemoryRecord(
            id=f"m{i}", scope="user", category="profile", content=c, tags=t, user_key="u",
            ts=f"2026-11-30T10:{i:02d}:00+00:00",
        )
        for i, (c, t) in enumerate(zip(said, tags, strict=True))
    ]  # fmt: skip
    told = {r.content for r in about_me(records)}
    assert told == set(said)
