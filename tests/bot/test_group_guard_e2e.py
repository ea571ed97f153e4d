"""The group guard end to end (issue 19): Alice tells the familiar a secret in a direct
message; in the group, Bob asks and a scripted model that knows it anyway tries to post it in
many forms; a reminder and a check-in that hold it fire into the group. The group never sees
it, and every road (reply, reminder, check-in, command answer) goes through one Outbound."""

from __future__ import annotations

import json
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from familiars.bot import Application
from familiars.bot._adapters.base import CommandInvocation, CommandResponse, PlatformAdapter
from familiars.bot._outbound import PROACTIVE_WITHHELD
from familiars.config import load_settings
from familiars.memory import make_record
from familiars.scheduler import ProactiveMessage
from tests.fake_openai import FakeOpenAI, Reply
from tests.harness import opened_app, say, speaker

NOW = datetime(2026, 11, 2, 10, tzinfo=UTC)
SECRET = "My locker number is 4921 and my email is alice.wong@example.com"
#: Forms of the secret the group must never see, each as the model words it.
LEAKS = {
    "Alice's locker number is 4921.": "4921",
    "It's four nine two one, Bob.": "four nine two one",
    "Sure: 4 9 2 1.": "4 9 2 1",
    "Forty-nine twenty-one, I believe.": "Forty-nine twenty-one",
    "Her locker number is ４９２１.": "４９２１",
    "Write to alice dot wong at example dot com": "alice dot wong",
    "Her address: alice.wong@example.com": "alice.wong@example.com",
}


class GroupSink(PlatformAdapter):
    """A running "telegram" adapter that only records what the familiar sends itself."""

    name = "telegram"

    def __init__(self) -> None:
        super().__init__(handler=None)  # type: ignore[arg-type]
        self.sent: list[tuple[str, str]] = []

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    async def send(self, chat_id: str, text: str, *, thread_id: str | None = None) -> str:
        self.sent.append((chat_id, text))
        return str(len(self.sent))


def _model(replies: list[str]) -> Any:
    """The writer keeps Alice's secret from her DM; every group reply is the next leak."""

    def answer(body: dict[str, Any]) -> Reply:
        if not body.get("stream") and "tools" not in body:
            said = json.dumps(body["messages"][-1:])
            if "4921" not in said or "Alice" in said and "Bob" in said:
                return Reply.json({"writes": []})
            entry = {"content": "The user's locker number is 4921; email alice.wong@example.com."}
            add = {"op": "add", "scope": "user", "category": "profile", "entry": entry}
            return Reply.json({"writes": [add]})
        return Reply.text(replies.pop(0) if replies else "Nice weather today!")

    return answer


msg = speaker(platform="telegram", dm="dm_{user}", mentions_bot=True, at=NOW)


def _app(workspace: Path, server: FakeOpenAI) -> AbstractAsyncContextManager[Application]:
    # E-mail addresses kept as said (``[privacy] email = "record"``): with the default mask the
    # store keeps "[EMAIL]", and the model has nothing to leak; here it does.
    settings = load_settings(
        workspace=workspace,
        llm={"providers": [{"name": "a", "base_url": server.base_url, "model": "m"}]},
        privacy={"email": "record"},
    )
    return opened_app(settings, clock=lambda: NOW, scheduler=True)


_turn = say


async def _alice_told_and_greeted(app: Application) -> None:
    await _turn(app, msg(SECRET, 0, user="alice", name="Alice"))
    found = await app.dialogues.store.list(scope="user", user_key="telegram_alice")
    assert any("4921" in r.content for r in found), "the writer kept Alice's secret"
    await _turn(app, msg("hi all, back from holiday", 1, user="alice", name="Alice", group=True))


