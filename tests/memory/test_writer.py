"""apply_writes (§5.7.3) and the MemoryWriter with the offline (rule-based) writer, on a real
MemoryStore in tmp_path."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from familiars.memory import VALID_CELLS, is_live
from familiars.memory._writer._apply import apply_writes, apply_writes_report
from familiars.memory._writer._dedupe import EmbedderVectors, says_nothing_new
from familiars.memory._writer._model import MemoryWriter
from familiars.memory._writer._schema import WriterOutputError, parse_writer_output
from familiars.memory._writer._status import load_status
from familiars.memory._writer._turn import TurnContext
from tests.fakes import HashEmbedder
from tests.homes import in_database, open_store

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)


@pytest.fixture
async def store(tmp_path, memory_home):
    """The writer's suite on both homes of the memory (files + SQLite, PostgreSQL)."""
    async with open_store(tmp_path / "ws") as s:
        yield s


def write(content, *, op="add", scope="user", category="preference", **entry):
    return {"op": op, "scope": scope, "category": category, "entry": {"content": content, **entry}}


def turn(text, **kw) -> TurnContext:
    kw.setdefault("agent_id", "agent_0")
    kw.setdefault("dialogue_id", "dialogue_1")
    kw.setdefault("user_key", "u1")
    kw.setdefault("now", NOW.isoformat())
    return TurnContext(user_text=text, **kw)


async def live(store, **kw):
    return await store.list(now=NOW, **kw)


async def test_add_sets_evidence_owner_and_fields(store):
    out = {
        "writes": [
            write(
                "The user's name is Alice",
                category="profile",
                tags=["name"],
                salience=0.8,
                epistemic_status="inferred",
                source_quote=["User message: 'My name is Alice'"],
            )
        ]
    }
    recs = await apply_writes(
        out, store=store, user_key="u1", dialogue_id="dialogue_1", turn_id=7, now=NOW
    )
    assert len(recs) == 1
    rec = await store.get(recs[0].id)
    assert rec.user_key == "u1" and rec.cell == ("user", "profile")
    assert rec.evidence == {"dialogue_id": "dialogue_1", "turn_id": 7}
    assert rec.epistemic_status == "inferred" and rec.salience == 0.8
    assert rec.source_quote == ["User message: 'My name is Alice'"]
    assert store.path_of(rec) == store.workspace / "users" / "u1" / "profile.md"
    assert in_database() or store.path_of(rec).is_file()


async def test_budget_is_greedy_first_write_always_allowed_highest_salience_kept(store):
    big = "x" * 1400
    out = {
        "writes": [
            write("The user likes small things.", salience=0.2),
            write(big + " first", salience=0.9),
            write("The user likes tea.", salience=0.5),
            write(big + " second", salience=0.4),
        ]
    }
    report = await apply_writes_report(out, store=store, user_key="u1", now=NOW)
    kept = sorted(r.content[-6:] for r in report.records)
    assert kept == [" first", "s tea."]
    assert report.truncated == 2 and report.added == 2
    # A single write over the budget is still allowed (the first write always is).
    alone = await apply_writes(
        {"writes": [write("y" * 1800)]}, store=store, user_key="u1", max_chars_total=100, now=NOW
    )
    assert len(alone) == 1


async def test_update_with_supersedes_id_deprecates_the_old_record(store):
    [old] = await apply_writes(
        {"writes": [write("The user likes coffee.")]}, store=store, user_key="u1", now=NOW
    )
    out = {
        "writes": [
            write(
                "The user no longer likes coffee; they drink tea.",
                op="update",
                supersedes_id=old.id,
            )
        ]
    }
    [new] = await apply_writes(out, store=store, user_key="u1", now=NOW)
    assert new.supersedes == old.id
    assert (await store.get(old.id)).deprecated is True
    assert [r.id for r in await live(store, user_key="u1", scope="user")] == [new.id]


