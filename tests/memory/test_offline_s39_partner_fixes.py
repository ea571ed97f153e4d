"""Reviewer and tester, s39: a partner said by going out with someone only when the name
ends the clause and is a person's given name ("I'm going out with Mum", "seeing Dr Patel
about my knee", "dating Kai's sister" name none); a break-up said in passing ends the partner
kept; an ex named beside the new partner is no partner now; "em" is "them" in a liking
turned round."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.memory import MemoryRecord, WriteOp, offline_writes

NOW = datetime(2037, 3, 2, 13, 0, tzinfo=UTC)


def _rec(content: str, tags: list[str], category: str = "relation") -> MemoryRecord:
    return MemoryRecord(
        id="m_old", scope="user", category=category, content=content, tags=tags,
        ts="2037-03-01T10:00:00+00:00",
    )  # fmt: skip


def _writes(text: str, *kept: MemoryRecord) -> list[WriteOp]:
    out = offline_writes(text, existing=list(kept), now=NOW, timezone="Europe/London")
    return [w for w in out.writes if w.op != "skip"]


_MIA = _rec("The user's girlfriend is called Mia.", ["people", "topic:mia"])


@pytest.mark.parametrize(
    "text",
    [
        "I'm going out with Mum",
        "I'm going out with Dad",
        "I've been seeing Mr Jones",
        "I got together with Tom and Jess to plan the trip",
        "I've been seeing Dr Patel about my knee",
        "I've been seeing Jen, my physio",
        "I'm dating Kai's sister",
        "I'm in a relationship with Netflix",
    ],
)
def test_no_partner_replaces_the_one_kept(text: str) -> None:
    assert not [w for w in _writes(text, _MIA) if "partner" in w.entry.content]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("I'm dating Kai", "Kai"),
        ("I'm dating Kai now", "Kai"),
        ("I'm dating Kai these days", "Kai"),
        ("I've been seeing Jen for 3 months", "Jen"),
        ("I've been seeing Jen since March", "Jen"),
        ("I've been seeing Jen for a while now", "Jen"),
        ("I'm dating Kai, we met at work", "Kai"),
    ],
)
def test_a_name_that_ends_the_clause_is_the_new_partner(text: str, name: str) -> None:
    (write,) = [w for w in _writes(text, _MIA) if w.category == "relation"]
    assert write.op == "update" and write.entry.supersedes_id == "m_old"
    assert write.entry.content == f"The user's partner is called {name}."


@pytest.mark.parametrize(
    "text", ["I used to hate olives but now i love em", "I used to hate olives but now i love 'em"]
)
def test_em_is_them_in_a_liking_turned_round(text: str) -> None:
    said = [w.entry.content for w in _writes(text)]
    assert said == ["The user likes olives."]


@pytest.mark.parametrize(
    ("kept", "text"),
    [
        (
            "Marco",
            "ugh since me and Marco broke up ive been eating so much chocolate lol",
        ),
        ("Abena", "ever since Abena dumped me ive been sleeping badly"),
    ],
)
def test_a_break_up_said_in_passing_ends_the_partner(kept: str, text: str) -> None:
    old = _rec(f"The user's partner is called {kept}.", ["people", f"topic:{kept.lower()}"])
    (ended,) = [w for w in _writes(text, old) if w.category == "relation"]
    assert ended.op == "update" and ended.entry.supersedes_id == "m_old"
    assert ended.entry.content == (
        f"The user and {kept} have broken up; {kept} is no longer their partner."
    )


def test_since_with_no_break_up_ends_no_partner() -> None:
    old = _rec("The user's partner is called Marco.", ["people", "topic:marco"])
    assert not [
        w
        for w in _writes("since me and Marco met up ive been happier", old)
        if w.category == "relation"
    ]


def test_an_ex_named_beside_the_new_partner_is_no_partner_now() -> None:
    text = (
        "hey, im Raj. my gf Priya and I split up last month tbh, I'm with Dev now. "
        "actually I live in Manchester"
    )
    said = [w.entry.content for w in _writes(text)]
    assert "The user's partner is called Dev." in said
    assert not [s for s in said if "Priya" in s and "broken up" not in s]
