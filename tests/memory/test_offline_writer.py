"""The rule-based writer on a table of phrasings: what it must find, and what it must not."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from familiars.memory import MemoryRecord
from familiars.memory._offline._dates import parse_when, zone
from familiars.memory._offline._writes import closed_loops, facts_in, offline_writes

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
    ("I work at the children's hospital", "The user works at the Children's Hospital."),
    ("I live in new york", "The user lives in New York."),
    ("I work as a nurse", "The user works as a nurse."),
    ("My birthday is on March 3rd", "The user's birthday is on March 3."),
    ("my birthday is the 3rd of March", "The user's birthday is on March 3."),
    ("I was born on 3 March 1990", "The user's birthday is on March 3, 1990."),
    ("my exam is on friday", "The user's exam is on Friday 4 December 2026."),
    ("my birthday is on 3 March", "The user's birthday is on March 3."),
    ("I love the beach", "The user likes the beach."),
    ("I'm allergic to peanuts", "The user is allergic to peanuts."),
    ("I'm severely allergic to bee stings", "The user is allergic to bee stings."),
    ("I have an allergy to penicillin", "The user is allergic to penicillin."),
    ("I'm vegetarian", "The user is vegetarian."),
    ("I'm a vegan now", "The user is vegan."),
    ("I'm lactose intolerant", "The user is lactose intolerant."),
    ("Hi, I'm Bob", "The user's name is Bob."),
    ("Hey there, I'm Alice!", "The user's name is Alice."),
    ("I like salt and pepper crisps", "The user likes salt and pepper crisps."),
    ("I like rock and roll", "The user likes rock and roll."),
    ("I like peace and love", "The user likes peace and love."),
    ("I'm a huge fan of rock and roll", "The user likes rock and roll."),
    ("I love jazz, do you?", "The user likes jazz."),
    # A list of short things is kept whole (it kept "jazz" alone: tea and cats were lost).
    ("I love jazz, tea and cats.", "The user likes jazz, tea and cats."),
    (
        "I hate mornings, traffic and loud neighbours",
        "The user doesn't like mornings, traffic and loud neighbours.",
    ),
    ("I love hiking, especially in autumn", "The user likes hiking."),
    ("What do you like? I love hiking.", "The user likes hiking."),
    ("I can't stand pumpernickel", "The user doesn't like pumpernickel."),
    # A long object is kept up to eight words, and cut to its head beyond.
    (
        "I love pumpernickel bread from the Elm street bakery.",
        "The user likes pumpernickel bread from the Elm street bakery.",
    ),
    (
        "I love pumpernickel bread from the little bakery on the corner of Elm street",
        "The user likes pumpernickel bread.",
    ),
    ("Remember that my locker code is 4471", "The user's locker code is 4471."),
    ("Can you remember that my locker code is 4471?", "The user's locker code is 4471."),
    ("note that I go to the gym on Mondays", "The user goes to the gym on Mondays."),
    ("keep in mind that I work night shifts", "The user works night shifts."),
    ("don't forget that I study at night", "The user studies at night."),
    (  # F13: someone's birthday is a birthday record of them, whoever says it how
        "don't forget that my sister's birthday is on 5 May",
        "The user's sister has a birthday on May 5.",
    ),
    # "tomorrow" in a note is the day it was said of.
    (
        "remember that I have a dentist appointment tomorrow",
        "The user has a dentist appointment on Tuesday 1 December 2026.",
    ),
    ("remember that Tom is allergic to nuts", "Tom is allergic to nuts."),
    ("remember that I hate olives", "The user doesn't like olives."),
    ("for the record, my favourite colour is green", "The user's favourite colour is green."),
    ("If it rains, I like reading", "The user likes reading."),
]

# Messages with several facts: every clause of every sentence, in the order said.
COMPOUND = [
    (
        "My name is Alice and I love hiking.",
        ["The user's name is Alice.", "The user likes hiking."],
    ),
    (
        "My name is Alice. I love pumpernickel bread from the Elm street bakery.",
        [
            "The user's name is Alice.",
            "The user likes pumpernickel bread from the Elm street bakery.",
        ],
    ),
    (
        "Remember that my locker code is 4471 and I hate pumpernickel now.",
        ["The user's locker code is 4471.", "The user doesn't like pumpernickel."],
    ),
    ("My sister likes jazz and I love blues", ["The user likes blues."]),
    ("My mom loves jazz, I love blues", ["The user likes blues."]),
    # F8: the brother's city is kept as his, never as the person's
    (
        "My brother lives in Paris and I live in Leeds",
        ["The user's brother lives in Paris.", "The user lives in Leeds."],
    ),
    (
        "My friend works at Google but I work at Acme",  # the friend's work is theirs
        ["The user works at Acme."],
    ),
    ("She said she likes jazz but I hate country", ["The user doesn't like country."]),
    ("I work at Acme and live in Leeds", ["The user works at Acme.", "The user lives in Leeds."]),
    ("I love cats and hate dogs", ["The user likes cats.", "The user doesn't like dogs."]),
    (
        "I don't like coffee anymore, I drink tea",
        ["The user doesn't like coffee.", "The user drinks tea."],
    ),
    (
        "I don't like coffee but I love tea",
        ["The user doesn't like coffee.", "The user likes tea."],
    ),
    (
        "I hate mondays but I love fridays",
        ["The user doesn't like mondays.", "The user likes fridays."],
    ),
    (
        "I like fish and chips and I live in Leeds",
        ["The user likes fish and chips.", "The user lives in Leeds."],
    ),
    (
        "My name is Alice, I live in Berlin and I work at Acme",
        ["The user's name is Alice.", "The user lives in Berlin.", "The user works at Acme."],
    ),
    ("I live in Leeds; I work at Acme.", ["The user lives in Leeds.", "The user works at Acme."]),
    (
        "I was born on 3 March 1990 and I live in Leeds",
        ["The user's birthday is on March 3, 1990.", "The user lives in Leeds."],
    ),
    (
        "Hi, I'm Bob and I work as a nurse",
        ["The user's name is Bob.", "The user works as a nurse."],
    ),
    (
        "Call me Ali, I'm allergic to cats",
        ["The user's name is Ali.", "The user is allergic to cats."],
    ),
    (
        "I'm vegetarian and I have a peanut allergy",
        ["The user is vegetarian.", "The user is allergic to peanut."],
    ),
    ("I love you and I like hiking", ["The user likes hiking."]),
    ("I like how it sounds and I love jazz", ["The user likes jazz."]),
    ("I love the idea, and I like the plan", ["The user likes the plan."]),
    ("My wife and I live in Leeds", ["The user lives in Leeds."]),
    (
        "I work for Mr. Smith and I live in Leeds",
        ["The user works at Mr. Smith.", "The user lives in Leeds."],
    ),
    (
        "my favourite food is salt and pepper squid and I live in Leeds",
        ["The user's favourite food is salt and pepper squid.", "The user lives in Leeds."],
    ),
    (
        "Please remember: my locker code is 4471 and my gym is on Elm street",
        ["The user's locker code is 4471.", "The user's gym is on Elm street."],
    ),
    # The later saying of one fact wins.
    ("I like tea. Actually I don't like tea", ["The user doesn't like tea."]),
    ("My name is Alice. Call me Ali", ["The user's name is Ali."]),
    # A reminder is its whole clause; the next clause is read on its own.
    (
        "remind me to call mom tomorrow at 9 and I love hiking",
        [
            "Remind the user to call mom on Tuesday 1 December 2026 at 09:00 (Europe/Berlin).",
            "The user likes hiking.",
        ],
    ),
    (
        "remind me tomorrow at 9am to call mom",
        ["Remind the user to call mom on Tuesday 1 December 2026 at 09:00 (Europe/Berlin)."],
    ),
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
    "I don't like it when you do that",
    "call me maybe",
    # Questions, hypotheticals, wishes and reported speech, also inside compound messages.
    "do you like hiking?",
    "I'd love to go to Paris",
    "I'd love to live in Leeds and I'd love to work at Acme",
    "I would love to live in Paris",
    "I'd like a coffee and I'd love a cake",
    "Imagine I live in Paris and I love cheese",
    "Suppose I work at Google and I live in London",
    "I wish I lived in Paris and I loved cheese",
    "If I lived in Leeds and I worked at Acme, I would be happy",
    "If I live in Leeds and I work at Acme next year",
    'He said "I like jazz and I love blues"',
    "My sister likes jazz and loves blues",
    "She likes jazz and loves blues",
    "I used to like coffee",
    "When I was a kid I loved hiking",
    "Do you remember that my name is Bob?",
    "Can you remember that day we met?",
    # Not a thing to keep: a task, a moment, a request to the bot, a secret.
    "remember to buy milk",
    "Remember that time we went to Paris",
    "remember that you promised to help me",
    "remember that I said I like jazz",
    "Don't forget the keys",
    "Remember that my wifi password is hunter2",
    "please remember my PIN is 1234",
    # Not names.
    "Hey I'm English",
    "hello I'm Tired",
    "I'm Bob",
    "hey I'm Dr Smith",
    "I'm not allergic to anything",
    "I'm not vegetarian",
    "I like the way you talk",
    "I love the idea",
]


@pytest.mark.parametrize(("text", "content"), FINDS)
def test_finds(text, content):
    facts = facts_in(text, now=NOW, timezone=TZ)
    assert facts, f"nothing found in {text!r}"
    assert facts[0].content == content


@pytest.mark.parametrize(("text", "contents"), COMPOUND)
def test_compound_messages_give_every_fact(text, contents):
    facts = facts_in(text, now=NOW, timezone=TZ)
    assert [f.content for f in facts] == contents


SIMPLE = [text for text, _ in FINDS if not text.lower().startswith(("remember", "hi", "hey"))]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SIMPLE), st.sampled_from(SIMPLE), st.sampled_from([". ", "! ", "\n"]))
def test_two_sentences_give_the_facts_of_each(first, second, joint):
    alone = [f.content for text in (first, second) for f in facts_in(text, now=NOW, timezone=TZ)]
    both = facts_in(first + joint + second, now=NOW, timezone=TZ)
    keys = [(f.scope, f.category, f.key) for f in both]
    assert len(keys) == len(set(keys))
    if len(both) == len(alone):
        assert [f.content for f in both] == alone
    else:  # one fact said twice: the later saying is kept
        assert [f.content for f in both][-1] == alone[-1]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([t for t in SIMPLE if t.startswith("I ")]))
def test_and_i_joins_a_second_clause(second):
    [alone] = facts_in(second, now=NOW, timezone=TZ)
    both = facts_in("My name is Alice and " + second, now=NOW, timezone=TZ)
    assert [f.content for f in both] == ["The user's name is Alice.", alone.content]


def test_quote_is_the_clause_as_said():
    facts = facts_in("My name is Alice and I love hiking.", now=NOW)
    assert [f.quote for f in facts] == ["My name is Alice", "I love hiking"]
    note, _ = facts_in("Remember that my locker code is 4471 and I hate pumpernickel now.", now=NOW)
    assert (note.scope, note.category, note.key) == ("user", "knowledge", "note:locker-code")
    assert note.quote == "Remember that my locker code is 4471"


@pytest.mark.parametrize("text", MUST_NOT)
def test_does_not_misread(text):
    assert facts_in(text, now=NOW, timezone=TZ) == []


def test_a_reminder_that_comes_back():
    """Once recurring reminders were refused (a misreading); now they carry their rule."""
    (fact,) = facts_in("remind me every day at 9 to take my pills", now=NOW, timezone=TZ)
    assert fact.open_loop is not None
    assert fact.open_loop.every == {"unit": "day", "tz": TZ, "at": "09:00"}
    assert fact.content.startswith("Remind the user to take their pills on ")
    (weekly,) = facts_in("every Monday at 8 remind me to put the bins out", now=NOW, timezone=TZ)
    assert weekly.open_loop is not None and weekly.open_loop.every is not None
    assert weekly.open_loop.every["weekday"] == 0 and weekly.open_loop.every["at"] == "08:00"
    assert weekly.open_loop.due is not None and weekly.open_loop.due.endswith("T08:00:00+01:00")


def test_a_reminder_set_for_a_date_with_its_task_after_a_colon():
    for text, task in (
        ("set a reminder for 15 December at 18:00: call mum", "call mum"),
        ("Set a reminder for 3 March 2027 at 9am - renew passport", "renew passport"),
        ("set a reminder to call the vet on 20 December at 10:00", "call the vet"),
        ("can you remind me on Friday at 6pm to call the plumber?", "call the plumber"),
        ("could you set a reminder for friday 9am: book the dentist", "book the dentist"),
        ("also nudge me tomorrow at 9 to book the farrier", "book the farrier"),
        ("ping me in 20 minutes to check the oven", "check the oven"),
        ("don't let me forget to call the vet on friday at 10", "call the vet"),
    ):
        (fact,) = facts_in(text, now=NOW, timezone=TZ)
        assert fact.content.startswith(f"Remind the user to {task} on "), (text, fact.content)
        assert fact.open_loop is not None and fact.open_loop.due is not None
    (fact,) = facts_in("set a reminder for 15 December at 18:00: call mum", now=NOW, timezone=TZ)
    assert fact.open_loop is not None and fact.open_loop.due == "2026-12-15T18:00:00+01:00"


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
    # an hour from 1 to 6 with no am/pm is after noon: 13:30 has gone by, so tomorrow's
    ("remind me at 1:30 to feed the cat", "feed the cat", "2026-12-01T13:30:00+01:00"),
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
    # the new like takes the old one's place: one update, nothing stale left beside it
    assert ops == [
        ("skip", "The user's name is Alice.", None),
        ("update", "The user drinks tea now, no longer coffee.", "m_coffee"),
    ]


def test_changed_note_supersedes_the_old_one():
    existing = [
        _rec(
            "The user's locker code is 4471.",
            id="m_code",
            category="knowledge",
            tags=["note", "topic:locker-code"],
        )
    ]
    same = offline_writes("remember that my locker code is 4471", existing=existing, now=NOW)
    assert [w.op for w in same.writes] == ["skip"]
    out = offline_writes("note that my locker code is 9012 now", existing=existing, now=NOW)
    [write] = out.writes
    assert (write.op, write.category, write.entry.supersedes_id) == (
        "update",
        "knowledge",
        "m_code",
    )
    assert write.entry.content == "The user's locker code is 9012 now."


def test_a_turned_preference_supersedes_the_same_topic_under_a_longer_name():
    bread = _rec(
        "The user likes pumpernickel bread from the Elm street bakery.",
        id="m_bread",
        category="preference",
        tags=["likes", "topic:pumpernickel-bread"],
    )
    out = offline_writes(
        "Remember that my locker code is 4471 and I hate pumpernickel now.",
        existing=[bread],
        now=NOW,
    )
    ops = [(w.op, w.category, w.entry.content, w.entry.supersedes_id) for w in out.writes]
    assert ops == [
        ("add", "knowledge", "The user's locker code is 4471.", None),
        ("update", "preference", "The user doesn't like pumpernickel.", "m_bread"),
    ]
    # Said again with the same polarity: already known.
    again = offline_writes("I love pumpernickel", existing=[bread], now=NOW)
    assert [w.op for w in again.writes] == ["skip"]
    # "coffee cake" is not coffee: a dislike of coffee leaves it alone.
    cake = _rec(
        "The user likes coffee cake.",
        id="m_cake",
        category="preference",
        tags=["likes", "topic:coffee-cake"],
    )
    out = offline_writes("I hate coffee", existing=[cake], now=NOW)
    assert [(w.op, w.entry.supersedes_id) for w in out.writes] == [("add", None)]


def test_taking_back_one_thing_of_a_listed_like_keeps_the_others():
    both = _rec(
        "The user likes rock climbing and bad sci-fi movies.",
        id="m_both",
        category="preference",
        tags=["likes", "topic:rock-climbing-and-bad-sci-fi-movie"],
    )
    for said in ("Actually, I don't like sci-fi movies anymore", "I've gone off sci-fi movies"):
        out = offline_writes(said, existing=[both], now=NOW)
        ops = [(w.op, w.entry.content, w.entry.supersedes_id) for w in out.writes]
        assert ops[0][0] == "update" and ops[0][2] == "m_both"
        assert ("add", "The user likes rock climbing.", None) in ops, said
    three = _rec(
        "The user likes jazz, tea and cats.",
        id="m_three",
        category="preference",
        tags=["likes", "topic:jazz-tea-and-cat"],
    )
    out = offline_writes("I don't like tea anymore", existing=[three], now=NOW)
    kept = [w.entry.content for w in out.writes if w.op == "add"]
    assert kept == ["The user likes jazz and cats."]


def test_allergy_is_its_own_fact_per_allergen():
    existing = [
        _rec(
            "The user is allergic to peanuts.",
            id="m_nuts",
            category="profile",
            tags=["allergy", "topic:peanut"],
        )
    ]
    out = offline_writes(
        "I'm allergic to peanuts and I'm allergic to cats", existing=existing, now=NOW
    )
    assert [(w.op, w.entry.content) for w in out.writes] == [
        ("skip", "The user is allergic to peanuts."),
        ("add", "The user is allergic to cats."),
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
