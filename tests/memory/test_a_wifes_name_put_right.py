"""s35 U2: "my wife Latoya ..." then "actually it's Latisha not Latoya, autocorrect got me lol"
renamed the user (the model read "it's Latisha" as a name), and "no no, my WIFE is Latisha"
then kept a second wife. The correction goes to the record that holds the wrong name; a new
name for the spouse takes the old one's place; a late wife is never replaced. The bundled
model reads as the offline bot does."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from familiars.memory import MemoryRecord, offline_writes, understanding_for

NOW = datetime(2026, 12, 7, 13, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def understanding(real_embedder: Any) -> Any:
    return understanding_for(real_embedder.embed_batch, *real_embedder.space)


def _rec(i: int, content: str, tags: list[str], cat: str = "relation") -> MemoryRecord:
    return MemoryRecord(
        id=f"m_{i}", scope="user", category=cat, content=content, tags=tags,
        ts=(NOW - timedelta(minutes=10 - i)).isoformat(),
    )  # fmt: skip


NAME = _rec(1, "The user's name is Dwayne.", ["name"], cat="profile")
WIFE = _rec(2, "The user's wife is called Latoya.", ["family", "topic:latoya"])
KIDS = _rec(3, "The user has three kids called Marcus, Jaylen and Nia.", ["family", "topic:kid"])
LATE = _rec(4, "The user's late wife Joan died in 2019.", ["family", "topic:joan", "deceased"])


def _writes(
    text: str, existing: list[MemoryRecord], understanding: Any
) -> list[tuple[str, str, str]]:
    out = offline_writes(text, existing=existing, now=NOW, understanding=understanding)
    return [(w.op, w.entry.content, w.entry.supersedes_id or "") for w in out.writes]


@pytest.mark.parametrize("meaning", [True, False])
@pytest.mark.parametrize(
    "text",
    [
        "actually it's Latisha not Latoya, autocorrect got me lol",  # U2, the tester's
        "it's Latisha not Latoya lol",
        "not Latoya, it's Latisha, stupid autocorrect",
    ],
)
def test_the_wrong_name_is_put_right_where_it_is_kept(
    understanding: Any, meaning: bool, text: str
) -> None:
    writes = _writes(text, [NAME, WIFE, KIDS], understanding if meaning else None)
    assert ("update", "The user's wife is called Latisha.", WIFE.id) in writes
    assert not any("name is Latisha" in content for _, content, _ in writes)


def test_a_name_put_right_that_no_one_holds_names_no_one(understanding: Any) -> None:
    writes = _writes(
        "actually it's Latisha not Latoya, autocorrect got me lol", [NAME], understanding
    )
    assert not any("Latisha" in content for op, content, _ in writes if op != "skip")


def test_the_users_own_name_is_put_right_when_it_is_the_wrong_one(understanding: Any) -> None:
    writes = _writes(
        "sorry, it's Dwayne not Dwane",
        [_rec(1, "The user's name is Dwane.", ["name"], "profile")],
        understanding,
    )
    assert ("update", "The user's name is Dwayne.", "m_1") in writes


@pytest.mark.parametrize("meaning", [True, False])
def test_a_new_name_for_the_wife_takes_the_old_ones_place(
    understanding: Any, meaning: bool
) -> None:
    said = "no no, my WIFE is Latisha. my name is Dwayne"  # U2, the tester's
    writes = _writes(said, [NAME, WIFE, KIDS], understanding if meaning else None)
    assert ("update", "The user's wife is called Latisha.", WIFE.id) in writes
    assert not any(op == "add" and "wife" in content for op, content, _ in writes)


def test_the_wife_named_again_as_kept_is_said_already(understanding: Any) -> None:
    kept = _rec(2, "The user's wife is called Latisha.", ["family", "topic:latisha"])
    writes = _writes("no no, my WIFE is Latisha", [NAME, kept], understanding)
    assert [op for op, content, _ in writes if "wife" in content] == ["skip"]


def test_a_late_wife_is_never_replaced_by_a_new_one(understanding: Any) -> None:
    writes = _writes("my wife is called Ann", [NAME, LATE], understanding)
    assert ("add", "The user's wife is called Ann.", "") in writes


def test_the_users_own_name_said_not_another_is_still_their_name(understanding: Any) -> None:
    writes = _writes("Actually my name is Beatriz, not Beatrice", [], understanding)
    assert ("add", "The user's name is Beatriz.", "") in writes
