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
    ],
)
def test_a_value_put_right_replaces_the_record_that_held_the_wrong_one(
    first: str, then: str, wanted: str, understanding: Understanding
) -> None:
    assert _talk([first, then], understanding) == [(wanted, "m0-0")]


def test_a_value_no_record_holds_is_not_put_right(understanding: Understanding) -> None:
    said = _talk(["I'm allergic to penicillin", "it's fine, not a problem"], understanding)
    assert all("penicillin" not in content for content, _ in said)
