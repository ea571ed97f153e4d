"""Tester s39 finding 6, wrong or garbled memories of the offline writer, each in the
tester's words and in other words: an employer said before the job swallowed the rest of the
message ("gardening at Tesco my cat is called Mochi"), a forget request was kept as a fact
("allergic to forget the"), a break-up said in passing kept the partner as current, a filler
word was part of a value ("actually fontaines dc"), and the ages of named children were lost.
The bundled model reads as the offline bot does."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from familiars.memory import MemoryRecord, offline_writes, understanding_for

NOW = datetime(2026, 12, 9, 13, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def understanding(real_embedder: Any) -> Any:
    return understanding_for(real_embedder.embed_batch, *real_embedder.space)


def _rec(i: int, content: str, tags: list[str], cat: str = "profile") -> MemoryRecord:
    return MemoryRecord(
        id=f"m_{i}", scope="user", category=cat, content=content, tags=tags,
        ts=(NOW - timedelta(days=3)).isoformat(),
    )  # fmt: skip


def _said(text: str, understanding: Any, existing: list[MemoryRecord] | None = None) -> list[str]:
    out = offline_writes(
        text,
        existing=existing or [],
        now=NOW,
        timezone="Europe/London",
        understanding=understanding,
    )
    return [f"{w.op} {w.entry.content}" for w in out.writes if w.op != "skip"]


def test_an_employer_before_the_job_keeps_the_rest_of_the_message(understanding: Any) -> None:
    said = _said(
        "I work at Tesco as a shift manager and I love gardening. my cat is called Mochi",
        understanding,
    )
    assert said == [
        "add The user works as a shift manager.",
        "add The user works at Tesco.",
        "add The user likes gardening.",
        "add The user has a cat called Mochi.",
    ]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (
            "I work for Aldi as a cashier, I love hiking",
            ["add The user works as a cashier.", "add The user works at Aldi.",
             "add The user likes hiking."],
        ),  # fmt: skip
        (
            "I work at Barclays as a QA engineer now. my dog is called Rex",
            ["add The user works as a qa engineer.", "add The user works at Barclays.",
             "add The user has a dog called Rex."],
        ),  # fmt: skip
    ],
)
def test_an_employer_before_the_job_in_other_words(
    understanding: Any, text: str, want: list[str]
) -> None:
    assert _said(text, understanding) == want
