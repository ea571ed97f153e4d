"""Second reviewer's s33 false memories of the offline writer (items 5, 6, 8, 10): "I meant
tea" renamed a dog, "actually I like Jerry, not Tom" renamed a husband, "I have hives in my
garden" was a condition, "my sister Jane was here on Monday" was pinned to next Monday."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from familiars.memory import MemoryRecord, offline_writes

NOW = datetime(2026, 12, 9, 13, 0, tzinfo=UTC)  # a Wednesday
SAT = "Saturday 12 December 2026"
#: A coming birthday said with the age turned keeps the day as a birthday too (s34).
JEAN = f"The user's mum Jean turns 80 on {SAT} (birthday December 12)."


def _said(text: str, existing: list[MemoryRecord] | None = None) -> list[str]:
    writes = offline_writes(text, existing=existing or [], now=NOW, timezone="Europe/London")
    return [f"{w.op} {w.entry.content}" for w in writes.writes]


def _rec(
    i: int, content: str, tags: list[str], ago: timedelta, cat: str = "relation"
) -> MemoryRecord:
    return MemoryRecord(
        id=f"m_{i}", scope="user", category=cat, content=content, tags=tags,
        ts=(NOW - ago).isoformat(),
    )  # fmt: skip


JUST = timedelta(minutes=1)
LONG = timedelta(days=20)


def _updates(text: str, existing: list[MemoryRecord]) -> list[str]:
    return [w for w in _said(text, existing) if w.startswith("update")]


def test_i_meant_renames_only_a_capitalised_name_just_said() -> None:
    max_ = _rec(1, "The user has a dog called Max.", ["pet", "topic:max"], JUST)
    assert _updates("I meant tea", [max_]) == []
    assert _updates("oh I meant Rex", [max_]) == ["update The user has a dog called Rex."]
    emma = _rec(2, "The user's sister is called Emma.", ["family", "topic:emma"], LONG)
    old_max = _rec(1, "The user has a dog called Max.", ["pet", "topic:max"], LONG)
    assert _updates("oh I meant Lidl", [emma, old_max]) == []
    plan = _rec(3, "The user is going to Lidl later.", ["plan"], JUST, "event")
    assert _updates("I meant Aldi", [max_, plan]) == []  # the last thing said was no name


def test_x_not_y_without_naming_or_apology_corrects_nothing() -> None:
    tom = _rec(1, "The user's husband is called Tom.", ["family", "topic:tom"], LONG)
    assert _updates("actually I like Jerry, not Tom", [tom]) == []
    assert _updates("it's Jerry I like, not Tom", [tom]) == []
    paris = _rec(2, "The user's sister lives in Paris.", ["family", "topic:paris"], LONG)
    assert _updates("actually we're going to Rome, not Paris", [paris]) == []
    assert _updates("sorry, Rome not Paris", [paris]) == []  # a place is no name
    assert _updates("it's Tim not Tom", [tom]) == ["update The user's husband is called Tim."]
    assert _updates("actually his name is Tim, not Tom", [tom]) == [
        "update The user's husband is called Tim."
    ]


@pytest.mark.parametrize(
    "text",
    [
        "I have hives in my garden",
        "I have empathy",
        "I have nostalgia",
        "I take 30g of protein a day",
        "I take 2g of creatine daily",
        "I take 5 units of vitamins",
    ],
)
def test_ordinary_words_are_no_health_records(text: str) -> None:
    assert _said(text) == []


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("I have hives", "add The user has hives."),
        ("I have arthritis in my knees", "add The user has arthritis."),
        ("I have fibromyalgia", "add The user has fibromyalgia."),
        ("I take 50mg of sertraline", "add The user takes 50mg of sertraline."),
    ],
)
def test_health_still_kept(text: str, wanted: str) -> None:
    assert _said(text) == [wanted]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("my sister Jane was here on Monday", "The user's sister Jane was here on Monday."),
        ("my son Tom plays football on Saturday", "The user's son Tom plays football on Saturday."),
        ("My mum Jean turns 80 next Saturday", JEAN),
        ("My mum Jean turns 80 this coming Saturday", JEAN),
        ("my son Tom is playing golf on Saturday", f"The user's son Tom is playing golf on {SAT}."),
    ],
)  # fmt: skip
def test_only_a_day_said_ahead_is_pinned(text: str, wanted: str) -> None:
    assert _said(text) == [f"add {wanted}"]
