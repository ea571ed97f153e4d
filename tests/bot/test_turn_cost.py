"""The turn embeds only what recall will use (issue 15, the turn's memory cost)."""

from __future__ import annotations

from familiars.bot._recall import ReaderRecaller
from familiars.memory import MemoryReader
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
