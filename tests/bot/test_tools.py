"""The tool loop against a scripted OpenAI-compatible server: calls, malformed calls, unknown
tools, hostile arguments, the round limit, and providers without tool support."""

from __future__ import annotations

from typing import Any

import pytest

from familiars.bot._tools import Tool, ToolBox, ToolError, answer_with_tools
from familiars.llm import ChatMessage, OpenAIChatModel, ToolSpec, UnsupportedFeatureError
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
    assert second[-1] == {"role": "tool", "content": "stored: likes tea", "tool_call_id": "call_0"}
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
