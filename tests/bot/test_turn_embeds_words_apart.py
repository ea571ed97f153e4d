"""Issue 20: the message's node is embedded as the message alone. Its words the reader
lacks are embedded only when recall matches words (a message read alone), in a call of
their own: padded to the message's length in one batch, each word cost about what the
message did, and a message read in its conversation never reads them."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.fakes import HashEmbedder
from tests.harness import make_app, message, reply_to, say


class Batches(HashEmbedder):
    """The fake embedder, remembering each batch it was asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[list[str]] = []

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        self.batches.append(list(texts))
        return super().embed_batch(texts)


async def test_a_message_alone_has_its_new_words_embedded_apart(workspace: Path) -> None:
    embedder = Batches()
    said = "Do you know anything about my axolotl Quibble?"
    async with make_app(workspace, embedder=embedder, model=None) as app:
        await reply_to(app, message(said, minutes=1))
        batches = list(embedder.batches)
        reader = app.dialogues.recaller.reader
        result = app.dialogues.recaller.last_result
    assert [said] in batches  # the message's node: the message alone
    assert not result.context  # the first message of a chat is read alone
    words = next(b for b in batches if "axolotl" in b)  # word-level matching read them
    assert said not in words
    assert batches.index(words) > batches.index([said])
    assert reader.index.vocab.missing(["axolotl", "quibble"]) == []


async def test_a_message_read_in_its_conversation_embeds_no_words(workspace: Path) -> None:
    embedder = Batches()
    first = "My sister Priya is planning a birthday party on a boat this weekend"
    then = "I hope the weather holds for the flamingo inflatables"
    async with make_app(workspace, embedder=embedder, model=None) as app:
        await say(app, message(first, minutes=1))
        embedder.batches.clear()
        await reply_to(app, message(then, minutes=2))
        await app.settle()  # the reply's node, and the message's own vector, are added
        during = list(embedder.batches)
        result = app.dialogues.recaller.last_result
    assert result.context.messages == [first]  # read in its conversation
    assert during[0] == [then]  # the message's node, alone
    # Its words ride only with the node's own vector, embedded after the reply.
    with_words = [b for b in during if "flamingo" in b]
    assert with_words and all(f"Ann: {then}" in b for b in with_words)