async def test_duplicates_are_stopped_without_the_model(store):
    vectors = EmbedderVectors(HashEmbedder())
    kw = {"store": store, "user_key": "u1", "now": NOW, "vectors": vectors}
    await apply_writes({"writes": [write("The user likes green tea.")]}, **kw)
    # Same text (case, spaces, punctuation), a subset of its words, an "update" with no id:
    report = await apply_writes_report(
        {
            "writes": [
                write("the user  LIKES green tea!"),
                write("User likes green tea."),
                write("The user likes green tea", op="update"),
                write("The user likes green tea."),
            ]
        },
        **kw,
    )
    assert report.added == 0 and report.skipped == 4
    # Cosine above the threshold: an "add" is a copy (skipped), an "update" without an id
    # supersedes the live record, a flipped negation supersedes it too; never a second record.
    report = await apply_writes_report(
        {"writes": [write("The user likes green tea very much.")]}, dedupe_cosine=0.8, **kw
    )
    assert report.skipped == 1 and report.added == 0
    report = await apply_writes_report(
        {"writes": [write("The user likes green tea very much.", op="update")]},
        dedupe_cosine=0.8,
        **kw,
    )
    assert report.updated == 1 and report.added == 0
    report = await apply_writes_report(
        {"writes": [write("The user doesn't like green tea very much.")]}, dedupe_cosine=0.7, **kw
    )
    assert report.updated == 1 and report.added == 0
    [rec] = await live(store, user_key="u1", scope="user")
    assert rec.content == "The user doesn't like green tea very much."


async def test_negation_is_not_a_duplicate():
    assert says_nothing_new("The user likes coffee", "the user likes coffee!")
    assert says_nothing_new("The user likes coffee", "The user likes coffee and tea")
    assert not says_nothing_new(
        "The user doesn't like coffee", "The user doesn't like coffee or tea and never did"
    )  # noqa: E501
    assert not says_nothing_new("The user likes coffee", "The user does not like coffee")


async def test_one_bad_write_never_discards_the_good_ones(store):
    out = {
        "writes": [
            write("outside the matrix", scope="user", category="directive"),
            write("no such scope", scope="team", category="profile"),
            {"op": "add"},
            write("The user likes jazz."),
            write("needs a dialogue", scope="dialogue", category="state"),
        ]
    }
    report = await apply_writes_report(out, store=store, user_key="u1", now=NOW)
    assert report.added == 1 and report.rejected == 4
    assert [r.content for r in await live(store, user_key="u1", scope="user")] == [
        "The user likes jazz."
    ]


def test_parse_rejects_what_is_not_a_writer_output():
    with pytest.raises(WriterOutputError):
        parse_writer_output("not json at all")
    with pytest.raises(WriterOutputError):
        parse_writer_output('{"writes": "nope"}')
    parsed = parse_writer_output('```json\n{"writes": [{"op": "skip"}]}\n```')
    assert parsed.output.writes[0].op == "skip"


async def test_turns_ttl_gets_created_turn_and_open_loop_round_trips(store):
    out = {
        "writes": [
            write(
                "Waiting for the user's answer about the trip.",
                scope="dialogue",
                category="state",
                ttl={"kind": "turns", "turns": 5},
                open_loop={"kind": "question", "due": None, "status": "open"},
            ),
        ]
    }
    [rec] = await apply_writes(out, store=store, dialogue_id="dialogue_1", turn_counter=12, now=NOW)
    again = await store.get(rec.id)
    assert again.ttl == {"kind": "turns", "turns": 5, "created_turn": 12}
    assert again.open_loop == {"kind": "question", "due": None, "status": "open"}
    assert is_live(again, turn_counter=16) and not is_live(again, turn_counter=17)


