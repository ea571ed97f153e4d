"""Issue 23, third pass: general mechanisms behind the paraphrase gap, on sentences written
for these tests (not from any bench set): typed "u", British "I've a", a note said as a label
and its value, "X is what I enjoy", the job named after what one does, and a job word the
rules know read whatever the slot model says."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from familiars.memory._offline._meaning import PARTS, Understanding, by_meaning, load_slot_model
from familiars.memory._offline._values import value_fact
from familiars.memory._offline._writes import facts_in

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)


def _contents(text: str) -> list[str]:
    return [f.content for f in facts_in(text, now=NOW, timezone="Europe/London")]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("pls can u remind me to water the ferns in 2 hours", "Remind the user to water the ferns"),
        ("I've a dentist appointment on Friday", "The user has a dentist appointment on Friday"),
        ("Friday I've a driving test", "The user has a driving test"),
        ("remember: locker number 14", "The user's locker number is 14."),
        ("I bake bread for a living", "The user works as a baker: bakes bread for a living."),
    ],
)
def test_more_wordings_are_read(text: str, wanted: str) -> None:
    assert any(c.startswith(wanted) for c in _contents(text)), _contents(text)


def test_a_secret_said_as_a_label_is_still_not_kept() -> None:
    assert _contents("remember: pin 4321") == []


def test_what_i_enjoy_is_a_like() -> None:
    facts = value_fact("like", "kayaking is what I enjoy most")
    assert [f.content for f in facts] == ["The user likes kayaking."]


class _Unsure(Understanding):
    """A slot model that is sure of nothing: only the rules' own job list can read a job."""

    def slots(self, clause: str) -> list[tuple[str, float]]:
        return [("workplace", 0.35), ("name", 0.25), ("job", 0.2), ("none", 0.2)]


def _unsure() -> Understanding:
    return _Unsure(
        embed=lambda texts: np.ones((len(texts), 384), dtype=np.float32) / np.sqrt(384),
        model=load_slot_model(),
        parts=frozenset(PARTS),
    )


@pytest.mark.parametrize(
    ("clause", "content"),
    [
        ("plumber here", "The user works as a plumber."),
        ("night shift nurse, that's me", "The user works as a night shift nurse."),
    ],
)
def test_a_known_job_word_is_read_whatever_the_slot(clause: str, content: str) -> None:
    assert [f.content for f in by_meaning(clause, _unsure())] == [content]


@pytest.mark.parametrize("clause", ["tired here", "my brother is a plumber", "night owl here"])
def test_no_job_without_a_known_job_word_of_ones_own(clause: str) -> None:
    # "my brother is a plumber" is the brother's job, kept as his (s32), never the user's
    facts = by_meaning(clause, _unsure())
    assert all(f.category == "relation" and "family" in f.tags for f in facts)
    assert not any("job" in f.tags for f in facts)


@pytest.mark.parametrize(
    ("clause", "content"),
    [
        ("I repair lawnmowers", "The user repairs lawnmowers for a living."),
        ("I run a tiny bakery", "The user runs a tiny bakery for a living."),
        ("I muck out ponies at a riding stables", "The user mucks out ponies at a riding stables"),
    ],
)
def test_a_trade_said_by_what_one_does_when_the_job_slot_is_likely(
    clause: str, content: str
) -> None:
    facts = value_fact("job", clause)
    assert facts and facts[0].content.startswith(content)


@pytest.mark.parametrize(
    "clause", ["I cook for my kids", "I walk my dog after work", "I fix my own bike", "I read"]
)
def test_what_one_does_for_ones_own_is_no_job(clause: str) -> None:
    assert value_fact("job", clause) == []


def test_a_trailing_aside_is_not_part_of_the_allergen() -> None:
    assert "The user is allergic to cat hair." in _contents(
        "I'm allergic to cat hair of all things"
    )
