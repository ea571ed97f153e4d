"""The rule-based writer on a table of phrasings: what it must find, and what it must not."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from familiars.memory.offline_writer import closed_loops, facts_in, offline_writes, parse_when, zone
from familiars.memory.records import MemoryRecord

# Monday 30 November 2026, 14:00 in Berlin.
NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)
TZ = "Europe/Berlin"

FINDS = [
    ("My name is Alice", "The user's name is Alice."),
    ("my name is alice and I like cats", "The user's name is Alice."),
    ("call me Ali", "The user's name is Ali."),
    ("You can call me Ali from now on", "The user's name is Ali."),
    ("hi! I'm called Bo", "The user's name is Bo."),
    ("I like hiking", "The user likes hiking."),
    ("I love hiking!", "The user likes hiking."),
    ("I really enjoy hiking a lot", "The user likes hiking."),
    ("Hiking is my favourite hobby", "The user likes hiking."),
    ("I'm really into hiking", "The user likes hiking."),
    ("I like to swim", "The user likes to swim."),
    ("My favourite band is Radiohead", "The user's favourite band is Radiohead."),
    ("I hate mondays", "The user doesn't like mondays."),
    ("I don't like coffee anymore", "The user doesn't like coffee."),
    ("I'm not a fan of horror movies", "The user doesn't like horror movies."),
    ("I drink tea", "The user drinks tea."),
    ("I love my cat", "The user likes their cat."),
    ("I live in the Netherlands", "The user lives in the Netherlands."),
    ("I live in berlin", "The user lives in Berlin."),
    ("I'm based in Berlin now", "The user lives in Berlin."),
    ("I just moved to Lisbon", "The user lives in Lisbon."),
    ("I work at Acme Corp", "The user works at Acme Corp."),
    ("I work for Acme Corp", "The user works at Acme Corp."),
    ("I work as a nurse", "The user works as a nurse."),
    ("My birthday is on March 3rd", "The user's birthday is on March 3."),
    ("my birthday is the 3rd of March", "The user's birthday is on March 3."),
    ("I was born on 3 March 1990", "The user's birthday is on March 3, 1990."),
    ("my exam is on friday", "The user's exam is on Friday 4 December 2026."),
]

# Phrasings that look like a pattern and must not be read as one.
MUST_NOT = [
    "call me later",
    "Call me when you can",
    "Can you call me tomorrow?",
    "What's my name?",
    "my name is not important",
    'He said "my name is Bob"',
    "My friend likes jazz",
    "Do you like coffee?",
    "I would like a coffee",
    "I like how you said that",
    "I like it",
    "I love you",
    "I used to live in Paris",
    "I live for the weekend",
    "I'm tired",
    "my birthday is coming up",
    "I was born in Spain",
    "remind me why I came here",
    "remind me to buy milk",
    "Remind me what we talked about",
    "Where do you live?",
    "She told me she works at Google",
    "I like to think so",
    "I live in fear",
    "I live in the moment",
    "I work at night",
    "I work for myself",
    "I work as hard as I can",
    "I love this song",
    "remind me every day at 9 to take my pills",
    "I don't like it when you do that",
    "call me maybe",
]


@pytest.mark.parametrize(("text", "content"), FINDS)
def test_finds(text, content):
    facts = facts_in(text, now=NOW, timezone=TZ)
    assert facts, f"nothing found in {text!r}"
    assert facts[0].content == content


@pytest.mark.parametrize("text", MUST_NOT)
def test_does_not_misread(text):
    assert facts_in(text, now=NOW, timezone=TZ) == []


REMINDERS = [
    ("remind me to call my mom tomorrow at 9am", "call their mom", "2026-12-01T09:00:00+01:00"),
    ("Remind me to turn on the lights at 9pm", "turn on the lights", "2026-11-30T21:00:00+01:00"),
    ("remind me in 2 hours to take the pills", "take the pills", "2026-11-30T16:00:00+01:00"),
    (
        "tomorrow at 10, remind me to water the plants",
        "water the plants",
        "2026-12-01T10:00:00+01:00",
    ),
    ("remind me on Friday to pay rent", "pay rent", "2026-12-04T09:00:00+01:00"),
    ("remind me next monday at 10 to call the bank", "call the bank", "2026-12-07T10:00:00+01:00"),
    # noon already passed today in Berlin: tomorrow.
    ("Remind me to check the oven at noon", "check the oven", "2026-12-01T12:00:00+01:00"),
    ("remind me at 14:30 to stretch", "stretch", "2026-11-30T14:30:00+01:00"),
    # A bare hour already past this morning: the next time a clock shows it.
    ("remind me to call mom at 5", "call mom", "2026-11-30T17:00:00+01:00"),
    ("remind me at 9 to feed the cat", "feed the cat", "2026-11-30T21:00:00+01:00"),
    ("remind me at 3:30 to feed the cat", "feed the cat", "2026-11-30T15:30:00+01:00"),
    ("remind me at 1:30 to feed the cat", "feed the cat", "2026-12-01T01:30:00+01:00"),
]


@pytest.mark.parametrize(("text", "task", "due"), REMINDERS)
def test_reminders_get_due_time_in_the_persons_zone(text, task, due):
    facts = facts_in(text, now=NOW, timezone=TZ, dialogue_id="dialogue_1", reminder_grace_s=3600)
    assert len(facts) == 1
    fact = facts[0]
    assert (fact.scope, fact.category) == ("dialogue", "event")
    assert f"Remind the user to {task} on " in fact.content
    assert fact.open_loop is not None
    assert fact.open_loop.kind == "reminder" and fact.open_loop.status == "open"
    assert fact.open_loop.due == due
    expires = datetime.fromisoformat(due).astimezone(UTC) + timedelta(hours=1)
    assert fact.ttl == {"kind": "absolute", "expires_at": expires.isoformat(timespec="seconds")}


def test_reminder_without_dialogue_goes_to_user_scope_and_utc_zone():
    facts = facts_in("remind me to stretch in 20 minutes", now=NOW)
    assert (facts[0].scope, facts[0].category) == ("user", "event")
    assert facts[0].open_loop.due == "2026-11-30T13:20:00+00:00"


def test_parse_when_refuses_non_times_and_unknown_zone_falls_back_to_utc():
    tz = zone("Not/AZone")
    assert str(tz) == "UTC"
    assert parse_when("the lights", now=NOW, tz=tz) is None
    assert parse_when("later", now=NOW, tz=tz) is None


def test_two_clauses_give_two_facts():
    facts = facts_in("I don't like coffee anymore, I drink tea", now=NOW)
    assert [f.content for f in facts] == ["The user doesn't like coffee.", "The user drinks tea."]


def _rec(content: str, **kw) -> MemoryRecord:
    return MemoryRecord(
        id=kw.pop("id", "m_old"),
        scope=kw.pop("scope", "user"),
        content=content,
        user_key="u1",
        **kw,
    )


def test_changed_fact_supersedes_and_same_fact_skips():
    existing = [
        _rec(
            "The user likes coffee.",
            id="m_coffee",
            category="preference",
            tags=["likes", "topic:coffee"],
        ),
        _rec("The user's name is Alice.", id="m_name", category="profile", tags=["name"]),
    ]
    out = offline_writes(
        "My name is Alice. I don't like coffee anymore, I drink tea", existing=existing, now=NOW
    )
    ops = [(w.op, w.entry.content, w.entry.supersedes_id) for w in out.writes]
    assert ops == [
        ("skip", "The user's name is Alice.", None),
        ("update", "The user doesn't like coffee.", "m_coffee"),
        ("add", "The user drinks tea.", None),
    ]


def test_done_message_closes_the_matching_open_reminder():
    loop = {"kind": "reminder", "due": "2026-12-01T09:00:00+01:00", "status": "open"}
    rec = _rec(
        "Remind the user to call their mom on Tuesday 1 December 2026 at 09:00 (UTC).",
        id="m_rem",
        scope="dialogue",
        category="event",
        extra={"open_loop": loop},
    )
    other = _rec(
        "Remind the user to pay rent on Friday 4 December 2026 at 09:00 (UTC).",
        id="m_rent",
        scope="dialogue",
        category="event",
        extra={"open_loop": dict(loop)},
    )
    assert closed_loops("I called my mom!", [rec, other]) == [rec]
    assert closed_loops("did I call my mom?", [rec]) == []
    assert closed_loops("I walked the dog", [rec, other]) == []
    out = offline_writes("I called my mom", existing=[rec, other], now=NOW)
    assert len(out.writes) == 1
    write = out.writes[0]
    assert write.op == "update" and write.entry.supersedes_id == "m_rem"
    assert write.entry.open_loop.status == "done"


@settings(max_examples=200, deadline=None)
@given(
    st.text(max_size=120)
    | st.builds(
        "{} {}".format,
        st.sampled_from(
            [
                "remind me to",
                "my name is",
                "I like",
                "call me",
                "my birthday is",
                "I live in",
                "I work at",
                "I don't like",
            ]
        ),
        st.text(max_size=60),
    )
)
def test_any_text_gives_valid_writes_or_none(text):
    out = offline_writes(text, existing=[], now=NOW, timezone=TZ, dialogue_id="dialogue_1")
    for write in out.writes:
        assert write.entry.content and len(write.entry.content) < 2000
