"""The tool loop against a scripted OpenAI-compatible server: calls, malformed calls, unknown
tools, hostile arguments, the round limit, and providers without tool support."""

from __future__ import annotations

import json
from typing import Any

import pytest

from familiars.bot._tools import Tool, ToolBox, ToolError, answer_with_tools
from familiars.llm import ChatMessage, OpenAIChatModel, ToolSpec, UnsupportedFeatureError
from tests.bot.tool_script import unquoted
from tests.fake_openai import FakeOpenAI, Reply

MSGS = [ChatMessage("system", "be brief"), ChatMessage("user", "remember I like tea")]


def _toolbox(seen: list[dict[str, Any]]) -> ToolBox:
    async def remember(args: dict[str, Any]) -> str:
        if args["text"] == "forbidden":
            raise ToolError("not allowed here")
        seen.append(args)
        return f"stored: {args['text']}"

    spec = ToolSpec(
        "remember",
        "Remember a fact about the person.",
        {
            "type": "object",
            "properties": {"text": {"type": "string"}, "pin": {"type": "boolean"}},
            "required": ["text"],
        },
    )
    return ToolBox([Tool(spec, remember)])


def _model(server: FakeOpenAI) -> OpenAIChatModel:
    return OpenAIChatModel(name="a", base_url=server.base_url, model="m", timeout_s=5)


async def test_a_tool_call_runs_and_its_result_reaches_the_model() -> None:
    seen: list[dict[str, Any]] = []
    async with FakeOpenAI() as server:
        server.script(Reply.tools(("remember", {"text": "likes tea"})), Reply.text("Noted!"))
        model = _model(server)
        turn = await answer_with_tools(model, MSGS, _toolbox(seen))
        await model.aclose()
        second = server.requests[1].body["messages"]
    assert turn.text == "Noted!" and seen == [{"text": "likes tea"}]
    assert [o.ok for o in turn.outcomes] == [True]
    assert second[-2]["tool_calls"][0]["function"]["name"] == "remember"
    assert second[-1]["tool_call_id"] == "call_0"
    assert unquoted(second[-1]["content"]) == "stored: likes tea"
    assert server.requests[0].body["tools"][0]["function"]["name"] == "remember"


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (("forget_everything", {}), "no tool named 'forget_everything'"),
        (("remember", "{not json"), "not valid JSON"),
        (("remember", "[" * 100_000 + "]" * 100_000), "too long"),
        # Refused either as JSON too deep to parse or, parsed, as not a string: the turn goes on.
        (("remember", '{"text": ' + "[" * 3_000 + "]" * 3_000 + "}"), "error: "),
        (("remember", {}), "missing argument(s): text"),
        (("remember", {"text": 42}), "'text' must be a string"),
        (("remember", {"text": "x", "admin": True}), "unknown argument 'admin'"),
        (("remember", {"text": "forbidden"}), "not allowed here"),
    ],
    ids=["unknown", "broken", "huge", "deep", "missing", "type", "extra", "refused"],
)
async def test_a_bad_call_is_answered_with_what_was_wrong(
    call: tuple[str, Any], error: str
) -> None:
    seen: list[dict[str, Any]] = []
    async with FakeOpenAI() as server:
        server.script(Reply.tools(call), Reply.text("Sorry about that."))
        model = _model(server)
        turn = await answer_with_tools(model, MSGS, _toolbox(seen))
        await model.aclose()
    assert turn.text == "Sorry about that." and seen == []
    [outcome] = turn.outcomes
    assert not outcome.ok and error in outcome.result


async def test_the_rounds_are_bounded_and_the_model_must_then_answer() -> None:
    async with FakeOpenAI() as server:
        server.script(*[Reply.tools(("remember", {"text": f"t{i}"})) for i in range(2)])
        server.script(Reply.text("Done."))
        model = _model(server)
        turn = await answer_with_tools(model, MSGS, _toolbox([]), max_rounds=2)
        await model.aclose()
        last = server.requests[-1].body
    assert turn.rounds == 2 and len(turn.outcomes) == 2
    assert "tools" not in last and turn.text  # the last ask offers no tools


async def test_a_provider_without_tools_is_not_offered_them_again() -> None:
    async with FakeOpenAI() as server:
        server.script(Reply.refuse_tools())
        model = _model(server)
        with pytest.raises(UnsupportedFeatureError):
            await answer_with_tools(model, MSGS, _toolbox([]))
        assert not model.supports_tools
        with pytest.raises(UnsupportedFeatureError):
            await model.chat_tools(MSGS, _toolbox([]).specs)
        await model.aclose()
    assert len(server.requests) == 1


async def test_calls_past_the_cap_are_not_made_and_the_request_stays_within_its_room() -> None:
    """900 calls in one round: ``max_calls`` run, the rest are neither run nor echoed back,
    the model is told, and the next request fits ``max_request_chars`` (before the fix: all
    900 ran and the next request held every call and every result, 1.23 MB)."""
    seen: list[dict[str, Any]] = []
    long_history = [ChatMessage("user" if i % 2 else "assistant", "x" * 900) for i in range(12)]
    msgs = [MSGS[0], *long_history, MSGS[1]]
    flood = Reply.tools(*[("remember", {"text": f"fact {i} " + "y" * 300}) for i in range(900)])
    async with FakeOpenAI() as server:
        server.script(flood, Reply.text("Done."))
        model = _model(server)
        turn = await answer_with_tools(
            model, msgs, _toolbox(seen), max_calls=16, max_request_chars=12_000
        )
        await model.aclose()
        second = server.requests[1].body["messages"]
    assert 1 <= len(seen) == len(turn.outcomes) <= 16 and turn.not_run == 900 - len(seen)
    [assistant] = [m for m in second if m.get("tool_calls")]
    assert len(assistant["tool_calls"]) == len(seen)
    assert len([m for m in second if m["role"] == "tool"]) == len(seen)
    size = sum(len(m["content"]) + len(json.dumps(m.get("tool_calls", []))) for m in second)
    assert size <= 12_000
    assert f"{900 - len(seen)} tool call(s) were not made" in second[-1]["content"]
    assert second[0] == {"role": "system", "content": "be brief"}  # the oldest turns gave way
    assert second[-2]["role"] == "tool" and turn.text == "Done."


async def test_the_cap_holds_across_rounds() -> None:
    seen: list[dict[str, Any]] = []
    async with FakeOpenAI() as server:
        for r in range(2):  # the second round reaches the cap: the next ask is the last
            server.script(Reply.tools(*[("remember", {"text": f"r{r} c{i}"}) for i in range(3)]))
        server.script(Reply.text("Done."))
        model = _model(server)
        turn = await answer_with_tools(model, MSGS, _toolbox(seen), max_rounds=3, max_calls=4)
        await model.aclose()
    assert [s["text"] for s in seen] == ["r0 c0", "r0 c1", "r0 c2", "r1 c0"]
    assert turn.rounds == 2 and turn.not_run == 2 and turn.text == "Done."
    assert "tools" not in server.requests[-1].body
