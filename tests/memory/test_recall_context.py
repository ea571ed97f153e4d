"""Recall reads the message in its conversation (issue 24): the recent branch of the tree,
fused with the message, shown in the result; and keyword terms for scripts without spaces."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np

from familiars.memory import keyword_terms, make_record
from familiars.memory._dialog_trees import DialogTrees
from familiars.memory._reader import MemoryReader
from familiars.memory._recall_context import (
    CONTEXT_MAX_AGE_S,
    CONTEXT_MAX_WORDS,
    CONTEXT_TEXT_WORDS,
    Reading,
    context_query,
    context_text,
    fuse,
    recent_messages,
)
from familiars.memory._text import words
from tests.fakes import HashEmbedder

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
T0 = NOW.timestamp() - 600


def _tree(tmp_path, emb, messages, start=T0):
    trees = DialogTrees(tmp_path)
    tree = trees.get("agent_0", "dialogue_1", create=True)
    for i, (who, text) in enumerate(messages):
        tree.add_node(text, emb.embed(text), timestamp=start + 30 * i, origin="user",
                      metadata={"user_key": who})  # fmt: skip
    return trees, tree


def test_recent_messages_are_the_persons_last_ones_on_the_branch(tmp_path) -> None:
    emb = HashEmbedder(dim=64)
    _, tree = _tree(tmp_path, emb, [
        ("ana", "priya birthday is coming up"), ("bo", "nice"),
        ("ana", "I want to organise something for her birthday"),
        ("ana", "someone did something amazing for me once"),
    ])  # fmt: skip
    said = recent_messages(tree, "someone did something amazing for me once", "ana",
                           NOW.timestamp())  # fmt: skip
    assert "nice" not in said and said[-1] == "I want to organise something for her birthday"
    assert "someone did something amazing for me once" not in said
    assert recent_messages(tree, "x", "ana", NOW.timestamp() + CONTEXT_MAX_AGE_S + 601) == []
    assert recent_messages(None, "x", "ana", NOW.timestamp()) == []


def test_the_joined_text_keeps_its_last_words() -> None:
    """Long messages do not make the embedded context text long: its last words are kept
    (the message's own, then the newest context); a character of a script without spaces
    counts as a word."""
    said = [f"word{i}" for i in range(100)]
    (joined,) = context_query([" ".join(said)], "where did I put the keys")
    assert joined.split() == [
        *said[-(CONTEXT_MAX_WORDS - 6) :],
        *["where", "did", "I", "put", "the", "keys"],
    ]
    (short,) = context_query(["we talked about the garden"], "the roses")
    assert short == "we talked about the garden the roses"
    (cjk,) = context_query(["我" * 1000], "烤鸭", max_words=10)
    assert cjk == "我" * 8 + " 烤鸭"
    assert context_query([" ".join(said)], "x", max_words=0) == [" ".join([*said, "x"])]
    assert len(Reading([" ".join(said)] * 3, "q").joined[0].split()) == CONTEXT_MAX_WORDS


def test_the_embedded_context_is_the_earlier_messages_alone() -> None:
    """What is embedded for the conversation leaves the message out (so it can be embedded
    before the message comes) and keeps the newest words of the earlier messages."""
    said = [f"word{i}" for i in range(100)]
    reading = Reading([" ".join(said), "the roses"], "where did I put the keys")
    assert reading.extra == [" ".join([*said[-(CONTEXT_TEXT_WORDS - 2) :], "the roses"])]
    assert "keys" in reading.text("where did I put the keys")  # BM25 reads the message too
    assert context_text([" ".join(said)], max_words=0) == [" ".join(said)]
    assert context_text([]) == []


def test_fuse_reads_the_message_with_its_context() -> None:
    vecs = np.eye(3, dtype=np.float32)
    out, message = fuse(vecs, 2, ["earlier"], weight=1.0)
    assert out.shape == (2, 3) and np.allclose(out[1], vecs[1]) and np.allclose(message, vecs[0])
    assert np.allclose(out[0], np.array([1, 0, 1]) / np.sqrt(2))
    same, none = fuse(vecs[:2], 2, [])
    assert none is None and np.allclose(same, vecs[:2])


async def test_the_conversation_brings_back_what_the_message_alone_does_not(tmp_path) -> None:
    emb = HashEmbedder(dim=256)
    trees, _ = _tree(tmp_path, emb, [
        ("ana", "my sister Priya has her birthday soon"),
        ("ana", "I want to organise a party on a boat"),
    ])  # fmt: skip
    reader = MemoryReader(emb, trees=trees, reranker=None)
    await reader.add_records([
        make_record("Friends threw Ana a surprise birthday party on a canal boat", scope="user",
                    category="event", user_key="ana"),
        make_record("Ana is learning to play chess", scope="user", category="knowledge",
                    user_key="ana"),
    ])  # fmt: skip
    args = dict(agent_id="agent_0", dialogue_id="dialogue_1", user_key="ana", now=NOW, k=4)
    alone = await reader.build_rag_context("that would be lovely", context=(), **args)
    assert not alone.context and alone.as_dict()["context"] == {}
    read = await reader.build_rag_context("that would be lovely", **args)
    assert read.context.messages == [
        "my sister Priya has her birthday soon",
        "I want to organise a party on a boat",
    ]
    records = [it for it in read.items if it.kind == "record"]
    assert "canal boat" in records[0].text
    shown = read.as_dict()["context"]
    assert shown["lifted"][records[0].key] > 0 and shown["messages"] == read.context.messages


def test_scripts_without_spaces_become_bigrams() -> None:
    assert "烤鸭" in keyword_terms("李明最喜欢吃北京烤鸭") and "烤鸭" in keyword_terms(
        "我想吃烤鸭了"
    )
    assert "ラー" in words("佐藤さんはラーメンが大好き")
    assert words("hello, world") == ["hello", "world"]
    assert words("iPhone15で写真") == ["iphone15", "で写", "写真"]
    assert words("猫") == ["猫"]


async def test_a_message_read_in_its_conversation_skips_word_level_matching(tmp_path) -> None:
    """Word-level matching over several messages' words finds what shares any one of them:
    with a context the fused vector and BM25 decide, and no query word is embedded."""
    emb = HashEmbedder(dim=256)
    trees, _ = _tree(tmp_path, emb, [("ana", "my sister Priya has her birthday soon")])
    reader = MemoryReader(emb, trees=trees, reranker=None)
    await reader.add_records([
        make_record("Friends threw Ana a surprise birthday party on a canal boat", scope="user",
                    category="event", user_key="ana"),
    ])  # fmt: skip
    args = dict(agent_id="agent_0", dialogue_id="dialogue_1", user_key="ana", now=NOW, k=4)
    alone = await reader.build_rag_context("a lovely surprise", context=(), **args)
    assert "late" in alone.items[0].parts
    before = emb.texts_embedded
    read = await reader.build_rag_context("a wonderful gift", **args)
    assert read.context and "late" not in read.items[0].parts
    assert emb.texts_embedded - before == 2  # the message and its context, one batch


async def test_a_message_that_names_its_topic_is_read_alone(tmp_path) -> None:
    """A new topic ("What is the name of Ana's dog?" after talk of a hike) is not drowned by
    the conversation: the message is read alone, words and all."""
    emb = HashEmbedder(dim=256)
    trees, _ = _tree(tmp_path, emb, [
        ("ana", "let's plan the hiking route this weekend"),
        ("ana", "the mountain trail by the lake looks great for hiking"),
    ])  # fmt: skip
    reader = MemoryReader(emb, trees=trees, reranker=None)
    await reader.add_records([
        make_record("Ana has a dog named Biscuit", scope="user", category="knowledge",
                    user_key="ana"),
        make_record("Ana went hiking on the lake trail last summer", scope="user",
                    category="event", user_key="ana"),
    ])  # fmt: skip
    args = dict(agent_id="agent_0", dialogue_id="dialogue_1", user_key="ana", now=NOW, k=4)
    read = await reader.build_rag_context("Ana has a dog named what?", **args)
    assert not read.context and read.context.set_aside == [
        "let's plan the hiking route this weekend",
        "the mountain trail by the lake looks great for hiking",
    ]
    assert read.items[0].text == "Ana has a dog named Biscuit" and "late" in read.items[0].parts
    vague = await reader.build_rag_context("that sounds lovely", **args)
    assert vague.context.messages and "hiking" in vague.items[0].text


async def test_the_conversation_is_embedded_between_turns_and_the_turn_embeds_the_message_once(
    tmp_path,
) -> None:
    """``read_ahead`` (the recaller's background step after a turn) embeds the conversation
    the person's next message will be read in, once however often it runs; the turn then
    makes one model call of one text, the message, and ranks as it would have anyway."""
    emb = HashEmbedder(dim=256)
    trees, _ = _tree(tmp_path, emb, [
        ("ana", "my sister Priya has her birthday soon"),
        ("ana", "I want to organise a party on a boat"),
    ])  # fmt: skip
    records = [
        make_record("Friends threw Ana a surprise birthday party on a canal boat", scope="user",
                    category="event", user_key="ana"),
        make_record("Ana is learning to play chess", scope="user", category="knowledge",
                    user_key="ana"),
    ]  # fmt: skip
    cold = MemoryReader(emb, trees=trees, reranker=None)
    warm = MemoryReader(emb, trees=trees, reranker=None)
    args = dict(agent_id="agent_0", dialogue_id="dialogue_1", user_key="ana", now=NOW, k=4)
    for reader in (cold, warm):
        await reader.add_records(records)
        await reader.build_rag_context("hello", context=(), **args)  # the tree indexed
    before = emb.texts_embedded
    assert await warm.read_ahead("agent_0", "dialogue_1", "ana")
    assert not await warm.read_ahead("agent_0", "dialogue_1", "ana")  # embedded already
    assert emb.texts_embedded - before == 1
    calls, before = emb.calls, emb.texts_embedded
    products = _full_products(warm.index)
    read = await warm.build_rag_context("that would be lovely", **args)
    assert emb.calls - calls == 1 and emb.texts_embedded - before == 1  # the message alone
    assert products == [1]  # the topic check's; the ranking's is folded from the kept one
    cold_read = await cold.build_rag_context("that would be lovely", **args)
    assert emb.texts_embedded - before == 3  # without it: the message and its conversation
    assert read.context.messages == cold_read.context.messages
    assert [(it.key, round(it.score, 6)) for it in read.items] == [
        (it.key, round(it.score, 6)) for it in cold_read.items
    ]


def _full_products(index: Any) -> list[int]:
    """Counts the products over every row the index works out from now on."""
    count = [0]
    dense_all = index.dense_all

    def counted(q: Any) -> Any:
        memo = index._dense_memo
        key = np.asarray(q, dtype=np.float32).tobytes()
        if memo is None or memo[0] != key or memo[1] != index._version:
            count[0] += 1
        return dense_all(q)

    index.dense_all = counted
    return count
