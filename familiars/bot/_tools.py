"""Tools for models that have them: a bounded loop over the OpenAI-compatible ``tools`` API.

:class:`ToolBox` holds the tools a turn may use (each a :class:`~familiars.llm.ToolSpec` and
an async handler that receives validated arguments and answers with a short text for the
model). :func:`answer_with_tools` asks the model, runs the calls it makes, hands the results
back, and repeats at most ``max_rounds`` times before asking for a plain answer.

Bounds (issue 19): at most ``max_calls`` tool calls run in a turn, across all rounds; the
calls past it are not run, left out of the history and the model is told so. Each result
goes back as quoted data (:func:`~familiars.bot._untrusted.tool_data`), cut to
:data:`MAX_RESULT_CHARS`, and with ``max_request_chars`` every request of the turn stays
within it: the oldest dialogue turns make room first (at most down to
:data:`TOOL_ROOM_SHARE` of it for the tools), then results are cut, then calls are not run.

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

from familiars.bot._untrusted import tool_data
from familiars.llm import ChatMessage, ChatModel, ToolCall, ToolSpec

logger = logging.getLogger(__name__)

ToolHandler = Callable[[dict[str, Any]], Awaitable[str]]
#: A default for ``llm.max_tool_calls``: tool calls a turn may make across its rounds.
DEFAULT_MAX_CALLS = 16
#: The most of one tool result the model is shown.
MAX_RESULT_CHARS = 4000
#: The share of ``max_request_chars`` old dialogue turns give up for the tools' traffic.
TOOL_ROOM_SHARE = 0.3
#: Room kept for the last word (the note asking for an answer) and a cut result's mark.
_RESERVE = 600
ROUNDS_USED_UP = "(Tool rounds are used up: answer the person now, in words.)"
CALLS_USED_UP = (
    "({n} tool call(s) were not made: a turn makes at most {cap} tool calls and has room for "
    "only so much of their results. Do not ask for them again; answer with what you have.)"
)
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
    #: Calls of the last round that were not run (over the cap or the room).
    not_run: int = 0
    #: Those calls themselves (what was asked for and not done is said: a reminder).
    skipped: list[ToolCall] = field(default_factory=list)


def _parse_arguments(call: ToolCall) -> dict[str, Any]:
    if call.cut:  # past the answer's max_tokens: the client cut them (``familiars.llm``)
        raise ToolError("the arguments are too long (cut off at the answer's length limit)")
    try:
        value = json.loads(call.arguments or "{}")
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
            args = _parse_arguments(call)
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
    max_calls: int = DEFAULT_MAX_CALLS,
    max_request_chars: int | None = None,
) -> ToolTurn:
    """The model's answer after at most ``max_rounds`` rounds and ``max_calls`` calls."""
    room = _Room(max_request_chars)
    history = room.trimmed(list(messages))
    turn = ToolTurn(text="")
    for _ in range(max_rounds):
        result = await model.chat_tools(history, toolbox.specs, max_tokens=max_tokens)
        turn.rounds += 1
        if not result.tool_calls:
            turn.text = result.text
            return turn
        left = max(0, max_calls - len(turn.outcomes))
        exchange = await _run_round(toolbox, result.text, result.tool_calls[:left], room, turn)
        history += exchange
        ran = len(exchange) - 1 if exchange else 0
        turn.skipped += result.tool_calls[ran:]
        turn.not_run = len(result.tool_calls) - ran
        if turn.not_run:
            break
    last = ROUNDS_USED_UP
    if turn.not_run:
        last += " " + CALLS_USED_UP.format(n=turn.not_run, cap=max_calls)
    history.append(ChatMessage("user", last))
    turn.text = (await model.chat(history, max_tokens=max_tokens)).text
    return turn


async def _run_round(
    toolbox: ToolBox, said: str, calls: Sequence[ToolCall], room: _Room, turn: ToolTurn
) -> list[ChatMessage]:
    """The assistant message and the answers of the calls that were run, in order; a call
    runs only while its echo and a short answer still fit the room (none ran: nothing)."""
    answers: list[ChatMessage] = []
    ran: list[ToolCall] = []
    spent = len(said)
    for call in calls:
        echo = len(call.name) + len(call.arguments) + 100
        if not room.fits(spent + echo + _RESERVE):
            break
        outcome = await toolbox.run(call)
        turn.outcomes.append(outcome)
        shown = _cut(tool_data(outcome.result), room.left - spent - echo - _RESERVE)
        answers.append(ChatMessage("tool", shown, tool_call_id=call.id))
        ran.append(call)
        spent += echo + len(shown)
    if not ran:
        return []
    exchange = [ChatMessage("assistant", said, tool_calls=tuple(ran)), *answers]
    for message in exchange:
        room.spend(message)
    return exchange


def _cut(text: str, room: int) -> str:
    limit = max(200, min(MAX_RESULT_CHARS, room))
    if len(text) <= limit:
        return text
    return text[: limit - 40] + "\n...(cut: the result is too long)"


def _size(message: ChatMessage) -> int:
    return len(message.content) + sum(
        len(c.name) + len(c.arguments) + 100 for c in message.tool_calls
    )


class _Room:
    """What a turn's requests may still grow by (unbounded with no limit)."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.left = limit if limit is not None else 1 << 60

    def trimmed(self, messages: list[ChatMessage]) -> list[ChatMessage]:
        """``messages`` with their oldest dialogue turns left out (never the system prompt
        nor the message) until the tools have their share of the room."""
        if self.limit is None:
            return messages
        want = self.limit - int(self.limit * TOOL_ROOM_SHARE)
        first = 1 if messages and messages[0].role == "system" else 0
        while sum(map(_size, messages)) > want and len(messages) > first + 1:
            del messages[first]
        self.left = self.limit - sum(map(_size, messages))
        return messages

    def fits(self, chars: int) -> bool:
        return chars <= self.left

    def spend(self, message: ChatMessage) -> None:
        self.left -= _size(message)