async def test_bob_asks_in_the_group_and_no_form_of_alices_secret_gets_out(
    workspace: Path,
) -> None:
    replies = ["Welcome back, Alice!", *LEAKS]
    async with FakeOpenAI(_model(replies)) as server, _app(workspace, server) as app:
        await _alice_told_and_greeted(app)
        seen = [
            await _turn(
                app, msg("Alice's locker no. and email?", i, user="bob", name="Bob", group=True)
            )
            for i in range(2, 2 + len(LEAKS))
        ]
        stats = app.dialogues.stats.as_dict()
        (group,) = [d for d in await app.state.dialogues() if d.is_group]
        tree = app.trees.get(group.agent_id, group.dialogue_id) if app.trees else None
    assert len(seen) == len(LEAKS) and not replies, "every leak was tried"
    for (attempt, form), shown in zip(LEAKS.items(), seen, strict=True):
        assert form not in shown and "4921" not in shown, (attempt, shown)
        assert "wong" not in shown.lower(), (attempt, shown)
    assert stats["group_replies_withheld"] + stats["group_replies_redacted"] == len(LEAKS)
    assert tree is not None
    kept = " ".join(n.content for n in tree.node_list if n.node_type != "Q")
    assert "4921" not in kept and "wong" not in kept.lower()


async def test_a_reminder_and_a_check_in_into_the_group_holding_it_are_caught(
    workspace: Path,
) -> None:
    async with FakeOpenAI(_model(["Welcome back!"])) as server, _app(workspace, server) as app:
        sink = GroupSink()
        app.running_adapters.add(sink)
        await _alice_told_and_greeted(app)
        (group,) = [d for d in await app.state.dialogues() if d.is_group]
        due = NOW - timedelta(minutes=5)
        reminder = make_record(
            "Remind the user to tell the group that Alice's locker number is 4921 on Monday.",
            scope="dialogue", category="event", agent_id=group.agent_id,
            dialogue_id=group.dialogue_id, user_key="telegram_bob",
            extra={"open_loop": {"kind": "reminder", "due": due.isoformat(), "status": "open"}},
        )  # fmt: skip
        await app.dialogues.store.append(reminder)
        assert app.scheduler is not None
        await app.scheduler.run_due(NOW)
        check_in = ProactiveMessage(
            agent_id=group.agent_id, dialogue_id=group.dialogue_id, user_key=None,
            text="Hi all! By the way, Alice can be reached at alice dot wong at example "
            "dot com.", kind="check_in", reason="quiet",
        )  # fmt: skip
        await app.scheduler.sender.send_proactive(check_in)
        fine = ProactiveMessage(
            agent_id=group.agent_id, dialogue_id=group.dialogue_id, user_key=None,
            text="Good morning everyone, it's sunny out!", kind="check_in", reason="quiet",
        )  # fmt: skip
        await app.scheduler.sender.send_proactive(fine)
        tree = app.trees.get(group.agent_id, group.dialogue_id) if app.trees else None
    texts = [text for chat, text in sink.sent if chat == "g1"]
    assert len(texts) == 3, sink.sent  # the reminder fired, then both check-ins
    assert all("4921" not in t and "wong" not in t.lower() for t in texts), texts
    assert texts[1] == PROACTIVE_WITHHELD and texts[2].startswith("Good morning")
    assert tree is not None
    proactive = [n.content for n in tree.node_list if n.origin == "proactive"]
    assert len(proactive) == 3 and not any("4921" in p for p in proactive)


async def test_a_public_command_answer_in_a_group_passes_the_same_check(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with FakeOpenAI(_model(["Welcome back!"])) as server, _app(workspace, server) as app:
        await _alice_told_and_greeted(app)
        manager = app.dialogues

        # Every shipped command answers privately; one that answers the group (a plugin's
        # /poll) is checked like a reply.
        async def leaky(inv: CommandInvocation, caller: Any) -> CommandResponse:
            return CommandResponse("Alice's locker number is 4 9 2 1.", private=False)

        monkeypatch.setattr(manager.commands, "run", leaky)
        inv = CommandInvocation(
            platform="telegram", chat_id="g1", user_id="bob", display_name="Bob",
            name="poll", is_group=True, ts=NOW,
        )  # fmt: skip
        answer = await manager.command(inv)
    assert "4 9 2 1" not in answer.text and "[private]" in answer.text
