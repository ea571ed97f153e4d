"""The chat-model interface: one abstract method, ``chat``; the base class supplies streaming
(as one chunk) and structured output (JSON schema, then JSON mode, then prompt-only), and the
optional provider-state abilities (``states``, ``state_time``, ``restore``) with defaults for a
model that has no providers of its own (a router overrides them).

Tool calling (the OpenAI-compatible ``tools`` API) is an optional ability: ``chat_tools``
raises :class:`UnsupportedFeatureError` unless a backend supplies it, and
``supports_tools`` says whether it is worth asking (a provider that refused once is not
asked again)."""

from __future__ import annotations

import json
import logging
import re
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from familiars.llm._errors import UnsupportedFeatureError

logger = logging.getLogger(__name__)

Role = Literal["system", "user", "assistant", "tool"]
StructuredMode = Literal["json_schema", "json_mode", "prompt"]
STRUCTURED_MODES: tuple[StructuredMode, ...] = ("json_schema", "json_mode", "prompt")


@dataclass(frozen=True)
class ToolCall:
    """A model's request to run a tool; ``arguments`` is the raw JSON text it sent (which may
    be broken: the caller validates)."""

    id: str
    name: str
    arguments: str
    #: The answer ran past its ``max_tokens`` before these arguments: they were dropped.
    cut: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True)
class ToolSpec:
    """A tool offered to the model: its name, what it does, and its JSON-schema parameters."""

    name: str
    description: str
    parameters: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


@dataclass(frozen=True)
class ChatMessage:
    role: Role
    content: str
    #: On an assistant message: the tools it asked for. On a tool message: which call it answers.
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            data["tool_calls"] = [call.as_dict() for call in self.tool_calls]
        if self.tool_call_id is not None:
            data["tool_call_id"] = self.tool_call_id
        return data


@dataclass
class ChatResult:
    text: str
    provider: str = ""
    model: str = ""
    #: How structured output was asked for, when it was (json_schema / json_mode / prompt).
    structured_mode: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    #: Tools the model asked to run (only from ``chat_tools``).
    tool_calls: tuple[ToolCall, ...] = ()
    #: The model ran past its ``max_tokens`` (it ignored it): ``text`` is cut at
    #: :func:`output_limit` and ends with :data:`OUTPUT_CUT` (see :func:`cut_output`).
    cut: bool = False


@dataclass
class ProviderState:
    """What ``writer-status`` and the API show about one provider."""

    name: str
    model: str
    status: Literal["ok", "cooling"] = "ok"
    cooling_until: float | None = None
    last_error: str | None = None
    successes: int = 0
    failures: int = 0

    def as_dict(self, now: float | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "model": self.model,
            "status": self.status,
            "cooling_until": self.cooling_until,
            "last_error": self.last_error,
            "successes": self.successes,
            "failures": self.failures,
        }
        if now is not None and self.cooling_until is not None:
            data["cooldown_left_s"] = max(0.0, round(self.cooling_until - now, 1))
        return data


#: A model that ignores ``max_tokens`` is cut at this many characters a token: a runaway
#: answer (a hostile or broken server's megabytes) is never handed on whole, to a reply
#: (a thousand messages on Discord), a tool's arguments, the writer or a proactive message.
CHARS_PER_TOKEN = 8
#: The ``max_tokens`` a call that names none is held to (the writer's JSON).
DEFAULT_MAX_TOKENS = 4096
#: What ends a cut answer.
OUTPUT_CUT = " ...(cut off)"


def output_limit(max_tokens: int | None) -> int:
    """How many characters of an answer asked with ``max_tokens`` are kept."""
    return (max_tokens or DEFAULT_MAX_TOKENS) * CHARS_PER_TOKEN


def cut_output(text: str, room: int) -> str:
    """``text`` cut to ``room`` characters at a word, marked as cut off (:data:`OUTPUT_CUT`)."""
    cut = text[: max(0, room)]
    if " " in cut.strip():
        cut = cut[: cut.rstrip().rfind(" ")]
    return cut.rstrip() + OUTPUT_CUT


def cut_mark(after: str) -> str:
    """:data:`OUTPUT_CUT` to follow ``after`` (the text already given, or its end): without
    its own space when ``after`` ends in one, or is nothing ("word  ...(cut off)" showed two
    spaces after a stream whose pieces end in a space)."""
    return OUTPUT_CUT.lstrip() if not after or after[-1].isspace() else OUTPUT_CUT


#: A ``finish_reason`` that says the server gave up on the reply (vLLM "abort", llama.cpp
#: and others "error"): what came is half a reply.
GAVE_UP = frozenset({"error", "abort", "aborted", "cancelled", "canceled"})


