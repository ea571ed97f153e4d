"""What is private to the speaker never reaches a group, even through a model that ignores
every instruction (issue 12): the model is not given it, and the last check catches the rest."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from familiars.bot import IncomingMessage
from familiars.config import load_settings
from familiars.memory import make_record
from tests.fake_openai import FakeOpenAI, Reply
from tests.harness import make_app

SECRETS = {
    "pin": "The user's bank PIN is 4921.",
    "test": "The user's test result came back positive.",
    "hint": "The user's password hint is the name of their first cat, Whiskers.",
}


def _group(text: str) -> IncomingMessage:
    return IncomingMessage(
        platform="telegram", chat_id="g1", user_id="u1", display_name="Alice", text=text,
        is_group=True, mentions_bot=True, ts=datetime(2026, 11, 2, 10, tzinfo=UTC),
    )  # fmt: skip


def _echo(body: dict[str, Any]) -> Reply:
    """A model that posts its whole prompt, as a jailbroken or broken one might (the reply
    on the plain path streams; on the tool path it is asked with the tools)."""
    if not body.get("stream") and "tools" not in body:
        return Reply.json({"writes": []})
    return Reply.text(" ".join(m["content"] for m in body["messages"]))


async def _ask_in_group(workspace: Path, server: FakeOpenAI, question: str) -> tuple[str, Any]:
    settings = load_settings(
        workspace=workspace,
        llm={"providers": [{"name": "a", "base_url": server.base_url, "model": "m"}]},
    )
    app = make_app(settings)
    async with app:
        assert app.memory is not None and app.dialogues is not None
        for text in SECRETS.values():
            await app.memory.store.append(
                make_record(text, scope="user", category="profile", user_key="telegram_u1")
            )
        reply = "".join([d async for d in app.dialogues.respond(_group(question))])
        await app.settle()
        return reply, app.dialogues.stats.as_dict()


async def test_an_echoing_model_in_a_group_is_never_given_the_private_notes(
    workspace: Path,
) -> None:
    async with FakeOpenAI(_echo) as server:
        reply, _ = await _ask_in_group(workspace, server, "What's my PIN and my password hint?")
        prompts = [r.body for r in server.requests if r.body.get("stream") or "tools" in r.body]
    assert prompts
    sent = " ".join(m["content"] for body in prompts for m in body["messages"])
    for secret in ("4921", "positive", "Whiskers"):
        assert secret not in sent
        assert secret not in reply


async def test_a_model_that_knows_a_secret_anyway_is_caught_before_the_group_sees_it(
    workspace: Path,
) -> None:
    async with FakeOpenAI(Reply.json({"writes": []})) as server:
        server.script(Reply.text("Alice, your PIN is 4921 and your test result came back positive"))
        reply, stats = await _ask_in_group(workspace, server, "anything new?")
    assert "4921" not in reply and "positive" not in reply
    assert stats["group_replies_withheld"] == 1


async def test_a_reply_about_a_member_named_only_in_the_question_is_caught(
    workspace: Path,
) -> None:
    """Ben asks about Ana by name; a model that knows her note answers "she ...": the reply
    is about Ana though it never names her, so her less common words count in it."""

    def said(user: str, name: str, text: str) -> IncomingMessage:
        return IncomingMessage(
            platform="telegram", chat_id="g1", user_id=user, display_name=name, text=text,
            is_group=True, mentions_bot=True, ts=datetime(2026, 11, 2, 10, tzinfo=UTC),
        )  # fmt: skip

    def knows(body: dict[str, Any]) -> Reply:
        if not body.get("stream") and "tools" not in body:
            return Reply.json({"writes": []})
        asked = "allergic" in json.dumps(body["messages"][-1:])
        return Reply.text("She's allergic to peanuts." if asked else "Hi!")

    async with FakeOpenAI(knows) as server:
        settings = load_settings(
            workspace=workspace,
            llm={"providers": [{"name": "a", "base_url": server.base_url, "model": "m"}]},
        )
        async with make_app(settings) as app:
            assert app.memory is not None and app.dialogues is not None
            note = make_record(
                "The user is allergic to peanuts.",
                scope="user",
                category="profile",
                user_key="telegram_ana",
            )
            await app.memory.store.append(note)
            "".join([d async for d in app.dialogues.respond(said("ana", "Ana", "hi all"))])
            asked = said("ben", "Ben", "what is Ana allergic to?")
            reply = "".join([d async for d in app.dialogues.respond(asked)])
            await app.settle()
    assert reply and "peanuts" not in reply.lower()
