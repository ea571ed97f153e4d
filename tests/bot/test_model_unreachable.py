"""A configured model that cannot be reached, errs or times out: the person gets the offline
answerer's reply for that turn, told briefly why, and nothing they said is lost (the message
is recorded and the writer still runs: the next question is answered from it)."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from familiars.bot._turn_plan import MODEL_UNREACHABLE
from familiars.config import load_settings
from tests.bot.test_turn_tools import running
from tests.bot.tool_script import one
from tests.fake_openai import FakeOpenAI, Reply
from tests.harness import message, running_app, say

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True)
def _no_ai_disclosure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAMILIARS_CARE__AI_DISCLOSURE", "false")


def _closed_port() -> int:
    """A port on 127.0.0.1 with nothing listening: connections are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _settings(workspace: Path, base_url: str, tools: str) -> Any:
    provider = {"name": "a", "base_url": base_url, "model": "m", "tools": tools, "timeout_s": 0.5}
    return load_settings(workspace=workspace, llm={"providers": [provider]})


async def _two_turns(workspace: Path, base_url: str, tools: str) -> tuple[str, str]:
    async with running_app(_settings(workspace, base_url, tools)) as app:
        told = await say(app, message("My dog is called Biscuit."))
        await app.settle()  # the writer ran for the first message
        asked = await say(app, message("What is my dog called?", minutes=1))
        await app.settle()
        kept = [r.content for r in await app.memory.store.list(scope="user")]
    assert any("Biscuit" in text for text in kept), kept  # the writer ran
    return told, asked


@pytest.mark.parametrize("tools", ["off", "on"])
@pytest.mark.parametrize("fault", ["refused", "error", "timeout"])
async def test_the_offline_answerer_answers_when_the_model_fails(
    workspace: Path, fault: str, tools: str
) -> None:
    if fault == "refused":
        told, asked = await _two_turns(workspace, f"http://127.0.0.1:{_closed_port()}/v1", tools)
    else:
        reply = Reply.status(500) if fault == "error" else Reply.hang()
        async with FakeOpenAI(reply) as server:
            told, asked = await _two_turns(workspace, server.base_url, tools)
    assert told.endswith(MODEL_UNREACHABLE) and "Sorry" not in told
    assert "Biscuit" in asked and asked.endswith(MODEL_UNREACHABLE)


async def test_what_the_tools_did_before_the_model_failed_is_said(workspace: Path) -> None:
    """A reminder set by the model's tool, then the model failed: the reminder is kept and
    said beside the offline answer, not left unsaid."""
    async with running(workspace) as bot:
        bot.script.turn(
            one("set_reminder", {"task": "call mom", "when": "tomorrow at 9am"}),
            Reply.status(500),
        )
        said = await bot.say("remind me to call mom tomorrow at 9am")
        kept = [r for r in await bot.records(scope="dialogue") if "reminder" in r.tags]
    assert len(kept) == 1
    assert "I also set a reminder: call mom, Tue 12 Nov 09:00" in said, said
    assert said.endswith(" ".join(MODEL_UNREACHABLE.split()))
