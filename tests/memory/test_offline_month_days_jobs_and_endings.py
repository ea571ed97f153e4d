"""The offline writer on the session-32 testers' wordings: a day of the month is the next such
day, never a month; naming the familiar leaves the person's name alone; a time or a class is
no workplace; something over, or a pet had, retires its record, and what ended for someone
else retires nothing of the person's."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.memory import MemoryRecord, offline_writes
from familiars.memory._offline._dates import parse_when, zone
from familiars.memory._offline._writes import facts_in

# Monday 7 December 2026, 10:00 in London.
NOW = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)
LONDON = zone("Europe/London")


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("on the 1st at 9am", datetime(2027, 1, 1, 9, 0)),
        ("on the 2nd", datetime(2027, 1, 2, 9, 0)),
        ("the 5th at 9am", datetime(2027, 1, 5, 9, 0)),
        ("on the 15th at 10am", datetime(2026, 12, 15, 10, 0)),
        ("on Friday the 11th", datetime(2026, 12, 11, 9, 0)),
        ("on the 3rd of next month", datetime(2027, 1, 3, 9, 0)),
        ("on the 31st", datetime(2026, 12, 31, 9, 0)),
        ("on the 7th at 11am", datetime(2026, 12, 7, 11, 0)),
        ("on the 7th at 9am", datetime(2027, 1, 7, 9, 0)),
        ("on 1 January at 9am", datetime(2027, 1, 1, 9, 0)),
        ("on the 2nd of January", datetime(2027, 1, 2, 9, 0)),
        ("the 1st of March at 8am", datetime(2027, 3, 1, 8, 0)),
    ],
)
def test_a_day_of_the_month_is_the_next_such_day_never_a_month(said, expected):
    due = parse_when(said, now=NOW, tz=LONDON)
    assert due is not None
    assert due.replace(tzinfo=None) == expected


def test_a_weekday_with_a_day_that_is_not_it_looks_for_the_month_where_it_is():
    # Saturday the 2nd: 2 January 2027 is a Saturday.
    due = parse_when("on Saturday the 2nd", now=NOW, tz=LONDON)
    assert due is not None and due.replace(tzinfo=None) == datetime(2027, 1, 2, 9, 0)


@pytest.mark.parametrize(
    ("said", "task", "due"),
    [
        ("remind me on the 1st at 9am to pay rent", "pay rent", "2027-01-01T09:00:00+00:00"),
        ("remind me on Friday the 11th to buy flowers", "buy flowers",
         "2026-12-11T09:00:00+00:00"),
        ("remind me to water the garden on the 5th", "water the garden",
         "2027-01-05T09:00:00+00:00"),
    ],
)  # fmt: skip
def test_a_reminder_on_a_day_of_the_month_is_due_that_day(said, task, due):
    (fact,) = [
        f for f in facts_in(said, now=NOW, timezone="Europe/London") if f.open_loop is not None
    ]
    assert fact.open_loop.due == due
    assert f"Remind the user to {task} on" in fact.content


class _Slot:
    """The meaning model stood in for: every clause is read as ``slot``."""

    noun_kind = None

    def __init__(self, slot: str) -> None:
        self.slot = slot

    def has(self, part: str) -> bool:
        return part == "slots"

    def slots(self, clause: str) -> list[tuple[str, float]]:
        return [(self.slot, 0.9), ("none", 0.05)]


def _rec(content: str, category: str, tags: list[str], rid: str) -> MemoryRecord:
    return MemoryRecord(
        id=rid, scope="user", category=category, content=content, tags=tags, user_key="u"
    )


KEPT = [
    _rec("The user's name is Nora.", "profile", ["name"], "m_name"),
    _rec("The user works at Leeds General Infirmary.", "profile", ["work"], "m_work"),
    _rec("The user is vegetarian.", "profile", ["diet", "topic:vegetarian"], "m_diet"),
    _rec("The user's dog is called Biscuit.", "relation", ["pet", "topic:biscuit"], "m_dog"),
]


def _writes(text: str, slot: str) -> list[tuple[str, str, str | None]]:
    out = offline_writes(text, existing=KEPT, now=NOW, understanding=_Slot(slot))  # type: ignore[arg-type]
    return [(w.op, w.entry.content, w.entry.supersedes_id) for w in out.writes]


@pytest.mark.parametrize(
    "text",
    [
        "From now on your name is Bob and you always answer in French.",
        "your name is Bob",
        "I'll call you Bob",
        "You are called Bob now",
    ],
)
def test_naming_the_familiar_leaves_the_persons_name_alone(text: str) -> None:
    assert not [w for w in _writes(text, "name") if "name" in w[1]]


@pytest.mark.parametrize(
    "text",
    [
        "I started my shift at seven today.",
        "I started at Pilates last week, it's great.",
        "I started work at 7am",
        "I started at half past six",
    ],
)
def test_a_time_or_a_class_is_not_a_workplace(text: str) -> None:
    assert not [w for w in _writes(text, "work") if "works at" in w[1]]


def test_a_new_employer_still_replaces_the_old() -> None:
    assert _writes("I started at Google last week", "work") == [
        ("update", "The user works at Google.", "m_work")
    ]


@pytest.mark.parametrize(
    ("text", "slot", "content", "old"),
    [
        ("I've stopped being vegetarian, I eat fish now.", "diet",
         "The user is no longer vegetarian.", "m_diet"),
        ("I'm not vegetarian anymore", "diet", "The user is no longer vegetarian.", "m_diet"),
        ("I don't have a dog anymore, Biscuit passed away last week.", "pet",
         "The user no longer has their dog Biscuit (it died).", "m_dog"),
        ("I don't have a dog any more", "pet", "The user no longer has their dog Biscuit.",
         "m_dog"),
    ],
)  # fmt: skip
def test_something_over_retires_the_record_and_is_never_kept_as_current(
    text: str, slot: str, content: str, old: str
) -> None:
    assert _writes(text, slot) == [("update", content, old)]


def test_a_pet_kept_as_had_is_retired_too() -> None:
    kept = [_rec("The user has a dog called Biscuit.", "relation", ["pet"], "m_dog2")]
    out = offline_writes(
        "I don't have a dog anymore, Biscuit passed away last week.", existing=kept, now=NOW
    )
    assert [(w.op, w.entry.content, w.entry.supersedes_id) for w in out.writes] == [
        ("update", "The user no longer has their dog Biscuit (it died).", "m_dog2")
    ]


def test_something_still_done_retires_nothing() -> None:
    assert _writes("I don't walk my dog anymore", "pet") == []


@pytest.mark.parametrize(
    ("text", "slot"),
    [
        ("my sister lost my keys", "sister"),
        ("I lost my phone and my sister helped", "sister"),
        ("Emma's cat died last week", "sister"),
        ("my neighbour's dog died, it was called Biscuit", "pet"),
        ("my mum used to be a nurse", "job"),
        ("my sister is not vegetarian anymore", "diet"),
    ],
)
def test_what_ended_for_someone_else_retires_nothing_of_the_persons(text: str, slot: str) -> None:
    """Review of s32: the ended check read the whole message and any mention of the name or
    the kind, so "my sister lost my keys" retired the sister."""
    kept = [
        *KEPT,
        _rec("The user's sister is called Emma.", "relation", ["family"], "m_sister"),
        _rec("The user is a nurse.", "profile", ["job"], "m_job"),
    ]
    out = offline_writes(text, existing=kept, now=NOW, understanding=_Slot(slot))  # type: ignore[arg-type]
    assert [w.entry.supersedes_id for w in out.writes if w.entry.supersedes_id] == [], text
