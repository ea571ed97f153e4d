"""Several workers on one database (issue 21): each a whole bot on its own workspace, sharing
the memory and the state. One dialogue is served by one worker at a time, other dialogues go
on meanwhile; what one worker was told, the other knows, its tree included."""

from __future__ import annotations

import asyncio
from pathlib import Path

from familiars.bot import Application
from tests.harness import message, running_app, say


def _tree_texts(app: Application, dialogue: str = "dialogue_0") -> list[str]:
    tree = app.services.trees.get("agent_0", dialogue)
    return [n.content for n in tree.node_list]


async def test_a_second_worker_waits_for_a_dialogue_another_serves(
    tmp_path: Path, pg_url: str
) -> None:
    async with (
        running_app(tmp_path / "a", model=None) as a,
        running_app(tmp_path / "b", model=None) as b,
    ):
        await say(a, message("My name is Ann.", chat="c0"))
        home = a.services.memory.home
        async with home.dialogue_lock("agent_0", "dialogue_0"):  # worker A is mid-turn there
            same = asyncio.create_task(say(b, message("What is my name?", chat="c0", minutes=1)))
            other = await say(b, message("Hello there", chat="c1", user="u2", minutes=1))
            assert other  # another dialogue is served meanwhile
            assert not same.done()
        reply = await same  # served once A's turn ended
        assert "Ann" in reply
        texts = await asyncio.to_thread(_tree_texts, b)
        assert "My name is Ann." in texts and "What is my name?" in texts
        await say(a, message("And where do I live?", chat="c0", minutes=2))
        seen_by_a = await a.services.trees.aget("agent_0", "dialogue_0")
        assert "What is my name?" in [n.content for n in seen_by_a.node_list]
