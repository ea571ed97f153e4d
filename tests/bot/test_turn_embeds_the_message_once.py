"""Issue 20: a turn embeds its message once. Recall's query vector (embedded when the
message's node is added) is the one the care check reads: the bundled model reads case
alike, so the lowercase message is never embedded again, and a message that speaks of harm
indirectly still gets the crisis reply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from familiars.memory import Embedder
from tests.harness import make_app, message, say


class Recording(Embedder):
    """The real model, remembering every text a turn asks it for."""

    def __init__(self, real: Any) -> None:
        self.real, self.texts = real, []
        self.model_name, self.dim = real.model_name, real.dim

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        self.texts += list(texts)
        return self.real.embed_batch(texts)


async def test_the_care_check_reads_the_message_vector_recall_embedded(
    workspace: Path, real_embedder: Any
) -> None:
    embedder = Recording(real_embedder)
    said = "Some Nights I Wish I Could Just Disappear And Not Wake Up"
    async with make_app(workspace, embedder=embedder, model=None) as app:
        await say(app, message("Hello There, I Walked The Dog Today", minutes=1))
        embedder.texts.clear()
        reply = await say(app, message(said, minutes=2))
    assert "988" in reply or "helpline" in reply.lower()
    assert embedder.texts.count(said) == 1  # recall's query, as said
    assert said.lower() not in embedder.texts  # not again for the care check


async def test_the_plan_reads_the_message_vector_recall_embedded(
    workspace: Path, real_embedder: Any
) -> None:
    """The plan's reading of an offline question (its slot, what it asks about) takes the
    message's vector for its lowercase text too: one model call for a capitalised message,
    not two (measured 14-48 ms a turn on the bundled model)."""
    embedder = Recording(real_embedder)
    asked = "What Did I Tell You About The Night Shift At Work"
    async with make_app(workspace, embedder=embedder, model=None) as app:
        await say(app, message("Hello There, I Walked The Dog Today", minutes=1))
        await say(app, message("I Work The Night Shift At The Hospital", minutes=2))
        embedder.texts.clear()
        reply = await say(app, message(asked, minutes=3))
    assert "hospital" in reply.lower()  # answered from what was said
    assert embedder.texts.count(asked) == 1  # recall's query, as said
    assert asked.lower() not in embedder.texts  # not again for the plan
