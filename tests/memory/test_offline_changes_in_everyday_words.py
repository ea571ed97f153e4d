"""s38 person-test: changes of mind said in everyday words were missed, so the old value was
answered as current: "ok new gf, her name's Sofia. kayla is old news", "sofia and me r done
fr this time. single now", "me n kayla broke up", "my fav food is pizza. actually nah, its
sushi", "i dont hate maths anymore", "I'm not on nights anymore, I'm on earlies", a job
"packed in", a bare "i quit", and a pet's death against a record that says more than its
name. Each through the offline writer with understanding by meaning, against the record the
person had; the old record must be superseded, and by what the message says instead."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from familiars.memory import MemoryRecord, offline_writes, understanding_for

NOW = datetime(2026, 12, 7, 20, 0, tzinfo=UTC)
KAYLA = ("The user's girlfriend is called Kayla.", "relation", ["people", "topic:kayla"])
SOFIA = ("The user's girlfriend is called Sofia.", "relation", ["people", "topic:sofia"])
TOM = ("The user's boyfriend is called Tom.", "relation", ["people", "topic:tom"])
MATHS = ("The user doesn't like maths.", "preference", ["dislikes", "topic:math"])
CHESS = ("The user likes chess.", "preference", ["likes", "topic:chess"])
NIGHTS = ("The user works nights.", "profile", ["state", "topic:night"])
CINEMA = ("The user works at the cinema.", "profile", ["work"])
WAREHOUSE = (
    "The user loads and unloads lorries on the night shift at a warehouse.",
    "profile",
    ["job"],
)
DARCY = (
    "The user's cat is called Mr Darcy, who is a Maine Coon.",
    "relation",
    ["pet", "topic:mr-darcy"],
)
REX = ("The user's dog is called Rex, a border collie.", "relation", ["pet", "topic:rex"])


@pytest.fixture(scope="module")
def understanding(real_embedder: Any) -> Any:
    return understanding_for(real_embedder.embed_batch, *real_embedder.space)


def _writes(text: str, prior: tuple[str, str, list[str]] | None, u: Any) -> list[str]:
    existing = []
    if prior is not None:
        content, category, tags = prior
        existing = [
            MemoryRecord(
                id="m_p0", scope="user", user_key="u", content=content, category=category, tags=tags
            )
        ]
    writes = offline_writes(text, existing=existing, now=NOW, understanding=u)
    return [
        w.entry.content + (" (was m_p0)" if w.entry.supersedes_id == "m_p0" else "")
        for w in writes.writes
        if w.op != "skip"
    ]


@pytest.mark.parametrize(
    ("text", "prior", "wanted"),
    [
        # a partner named anew, or parted from, in everyday words
        ("ok new gf, her name's Sofia. kayla is old news", KAYLA, "Sofia. (was m_p0)"),
        ("new boyfriend! his name is Marcus, Tom is history", TOM, "Marcus. (was m_p0)"),
        ("sofia and me r done fr this time. single now 😎", SOFIA, "no longer"),
        ("me n kayla broke up :( its over", KAYLA, "broken up"),
        ("kayla n me are over", KAYLA, "broken up"),
        ("im single again lol", KAYLA, "no longer"),
        ("Tom and I are done for good.", TOM, "no longer"),
        # a like or dislike taken back with "anymore"
        ("tbh i dont hate maths anymore, new teacher is kinda goated", MATHS, "no longer"),
        ("honestly I don't like chess anymore", CHESS, "chess. (was m_p0)"),
        # a way of working said over, with what replaced it
        (
            "so I'm not on nights anymore, I'm on earlies",
            NIGHTS,
            "on earlies now, no longer working nights. (was m_p0)",
        ),
        ("not working nights any more, im on days now", NIGHTS, "(was m_p0)"),
        # a job left with no object named, or said without "I"
        ("jk i quit already its so boring", CINEMA, "(was m_p0)"),
        ("i quit lol", CINEMA, "(was m_p0)"),
        (
            "packed in the warehouse job last week, I do the early bread deliveries for a "
            "bakery in Fitzroy now, van from 4am",
            WAREHOUSE,
            "bakery in Fitzroy. (was m_p0)",
        ),
        # a pet's death against a record that says more than the pet's name
        (
            "I should tell you that Mr Darcy passed away this morning. The vet said it was "
            "his kidneys. He was fifteen.",
            DARCY,
            "(it died). (was m_p0)",
        ),
        ("Rex died last night, we had to put him down", REX, "(it died). (was m_p0)"),
    ],
)
def test_a_change_in_everyday_words_supersedes_the_old_record(
    text: str, prior: tuple[str, str, list[str]], wanted: str, understanding: Any
) -> None:
    said = _writes(text, prior, understanding)
    assert any(wanted in w and "(was m_p0)" in w for w in said), said


@pytest.mark.parametrize(
    ("text", "prior", "wanted"),
    [
        ("ok new gf, her name's Sofia. kayla is old news", KAYLA, "girlfriend is called Sofia"),
        ("new boyfriend! his name is Marcus, Tom is history", TOM, "boyfriend is called Marcus"),
    ],
)
def test_a_new_partner_said_with_new_is_kept(
    text: str, prior: tuple[str, str, list[str]], wanted: str, understanding: Any
) -> None:
    said = _writes(text, prior, understanding)
    assert any(wanted in w for w in said), said


@pytest.mark.parametrize(
    ("text", "wanted", "unwanted"),
    [
        ("my fav food is pizza. actually nah, its sushi", "sushi", "pizza"),
        ("my favourite colour is red, actually no, it's green", "green", "red"),
        ("my fav band is oasis. actually nah its blur", "blur", "oasis"),
    ],
)
def test_a_value_taken_back_in_the_same_message_is_kept_as_the_second(
    text: str, wanted: str, unwanted: str, understanding: Any
) -> None:
    said = _writes(text, None, understanding)
    assert any(wanted in w.lower() for w in said), said
    assert not any(unwanted in w.lower() for w in said), said


@pytest.mark.parametrize(
    ("text", "prior"),
    [
        ("me and kayla went to the cinema, it was done by 9", KAYLA),
        ("i still hate maths", MATHS),
        ("my mate is single now", KAYLA),
        ("i quit smoking last year", CINEMA),
        ("the film is old news", KAYLA),
    ],
)
def test_what_ends_nothing_of_the_record_leaves_it(
    text: str, prior: tuple[str, str, list[str]], understanding: Any
) -> None:
    said = _writes(text, prior, understanding)
    assert not any("(was m_p0)" in w for w in said), said


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("my fav food is pizza, actually its so good", "pizza"),
        ("my favourite colour is red. no wait it's the best colour", "red"),
    ],
)
def test_praise_after_a_value_keeps_it(text: str, wanted: str, understanding: Any) -> None:
    said = _writes(text, None, understanding)
    assert any(wanted in w.lower() for w in said), said
