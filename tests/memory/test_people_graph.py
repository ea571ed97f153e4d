"""Issue 25: the people in a person's life, from their records: typed relations, a new boss
superseding the old, familiarity fading, two-hop questions walked, the SQLite copy, and the
offline writer stating relations in the shape the graph reads."""

from __future__ import annotations

from datetime import UTC, datetime

from familiars.config import load_settings
from familiars.memory import (
    Forgetter,
    PeopleIndex,
    build_graph,
    load_people,
    make_record,
    open_workspace,
    question_paths,
)
from familiars.memory._offline._relations import match_relations
from tests.fakes import HashEmbedder

NOW = datetime(2026, 12, 1, tzinfo=UTC)
SAID = [
    "The user's sister is called Emma.",
    "Emma's husband is called Joaquin.",
    "The user's boss is called Priya.",
    "The user's friend Marco plays guitar.",
    "Marco's girlfriend is called Lena.",
    "The user's boss is called Dana.",
    "The user has a dog called Rex.",
]


def records(texts=SAID, user="ana"):
    return [
        make_record(t, scope="user", category="relation", user_key=user, ts=f"2026-11-{i + 1:02d}")
        for i, t in enumerate(texts)
    ]


def walk(question, graph):
    return [[(e.src, e.rel, e.dst) for e in path] for path in question_paths(question, graph)]


def test_two_hop_questions_walk_the_graph():
    graph = build_graph(records())
    assert walk("What's my sister's husband called?", graph) == [
        [("user", "sister", "Emma"), ("Emma", "husband", "Joaquin")]
    ]
    assert walk("what does my friend's girlfriend do?", graph)[0][-1] == (
        "Marco",
        "girlfriend",
        "Lena",
    )
    assert walk("Who is Emma's husband?", graph) == [[("Emma", "husband", "Joaquin")]]
    assert walk("what's my dog called?", graph) == [[("user", "dog", "Rex")]]
    assert walk("Who is my mum?", graph) == []


def test_a_new_boss_keeps_the_old_one_as_the_past():
    graph = build_graph(records())
    bosses = {e.dst: e for e in graph.edges if e.rel == "boss"}
    assert bosses["Priya"].superseded_at == bosses["Dana"].valid_from
    assert bosses["Dana"].current
    assert walk("who is my boss?", graph) == [[("user", "boss", "Dana")]]
    assert walk("who was my boss before?", graph) == [[("user", "boss", "Priya")]]


def test_familiarity_grows_with_mentions_and_fades_unseen():
    graph = build_graph(records([*SAID, "The user had dinner with Emma.", "Emma called."]))
    emma, lena = graph.people["Emma"], graph.people["Lena"]
    assert emma.mentions > lena.mentions
    assert emma.familiarity(NOW) > lena.familiarity(NOW)
    later = datetime(2027, 6, 1, tzinfo=UTC)
    assert emma.familiarity(later) < emma.familiarity(NOW) / 2


def test_the_offline_writer_states_relations_the_graph_reads():
    said = {
        "My boss is Priya": "The user's boss is called Priya.",
        "Priya is my boss": "The user's boss is called Priya.",
        "Emma's husband is called Joaquin": "Emma's husband is called Joaquin.",
        "my sister's husband is Joaquin": "The user's sister's husband is called Joaquin.",
        "I went climbing with my friend Marco": "The user's friend is called Marco.",
    }
    for clause, content in said.items():
        assert [f.content for f in match_relations(clause)] == [content], clause
    assert match_relations("My boss is very strict") == []
    graph = build_graph(
        records(
            ["The user's sister is called Emma.", "The user's sister's husband is called Joaquin."]
        )
    )
    assert walk("my sister's husband?", graph)[0][-1] == ("Emma", "husband", "Joaquin")


async def test_the_graph_is_kept_in_sqlite_and_forgetting_takes_names_with_it(tmp_path):
    settings = load_settings(workspace=tmp_path / "ws")
    async with open_workspace(settings, embedder=HashEmbedder(dim=64)) as mw:
        recs = [await mw.store.append(r, dedupe=False) for r in records()]
        people = PeopleIndex(mw.store, mw.index)
        hits = await people.answer("ana", "What's my sister's husband called?")
        assert [h.record.content for h in hits][:2] == [SAID[1], SAID[0]]
        saved = await load_people(mw.index, "ana")
        assert {"Emma", "Joaquin", "Priya", "Dana"} <= set(saved.people)
        assert any(e.rel == "boss" and e.superseded_at for e in saved.edges)
        await Forgetter.for_workspace(mw).forget(recs[1].id)
        assert "Joaquin" not in (await load_people(mw.index, "ana")).people
        assert await people.answer("ana", "What's my sister's husband called?") == []
        assert "Joaquin" not in (await load_people(mw.index, "ana")).people


