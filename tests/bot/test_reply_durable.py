"""A reply that was sent is durable at once: a crash before its node joins the tree (it waits
to be embedded with the next message) loses nothing; the next start adds it (issue 13)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from familiars.bot import Application, IncomingMessage
from familiars.config import load_settings
from tests.harness import make_app


def _msg(text: str) -> IncomingMessage:
    return IncomingMessage(
        platform="telegram", chat_id="c0", user_id="u1", display_name="Ann", text=text,
        ts=datetime(2026, 11, 2, 10, tzinfo=UTC),
    )  # fmt: skip


def _app(workspace: Path) -> Application:
    settings = load_settings(workspace=workspace)
    return make_app(settings, model=None)


async def test_a_sent_reply_survives_a_crash_before_its_node_is_added(workspace: Path) -> None:
    app = _app(workspace)
    await app.initialize()
    await app.start()
    reply = "".join([d async for d in app.dialogues.respond(_msg("My name is Ann."))])
    pending = list(workspace.glob("agents/*/*/pending_reply.json"))
    assert reply and len(pending) == 1  # on disk before anything else happens
    # A crash: the process dies with the reply node still deferred in memory.
    app.dialogues.log._pending.clear()  # type: ignore[attr-defined]
    await app.shutdown()

    async with _app(workspace) as again:
        tree = again.trees.get("agent_0", pending[0].parent.name)
        replies = [n for n in tree.node_list if n.node_type == "A"]
        assert [n.content for n in replies] == [reply]
    assert not list(workspace.glob("agents/*/*/pending_reply.json"))


async def test_the_reply_node_is_added_in_the_background_before_the_next_message(
    workspace: Path,
) -> None:
    """Right after the reply, a background task adds its node (the next message does not
    embed it); the next message of the dialogue still comes after it in the tree."""
    import asyncio

    async with _app(workspace) as app:
        reply = "".join([d async for d in app.dialogues.respond(_msg("My name is Ann."))])
        log = app.dialogues.log
        (((_, dialogue), task),) = log._adding.items()  # type: ignore[attr-defined]  # with the reply
        await asyncio.wait_for(asyncio.shield(task), 30)  # as idle time would let it run
        assert not log._pending  # type: ignore[attr-defined]
        assert not list(workspace.glob("agents/*/*/pending_reply.json"))
        tree = app.trees.get("agent_0", dialogue)
        assert [n.content for n in tree.node_list if n.node_type == "A"] == [reply]
        again = "".join([d async for d in app.dialogues.respond(_msg("I live in Oslo."))])
        await app.settle()
        kinds = [(n.node_type, n.content) for n in tree.node_list]
        assert kinds[:4] == [("Q", "My name is Ann."), ("A", reply), ("Q", "I live in Oslo."),
                             ("A", again)]  # fmt: skip


async def test_the_message_is_on_disk_before_a_word_of_the_reply(workspace: Path) -> None:
    """The message's journal line is fsynced beside the turn's recall; the reply waits."""
    async with _app(workspace) as app:
        seen: list[bool] = []
        async for _ in app.dialogues.respond(_msg("My sister is called Emma.")):
            trees = app.trees.open_trees()
            seen += [tree.file is not None and not tree.file.unsynced for tree in trees]
        assert seen and all(seen)
        journal = next(workspace.glob("agents/*/*/dialogue.journal.jsonl"))
        assert "My sister is called Emma." in journal.read_text(encoding="utf-8")
