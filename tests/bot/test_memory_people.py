"""``/memory people``: who each person is to you, how familiar, and what changed."""

from __future__ import annotations

from familiars.bot._commands._people import people_lines
from familiars.memory import build_graph
from tests.memory.test_people_graph import NOW, records


def test_memory_people_lists_who_they_are_and_what_changed():
    lines = people_lines(build_graph(records()), NOW)
    text = "\n".join(lines)
    assert "**Joaquin**: Emma's husband" in text and "**Emma**: your sister" in text
    assert "**Priya**: was your boss until 2026-11-06 (familiarity" in text
    assert people_lines(build_graph([]), NOW) == ["You have not told me about anyone yet."]


async def test_recall_walks_the_speakers_graph_first_and_only_theirs(tmp_path):
    from datetime import UTC, datetime

    from familiars.bot import ReaderRecaller
    from familiars.memory import DialogTrees, MemoryReader, MemoryStore, PeopleIndex
    from tests.fakes import HashEmbedder

    async with MemoryStore(tmp_path) as store:
        for rec in [*records(), *records(user="bob")]:
            await store.append(rec, dedupe=False)
        trees = DialogTrees(tmp_path)
        trees.get("agent_0", "dialogue_1", create=True)
        reader = MemoryReader(HashEmbedder(dim=64), trees=trees)
        await reader.add_records(await store.list())
        recaller = ReaderRecaller(reader, people=PeopleIndex(store))
        items = await recaller.recall(
            "What's my sister's husband called?", agent_id="agent_0", dialogue_id="dialogue_1",
            user_key="ana", is_group=False, now=datetime(2026, 12, 1, tzinfo=UTC), k=5,
        )  # fmt: skip
        assert [it.text for it in items[:2]] == [
            "Emma's husband is called Joaquin.",
            "The user's sister is called Emma.",
        ]
        assert items[0].parts == {"graph": 1.0} and items[0].private
        ids = {r.id for r in await store.list(user_key="ana")}
        assert all(rid in ids for it in items for rid in it.record_ids)


def test_the_people_page_draws_the_graph_and_escapes_names():
    from familiars.bot._web.people import people_drawing, people_rows
    from familiars.bot._web.render import Renderer
    from familiars.memory import Edge, PeopleGraph, Person

    graph = build_graph(records())
    drawing = people_drawing(graph, NOW)
    names = {n.name for n in drawing.nodes}
    assert {"you", "Emma", "Joaquin", "Priya", "Dana"} <= names
    labels = {e.label: e for e in drawing.edges}
    assert "sister" in labels and "Emma's husband" in labels
    assert labels["was boss until 2026-11-06"].past and not labels["sister"].past
    # Everyone is drawn inside the picture.
    across = range(drawing.left, drawing.left + drawing.width)
    down = range(drawing.top, drawing.top + drawing.height)
    assert all(n.x in across and n.y in down for n in drawing.nodes)
    # More familiar: larger and stronger.
    ranked = sorted((n for n in drawing.nodes if not n.you), key=lambda n: n.familiarity)
    assert ranked[0].r <= ranked[-1].r and ranked[0].opacity <= ranked[-1].opacity

    evil = '<script>alert("x")</script>'
    bad = PeopleGraph({evil: Person(evil, 2, "2026-11-01", "2026-11-30", ["r1"])})
    bad.edges.append(Edge("user", "friend", evil, "r1", "2026-11-01"))
    bad.people["Sam"] = Person("Sam", 1, "2026-11-01", "2026-11-30", ["r2"])
    bad.edges.append(Edge(evil, "friend", "Sam", "r2", "2026-11-01"))
    html = (
        Renderer()
        .page("people.html", drawing=people_drawing(bad, NOW), people=people_rows(bad, NOW))
        .body.decode()
    )
    assert "<script>" not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html.split("<svg", 1)[1]
    assert "q=%3Cscript%3Ealert" in html  # the search link's query is encoded too


def test_memory_people_lists_slang_relations_and_everyone_named_together():
    """s33 U8: "gf" is a girlfriend, and "daughters ... Susan and Claire" are two people."""
    said = [
        "The user's gf is called Priya.",
        "The user's daughters are called Susan and Claire.",
        "The user's kids are Tom, Ann and Bea.",
    ]
    text = "\n".join(people_lines(build_graph(records(said)), NOW))
    assert "**Priya**: your girlfriend" in text
    assert "**Susan**: your daughter" in text and "**Claire**: your daughter" in text
    assert all(f"**{n}**: your child" in text for n in ("Tom", "Ann", "Bea"))


def test_several_named_in_one_has_record_and_a_rewritten_record_is_not_a_past_relation() -> None:
    """Lead's s33 session: "we have two kids, Sam and Lily", then "sorry, its Lila not Lily":
    /memory people listed Sam alone, as "your child; was your child until ..."."""
    old, new = records(
        ["The user has two kids called Sam and Lily.", "The user has two kids called Sam and Lila."]
    )
    new.supersedes = old.id
    old.deprecated = True
    graph = build_graph([old, new])
    current = sorted(e.dst for e in graph.edges if e.current and e.rel == "child")
    past = sorted(e.dst for e in graph.edges if not e.current)
    assert current == ["Lila", "Sam"]
    assert past == ["Lily"]
