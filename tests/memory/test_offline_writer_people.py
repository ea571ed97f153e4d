"""The broadened offline writer: jobs, workplaces, pets, family, plans, nicknames, changes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.memory import MemoryRecord
from familiars.memory._offline._writes import facts_in, offline_writes

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)
TZ = "Europe/Berlin"

FINDS = [
    ("I'm a nurse", [("job", "The user works as a nurse.")]),
    (
        "I work as a pediatric nurse at St. Mary's",
        [
            ("job", "The user works as a pediatric nurse."),
            ("work", "The user works at St. Mary's."),
        ],
    ),
    ("I just got a job at Deloitte", [("work", "The user works at Deloitte.")]),
    (
        "I have a golden retriever called Biscuit",
        [("pet:biscuit", "The user has a golden retriever called Biscuit.")],
    ),
    ("My dog's name is Biscuit", [("pet:biscuit", "The user has a dog called Biscuit.")]),
    ("My sister Emma is vegetarian", [("family:emma", "The user's sister Emma is vegetarian.")]),
    ("I have two kids", [("family:kid", "The user has two kids.")]),
    ("Call me Ali from now on", [("name", "The user's name is Ali.")]),
    ("My friends call me Bee", [("nickname", "The user's nickname is Bee.")]),
    ("I moved from Leeds to Bristol", [("home", "The user lives in Bristol.")]),
    ("I fix teeth for a living", [("job", "The user fixes teeth for a living.")]),
    ("I have two dogs", [("pet:dog", "The user has two dogs.")]),
    (
        "I have two cats, Pixel and Mochi",
        [
            ("pet:pixel", "The user has a cat called Pixel."),
            ("pet:mochi", "The user has a cat called Mochi."),
        ],
    ),
    (
        "I have three cats called Pixel, Mochi and Tofu",
        [
            ("pet:pixel", "The user has a cat called Pixel."),
            ("pet:mochi", "The user has a cat called Mochi."),
            ("pet:tofu", "The user has a cat called Tofu."),
        ],
    ),
    (
        "I have a dog called Rex and a cat called Tom",
        [
            ("pet:rex", "The user has a dog called Rex."),
            ("pet:tom", "The user has a cat called Tom."),
        ],
    ),
    ("For a living I wash dishes", [("job", "The user washes dishes for a living.")]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "want"), FINDS)
def test_finds_people_and_work(text: str, want: list[tuple[str, str]]) -> None:
    assert [(f.key, f.content) for f in facts_in(text, now=NOW, timezone=TZ)] == want


def test_a_trip_keeps_its_time_and_the_family_named() -> None:
    facts = facts_in("Next month I'm going to Lisbon with my husband Tom", now=NOW, timezone=TZ)
    by_tag = {f.tags[0]: f.content for f in facts}
    assert by_tag["plan"] == (
        "The user is going to Lisbon with their husband Tom next month (December 2026)."
    )
    assert by_tag["family"] == "The user's husband is called Tom."


@pytest.mark.parametrize(
    "text",
    [
        "I'm a night owl",
        "I'm a big believer in second chances",
        "My friend Sam is allergic to nuts",
        "He has a golden retriever called Biscuit",
        "If I had a dog I'd call it Biscuit",
        "I'm going to bed",
        "I'm going to be late tomorrow",
        "Are you going to Lisbon next month?",
        "I have a lot of work today",
        "My sister likes jazz",
    ],
)
def test_does_not_misread_people(text: str) -> None:
    assert facts_in(text, now=NOW, timezone=TZ) == []


def _rec(content: str, category: str, *tags: str) -> MemoryRecord:
    return MemoryRecord(id="m_old", scope="user", category=category, content=content,
                        tags=list(tags), user_key="u1")  # fmt: skip


SPICY = _rec("The user likes spicy Thai food.", "preference", "likes", "topic:spicy-thai-food")
ACME = _rec("The user works at Acme.", "profile", "work")


@pytest.mark.parametrize(
    ("text", "old"),
    [
        ("I don't like spicy food anymore", SPICY),
        ("I'm not into spicy stuff anymore", SPICY),
        ("I've gone off spicy food", SPICY),
        ("I don't work at Acme anymore", ACME),
        ("I left Acme last month", ACME),
        ("I quit coffee, now I drink green tea",
         _rec("The user likes coffee.", "preference", "likes", "topic:coffee")),
    ],
)  # fmt: skip
def test_a_change_of_mind_supersedes_the_record_it_names(text: str, old: MemoryRecord) -> None:
    out = offline_writes(text, existing=[old], now=NOW, timezone=TZ)
    assert "m_old" in [w.entry.supersedes_id for w in out.writes if w.op == "update"]


@pytest.mark.parametrize(
    ("text", "old"),
    [
        ("I left my keys at work", ACME),
        ("My friend doesn't like spicy food anymore", SPICY),
        ("I hate coffee", _rec("The user likes coffee cake.", "preference", "likes",
                                "topic:coffee-cake")),
        ("I don't like cold coffee", _rec("The user likes coffee.", "preference", "likes",
                                          "topic:coffee")),
    ],
)  # fmt: skip
def test_nothing_else_is_taken_back(text: str, old: MemoryRecord) -> None:
    out = offline_writes(text, existing=[old], now=NOW, timezone=TZ)
    assert all(w.entry.supersedes_id is None for w in out.writes)
