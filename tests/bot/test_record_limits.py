"""A memory far over ``memory.max_record_chars`` (a hand edit: files are never refused) is
shown cut, and the prompt stays within its token budget, profile and directives included
(issue 13: a 5 MB entry made 5.3 MB requests)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from familiars.bot import IncomingMessage
from familiars.config import load_settings
from familiars.memory import make_record
from tests.fake_openai import FakeOpenAI, Reply
from tests.fakes import hand_edit
from tests.harness import make_app


@pytest.fixture(autouse=True)
def _no_ai_disclosure(monkeypatch: pytest.MonkeyPatch) -> None:
    """These replies are compared whole: the first-reply AI disclosure is tested elsewhere."""
    monkeypatch.setenv("FAMILIARS_CARE__AI_DISCLOSURE", "false")


HUGE = ("Ann collects rare stamps from Oslo and Bergen. " * 110_000)[:5_000_000]
LARGE = HUGE[:1_000_000]
BUDGET = 3000


def _dm(text: str) -> IncomingMessage:
    return IncomingMessage(
        platform="telegram", chat_id="c0", user_id="u1", display_name="Ann", text=text,
        ts=datetime(2026, 11, 2, 10, tzinfo=UTC),
    )  # fmt: skip


async def _chat(workspace: Path, server: FakeOpenAI | None, text: str) -> str:
    providers = [{"name": "a", "base_url": server.base_url, "model": "m"}] if server else []
    settings = load_settings(
        workspace=workspace, llm={"providers": providers, "prompt_token_budget": BUDGET}
    )
    app = make_app(settings)
    async with app:
        assert app.memory is not None and app.dialogues is not None
        with hand_edit(app.memory.store) as store:
            for scope, category in (("user", "profile"), ("user", "knowledge")):
                await store.append(
                    make_record(HUGE, scope=scope, category=category, user_key="telegram_u1")
                )
            await store.append(make_record(HUGE, scope="identity", category="directive"))
        reply = "".join([d async for d in app.dialogues.respond(_dm(text))])
        await app.settle()
    return reply


def _is_chat(body: dict[str, Any]) -> bool:
    """A reply's request: streamed (the plain path) or offering the tools (the tool path)."""
    return bool(body.get("stream")) or "tools" in body


def _size(body: dict[str, Any]) -> int:
    return len(json.dumps(body, ensure_ascii=False))


@pytest.mark.slow
async def test_a_5_mb_entry_is_cut_and_every_request_stays_bounded(workspace: Path) -> None:
    async with FakeOpenAI(Reply.json({"writes": []})) as server:
        server.script(Reply.text("Stamps, yes!"))
        await _chat(workspace, server, "What do I collect?")
        chats = [r.body for r in server.requests if _is_chat(r.body)]
        others = [r.body for r in server.requests if not _is_chat(r.body)]
    [chat] = chats
    # 3,000 tokens at four characters each, plus JSON and role overhead.
    assert _size(chat) < BUDGET * 4 * 1.2
    assert "more characters]" in chat["messages"][0]["content"]  # the cut is said
    for body in others:  # the writer's prompt shows each existing memory cut
        assert _size(body) < 100_000


@pytest.mark.slow
async def test_the_offline_reply_shows_a_huge_entry_cut(workspace: Path) -> None:
    reply = await _chat(workspace, None, "What do I collect?")
    assert len(reply) < BUDGET * 4


def test_the_prompt_builder_holds_every_part_to_its_budget() -> None:
    from familiars.bot._prompt import BranchTurn, PromptParts, build_messages

    def rec(text: str, category: str) -> Any:
        if category == "directive":
            return make_record(text, scope="identity", category=category)
        return make_record(text, scope="user", category=category, user_key="u1")

    parts = PromptParts(
        persona="You are kind.",
        agent_name="Fam",
        directives=[rec(LARGE, "directive") for _ in range(3)],
        profile=[rec(f"The user's fact number {i}. " * 20, "profile") for i in range(200)],
        recalled=[LARGE] * 5,
        private=[LARGE],
        branch=[BranchTurn("user", "hello " * 50)] * 40,
        message="What do I collect?",
    )
    messages = build_messages(parts, budget_tokens=BUDGET)
    total = sum(len(m.content) for m in messages)
    assert total < BUDGET * 4 * 1.05
    system = messages[0].content
    assert "...[cut, 998,200 more characters]" in system  # 1,800 of 1,000,000 kept
    assert "The user's fact number 199." in system  # the profile keeps its newest end
    assert "The user's fact number 0." not in system
