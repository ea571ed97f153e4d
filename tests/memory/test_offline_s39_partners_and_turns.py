"""Issue 23, s39: a partner said by what the two do ("I'm dating Kai"), one partner at a
time whatever the word (a new girlfriend or boyfriend supersedes the old one, with history),
a liking turned round with a pronoun ("I used to hate olives, now I can't get enough of
them"), and a bare "I do X too" that is a chore, not a liking."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.memory import MemoryRecord, WriteOp, offline_writes
from familiars.memory._offline._liking_values import like_value

NOW = datetime(2037, 3, 2, 13, 0, tzinfo=UTC)


def _rec(content: str, tags: list[str], category: str = "relation") -> MemoryRecord:
    return MemoryRecord(
        id="m_old", scope="user", category=category, content=content, tags=tags,
        ts="2037-03-01T10:00:00+00:00",
    )  # fmt: skip


def _writes(text: str, *kept: MemoryRecord) -> list[WriteOp]:
    out = offline_writes(text, existing=list(kept), now=NOW, timezone="Europe/London")
    return [w for w in out.writes if w.op != "skip"]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("I'm dating Kai", "Kai"),
        ("I've started seeing someone called Mo", "Mo"),
        ("I'm going out with a guy called Rory", "Rory"),
        ("I've started dating someone, his name is Marco", "Marco"),
        ("Ana and I are together", "Ana"),
    ],
)
def test_a_partner_said_by_dating_is_kept(text: str, name: str) -> None:
    (write,) = _writes(text)
    assert write.category == "relation"
    assert write.entry.content == f"The user's partner is called {name}."


@pytest.mark.parametrize(
    "text",
    [
        "I'm seeing Dr Patel on Monday",
        "I'm seeing Priya tonight",
        "my friend Nadia just started seeing someone called Ben",
        "I'm dating again",
    ],
)
def test_a_visit_or_someone_elses_dating_names_no_partner(text: str) -> None:
    assert not [w for w in _writes(text) if w.category == "relation"]


def test_a_new_partner_after_a_break_up_supersedes_the_old_one() -> None:
    jo = _rec("The user's partner is called Dev.", ["family", "topic:dev"])
    (write,) = _writes("Dev and I split up, I'm with Sol now", jo)
    assert write.op == "update" and write.entry.supersedes_id == "m_old"
    assert write.entry.content == "The user's partner is called Sol."


@pytest.mark.parametrize(
    ("kept", "text", "said"),
    [
        (
            "The user's girlfriend Maya is a nurse.",
            "my new gf is Sofia",
            "girlfriend is called Sofia",
        ),
        ("The user's partner is called Sam.", "my new boyfriend is Jake", "boyfriend is"),
        ("The user's girlfriend is called Ruth.", "my wife is called Ruth", "wife is called Ruth"),
    ],
)
def test_one_partner_at_a_time_whatever_the_word(kept: str, text: str, said: str) -> None:
    (write,) = _writes(text, _rec(kept, ["people", "topic:x"]))
    assert write.op == "update" and write.entry.supersedes_id == "m_old"
    assert said in write.entry.content and "new" not in write.entry.content


def test_the_same_partner_said_together_is_no_change() -> None:
    olu = _rec("The user's girlfriend is called Olu.", ["people", "topic:olu"])
    assert _writes("me and Olu have been together five years now", olu) == []


def test_an_ex_is_no_new_partner() -> None:
    ruth = _rec("The user's girlfriend is called Ruth.", ["people", "topic:ruth"])
    assert not [w for w in _writes("my ex-boyfriend Sam was awful", ruth) if w.entry.supersedes_id]


def test_a_dislike_turned_round_with_a_pronoun_becomes_a_liking() -> None:
    olives = _rec("The user dislikes olives.", ["dislikes", "topic:olive"], "preference")
    (write,) = _writes("I used to hate olives but these days I can't get enough of them", olives)
    assert write.op == "update" and write.entry.supersedes_id == "m_old"
    assert write.entry.content == "The user likes olives."


def test_a_past_dislike_takes_no_kept_liking_back() -> None:
    olives = _rec("The user likes olives.", ["likes", "topic:olive"], "preference")
    assert _writes("I used to hate olives but these days I can't get enough of them", olives) == []


@pytest.mark.parametrize(
    "text", ["I do the washing up too", "I do all the cooking", "I do my own taxes"]
)
def test_a_chore_just_done_is_no_liking(text: str) -> None:
    assert like_value(text) is None


def test_a_pastime_just_done_is_a_liking() -> None:
    fact = like_value("I do yoga")
    assert fact is not None and fact.content == "The user likes yoga."
