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