def reply_stop(reason: object) -> str | None:
    """Why a reply ended short, by its ``finish_reason``, the one check for a streamed and a
    whole answer: "length" (its token limit), "failed" (the server gave up: :data:`GAVE_UP`),
    or None (complete, or a tool call)."""
    if reason == "length":
        return "length"
    return "failed" if reason in GAVE_UP else None


def schema_instruction(schema: dict[str, Any]) -> str:
    return (
        "Answer with one JSON object and nothing else (no prose, no code fence). "
        "It must match this JSON schema:\n" + json.dumps(schema, separators=(",", ":"))
    )


def _with_instruction(messages: Sequence[ChatMessage], instruction: str) -> list[ChatMessage]:
    out = list(messages)
    if out and out[0].role == "system":
        out[0] = ChatMessage("system", out[0].content + "\n\n" + instruction)
    else:
        out.insert(0, ChatMessage("system", instruction))
    return out


def _response_format(mode: StructuredMode, schema: dict[str, Any], name: str) -> dict | None:
    if mode == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": False},
        }
    if mode == "json_mode":
        return {"type": "json_object"}
    return None


class ChatModel(ABC):
    """A chat model reached somehow (HTTP, a router over several, an offline stand-in)."""

    name: str = "model"
    model: str = ""
    #: The first structured-output mode to try; later ones are fallbacks.
    structured_output: str = "auto"

    def __init__(self) -> None:
        self._unsupported_modes: set[str] = set()

    @abstractmethod
    async def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        response_format: dict[str, Any] | None = None,
    ) -> ChatResult:
        """One completion for ``messages``."""

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> AsyncIterator[str]:
        """Text chunks as they come; the base class yields the whole reply at once."""
        result = await self.chat(messages, max_tokens=max_tokens, temperature=temperature)
        yield result.text

    def structured_modes(self) -> list[StructuredMode]:
        """Modes to try, in order: from the configured one down to prompt-only."""
        first = self.structured_output
        start = STRUCTURED_MODES.index(first) if first in STRUCTURED_MODES else 0  # type: ignore[arg-type]
        return [m for m in STRUCTURED_MODES[start:] if m not in self._unsupported_modes]

    async def chat_json(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: dict[str, Any],
        name: str = "output",
        max_tokens: int | None = None,
        temperature: float | None = 0.0,
    ) -> ChatResult:
        """A reply that should be JSON matching ``schema``. The caller validates it: local
        models often break JSON whatever the mode. A mode the provider refuses is remembered
        and not asked for again."""
        modes = self.structured_modes() or ["prompt"]
        prompted = _with_instruction(messages, schema_instruction(schema))
        last_exc: UnsupportedFeatureError | None = None
        for mode in modes:
            try:
                result = await self.chat(
                    prompted,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    response_format=_response_format(mode, schema, name),
                )
            except UnsupportedFeatureError as exc:
                logger.info("%s: structured mode %s refused, falling back", self.name, mode)
                self._unsupported_modes.add(mode)
                last_exc = exc
                continue
            result.structured_mode = mode
            return result
        assert last_exc is not None
        raise last_exc

    #: Whether to offer tools: "auto" (try, and remember a refusal), "on", or "off".
    tools: str = "auto"

    @property
    def supports_tools(self) -> bool:
        """A backend that supplies ``chat_tools``, not set to "off", that has not refused."""
        overridden = type(self).chat_tools is not ChatModel.chat_tools
        return overridden and self.tools != "off" and "tools" not in self._unsupported_modes

    async def chat_tools(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> ChatResult:
        """One completion that may ask for tools (``result.tool_calls``)."""
        raise UnsupportedFeatureError(self.name, "tools", "this backend cannot call tools")

    def tools_refused(self) -> None:
        """The provider said it has no tool support: do not offer tools again."""
        self._unsupported_modes.add("tools")

    def states(self) -> list[ProviderState]:
        return []

    def state_time(self) -> float:
        """Now, on the clock that :meth:`states`' ``cooling_until`` is measured on."""
        return time.time()

    def restore(self, saved: Sequence[Mapping[str, Any]]) -> None:
        """Take over provider states saved by an earlier process (``ProviderState.as_dict``);
        a model with no providers of its own has nothing to take over."""
        return None

    async def aclose(self) -> None:
        return None


_FENCE = re.compile(r"^```[a-zA-Z]*\s*\n?(.*?)\n?```\s*$", re.DOTALL)


def extract_json(text: str) -> Any:
    """The JSON value in a model's reply, tolerating a code fence or prose around one object.
    Raises ``ValueError`` with the parser's reason when there is none."""
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    if fenced:
        stripped = fenced.group(1).strip()
    try:
        return json.loads(stripped)
    except json.JSONDecodeError as exc:
        first_error = exc
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        try:
            return json.loads(stripped[start : end + 1])
        except json.JSONDecodeError:
            pass
    raise ValueError(
        f"not JSON: {first_error.msg} at line {first_error.lineno} column {first_error.colno}"
    )