async def test_the_graph_answers_and_forgets_on_both_homes(memory_home, workspace):
    """Recall's graph step and a forget run in the database home too (the SQLite copy is
    the files home's; the database home keeps the graph in memory, rebuilt from records),
    so a question naming a relation does not crash the turn there."""
    settings = load_settings(workspace=workspace)
    async with open_workspace(settings, embedder=HashEmbedder(dim=64)) as mw:
        recs = [await mw.store.append(r, dedupe=False) for r in records()]
        people = PeopleIndex(mw.store, mw.index)
        hits = await people.answer("ana", "What's my sister's husband called?")
        assert [h.record.content for h in hits][:2] == [SAID[1], SAID[0]]
        await Forgetter.for_workspace(mw).forget(recs[1].id)
        assert await people.answer("ana", "What's my sister's husband called?") == []


def test_everyday_words_and_a_pet_kept_by_its_breed_are_people_too():
    recs = records(["The user's missus is called Aoife.", "The user's sis is called Niamh."])
    pet = make_record(
        "The user has a jack russell called Pickles.",
        scope="user", category="relation", user_key="ana", ts="2026-11-05", tags=["pet"],
    )  # fmt: skip
    graph = build_graph([*recs, pet])
    assert walk("what's my wife called?", graph) == [[("user", "wife", "Aoife")]]
    assert walk("who is my sister?", graph) == [[("user", "sister", "Niamh")]]
    assert graph.relations_to_user("Pickles") == ["pet"]
    # Without the writer's pet tag a "has a ... called" sentence names no one.
    untagged = make_record(
        "The user has a lawnmower called Bertha.", scope="user", category="relation",
        user_key="ana", ts="2026-11-06",
    )  # fmt: skip
    assert build_graph([untagged]).people == {}


def test_who_someone_is_married_to_walks_to_their_spouse():
    graph = build_graph(
        records(["The user's friend is called Jo.", "Jo's husband is called Ravi."])
    )
    assert walk("who is Jo married to?", graph) == [[("Jo", "husband", "Ravi")]]
    assert walk("who's my friend married to?", graph) == [
        [("user", "friend", "Jo"), ("Jo", "husband", "Ravi")],
        [("user", "friend", "Jo")],
    ]
    assert walk("who is Sam married to?", graph) == []  # no one called Sam


async def test_a_corrected_record_is_never_walked_to(memory_home, workspace):
    """Tester F5: after ``/memory edit`` the replaced "Leo just turned 7" still answered "how
    old is my son?" through the graph (score "graph 1.00"), beside the correction. A replaced
    record is history: no road of recall brings it."""
    settings = load_settings(workspace=workspace)
    async with open_workspace(settings, embedder=HashEmbedder(dim=64)) as mw:
        old = await mw.store.append(records(["The user's son Leo just turned 7."])[0])
        new = await mw.store.update(old.id, "The user's son Leo is 8 now.")
        people = PeopleIndex(mw.store, mw.index)
        for question in ("how old is my son?", "what did my son do before?"):
            hits = await people.answer("ana", question)
            assert [h.record.id for h in hits] == [new.id], question


async def test_how_old_asks_the_corrected_record_not_the_one_it_replaced(tmp_path):
    """ "how old is my son?" is not a question about the past: after a correction
    (``/memory edit``) the graph walks to the record that replaced the old one."""
    settings = load_settings(workspace=tmp_path / "ws")
    async with open_workspace(settings, embedder=HashEmbedder(dim=64)) as mw:
        old = await mw.store.append(records(["The user's son Leo just turned 7."])[0])
        new = await mw.store.update(old.id, "The user's son Leo is 8 now.")
        people = PeopleIndex(mw.store, mw.index)
        for question in ("how old is my son?", "How old's my son now?", "is my son 8 years old?"):
            hits = await people.answer("ana", question)
            assert [h.record.id for h in hits] == [new.id], question
        graph = build_graph(await mw.store.list(live_only=False))
        assert walk("who was my old boss?", build_graph(records())) == [[("user", "boss", "Priya")]]
        assert walk("how old is my son?", graph) == [[("user", "son", "Leo")]]


async def test_recall_counts_leave_the_graph_and_a_new_relation_does_not(tmp_path):
    """The access counters a recall flushes change nothing the graph reads: it is not
    built again for them; a relation told since is in it at once."""
    settings = load_settings(workspace=tmp_path / "ws")
    async with open_workspace(settings, embedder=HashEmbedder(dim=64)) as mw:
        recs = [await mw.store.append(r, dedupe=False) for r in records()]
        people = PeopleIndex(mw.store, mw.index)
        first = await people.graph("ana")
        await mw.store.touch_access({r.id: 2 for r in recs})
        assert await people.graph("ana") is first
        await mw.store.append(records(["The user's cousin is called Rory."])[0])
        assert "Rory" in (await people.graph("ana")).people
