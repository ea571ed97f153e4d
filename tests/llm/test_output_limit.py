"""One length limit for what a model says, in the client every model call passes
(``familiars.llm``): a scripted OpenAI-compatible server on 127.0.0.1 sends 2 MB, as a
hostile or broken one did, and every road gets at most ``max_tokens`` x 8 characters (the
writer's JSON, which names no ``max_tokens``, 4,096 tokens), cut at a word and marked, with
``ChatResult.cut`` set: a reply (streamed and not), a tool call's arguments, the proactive
composer, the model writer's JSON and the consolidator's merge text."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from familiars.config import LLMSettings, load_settings
from familiars.llm import (
    OUTPUT_CUT,
    ChatMessage,
    ProviderRouter,
    ToolSpec,
    build_chat_model,
    output_limit,
)
from familiars.memory import Consolidator, EmbedderVectors, MemoryStore
from familiars.scheduler import DeciderService, decide
from tests.bot.test_model_faults import _msg
from tests.fake_openai import FakeOpenAI, Reply
from tests.fakes import HashEmbedder
from tests.harness import make_app
from tests.memory.test_consolidator import rec
from tests.memory.test_writer_hostile import facts, failed_reasons, run_turns
from tests.scheduler.test_decider import NOON, POLICY, checkin_state

#: 2 MB of words.
FLOOD = "blah " * 400_000
ASK = [ChatMessage("user", "hi")]
SPEC = ToolSpec("remember", "Remember a fact.", {"type": "object", "properties": {}})


def _router(server: FakeOpenAI, tools: str = "auto") -> ProviderRouter:
    provider = {"name": "a", "base_url": server.base_url, "model": "m", "tools": tools}
    model = build_chat_model(LLMSettings(providers=[provider]))  # type: ignore[list-item]
    assert model is not None
    return model


def _held(text: str, max_tokens: int | None) -> None:
    assert len(text) <= output_limit(max_tokens) + len(OUTPUT_CUT), len(text)
    assert text.endswith(OUTPUT_CUT) and text.startswith("blah blah")


async def test_every_call_of_the_client_is_held_to_its_max_tokens() -> None:
    async with FakeOpenAI(Reply.text(FLOOD)) as server:
        model = _router(server)
        said = await model.chat(ASK, max_tokens=100)
        _held(said.text, 100)
        assert said.cut
        json_answer = await model.chat_json(ASK, schema={"type": "object"})
        _held(json_answer.text, None)  # no max_tokens named: the default holds
        assert json_answer.cut
        _held("".join([c async for c in model.stream(ASK, max_tokens=100)]), 100)
        server.script(Reply.tools(("remember", {"text": FLOOD})), Reply.text(FLOOD))
        called = await model.chat_tools(ASK, [SPEC], max_tokens=100)
        assert called.cut and [(c.arguments, c.cut) for c in called.tool_calls] == [("", True)]
        _held((await model.chat_tools(ASK, [SPEC], max_tokens=100)).text, 100)
        server.script(Reply.tools(("remember", {"text": "tea"})))
        small = await model.chat_tools(ASK, [SPEC], max_tokens=100)
        assert not small.cut and json.loads(small.tool_calls[0].arguments) == {"text": "tea"}
        await model.aclose()


async def test_a_tool_call_with_megabytes_of_arguments_is_refused_in_a_turn(
    workspace: Path,
) -> None:
    async with FakeOpenAI(Reply.json({"writes": []})) as server:
        server.script(
            Reply.tools(("remember", {"text": "x" * 2_000_000, "scope": "user"})),
            Reply.text("Sorry, that did not work."),
        )
        settings = load_settings(
            workspace=workspace,
            care={"ai_disclosure": False},
            llm={"max_reply_tokens": 100,
                 "providers": [{"name": "a", "base_url": server.base_url, "model": "m",
                                "tools": "on"}]},
        )  # fmt: skip
        async with make_app(settings) as app:
            assert app.dialogues is not None
            reply = "".join([d async for d in app.dialogues.respond(_msg("Remember this"))])
            await app.settle()
            kept = await app.memory.store.list()
        asked_again = json.dumps(server.requests[1].body)
    assert reply.startswith("Sorry, that did not work.")
    assert all(len(r.content) < 2000 for r in kept)
    assert len(asked_again) < 100_000  # the megabytes were not sent back to the model


async def test_the_proactive_composer_sends_the_template_for_a_cut_answer() -> None:
    checkin = decide(NOON, checkin_state(display_name="Ana"), POLICY)
    async with FakeOpenAI(Reply.text(FLOOD)) as server:
        model = _router(server)
        composed = await DeciderService(POLICY, model=model).compose(checkin)
        await model.aclose()
    assert composed.text == checkin.text and composed.source == "template"
    assert "cut" in composed.note


async def test_the_model_writer_gets_no_more_than_the_limit(tmp_path: Path) -> None:
    """2 MB that would be valid JSON whole: cut, it is not, and the offline writer keeps the
    facts (the turn is set aside with the reason)."""
    padded = json.dumps({"writes": [], "note": "x" * 2_000_000})
    async with FakeOpenAI(Reply.text(padded)) as server, MemoryStore(tmp_path) as store:
        model = _router(server)
        queue = await run_turns(store, model)
        try:
            assert await facts(store) == {"The user likes tea.", "The user's name is Ann."}
        finally:
            await queue.stop()
            await model.aclose()
    reasons = failed_reasons(tmp_path)
    assert reasons and all("model answer set aside" in r for r in reasons.values())


async def test_the_consolidator_keeps_the_base_text_for_a_cut_answer(tmp_path: Path) -> None:
    async with MemoryStore(tmp_path) as store, FakeOpenAI(Reply.text(FLOOD)) as server:
        await store.append(rec("The user likes green tea"))
        await store.append(rec("The user likes green tea a lot", salience=0.8))
        model = _router(server)
        vectors = EmbedderVectors(HashEmbedder(dim=256))
        consolidator = Consolidator(store, vectors, model=model, threshold=0.8, max_share=1.0)
        report = await consolidator.run(now=datetime(2026, 11, 30, 13, 0, tzinfo=UTC))
        await model.aclose()
        assert (await store.get(report.created[0])).content == "The user likes green tea a lot"


@pytest.mark.parametrize("tools", ["off", "on"])
async def test_a_turn_reply_is_held_by_the_client(workspace: Path, tools: str) -> None:
    """Streamed (tools off) and whole (tools on): the reply the person gets is the client's
    cut, once (no second marker from the turn)."""
    async with FakeOpenAI(Reply.json({"writes": []})) as server:
        server.script(Reply.text(FLOOD))
        settings = load_settings(
            workspace=workspace,
            care={"ai_disclosure": False},
            llm={"max_reply_tokens": 100,
                 "providers": [{"name": "a", "base_url": server.base_url, "model": "m",
                                "tools": tools}]},
        )  # fmt: skip
        async with make_app(settings) as app:
            assert app.dialogues is not None
            reply = "".join([d async for d in app.dialogues.respond(_msg("Tell me a story"))])
    said = reply.partition("\n")[0]
    _held(said, 100)
    assert said.count(OUTPUT_CUT.strip()) == 1
