"""s38 person-test: a possessive read as a name and a denied name read as one. "They are my
son Richard's children" kept a son called "Richard's" (later "Your sons are Richard's and
Richard"), "my daughter Jess's car broke down" kept "Jess is car broke down", and "my name's
not Dele actually, everyone calls me Dayo" renamed the person "Name's"."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from familiars.memory import MemoryRecord, offline_writes, understanding_for

NOW = datetime(2026, 12, 7, 13, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def understanding(real_embedder: Any) -> Any:
    return understanding_for(real_embedder.embed_batch, *real_embedder.space)


def _kept(text: str, u: Any, *prior: str) -> list[str]:
    existing = [
        MemoryRecord(id=f"m_p{i}", scope="user", user_key="u", content=c, category="profile",
                     tags=["name"])
        for i, c in enumerate(prior)
    ]  # fmt: skip
    writes = offline_writes(text, existing=existing, now=NOW, understanding=u).writes
    return [
        w.entry.content + (f" (was {w.entry.supersedes_id})" if w.entry.supersedes_id else "")
        for w in writes
        if w.op != "skip"
    ]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("They are my son Richard's children.", ["The user's son is called Richard."]),
        ("my daughter Jess's car broke down", ["The user's daughter is called Jess."]),
        ("my daughter Jess's a nurse", ["The user's daughter Jess is a nurse."]),
        ("Tom's wife Sarah is lovely", ["Tom's wife is called Sarah."]),
    ],
)
def test_a_possessive_is_no_name(text: str, wanted: list[str], understanding: Any) -> None:
    assert _kept(text, understanding) == wanted


@pytest.mark.parametrize(
    "text",
    [
        "my name's not Dele actually, everyone calls me Dayo, Dele was my dad's name",
        "my name isn't Dele, it's Dayo",
        "my names not Dele lol, I go by Dayo",
    ],
)
def test_a_denied_name_gives_the_one_used(text: str, understanding: Any) -> None:
    assert _kept(text, understanding, "The user's name is Dele.") == [
        "The user's name is Dayo. (was m_p0)"
    ]


@pytest.mark.parametrize(
    "text",
    [
        "my name's not Dele actually",
        "My name is not Dele, I'm Dele's brother",  # review s38 F4
        "my name's not Dele, it's OK",
        "my name's not Dele, I'm Spanish",
        "my name's not Dele, I'm Italian",
        "my name's not Dele, call me Tommy's dad",
    ],
)
def test_a_denied_name_without_another_renames_no_one(text: str, understanding: Any) -> None:
    assert _kept(text, understanding, "The user's name is Dele.") == []


@pytest.mark.parametrize("name", ["Brian", "Adrian", "Dayo"])
def test_a_name_that_ends_like_a_nationality_is_still_a_name(name: str, understanding: Any) -> None:
    assert _kept(f"my name isn't Dele, it's {name}", understanding, "The user's name is Dele.") == [
        f"The user's name is {name}. (was m_p0)"
    ]


def test_a_break_up_with_a_partner_named_in_passing_says_so(understanding: Any) -> None:
    """tester s38: "Dev and I are done for good. single now" kept "No longer so: The user's
    partner Dev is a paramedic." and said "Updated: no longer so: ... now"."""
    existing = [
        MemoryRecord(id="m_p0", scope="user", user_key="u", category="relation",
                     content="The user's partner Dev is a paramedic.", tags=["family"])
    ]  # fmt: skip
    writes = offline_writes(
        "Dev and I are done for good. single now",
        existing=existing,
        now=NOW,
        understanding=understanding,
    ).writes
    assert [w.entry.content for w in writes if w.op != "skip"] == [
        "The user and Dev have broken up; Dev is no longer their partner."
    ]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        # tester s38: "Noted: you live in Last Week."
        ("I live in Ripon now, moved in last week", ["The user lives in Ripon."]),
        ("we moved in a month ago", []),
        # tester s38: "Noted: your new baby is called Mrs Hale."
        ("my daughter's teacher Mrs Hale has a new baby", []),
        ("my parrot Rio is a menace", ["The user has a parrot called Rio, who is a menace."]),
    ],
)
def test_no_time_for_a_place_nor_a_name_for_a_noun_after_it(
    text: str, wanted: list[str], understanding: Any
) -> None:
    assert _kept(text, understanding) == wanted
