"""A scripted model that uses the bot's tools, for the fake OpenAI-compatible server.

    script = ToolScript()
    async with FakeOpenAI(script) as server:
        script.turn(call("set_reminder", {"task": "call mom", "when": "tomorrow 9am"}), relay())

Requests of a turn (with ``tools``, streamed, or the last word after the tool rounds) take
the next step; the memory writer's and anything else get an empty write list. ``relay()``
answers with what the tools said, as a model confirming what it did would.
"""

from __future__ import annotations

import html
from collections import deque
from collections.abc import Callable
from typing import Any

from familiars.bot._untrusted import DATA_CLOSE, DATA_OPEN, TOOL_LABEL
from tests.fake_openai import Reply

Step = Reply | Callable[[dict[str, Any]], Reply]
ROUNDS_USED_UP = "(Tool rounds are used up"


def call(*calls: tuple[str, Any]) -> Reply:
    return Reply.tools(*calls)


def one(name: str, args: Any) -> Reply:
    return Reply.tools((name, args))


def unquoted(content: str) -> str:
    """A tool message's text without the data block around it (what the tool said)."""
    lines = content.splitlines()
    if lines[:2] != [TOOL_LABEL, DATA_OPEN] or lines[-1] != DATA_CLOSE:
        raise AssertionError(f"a tool result is not quoted as data: {content!r}")
    return html.unescape("\n".join(lines[2:-1]))


def tool_results(body: dict[str, Any]) -> list[str]:
    """The tool messages that end the request (the answers to the last round), unquoted."""
    found: list[str] = []
    for message in reversed(body["messages"]):
        if message["role"] != "tool":
            break
        found.append(unquoted(message["content"]))
    return found[::-1]


def relay(prefix: str = "") -> Callable[[dict[str, Any]], Reply]:
    def answer(body: dict[str, Any]) -> Reply:
        return Reply.text(prefix + " ".join(tool_results(body)))

    return answer


def is_turn(body: dict[str, Any]) -> bool:
    if "tools" in body or body.get("stream"):
        return True
    last = body["messages"][-1]
    return last["role"] == "user" and str(last["content"]).startswith(ROUNDS_USED_UP)


class ToolScript:
    def __init__(self) -> None:
        self.steps: deque[Step] = deque()
        #: Every request of a turn, in order (the writer's are left out).
        self.turn_requests: list[dict[str, Any]] = []
        #: The memory writer's next answers (each a list of writes); then none.
        self.writes: list[list[dict[str, Any]]] = []

    def turn(self, *steps: Step) -> None:
        self.steps.extend(steps)

    def __call__(self, body: dict[str, Any]) -> Reply:
        if not is_turn(body):
            return Reply.json({"writes": self.writes.pop(0) if self.writes else []})
        self.turn_requests.append(body)
        if not self.steps:
            return Reply.text("(the script has nothing more to say)")
        step = self.steps.popleft()
        return step(body) if callable(step) else step

    def tool_messages(self) -> list[str]:
        """Every tool result the model was shown, once each, in order."""
        return [text for body in self.turn_requests for text in tool_results(body)]
