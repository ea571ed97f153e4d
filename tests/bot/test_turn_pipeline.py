"""One turn is one pipeline over one value (issue 20): the person's records are read once per
turn, and the manager composes the stages with a handful of collaborators."""

from __future__ import annotations

import inspect
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from familiars.bot import Application, IncomingMessage
from familiars.config import load_settings
from tests.harness import make_app, speaker

T0 = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)
#: One query per scope the turn reads (user, identity, dialogue, ephemeral), in one read.
READS_BEFORE_REPLY = 4
#: Those, and the previous turn's ephemeral records cleared: the offline writer applies the
#: writes the turn's plan worked out, and reads the records no more.
READS_IN_ALL = 5


msg = speaker(platform="telegram", user="alice", name="Alice", group_chat="group-1", at=T0)


class ListSpy:
    """Counts the store's reads of records, by scope: each ``list`` call, and each query of a
    ``read_live`` call (one read of several scopes)."""

    def __init__(self, store: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.scopes: list[str | None] = []
        real, real_live = store.list, store.read_live

        async def spy(**kw: Any) -> Any:
            self.scopes.append(kw.get("scope"))
            return await real(**kw)

        async def spy_live(*queries: Any, **kw: Any) -> Any:
            self.scopes += [q.scope for q in queries]
            return await real_live(*queries, **kw)

        monkeypatch.setattr(store, "list", spy)
        monkeypatch.setattr(store, "read_live", spy_live)


async def _turn_reads(app: Application, message: IncomingMessage, spy: ListSpy) -> tuple[str, int]:
    """The reply, and the ``list`` calls made before its first word."""
    assert app.dialogues is not None
    spy.scopes.clear()
    before = -1
    reply = ""
    async for delta in app.dialogues.respond(message):
        if before < 0:
            before = len(spy.scopes)
        reply += delta
    await app.settle()
    return reply, before


@pytest.mark.parametrize("group", [False, True])
async def test_an_offline_turn_reads_the_persons_records_once(
    app: Application, monkeypatch: pytest.MonkeyPatch, group: bool
) -> None:
    for i, text in enumerate(["My name is Alice and I love hiking.", "I live in Denver."]):
        await _turn_reads(app, msg(text, i, group=group), ListSpy(app.memory.store, monkeypatch))
    spy = ListSpy(app.memory.store, monkeypatch)
    reply, before = await _turn_reads(app, msg("Where do I live?", 5, group=group), spy)
    if not group:
        assert "Denver" in reply  # the records read once still answer
    # In a group the one group check reads the speaker's notes too (once per change of their
    # folder: the writer just wrote to it).
    assert before == READS_BEFORE_REPLY + group, spy.scopes
    assert sorted(spy.scopes[:4], key=str) == ["dialogue", "ephemeral", "identity", "user"]
    assert len(spy.scopes) <= READS_IN_ALL + group, spy.scopes


async def test_the_profile_in_the_prompt_is_the_records_read_once(workspace: Path) -> None:
    """A model's prompt still holds the speaker's profile and the agent's directives."""
    from familiars.llm import ChatModel, ChatResult

    seen: list[str] = []

    class Spy(ChatModel):
        name = "spy"

        async def chat(self, messages, **kw):  # type: ignore[no-untyped-def]
            seen.append(messages[0].content)
            return ChatResult(text="noted")

    settings = load_settings(workspace=workspace)
    async with make_app(settings, model=Spy()) as app:
        from familiars.memory import make_record

        await app.memory.store.append(
            make_record(
                "The user's name is Alice.",
                scope="user",
                category="profile",
                user_key="telegram_alice",
            )
        )
        await app.memory.store.append(
            make_record(
                "Always answer in haiku.",
                scope="identity",
                category="directive",
                agent_id="agent_0",
            )
        )
        assert app.dialogues is not None
        _ = [d async for d in app.dialogues.respond(msg("hello"))]
        await app.settle()
    assert "The user's name is Alice." in seen[0]  # the reply's prompt (then the writer's)
    assert "Always answer in haiku." in seen[0]


async def test_the_offline_writer_runs_once_a_turn(
    app: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = app.services.writer_queue.writer

    def again(*args: Any, **kw: Any) -> Any:
        raise AssertionError("the offline writer ran again after the reply")

    monkeypatch.setattr(writer, "offline_output", again)
    spy = ListSpy(app.memory.store, monkeypatch)
    await _turn_reads(app, msg("I live in Portland."), spy)
    reply, _ = await _turn_reads(app, msg("I live in Seattle now.", 1), spy)
    assert "Updated" in reply and "Seattle" in reply  # what the reply said it did ...
    live = await app.memory.store.list(scope="user", user_key="telegram_alice")
    homes = [r.content for r in live if "Seattle" in r.content or "Portland" in r.content]
    assert len(homes) == 1 and "Seattle" in homes[0], homes  # ... is what was written


async def test_the_manager_composes_with_few_collaborators(app: Application) -> None:
    manager = app.dialogues
    assert manager is not None
    collaborators = [v for k, v in vars(manager).items() if not k.startswith("_")]
    assert len(collaborators) <= 8, sorted(vars(manager))
    params = list(inspect.signature(type(manager).__init__).parameters)[1:]
    assert len(params) <= 8, params
