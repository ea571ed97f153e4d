"""Tools for models that have them: a bounded loop over the OpenAI-compatible ``tools`` API.

:class:`ToolBox` holds the tools a turn may use (each a :class:`~familiars.llm.ToolSpec` and
an async handler that receives validated arguments and answers with a short text for the
model). :func:`answer_with_tools` asks the model, runs the calls it makes, hands the results
back, and repeats at most ``max_rounds`` times before asking for a plain answer.

Whatever the model sends, the turn goes on: an unknown tool, arguments that are not JSON (or
nested 100,000 deep), missing or mistyped arguments and a handler's refusal
(:class:`ToolError`, whose text the model is shown) all become a tool message saying what was
wrong. A handler that fails unexpectedly is logged and the model told only that it failed.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from familiars.llm import ChatMessage, ChatModel, ToolCall, ToolSpec

logger = logging.getLogger(__name__)

ToolHandler = Callable[[dict[str, Any]], Awaitable[str]]
MAX_ARGUMENT_CHARS = 20_000
_JSON_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "array": list,
    "object": dict,
}


class ToolError(Exception):
    """A tool refuses a call (not allowed, not found, a bad time): the text goes to the model."""


@dataclass(frozen=True)
class Tool:
    spec: ToolSpec
    handler: ToolHandler


@dataclass(frozen=True)
class ToolOutcome:
    name: str
    arguments: dict[str, Any] | None
    result: str
    ok: bool


@dataclass
class ToolTurn:
    """What the model finally said, and every tool call it made on the way."""

    text: str
    outcomes: list[ToolOutcome] = field(default_factory=list)
    rounds: int = 0


def _parse_arguments(raw: str) -> dict[str, Any]:
    if len(raw) > MAX_ARGUMENT_CHARS:
        raise ToolError(f"the arguments are too long ({len(raw)} characters)")
    try:
        value = json.loads(raw or "{}")
    except (ValueError, RecursionError) as exc:
        raise ToolError("the arguments are not valid JSON") from exc
    if not isinstance(value, dict):
        raise ToolError("the arguments must be a JSON object")
    return value


def _check_arguments(spec: ToolSpec, args: dict[str, Any]) -> None:
    properties = spec.parameters.get("properties", {})
    missing = [name for name in spec.parameters.get("required", []) if name not in args]
    if missing:
        raise ToolError(f"missing argument(s): {', '.join(missing)}")
    for name, value in args.items():
        wanted = _JSON_TYPES.get(str(properties.get(name, {}).get("type", "")))
        if name not in properties:
            raise ToolError(f"unknown argument {name!r}")
        if wanted is not None and (
            not isinstance(value, wanted) or (wanted is int and isinstance(value, bool))
        ):
            raise ToolError(f"argument {name!r} must be a {properties[name]['type']}")


class ToolBox:
    def __init__(self, tools: Sequence[Tool]) -> None:
        self._tools = {tool.spec.name: tool for tool in tools}

    @property
    def specs(self) -> list[ToolSpec]:
        return [tool.spec for tool in self._tools.values()]

    async def run(self, call: ToolCall) -> ToolOutcome:
        tool = self._tools.get(call.name)
        args: dict[str, Any] | None = None
        try:
            if tool is None:
                known = ", ".join(sorted(self._tools))
                raise ToolError(f"there is no tool named {call.name!r} (tools: {known})")
            args = _parse_arguments(call.arguments)
            _check_arguments(tool.spec, args)
            return ToolOutcome(call.name, args, await tool.handler(args), ok=True)
        except ToolError as exc:
            return ToolOutcome(call.name, args, f"error: {exc}", ok=False)
        except Exception:  # noqa: BLE001 - a broken tool must not end the person's turn
            logger.exception("tool %s failed", call.name)
            return ToolOutcome(call.name, args, "error: the tool failed", ok=False)


async def answer_with_tools(
    model: ChatModel,
    messages: Sequence[ChatMessage],
    toolbox: ToolBox,
    *,
    max_rounds: int = 3,
    max_tokens: int | None = None,
) -> ToolTurn:
    """The model's answer after at most ``max_rounds`` rounds of tool calls."""
    history = list(messages)
    turn = ToolTurn(text="")
    for _ in range(max_rounds):
        result = await model.chat_tools(history, toolbox.specs, max_tokens=max_tokens)
        turn.rounds += 1
        if not result.tool_calls:
            turn.text = result.text
            return turn
        history.append(ChatMessage("assistant", result.text, tool_calls=result.tool_calls))
        for call in result.tool_calls:
            outcome = await toolbox.run(call)
            turn.outcomes.append(outcome)
            history.append(ChatMessage("tool", outcome.result, tool_call_id=call.id))
    history.append(
        ChatMessage("user", "(Tool rounds are used up: answer the person now, in words.)")
    )
    turn.text = (await model.chat(history, max_tokens=max_tokens)).text
    return turn