FIVE_FACTS = {
    "The user's name is Alice.": [
        "My name is Alice",
        "my name's Alice",
        "Call me Alice",
        "You can call me Alice",
        "I'm called Alice",
        "People call me Alice",
        "Hi! My name is Alice.",
        "Oh, my name is Alice",
        "btw my name is Alice",
        "Well, call me Alice",
        "my name is alice",
        "MY NAME IS ALICE",
        "Please call me Alice",
        "Just so you know, my name is Alice",
        "Hey, I'm called Alice",
    ],
    "The user likes hiking.": [
        "I like hiking",
        "I love hiking",
        "I really enjoy hiking",
        "I'm into hiking",
        "Hiking is my favourite hobby",
        "I'm a big fan of hiking",
        "I absolutely love hiking!",
        "I do like hiking",
        "I enjoy hiking a lot",
        "I love hiking so much",
        "Honestly I like hiking",
        "I really like hiking",
        "I'm really into hiking these days",
        "hiking is my favorite",
        "I adore hiking",
    ],
    "The user lives in Berlin.": [
        "I live in Berlin",
        "I'm based in Berlin",
        "I live in berlin",
        "I reside in Berlin",
        "I'm living in Berlin",
        "I live in Berlin now",
        "So I live in Berlin",
        "I'm based in Berlin these days",
        "I now live in Berlin",
        "I live in Berlin.",
        "Actually I live in Berlin",
        "I'm living in Berlin at the moment",
        "yeah I live in Berlin",
        "I reside in Berlin now",
        "I live in BERLIN",
    ],
    "The user works at Acme.": [
        "I work at Acme",
        "I work for Acme",
        "I'm working at Acme",
        "I'm working for Acme",
        "I work at Acme now",
        "I now work at Acme",
        "Also I work for Acme",
        "I work at acme",
        "I work for Acme, it's fine",
        "ok I work at Acme",
        "I work at Acme these days",
        "Actually I work for Acme",
        "I'm working at Acme currently",
        "I work for ACME",
        "so I work at Acme",
    ],
    "The user's birthday is on March 3.": [
        "My birthday is on March 3rd",
        "my birthday is March 3",
        "I was born on March 3",
        "My birthday is the 3rd of March",
        "my bday is march 3rd",
        "I was born on 3 March",
        "My birthday's on March 3rd",
        "my birthday is on the 3rd of march",
        "my birthday is 3 March",
        "My birthday is on 3rd March",
        "I was born on the 3rd of March",
        "my birthday is on march 3",
        "oh my birthday is March 3rd",
        "btw my birthday is March 3",
        "My birthday is March 3rd!",
    ],
}


async def test_five_facts_told_fifteen_times_leave_five_records_offline(store):
    writer = MemoryWriter(store, vectors=EmbedderVectors(HashEmbedder()))
    tellings = list(zip(*FIVE_FACTS.values(), strict=True))  # interleave the five facts
    assert len(tellings) == 15
    for round_ in tellings:
        for text in round_:
            await writer.process_turn(turn(text))
    records = await live(store, user_key="u1", scope="user")
    assert sorted(r.content.casefold() for r in records) == sorted(c.casefold() for c in FIVE_FACTS)
    everything = await store.list(user_key="u1", scope="user", live_only=False)
    assert len(everything) == 5  # not even a superseded copy
    assert writer.stats.turns_processed == 75
    assert writer.stats.added == 5 and writer.stats.skipped == 70


async def test_changed_preference_supersedes_and_history_shows_the_chain(store):
    writer = MemoryWriter(store)
    await writer.process_turn(turn("I love coffee"))
    [coffee] = await live(store, user_key="u1", scope="user")
    report = await writer.process_turn(turn("I don't like coffee anymore, I drink tea"))
    # the new like takes the old one's place: one update, nothing stale beside it
    assert report.updated == 1 and report.added == 0
    records = {r.content: r for r in await live(store, user_key="u1", scope="user")}
    assert set(records) == {"The user drinks tea now, no longer coffee."}
    new = records["The user drinks tea now, no longer coffee."]
    assert new.supersedes == coffee.id
    assert (await store.get(coffee.id)).deprecated
    chain = await store.history(new.id)
    assert [e["id"] for e in chain if e["event"] == "upsert"] == [coffee.id, new.id]


