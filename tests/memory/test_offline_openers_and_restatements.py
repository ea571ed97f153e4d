"""A person-test's misses (issue 23, s36c): a name and a bare age said first in a chatty
opener ("Dot here, 52, ...", "yo im jay, 16, ..."), and restatements read against what they
replace. Each through the offline writer, rules alone."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from familiars.memory import MemoryRecord, offline_writes

NOW = datetime(2026, 12, 7, 15, 0, tzinfo=UTC)


def _said(text: str, existing: list[MemoryRecord] | None = None) -> list[str]:
    writes = offline_writes(text, existing=existing or [], now=NOW, timezone="Europe/London")
    return [f"{w.op} {w.entry.content}" for w in writes.writes if w.op != "skip"]


@pytest.mark.parametrize(
    ("text", "name", "age"),
    [
        ("evening all! Dot here, 52, I run a little bakery and we've got a whippet", "Dot", "52"),
        ("yo im jay, 16, live in melbourne lol", "Jay", "16"),
        ("Hiya, Marek speaking, 38, just joined", "Marek", "38"),
    ],
)
def test_a_name_and_a_bare_age_said_first_are_kept(text: str, name: str, age: str) -> None:
    said = _said(text)
    assert f"add The user's name is {name}." in said
    assert f"add The user is {age} years old." in said


@pytest.mark.parametrize("text", ["im tired, 34 hours awake", "me here, 2 mins away"])
def test_a_state_or_a_count_is_no_opener(text: str) -> None:
    assert not any("name" in s or "years old" in s for s in _said(text))


def _record(content: str, category: str, tags: list[str], rid: str = "m1") -> MemoryRecord:
    return MemoryRecord(
        id=rid, scope="user", category=category, content=content, tags=tags, user_key="u"
    )


def _replaced(text: str, rec: MemoryRecord) -> list[tuple[str, str, str | None]]:
    out = offline_writes(text, existing=[rec], now=NOW, timezone="Europe/London")
    return [(w.op, w.entry.content, w.entry.supersedes_id) for w in out.writes if w.op != "skip"]


@pytest.mark.parametrize(
    "text",
    [
        "we've upped sticks to Scarborough now, new shop by the harbour",
        "I've moved over to Scarborough",
        "we have just moved to Scarborough",
    ],
)
def test_a_move_without_from_replaces_the_home(text: str) -> None:
    home = _record("The user lives in Whitby.", "profile", ["home"])
    assert _replaced(text, home) == [("update", "The user lives in Scarborough.", "m1")]


def test_someone_elses_move_leaves_the_home() -> None:
    home = _record("The user lives in Whitby.", "profile", ["home"])
    assert all(
        replaced is None for _, _, replaced in _replaced("my sister upped sticks to Spain", home)
    )


JUST = "2026-12-07T14:58:00+00:00"


def _kept(content: str, category: str, tags: list[str], ts: str = JUST) -> MemoryRecord:
    return replace(_record(content, category, tags), ts=ts)


def test_scratch_that_and_a_bare_value_fills_the_slot_just_kept() -> None:
    food = _kept("The user's favourite food is paneer tikka.", "preference", ["likes"])
    assert _replaced("scratch that, its dosa", food) == [
        ("update", "The user's favourite food is dosa.", "m1")
    ]


@pytest.mark.parametrize("text", ["scratch that", "scratch that, its nothing"])
def test_scratch_that_without_a_value_says_nothing_new(text: str) -> None:
    food = _kept("The user's favourite food is paneer tikka.", "preference", ["likes"])
    assert _replaced(text, food) == []


def test_scratch_that_weeks_later_is_about_something_else() -> None:
    food = _kept("The user likes beer.", "preference", ["likes"], "2026-11-01T10:00:00+00:00")
    assert _replaced("scratch that, it's wine", food) == []


@pytest.mark.parametrize(
    "text",
    ["Sorry, I was wrong, she lives in Graz, not Vienna.", "My mother lives in Graz."],
)
def test_a_relatives_fact_put_right_replaces_the_old_one(text: str) -> None:
    mother = _record("The user's mother lives in Vienna.", "relation", ["family", "topic:mother"])
    assert _replaced(text, mother) == [("update", "The user's mother lives in Graz.", "m1")]


@pytest.mark.parametrize(
    "text", ["I went to Graz, not Vienna, for the match", "My other brother lives in Graz."]
)
def test_b_not_a_of_something_else_or_another_relative_replaces_nothing(text: str) -> None:
    mother = _record("The user's mother lives in Vienna.", "relation", ["family", "topic:mother"])
    assert all(replaced is None for _, _, replaced in _replaced(text, mother))


def test_very_much_before_the_thing_is_no_part_of_it() -> None:
    assert _said("I like very much beer") == ["add The user likes beer."]
    tea = _record("The user likes beer.", "preference", ["likes", "topic:beer"])
    [(op, content, replaced)] = _replaced("I don't like beer, I like wine", tea)
    assert (op, replaced) == ("update", "m1") and "wine" in content


@pytest.mark.parametrize(
    "text",
    [
        "im dying to see the new spiderman film",
        "I really want to see the new batman film",
        "im itching to try the new vegan place",
    ],
)
def test_an_eager_want_of_one_new_thing_keeps_nothing(text: str) -> None:
    assert _said(text) == []


def test_a_job_said_without_its_article_gets_the_right_one() -> None:
    assert _said("I am working like engineer") == ["add The user works as an engineer."]


def test_a_relative_who_helped_is_no_relative_named_helped() -> None:
    sister = _record("The user's sister is called Amy.", "relation", ["family", "topic:sister"])
    assert _replaced("i lost my phone and my sister helped", sister) == []


def test_a_relatives_place_said_with_now_replaces_the_old_one() -> None:
    brother = _record("The user's brother lives in Leeds.", "relation", ["family", "topic:brother"])
    assert _replaced("My brother lives in York now.", brother) == [
        ("update", "The user's brother lives in York.", "m1")
    ]


def test_oops_before_someone_elses_fact_keeps_it_theirs() -> None:
    home = _record("The user lives in Newcastle.", "profile", ["home"])
    dad = _record("The user's dad lives in Sunderland.", "relation", ["family"], "m2")
    out = offline_writes("oops, he lives in Hexham, not Sunderland", existing=[home, dad], now=NOW)
    said = [(w.entry.content, w.entry.supersedes_id) for w in out.writes if w.op != "skip"]
    assert said == [("The user's dad lives in Hexham.", "m2")]
