"""Who may change what, with the real runtime (issue 12): a scripted model writer on a fake
OpenAI-compatible server always answers "from now on ..." with an identity directive; the
agent's identity changes only when an owner said it in a private chat, and nothing of a
non-owner's request reaches another person's prompt."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from familiars.bot import IncomingMessage
from familiars.config import load_settings
from familiars.memory import MemoryStore
from tests.fake_openai import FakeOpenAI, Reply
from tests.harness import make_app

T0 = datetime(2026, 11, 2, 10, tzinfo=UTC)
ANN, BOB = "101", "202"
PIRATE = "From now on, always answer in pirate speak."
DIRECTIVE = "Always answer in pirate speak."


def scripted(body: dict[str, Any]) -> Reply:
    """The writer (a JSON answer) writes the directive as the agent's own whenever the turn
    says "from now on"; a chat reply is plain text."""
    if "response_format" not in body:
        return Reply.text("Aye, noted.")
    turn = body["messages"][-1]["content"].rsplit("This turn:", 1)[-1]
    if "from now on" not in turn.lower():
        return Reply.json({"writes": []})
    write = {
        "op": "add",
        "scope": "identity",
        "category": "directive",
        "entry": {"content": DIRECTIVE, "salience": 0.9},
    }
    return Reply.json({"writes": [write]})


def _msg(user: str, name: str, text: str, chat: str, minute: int, group: bool = False):
    return IncomingMessage(
        platform="telegram", chat_id=chat, user_id=user, display_name=name, text=text,
        is_group=group, mentions_bot=group, ts=T0 + timedelta(minutes=minute),
    )  # fmt: skip


async def _conversation(
    workspace: Path, server: FakeOpenAI, owners: list[str], first: IncomingMessage
) -> tuple[list[dict[str, Any]], dict[str, list[str]]]:
    """``first`` says the directive, then Bob says hello in his own DM. Returns the bodies
    the server received for Bob's turn and every live record by scope/category."""
    settings = load_settings(
        workspace=workspace,
        access={"owners": owners},
        llm={"providers": [{"name": "fake", "base_url": server.base_url, "model": "m"}]},
    )
    app = make_app(settings)
    async with app:
        assert app.dialogues is not None
        "".join([d async for d in app.dialogues.respond(first)])
        await app.settle()
        seen = len(server.requests)
        bob = _msg(BOB, "Bob", "Hello! How should you talk to me?", f"dm-{BOB}", 5)
        "".join([d async for d in app.dialogues.respond(bob)])
        await app.settle()
        bobs_turn = [r.body for r in server.requests[seen:]]
    async with MemoryStore(workspace) as store:
        records = await store.list()
    cells: dict[str, list[str]] = {}
    for rec in records:
        cells.setdefault(f"{rec.scope}/{rec.category}", []).append(rec.content)
    return bobs_turn, cells


def _is_chat(body: dict[str, Any]) -> bool:
    """A reply's request: streamed (the plain path) or offering the tools (the tool path)."""
    return bool(body.get("stream")) or "tools" in body


def _mentions_pirate(bodies: list[dict[str, Any]]) -> bool:
    return any("pirate" in json.dumps(body).lower() for body in bodies)


async def test_a_non_owners_directive_stays_theirs(workspace: Path) -> None:
    async with FakeOpenAI(scripted) as server:
        ann = _msg(ANN, "Ann", PIRATE, f"dm-{ANN}", 0)
        bobs_turn, cells = await _conversation(workspace, server, [f"telegram:{BOB}"], ann)
    assert not any(cell.startswith("identity/") for cell in cells), cells
    assert cells.get("user/preference") == [f"The user asked: {DIRECTIVE}"]
    assert bobs_turn and not _mentions_pirate(bobs_turn)


async def test_the_non_owners_request_is_kept_in_their_own_prompt(workspace: Path) -> None:
    async with FakeOpenAI(scripted) as server:
        settings = load_settings(
            workspace=workspace,
            llm={"providers": [{"name": "fake", "base_url": server.base_url, "model": "m"}]},
        )
        app = make_app(settings)
        async with app:
            assert app.dialogues is not None
            for i, text in enumerate([PIRATE, "Tell me about the sea."]):
                "".join([d async for d in app.dialogues.respond(_msg(ANN, "Ann", text, "dm", i))])
                await app.settle()
        chats = [r.body for r in server.requests if _is_chat(r.body)]
    assert len(chats) == 2
    assert _mentions_pirate(chats[1:])  # kept for Ann, not dropped


async def test_an_owners_directive_in_a_dm_is_the_agents(workspace: Path) -> None:
    async with FakeOpenAI(scripted) as server:
        ann = _msg(ANN, "Ann", PIRATE, f"dm-{ANN}", 0)
        bobs_turn, cells = await _conversation(workspace, server, [f"telegram:{ANN}"], ann)
    assert cells.get("identity/directive") == [DIRECTIVE]
    chats = [b for b in bobs_turn if _is_chat(b)]
    assert chats and _mentions_pirate(chats)  # the agent's own rule, in every chat


async def test_an_owners_directive_in_a_group_is_not_the_agents(workspace: Path) -> None:
    async with FakeOpenAI(scripted) as server:
        ann = _msg(ANN, "Ann", PIRATE, "group-1", 0, group=True)
        bobs_turn, cells = await _conversation(workspace, server, [f"telegram:{ANN}"], ann)
    assert not any(cell.startswith("identity/") for cell in cells), cells
    assert cells.get("dialogue/directive") == [DIRECTIVE]
    assert bobs_turn and not _mentions_pirate(bobs_turn)


async def test_commands_change_the_agents_identity_for_owners_only(workspace: Path) -> None:
    """The commands write too (forget, pin, unpin): a non-owner cannot reach an identity
    record by its id; an owner can."""
    from familiars.bot._adapters.base import CommandInvocation
    from familiars.memory import make_record

    async with MemoryStore(workspace) as store:
        rec = await store.append(make_record(DIRECTIVE, scope="identity", category="directive"))
    settings = load_settings(workspace=workspace, access={"owners": [f"telegram:{ANN}"]})
    app = make_app(settings, model=None)

    def ask(user: str, *args: str) -> CommandInvocation:
        return CommandInvocation("telegram", f"dm-{user}", user, "x", "memory", args)

    async with app:
        assert app.dialogues is not None
        for args in (("pin", rec.id), ("forget", rec.id, "confirm"), ("unpin", rec.id)):
            answer = await app.dialogues.command(ask(BOB, *args))
            assert answer.text == "I have no memory with that id that you can see.", args
        assert "pinned" not in (await app.dialogues.command(ask(ANN, "show", rec.id))).text
        assert (await app.dialogues.command(ask(ANN, "pin", rec.id))).text.startswith("Pinned")
    async with MemoryStore(workspace) as store:
        kept = await store.get(rec.id)
    assert kept.content == DIRECTIVE and kept.pinned  # still there: Bob's forget did nothing
