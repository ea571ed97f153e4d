"""The turn embeds only what recall will use (issue 15, the turn's memory cost)."""

from __future__ import annotations

from pathlib import Path

from familiars.bot._recall import ReaderRecaller
from familiars.memory import DialogTrees, MemoryReader
from tests.fakes import HashEmbedder

_REPLY = "Here is what I remember. You hike the Ridge trail. Your sister learns Welsh."


def _recaller() -> ReaderRecaller:
    return ReaderRecaller(MemoryReader(HashEmbedder(dim=32), reranker=None))


def test_prefetch_skips_nodes_recall_never_indexes() -> None:
    recaller = _recaller()
    notice = recaller.prefetch_texts([(_REPLY, None, {"kind": "notice"})], "hello there")
    question = recaller.prefetch_texts([(_REPLY, "Ana", {"kind": "question"})], "hello there")
    forgotten = recaller.prefetch_texts([(_REPLY, None, {"forgotten": True})], "hello")
    for texts in (notice, question, forgotten):
        assert not any("Ridge" in t for t in texts)
    assert "hello" in notice or "hello" in [t.lower() for t in notice]


def test_prefetch_keeps_the_sentences_of_a_recalled_node() -> None:
    texts = _recaller().prefetch_texts([(_REPLY, None, {})], "hello there")
    assert any("Ridge trail" in t for t in texts)
    assert any(t.lower() == "ridge" for t in texts)


async def test_the_hub_values_task_outlives_one_failed_step() -> None:
    """One failed background step (a thread's error) is logged; the task keeps the hub
    values current for the bot's life instead of ending, which left every later row
    without them."""
    import asyncio

    calls: list[int] = []

    class Index:
        async def awarm_hubs(self) -> int:
            calls.append(1)
            if len(calls) == 1:
                raise ValueError("a step failed")
            return 0

    class Reader:
        index = Index()
        behind = False

    task = asyncio.create_task(ReaderRecaller(Reader()).keep_hubs_current(every_s=0.001))  # type: ignore[arg-type]
    for _ in range(200):
        await asyncio.sleep(0.005)
        if len(calls) >= 3:
            break
    assert not task.done(), task.exception() if task.done() else None
    task.cancel()
    assert len(calls) >= 3


async def test_catch_up_indexes_what_was_queued_before_the_next_recall(tmp_path: Path) -> None:
    """Between turns the background step indexes the reply's node and the writer's records
    and works out their hub values: the next recall's sync finds nothing left to do."""
    trees = DialogTrees(tmp_path)
    emb = HashEmbedder(dim=32)
    reader = MemoryReader(emb, trees=trees, reranker=None)
    recaller = ReaderRecaller(reader)
    tree = await trees.aget("agent_0", "dialogue_1", create=True)
    reader.add_tree(tree)
    for i, text in enumerate(["I hike the Ridge trail", "My sister learns Welsh"]):
        tree.add_node(text, emb.embed(text), node_type="Q", timestamp=1.7e9 + i)
    assert reader.behind and len(reader.index) == 0
    warmed = await recaller.catch_up()
    assert not reader.behind and len(reader.index) == 2
    assert warmed == 2  # both new rows have hub values now
    assert await recaller.catch_up() == 0  # nothing new: nothing done


async def test_catch_up_embeds_the_next_conversation_and_the_turn_embeds_the_message_alone(
    tmp_path: Path,
) -> None:
    """After a recall, the background step embeds the conversation the asker's next message
    will be read in (once, however often it runs); that recall then embeds one text."""
    from datetime import UTC, datetime

    trees = DialogTrees(tmp_path)
    emb = HashEmbedder(dim=64)
    reader = MemoryReader(emb, trees=trees, reranker=None)
    recaller = ReaderRecaller(reader)
    tree = await trees.aget("agent_0", "dialogue_1", create=True)
    reader.add_tree(tree)
    said = ["my sister Priya has her birthday soon", "I want to organise a party on a boat"]
    for i, text in enumerate(said):
        tree.add_node(text, emb.embed(text), node_type="Q", timestamp=1.7e9 + i, origin="user",
                      metadata={"user_key": "ana"})  # fmt: skip
    ask = dict(agent_id="agent_0", dialogue_id="dialogue_1", user_key="ana", is_group=False,
               now=datetime.fromtimestamp(1.7e9 + 60, UTC), k=3)  # fmt: skip
    await recaller.recall("hello", **ask)  # the asker and the place: read ahead from now on
    before = emb.texts_embedded
    await recaller.catch_up()
    await recaller.catch_up()
    assert emb.texts_embedded - before == 1  # " ".join(said), once
    calls, before = emb.calls, emb.texts_embedded
    await recaller.recall("that would be lovely", **ask)
    assert recaller.last_result.context.messages == said
    assert (emb.calls - calls, emb.texts_embedded - before) == (1, 1)
