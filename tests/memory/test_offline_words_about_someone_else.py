"""Review s34-1 findings F10, F11, F14 (a childhood move), F16: words about someone else, or a
describing word, kept as the user's own (a false name, a lost job, a false medicine, a home
they left as a child). Each through the offline writer, rules alone; and beside each, what
must still be kept."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from familiars.memory import MemoryRecord, offline_writes

#: Monday 7 December 2026.
NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)


def _rec(content: str, tags: list[str]) -> MemoryRecord:
    return MemoryRecord(
        id="m1", scope="user", category="profile", content=content, tags=tags,
        user_key="u", ts="2026-12-01T09:00:00+00:00",
    )  # fmt: skip


SARAH = _rec("The user's name is Sarah.", ["name"])
NURSE = _rec("The user works as a nurse.", ["job"])


def _said(text: str, existing: list[MemoryRecord] | None = None) -> list[str]:
    out = offline_writes(text, existing=existing or [], now=NOW, timezone="Europe/London")
    return [f"{w.op} {w.entry.content}" for w in out.writes if w.op != "skip"]


@pytest.mark.parametrize(
    "text",
    [
        "im gay, 25",
        "im pregnant, 32",
        "im vegan, 30",
        "im sober, 90",
        "im free, 6",
        "im in. 2",
        "im awake. 5",
        "im knackered, 40",  # a wording of our own
    ],
)
def test_a_describing_word_is_no_name_and_keeps_the_real_one(text: str) -> None:
    said = _said(text, [SARAH])
    assert not [s for s in said if "name" in s]
    assert not [s for s in said if re.search(r"\b(?:90|6|2|5)\b", s)]


def test_a_describing_word_with_a_bare_number_keeps_the_state_alone() -> None:
    assert _said("im sober, 90") == ["add The user is sober."]
    assert _said("im widowed, 70") == ["add The user is widowed."]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("im priya, 25", ["add The user's name is Priya.", "add The user is 25 years old."]),
        ("im priya. 41", ["add The user's name is Priya.", "add The user is 41 years old."]),
        ("I'm Olive. 41", ["add The user's name is Olive.", "add The user is 41 years old."]),
    ],
)
def test_a_name_no_common_word_is_still_kept(text: str, wanted: list[str]) -> None:
    assert _said(text) == wanted


def test_an_implausible_age_after_a_name_keeps_nothing() -> None:
    assert _said("im zainab, 4") == []


@pytest.mark.parametrize(
    "text",
    [
        "I'm studying Spanish",
        "I'm studying pottery at Leeds",  # a wording of our own
    ],
)
def test_studying_is_kept_beside_the_job(text: str) -> None:
    said = _said(text, [NURSE])
    assert said and all(s.startswith("add The user studies") for s in said)


@pytest.mark.parametrize(
    "text",
    [
        "my dad's been ill. retired now though",
        "my dad? retired now",
        "my brother lost his job last year. retired now",  # a wording of our own
        "Grandad had a stroke. on blood thinners now",
        "my mum had a fall. on painkillers now",  # a wording of our own
        "taking paracetamol for the headache",
        "I moved to Leeds when I was 5",
        "we moved to Cardiff when I was a baby",  # a wording of our own
    ],
)
def test_said_of_someone_else_or_of_the_past_keeps_nothing_of_the_user(text: str) -> None:
    said = _said(text, [NURSE])
    assert not [s for s in said if "retired" in s or "takes" in s or "lives in" in s]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("i was a postman for 30 years, retired now", ["add The user is retired."]),
        ("on blood thinners now", ["add The user takes blood thinners now."]),
        ("I had a bad week. on antibiotics now", ["add The user takes antibiotics now."]),
        ("taking metformin for my diabetes", ["add The user takes metformin for their diabetes."]),
        ("I moved to York last year", ["add The user lives in York."]),
    ],
)
def test_said_of_oneself_is_still_kept(text: str, wanted: list[str]) -> None:
    assert _said(text) == wanted