async def test_reminder_is_an_event_with_ttl_and_open_loop_then_closed(store):
    writer = MemoryWriter(store, reminder_grace_s=3600)
    await writer.process_turn(
        turn("remind me to call my mom tomorrow at 9am", timezone="Europe/Berlin")
    )
    [rem] = await live(store, scope="dialogue", agent_id="agent_0", dialogue_id="dialogue_1")
    assert rem.category == "event"
    assert rem.open_loop == {
        "kind": "reminder",
        "due": "2026-12-01T09:00:00+01:00",
        "status": "open",
        "user_key": "u1",  # the person who asked: the dialogue's file does not say
    }
    assert rem.ttl == {"kind": "absolute", "expires_at": "2026-12-01T09:00:00+00:00"}
    report = await writer.process_turn(turn("I called my mom!"))
    assert report.closed_loops == 1
    [done] = await live(store, scope="dialogue", agent_id="agent_0", dialogue_id="dialogue_1")
    assert done.id == rem.id and done.open_loop["status"] == "done"
    assert done.open_loop["user_key"] == "u1"


async def test_status_is_saved_for_other_processes(store, tmp_path):
    writer = MemoryWriter(store)
    await writer.process_turn(turn("My name is Alice"))
    writer.save_status(queue_depth=0)
    status = load_status(store.workspace)
    assert status.turns_processed == 1 and status.added == 1 and status.mode == "offline"
    assert status.updated_at is not None


async def test_update_may_move_a_fact_to_another_category_of_the_scope(store):
    [old] = await apply_writes(
        {"writes": [write("The user is a vegetarian.")]}, store=store, user_key="u1", now=NOW
    )
    out = {
        "writes": [
            write(
                "The user has been vegetarian since 2019.",
                op="update",
                category="knowledge",
                supersedes_id=old.id,
            )
        ]
    }
    [new] = await apply_writes(out, store=store, user_key="u1", now=NOW)
    assert new.category == "knowledge" and new.supersedes == old.id
    assert [r.id for r in await live(store, user_key="u1", scope="user")] == [new.id]


async def test_update_naming_an_outdated_record_when_the_new_fact_exists_deprecates_it(store):
    kw = {"store": store, "user_key": "u1", "now": NOW}
    [old] = await apply_writes({"writes": [write("The user likes coffee.")]}, **kw)
    [tea] = await apply_writes({"writes": [write("The user drinks tea now.")]}, **kw)
    report = await apply_writes_report(
        {"writes": [write("The user drinks tea now.", op="update", supersedes_id=old.id)]}, **kw
    )
    assert report.updated == 1 and report.added == 0
    assert [r.id for r in await live(store, user_key="u1", scope="user")] == [tea.id]


async def test_an_update_with_status_done_closes_the_loop(store):
    loop = {"kind": "promise", "due": None, "status": "open"}
    [rec] = await apply_writes(
        {
            "writes": [
                write(
                    "The assistant promised to send a recipe.",
                    scope="dialogue",
                    category="event",
                    open_loop=loop,
                )
            ]
        },
        store=store,
        dialogue_id="dialogue_1",
        now=NOW,
    )
    report = await apply_writes_report(
        {
            "writes": [
                write(
                    "The assistant sent the promised recipe.",
                    op="update",
                    scope="dialogue",
                    category="event",
                    supersedes_id=rec.id,
                    open_loop={**loop, "status": "done"},
                )
            ]
        },
        store=store,
        dialogue_id="dialogue_1",
        now=NOW,
    )
    assert report.closed_loops == 1
    [now_rec] = await live(store, scope="dialogue", agent_id="agent_0", dialogue_id="dialogue_1")
    assert now_rec.open_loop["status"] == "done" and now_rec.supersedes == rec.id


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "writes",
                    "op",
                    "scope",
                    "category",
                    "entry",
                    "content",
                    "ttl",
                    "salience",
                    "tags",
                    "open_loop",
                    "x",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_json_is_parsed_or_refused_with_a_clear_error(value):
    try:
        parsed = parse_writer_output(json.dumps(value))
    except WriterOutputError as exc:
        assert str(exc)
        return
    assert all((w.scope, w.category) in VALID_CELLS or w.op == "skip" for w in parsed.output.writes)
