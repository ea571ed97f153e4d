"""A stop that lands while the adapter awaits a send or edit between pieces of the reply
(Discord, Telegram: most stops land there), here during the last piece's edit: the reply's
generator is closed, not cancelled, and what the person was shown is still kept as the
reply's A node, marked as cut off, before the dialogue's lock is let go, so the next
message starts after that cleanup (review s38 F1: the tree held only the person's message
although the reply had been shown)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from familiars.bot._adapters.base import closing_reply
from familiars.llm import OUTPUT_CUT
from tests.harness import make_app, message

pytestmark = [pytest.mark.timeout(120), pytest.mark.asyncio]

SAID = "I live in Oslo and I work as a nurse."


async def test_a_stop_during_an_edit_keeps_what_was_shown(workspace: Path) -> None:
    async with make_app(workspace) as app:
        shown: list[str] = []
        editing = asyncio.Event()

        async def adapter() -> None:  # the shape of discord/_messages.py _answer
            async with closing_reply(app.dialogues.respond(message(SAID))) as deltas:
                async for delta in deltas:
                    shown.append(delta)
                    editing.set()
                    await asyncio.Event().wait()  # the edit never returns: the stop lands

        task = asyncio.create_task(adapter())
        await asyncio.wait_for(editing.wait(), 60)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # Kept, durable, by the time the adapter's close returned (the lock was let go
        # after it), not later, in the loop's finalizer of the turn's inner generators.
        assert list(workspace.glob("agents/*/*/pending_reply.json"))
        # The next message: it waits for the lock, which the stopped turn let go only
        # after keeping what was shown.
        async for _ in app.dialogues.respond(message("and what else?")):
            pass
        await app.settle()
        assert app.trees is not None
        (tree,) = app.trees.open_trees()
        said = [(n.node_type, n.content) for n in tree.node_list]
    assert said[:3] == [
        ("Q", SAID),
        ("A", "".join(shown).rstrip() + OUTPUT_CUT),
        ("Q", "and what else?"),
    ], said
    assert [kind for kind, _ in said] == ["Q", "A", "Q", "A"], said
