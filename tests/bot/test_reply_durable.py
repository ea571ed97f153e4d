"""A reply that was sent is durable at once: a crash before its node joins the tree (it waits
to be embedded with the next message) loses nothing; the next start adds it (issue 13)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path

import pytest

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


async def test_a_sent_reply_survives_a_crash_before_its_node_is_added(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with _app(workspace) as app:
        # The crash comes before the background add: on a quiet machine that task could add
        # the node (and drop the sidecar) before the check below ran, and the test failed.
        monkeypatch.setattr(app.dialogues.log, "embed_later", lambda *_: None)
        reply = "".join([d async for d in app.dialogues.respond(_msg("My name is Ann."))])
        pending = list(workspace.glob("agents/*/*/pending_reply.json"))
        assert reply and len(pending) == 1  # on disk before anything else happens
        # A crash: the process dies with the reply node still deferred in memory.
        app.dialogues.log._pending.clear()  # type: ignore[attr-defined]

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


def _journal(workspace: Path) -> list[dict[str, object]]:
    import json

    path = next(workspace.glob("agents/*/*/dialogue.journal.jsonl"))
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def test_a_message_gets_its_own_vector_after_the_reply(workspace: Path) -> None:
    """Before the reply only the message as a query is embedded (its node is journaled at
    once, provisional, with that vector); after it, the node's own vector (the speaker's
    name leading) is set and journaled, and only then is the node indexed for recall."""
    import numpy as np

    from familiars.memory import node_embedding_text

    async with _app(workspace) as app:
        "".join([d async for d in app.dialogues.respond(_msg("I live in Oslo."))])
        nodes = [e["node"] for e in _journal(workspace) if e["op"] == "node"]
        assert nodes[0]["provisional"] is True  # type: ignore[index]  # the message's line
        await app.settle()
        embedder = app.dialogues.log.embedder
        dialogue = next(workspace.glob("agents/*/dialogue_*")).name
        q = app.trees.get("agent_0", dialogue).node_list[0]
        assert not q.provisional
        assert np.allclose(q.embedding, embedder.embed(node_embedding_text(q.content, "Ann")))
        assert not np.allclose(q.embedding, embedder.embed(q.content))
        assert any(e["op"] == "embedding" and e["id"] == 0 for e in _journal(workspace))
        reader = app.dialogues.recaller.reader
        await reader.sync()
        assert f"node:agent_0/{dialogue}/0" in reader.index.rows


async def test_a_message_a_crash_left_without_its_own_vector_gets_it_at_the_next_start(
    workspace: Path,
) -> None:
    """Killed after the reply, before the node's own vector was journaled: the next start
    embeds it (and recall indexes it with that vector)."""
    import json

    import numpy as np

    from familiars.memory import node_embedding_text

    async with _app(workspace) as app:
        "".join([d async for d in app.dialogues.respond(_msg("I live in Oslo."))])
        folder = next(workspace.glob("agents/*/dialogue_*"))
        as_killed = [e for e in _journal(workspace) if e["op"] == "node"][:1]
    # What a kill -9 right after the reply leaves: the message's line, nothing after it.
    (folder / "dialogue.json").unlink(missing_ok=True)
    (folder / "pending_reply.json").unlink(missing_ok=True)
    lines = "".join(json.dumps(e) + "\n" for e in as_killed)
    (folder / "dialogue.journal.jsonl").write_text(lines, encoding="utf-8")
    async with _app(workspace) as again:
        q = again.trees.get("agent_0", folder.name).node_list[0]
        assert not q.provisional
        own = again.dialogues.log.embedder.embed(node_embedding_text("I live in Oslo.", "Ann"))
        assert np.allclose(q.embedding, own)
        reader = again.dialogues.recaller.reader
        await reader.sync()
        row = reader.index.rows[f"node:agent_0/{folder.name}/0"]
        assert np.allclose(reader.index.matrix[row], own)


async def test_a_message_whose_turn_failed_still_gets_its_own_vector(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, memory_home: str
) -> None:
    """A turn that dies after the message was journaled (no reply: the model, a write, the
    platform) still embeds the message's own vector in the background: it is recallable
    before the dialogue's next message or the next start, and settle() leaves none waiting."""
    from familiars.bot import _stages

    async def broken(turn: object, s: object) -> None:
        raise RuntimeError("the model fell over")

    async with _app(workspace) as app:
        monkeypatch.setattr(_stages, "compose", broken)
        with pytest.raises(RuntimeError):
            "".join([d async for d in app.dialogues.respond(_msg("My locker code is 4711."))])
        await app.settle()
        (tree,) = app.trees.open_trees()
        assert not tree.node_list[0].provisional
        reader = app.dialogues.recaller.reader
        await reader.sync()
        assert f"node:agent_0/{tree.dialogue_id}/0" in reader.index.rows


async def test_a_sent_reply_is_kept_though_clearing_the_ephemeral_records_failed(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The ephemeral clear runs beside after(), once the reply is handed over: when it
    fails (the store's disk or database), the reply that was sent still gets its node, and
    the failure goes to the log (the reply was whole before it)."""

    async def broken(key: object) -> None:
        raise RuntimeError("the store fell over")

    async with _app(workspace) as app:
        assert app.dialogues is not None
        monkeypatch.setattr(app.dialogues, "_clear_ephemeral", broken)
        said: list[str] = []
        with caplog.at_level(logging.ERROR):
            async for delta in app.dialogues.respond(_msg("My name is Ann.")):
                said.append(delta)
            await app.settle()
        assert "the store fell over" in caplog.text
        (tree,) = app.trees.open_trees()
        assert [n.content for n in tree.node_list if n.node_type == "A"] == ["".join(said)]
